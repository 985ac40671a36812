//! A seeded fuzzer over the layout algebra and the `layout` tool, run for a bounded time.
//!
//! Inputs: random layouts and tilers (nesting depth up to 3, rank up to 4, up to 32 leaves, strides
//! with 0 and negatives, shapes up to 2^20, products near i64 overflow), random arguments for every
//! operation of the tool, and malformed notation (unbalanced parentheses, huge integers, empty
//! tuples, unicode, megabyte strings, 10,000-deep nesting).
//!
//! Properties: no panic, no hang, no stack overflow; every error is a `LayoutError` (or, in the
//! tool, an error message naming its condition), never a panic; every `Ok` of the algebra meets its
//! operation's post-conditions (checked as functions, at sampled indices); `layout batch` answers
//! each input line with exactly one JSON line.
//!
//! `FUZZ_SECONDS` (default 30) bounds the run, `FUZZ_SEED` picks the sequence (default fixed, so
//! that CI is reproducible; a failure prints `FUZZ_SEED`'s value and the input). Inputs that
//! failed are kept as regression tests at the end of this file.

use std::time::{Duration, Instant};

use cute_rs_layout::*;
use cute_rs_layout_cli::batch::answer;
use cute_rs_layout_cli::expr::{eval, OPERATIONS};

/// splitmix64: small, seedable, good enough to spread cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}

fn shape(r: &mut Rng) -> i64 {
    match r.below(10) {
        0 => r.range(1, 1 << 20),
        1 => 1,
        2 => 1 << r.range(0, 20),
        _ => r.range(1, 8),
    }
}

fn stride(r: &mut Rng) -> i64 {
    match r.below(12) {
        0 => 0,
        1 => -r.range(1, 64),
        2 => r.range(1, 1 << 20),
        3 => (1i64 << r.range(30, 61)) * if r.chance(50) { 1 } else { -1 },
        4 => 1,
        _ => r.range(0, 64),
    }
}

/// A nested tuple of `n` leaves, depth at most `depth`, rank at most 4, in CuTe notation, with the
/// leaves given by `leaf`.
fn nest(r: &mut Rng, n: usize, depth: usize, leaf: &mut dyn FnMut() -> String) -> String {
    if n == 1 && (depth == 0 || r.chance(70)) {
        return leaf();
    }
    if depth == 0 {
        // Out of depth: a flat tuple.
        return format!("({})", (0..n).map(|_| leaf()).collect::<Vec<_>>().join(","));
    }
    let rank = (r.range(1, 4) as usize).min(n.max(1));
    let mut sizes = vec![1usize; rank];
    for _ in rank..n {
        let k = r.below(rank as u64) as usize;
        sizes[k] += 1;
    }
    let parts: Vec<String> = sizes.iter().map(|&m| nest(r, m, depth - 1, leaf)).collect();
    format!("({})", parts.join(","))
}

/// A random layout in notation (it may be invalid: overflow, which is an error to report).
fn layout_text(r: &mut Rng) -> String {
    let n = match r.below(10) {
        0 => r.range(9, 33) as usize,
        _ => r.range(1, 5) as usize,
    };
    let seed = r.next();
    let near_overflow = r.chance(10);
    // The same tree for shape and stride: replay the generator with the same seed.
    let mut shapes = Rng(seed);
    let mut leaf_r = Rng(r.next());
    let shape_text = nest(&mut shapes, n, 3, &mut || {
        if near_overflow {
            (1i64 << leaf_r.range(14, 31)).to_string()
        } else {
            shape(&mut leaf_r).to_string()
        }
    });
    let mut strides = Rng(seed);
    let mut leaf_d = Rng(r.next());
    let stride_text = nest(&mut strides, n, 3, &mut || stride(&mut leaf_d).to_string());
    format!("{shape_text}:{stride_text}")
}

fn layout(r: &mut Rng) -> Layout {
    loop {
        if let Ok(l) = Layout::parse(&layout_text(r)) {
            return l;
        }
    }
}

/// A small layout (size at most 4096), for checks that evaluate every index.
fn small_layout(r: &mut Rng) -> Layout {
    loop {
        let l = layout(r);
        if l.size() <= 4096 {
            return l;
        }
    }
}

/// Malformed (and some well-formed) notation.
fn garbage(r: &mut Rng) -> String {
    match r.below(12) {
        0 => "(".repeat(r.range(1, 20_000) as usize),
        1 => format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000)),
        2 => format!("({}):(1)", "9".repeat(r.range(19, 400) as usize)),
        3 => "():()".to_string(),
        4 => "((),()):((),())".to_string(),
        5 => "(4,ü):(1,∞)".to_string(),
        6 => "a".repeat(1 << 20),
        7 => format!("{}:{}", "(".repeat(50), ")".repeat(49)),
        8 => format!("(4,2):(1,{})", i64::MIN),
        9 => format!("(9223372036854775807,2):(1,{})", i64::MAX),
        10 => {
            let mut s = layout_text(r);
            if !s.is_empty() {
                let k = r.below(s.len() as u64) as usize;
                if s.is_char_boundary(k) {
                    s.remove(k);
                }
            }
            s
        }
        _ => format!("{}{}", layout_text(r), r.pick(&[")", "(", ",", ":", "_", " ", "-", "[", "]"])),
    }
}

/// An argument of the tool's expressions: a layout, tuple, integer, tiler list or garbage.
fn argument(r: &mut Rng) -> String {
    match r.below(10) {
        0 => r.range(-3, 40).to_string(),
        1 => {
            let n = r.range(1, 3);
            format!("[{}]", (0..n).map(|_| layout_text(r)).collect::<Vec<_>>().join(","))
        }
        2 => {
            let n = r.range(1, 4) as usize;
            let mut lr = Rng(r.next());
            nest(r, n, 2, &mut || lr.range(0, 8).to_string())
        }
        3 => garbage(r),
        4 => "_".to_string(),
        _ => layout_text(r),
    }
}

/// The error text of the tool: non-empty, and the wildcard is never shown as its integer value.
fn check_message(what: &str, msg: &str) {
    if what.contains("9223372036854775808") {
        // An error may quote its input.
        return;
    }
    let what: String = what.chars().take(200).collect();
    assert!(!msg.is_empty(), "{what}: empty error");
    // (The one message about the JSON number -2^63 itself quotes it.)
    if !msg.contains("reserved for the wildcard") {
        assert!(!msg.contains("9223372036854775808"), "{what}: the wildcard printed as an integer: {msg}");
    }
    assert!(!msg.contains("panic"), "{what}: {msg}");
}

fn sample(n: i64) -> impl Iterator<Item = i64> {
    let step = (n / 64).max(1);
    (0..n.min(64)).chain((0..n).step_by(step as usize)).chain((n - 64).max(0)..n)
}

/// `A(x)` computed in i128 (A is valid; `x` may lie past its size).
fn call128(a: &Layout, x: i64) -> i128 {
    let s = a.shape();
    let d = a.stride();
    let (s, d) = (s.leaves(), d.leaves());
    if s.is_empty() {
        return 0;
    }
    let mut c = x as i128;
    let mut v = 0i128;
    for k in 0..s.len() - 1 {
        v += (c % s[k] as i128) * d[k] as i128;
        c /= s[k] as i128;
    }
    v + c * d[s.len() - 1] as i128
}

/// Runs the algebra on `a`, `b` and checks every `Ok` against its post-conditions.
fn check_algebra(a: Layout, b: Layout, m: i64) {
    let ctx = format!("A = {a}, B = {b}, M = {m}");
    if let Ok(r) = composition(a, b) {
        assert!(b.shape().compatible(&r.shape()), "composition not compatible with B: {ctx} -> {r}");
        for i in sample(b.size()) {
            assert_eq!(r.call(i) as i128, call128(&a, b.call(i)), "composition({ctx}) = {r} at {i}");
        }
    }
    let c = coalesce(a);
    assert_eq!(c.size(), a.size(), "coalesce({a})");
    for i in sample(a.size()) {
        assert_eq!(c.call(i), a.call(i), "coalesce({a}) = {c} at {i}");
    }
    let ri = right_inverse(a);
    for i in sample(ri.size()) {
        assert_eq!(a.call(ri.call(i)), i, "right_inverse({a}) = {ri} at {i}");
    }
    if let Ok(li) = left_inverse(a) {
        for i in sample(a.size()) {
            assert_eq!(li.call(a.call(i)), i, "left_inverse({a}) = {li} at {i}");
        }
    }
    if let Ok(r) = complement(a, m) {
        let size = r.size() as i128 * filter(a).size() as i128;
        assert!(size >= m as i128, "complement({ctx}) = {r} covers too little");
        for i in 1..r.size().min(64) {
            assert!(r.call(i) > r.call(i - 1), "complement({ctx}) = {r} is not ordered");
        }
    }
    if let Ok(d) = logical_divide(a, b) {
        let t = make_layout(&[b, complement(b, a.size()).unwrap()]).unwrap();
        assert_eq!(d.size(), t.size(), "logical_divide({ctx}) = {d}");
        for i in sample(t.size()) {
            assert_eq!(d.call(i) as i128, call128(&a, t.call(i)), "logical_divide({ctx}) = {d} at {i}");
        }
    }
    if let Ok(p) = logical_product(a, b) {
        assert_eq!(p.mode(0).unwrap(), a, "logical_product({ctx}) = {p}: mode 0 is not A");
        assert_eq!(p.size() as i128, a.size() as i128 * b.size() as i128, "logical_product({ctx}) = {p}");
    }
    for (name, r) in [("blocked_product", blocked_product(a, b)), ("raked_product", raked_product(a, b))] {
        if let Ok(p) = r {
            assert_eq!(p.size() as i128, a.size() as i128 * b.size() as i128, "{name}({ctx}) = {p}");
        }
    }
    for i in sample(a.size()).take(16) {
        let crd = idx2crd(i, a.shape()).unwrap_or_else(|e| panic!("idx2crd({i}, {a}): {e}"));
        assert_eq!(crd2idx(crd, a), Ok(a.call(i)), "crd2idx(idx2crd({i})) on {a}");
    }
    let _ = (upcast(a, m), downcast(a, m), max_common_vector(a, b), max_common_layout(a, b), nullspace(a));
    let _ = (zipped_divide(a, b), tiled_divide(a, b), flat_divide(a, b), tiled_product(a, b), flat_product(a, b));
    let _ = (tile_to_shape(a, b.shape(), None), make_layout_like(a), filter_zeros(a));
    if a.size() <= 4096 {
        let _ = print_layout(a).to_string();
    }
}

/// A tool expression: a random operation on random arguments, or garbage.
fn expression(r: &mut Rng) -> String {
    if r.chance(10) {
        return garbage(r);
    }
    let op = r.pick(OPERATIONS);
    let n = r.range(0, 4);
    let mut e = format!("{op}({})", (0..n).map(|_| argument(r)).collect::<Vec<_>>().join(", "));
    if r.chance(5) {
        for _ in 0..r.range(1, 100) {
            e = format!("size({e})");
        }
    }
    e
}

fn batch_line(r: &mut Rng, id: usize) -> String {
    match r.below(20) {
        0 => String::new(),
        1 => garbage(r),
        2 => format!(r#"{{"id": {id}, "op": "size", "args": [{}]}}"#, r.pick(&["-9223372036854775808", "1e400", "[[[[", "null"])),
        _ => {
            let op = r.pick(OPERATIONS);
            let n = r.range(0, 3);
            let args: Vec<String> = (0..n)
                .map(|_| match r.below(6) {
                    0 => r.range(-3, 100).to_string(),
                    1 => format!("[{}]", serde_json::to_string(&layout_text(r)).unwrap()),
                    _ => serde_json::to_string(&argument(r)).unwrap(),
                })
                .collect();
            format!(r#"{{"id": {id}, "op": "{op}", "args": [{}]}}"#, args.join(", "))
        }
    }
}

fn budget() -> Duration {
    let secs = std::env::var("FUZZ_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(30.0f64);
    Duration::from_secs_f64(secs)
}

fn seed() -> u64 {
    std::env::var("FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed_1a70)
}

/// Runs `f` on inputs `0, 1, 2, ...` until its share of `FUZZ_SECONDS` runs out; a panic names
/// the `FUZZ_SEED` value and the input that caused it.
fn run_for(name: &str, share: f64, mut f: impl FnMut(&mut Rng) -> String) -> usize {
    let deadline = Instant::now() + budget().mul_f64(share);
    let mut n = 0;
    while Instant::now() < deadline {
        let case_seed = seed().wrapping_add(n as u64).wrapping_mul(0x2545_f491_4f6c_dd1d);
        let mut r = Rng(case_seed);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut r)));
        if let Err(e) = result {
            let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            panic!("{name}: case {n} (case seed {case_seed}) failed: {}", msg.unwrap_or_default());
        }
        n += 1;
    }
    eprintln!("{name}: {n} cases");
    n
}

#[test]
fn fuzz_the_algebra() {
    let n = run_for("algebra", 0.45, |r| {
        let (a, b) = if r.chance(50) { (small_layout(r), small_layout(r)) } else { (layout(r), layout(r)) };
        let m = *r.pick(&[1, 2, 7, 24, 1 << 20, a.cosize().max(1), i64::MAX / 2]);
        check_algebra(a, b, m);
        format!("{a} {b}")
    });
    assert!(n > 0);
}

#[test]
fn fuzz_notation_and_expressions() {
    let n = run_for("expressions", 0.3, |r| {
        let text = if r.chance(30) { garbage(r) } else { expression(r) };
        let _ = Layout::parse(&text);
        let _ = IntTuple::parse(&text);
        if let Err(e) = eval(&text) {
            check_message(&text, &e.to_string());
        }
        text
    });
    assert!(n > 0);
}

#[test]
fn fuzz_batch_answers_every_line() {
    let mut all_lines = Vec::new();
    let n = run_for("batch", 0.2, |r| {
        let id = r.below(1000) as usize;
        let line = batch_line(r, id);
        let out = answer(&line);
        let json: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{line:.200}: not JSON ({e}): {out}"));
        if let Some(e) = json.get("error") {
            check_message(&line, e.as_str().unwrap_or(""));
        } else {
            assert!(json.get("result").is_some(), "{line:.200}: neither result nor error: {out}");
        }
        if all_lines.len() < 2000 {
            all_lines.push(line.replace('\n', " "));
        }
        String::new()
    });
    assert!(n > 0);
    // The tool itself, on all of them at once: one line out per line in.
    let input = all_lines.join("\n") + "\n";
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_layout"))
        .arg("batch")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "layout batch failed: {:?}", out.status);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), all_lines.len(), "layout batch: one answer per line");
}

// Regressions found by the fuzzer and by comparison with CuTe, each its minimal input.

/// A wildcard where the tool wants an integer was read as -2^63 and printed as such.
#[test]
fn regression_wildcard_as_an_integer_argument() {
    let e = eval("select((1,2,3):(48,3,376129), _)").unwrap_err().to_string();
    assert_eq!(e, "select: expected an integer, found _");
}

/// `():()` panicked in `cosize` (index out of bounds).
#[test]
fn regression_empty_layout() {
    let e = Layout::empty();
    check_algebra(e, e, 1);
    check_algebra(e, Layout::parse("4:1").unwrap(), 4);
    check_algebra(Layout::parse("4:1").unwrap(), e, 4);
}
