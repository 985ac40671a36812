//! The `layout` tool: evaluate layout-algebra expressions written with CuTe's names.
//!
//! ```text
//! layout eval "logical_divide((4,2,3):(2,1,8), 4:2)"   # prints ((2,2),(2,3)):((4,1),(2,8))
//! layout print "blocked_product((2,2):(1,2), (2,3):(3,1))"   # the index table
//! layout batch < cases.jsonl                           # one JSON answer per JSON case
//! layout svg "(8,8):(1,8)" > layout.svg                 # pictures: see `SVG_USAGE`
//! ```

use std::io::{BufRead, Write};
use std::process::ExitCode;

use cute_rs_layout_cli::banks::{Access, DEFAULT_ELEMENT_BYTES};
use cute_rs_layout_cli::expr::{eval, Value, OPERATIONS};
use cute_rs_layout_cli::svg;
use cute_rs_layout_cli::tile::Tile;

const USAGE: &str = "usage: layout eval \"<expr>\" | layout print \"<expr>\" | layout batch < cases.jsonl | layout svg ... | layout --help";

/// `layout --help` (also `-h`, `help`): the commands, the expression language and examples; the
/// operations are [`OPERATIONS`], the list the evaluator answers an unknown name with.
fn help() -> String {
    let mut ops = String::new();
    let mut line = String::from("   ");
    for op in OPERATIONS {
        if line.len() + op.len() + 1 > 96 {
            ops.push_str(&line);
            ops.push('\n');
            line = String::from("   ");
        }
        line.push(' ');
        line.push_str(op);
    }
    ops.push_str(&line);
    format!(
        "\
layout: evaluate, print and draw CuTe layouts with CuTe's names (the cute-rs-layout crate)

Commands:
  layout eval \"<expr>\"      print the value of an expression: a layout, tuple or integer
  layout print \"<expr>\"     print a layout's index table (rows: mode 0, columns: the rest)
  layout batch              answer JSON cases on stdin, one a line: {{\"id\":..,\"op\":..,\"args\":[..]}};
                            one JSON answer a line on stdout ({{\"id\",\"result\"}} or {{\"id\",\"error\"}})
  layout svg ...            draw a layout, a thread-value layout or a shared tile's banks (below)
  layout --help             this text

Expressions:
  A literal with a `:` is a layout, shape:stride, nested with parentheses: (4,(2,3)):(1,(8,16)).
  One without is a tuple (shape, coordinate, profile); where a layout is needed it is the compact
  column-major layout of that shape. [l0, l1, ..] is a by-mode tiler; `_` is CuTe's wildcard
  (slice((_,2), (4,3):(1,4))). swizzle(B,M,S) is CuTe's Swizzle<B,M,S>, swizzle(B,M,S, layout) the
  swizzled layout. Calls nest: size(composition(20:2, (5,4):(4,1))).

Operations:
{ops}

Examples:
  layout eval \"logical_divide((4,2,3):(2,1,8), 4:2)\"        ((2,2),(2,3)):((4,1),(2,8))
  layout eval \"complement(4:1, 24)\"                         6:4
  layout eval \"composition((6,2):(8,2), [4:1, 3:2])\"
  layout print \"blocked_product((2,2):(1,2), (2,3):(3,1))\"
  layout svg --tv \"((32,4),(4,1)):((4,128),(1,0))\" --tile \"(128,4)\" > tv.svg

{SVG_USAGE}
"
    )
}

const SVG_USAGE: &str = "\
usage: layout svg \"<layout>\"                       the index table, coloured by index
       layout svg --tv \"<tv layout>\" --tile \"(M,N)\"  a (thread, value) -> index layout over an MxN tile
       layout svg --banks \"<layout>\" [--bytes E] [--read row|col | --threads \"<layout>\"] [--values \"(VM,VN)\"]
                                                   the banks of a shared-memory tile of E-byte elements
                                                   (default 4) and the conflicts of a warp's access:
                                                   --read row: threads along a row (up to 32),
                                                   --read col: threads down a column,
                                                   --threads: a CuTe thread layout (TM,TN) -> thread id;
                                                   each thread reads a (VM,VN) block (default (1,1))
The SVG goes to stdout.";

/// `layout svg ...`: the picture, or the exit status and message of a failure (2: usage).
fn svg_command(args: &[String]) -> Result<String, (u8, String)> {
    let usage = |msg: String| (2u8, format!("{msg}\n{SVG_USAGE}"));
    let failed = |msg: String| (1u8, msg);
    let mut flags: Vec<(&str, &str)> = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if let Some(name) = a.strip_prefix("--") {
            const KNOWN: [&str; 7] = ["tv", "tile", "banks", "bytes", "read", "threads", "values"];
            if !KNOWN.contains(&name) {
                return Err(usage(format!("unknown option {a}")));
            }
            let value = args.get(i + 1).ok_or_else(|| usage(format!("{a} needs a value")))?;
            if flags.iter().any(|(f, _)| *f == name) {
                return Err(usage(format!("{a} is given twice")));
            }
            flags.push((name, value));
            i += 2;
        } else {
            positional.push(a);
            i += 1;
        }
    }
    let flag = |name: &str| flags.iter().find(|(f, _)| *f == name).map(|(_, v)| *v);
    let only = |allowed: &[&str]| match flags.iter().find(|(f, _)| !allowed.contains(f)) {
        Some((f, _)) => Err(usage(format!("--{f} does not go with this picture"))),
        None => Ok(()),
    };
    let tile_of = |text: &str| -> Result<Tile, (u8, String)> {
        let tile = match eval(text).map_err(|e| failed(e.to_string()))? {
            Value::Layout(l) => Tile::new(l),
            Value::Swizzled(s) => Tile::swizzled(s),
            Value::Tuple(t) => Tile::new(cute_rs_layout::make_layout_col_major(t).map_err(|e| failed(e.to_string()))?),
            other => return Err(failed(format!("expected a layout or a swizzled layout, found {other}"))),
        };
        tile.map_err(|e| failed(e.to_string()))
    };
    let pair = |name: &str, text: &str| -> Result<(i64, i64), (u8, String)> {
        let bad = || usage(format!("--{name} must be a pair of integers like (16,8), found {text}"));
        match eval(text) {
            Ok(Value::Tuple(t)) if t.rank() == 2 && !t.is_int() => {
                let size = |i| t.mode(i).and_then(|m| m.product()).map_err(|_| bad());
                Ok((size(0)?, size(1)?))
            }
            _ => Err(bad()),
        }
    };
    let picture = if let Some(tv) = flag("tv") {
        only(&["tv", "tile"])?;
        if !positional.is_empty() {
            return Err(usage("--tv takes the layout as its value: no other argument".into()));
        }
        let tile = pair("tile", flag("tile").ok_or_else(|| usage("--tv needs --tile \"(M,N)\"".into()))?)?;
        let tv = match eval(tv).map_err(|e| failed(e.to_string()))? {
            Value::Layout(l) => l,
            other => return Err(failed(format!("--tv: expected a layout, found {other}"))),
        };
        svg::tv_svg(tv, tile)
    } else if let Some(smem) = flag("banks") {
        only(&["banks", "bytes", "read", "threads", "values"])?;
        if !positional.is_empty() {
            return Err(usage("--banks takes the layout as its value: no other argument".into()));
        }
        let tile = tile_of(smem)?;
        let bytes = match flag("bytes") {
            None => DEFAULT_ELEMENT_BYTES,
            Some(b) => b.parse().map_err(|_| usage(format!("--bytes must be an integer, found {b}")))?,
        };
        let values = flag("values").map(|v| pair("values", v)).transpose()?.unwrap_or((1, 1));
        if values.0 < 1 || values.1 < 1 {
            return Err(failed(format!("--values: a value block must be at least (1,1), found ({},{})", values.0, values.1)));
        }
        let access = match (flag("read"), flag("threads")) {
            (Some(_), Some(_)) => return Err(usage("give --read or --threads, not both".into())),
            (None, None) if flag("values").is_some() => return Err(usage("--values needs --read or --threads".into())),
            (None, None) => None,
            (Some(line @ ("row" | "col")), None) => {
                // As many threads as the line holds value blocks, up to a warp.
                let (cells, block) = if line == "row" { (tile.cols(), values.1) } else { (tile.rows(), values.0) };
                if cells < block {
                    return Err(failed(format!("--read {line}: a {line} of {cells} cells holds no value block of {block}")));
                }
                let threads = (cells / block).min(32);
                Some(if line == "row" { Access::row(threads, values) } else { Access::column(threads, values) })
            }
            (Some(other), None) => return Err(usage(format!("--read must be row or col, found {other}"))),
            (None, Some(t)) => match eval(t).map_err(|e| failed(e.to_string()))? {
                Value::Layout(l) => Some(Access::new(l, values)),
                other => return Err(failed(format!("--threads: expected a layout, found {other}"))),
            },
        };
        let access = access.transpose().map_err(|e| failed(e.to_string()))?;
        svg::bank_svg(tile, bytes, access.as_ref())
    } else {
        only(&[])?;
        match positional.as_slice() {
            [expr] => svg::layout_svg(tile_of(expr)?),
            _ => return Err(usage("expected one layout expression".into())),
        }
    };
    picture.map_err(|e| failed(e.to_string()))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--help" | "-h" | "help") => {
            print!("{}", help());
            ExitCode::SUCCESS
        }
        Some("eval") if args.len() == 2 => match eval(&args[1]) {
            Ok(v) => {
                println!("{v}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Some("print") if args.len() == 2 => match eval(&args[1]) {
            // The table has a cell per element: beyond a picture's size it is no use to anyone.
            Ok(Value::Layout(l)) if l.size() > cute_rs_layout_cli::svg::MAX_CELLS => {
                eprintln!(
                    "error: print shows at most {} elements, {l} has {} (`layout eval` gives its properties)",
                    cute_rs_layout_cli::svg::MAX_CELLS,
                    l.size()
                );
                ExitCode::FAILURE
            }
            Ok(Value::Swizzled(s)) if s.layout().size() > cute_rs_layout_cli::svg::MAX_CELLS => {
                eprintln!(
                    "error: print shows at most {} elements, {s} has {}",
                    cute_rs_layout_cli::svg::MAX_CELLS,
                    s.layout().size()
                );
                ExitCode::FAILURE
            }
            Ok(Value::Layout(l)) => {
                print!("{}", cute_rs_layout::print_layout(l));
                ExitCode::SUCCESS
            }
            Ok(Value::Swizzled(s)) => {
                println!("{s}");
                let l = s.layout();
                let rows = if l.rank() >= 2 { l.mode(0).map(|m| m.size()).unwrap_or(l.size()) } else { l.size() };
                for m in 0..rows {
                    let row: Vec<String> = (0..l.size() / rows).map(|n| s.call(m + n * rows).to_string()).collect();
                    println!("{}", row.join(" "));
                }
                ExitCode::SUCCESS
            }
            Ok(other) => {
                println!("{other}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Some("svg") => match svg_command(&args[1..]) {
            Ok(picture) => {
                print!("{picture}");
                ExitCode::SUCCESS
            }
            Err((code, msg)) => {
                eprintln!("error: {msg}");
                ExitCode::from(code)
            }
        },
        Some("batch") if args.len() == 1 => {
            let stdin = std::io::stdin();
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for line in stdin.lock().lines() {
                let line = match line {
                    Ok(l) => l,
                    Err(e) => format!("<unreadable line: {e}>"),
                };
                // Every line gets exactly one answer (a blank one an error), flushed at once so that
                // answers already computed survive whatever a later line does to the process.
                if writeln!(out, "{}", cute_rs_layout_cli::batch::answer(&line)).is_err() || out.flush().is_err() {
                    return ExitCode::FAILURE;
                }
            }
            let _ = out.flush();
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
