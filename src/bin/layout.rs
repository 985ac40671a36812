//! The `layout` tool: evaluate layout-algebra expressions written with CuTe's names.
//!
//! ```text
//! layout eval "logical_divide((4,2,3):(2,1,8), 4:2)"   # prints ((2,2),(2,3)):((4,1),(2,8))
//! layout print "blocked_product((2,2):(1,2), (2,3):(3,1))"   # the index table
//! layout batch < cases.jsonl                           # one JSON answer per JSON case
//! ```

use std::io::{BufRead, Write};
use std::process::ExitCode;

use cute_rs::expr::{eval, Value};

const USAGE: &str = "usage: layout eval \"<expr>\" | layout print \"<expr>\" | layout batch < cases.jsonl";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
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
            Ok(Value::Layout(l)) => {
                print!("{}", layout::print_layout(l));
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
        Some("batch") if args.len() == 1 => {
            let stdin = std::io::stdin();
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for line in stdin.lock().lines() {
                let line = match line {
                    Ok(l) => l,
                    Err(e) => format!("<unreadable line: {e}>"),
                };
                if line.trim().is_empty() {
                    continue;
                }
                if writeln!(out, "{}", cute_rs::batch::answer(&line)).is_err() {
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
