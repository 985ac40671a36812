//! Inputs that crashed the `layout` tool (panics, stack overflows, lost batch answers): each is now
//! answered with an error naming the violated condition, and `batch` answers every line.

use std::io::Write;
use std::process::{Command, Stdio};

use cute_rs_layout_cli::batch::answer;
use cute_rs_layout_cli::expr::{eval, OPERATIONS};
use serde_json::Value;

fn layout_tool(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_layout"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the layout tool runs");
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `():()` (the empty layout, the constant 0) panicked in `cosize` through many operations.
#[test]
fn the_empty_layout_is_answered_by_every_operation() {
    for op in OPERATIONS {
        for args in ["():()", "():(), ():()", "():(), 4", "4:1, ():()", "():(), (4,4)", "(), ():()"] {
            let text = format!("{op}({args})");
            let r = std::panic::catch_unwind(|| eval(&text));
            assert!(r.is_ok(), "{text} panicked");
        }
    }
    assert_eq!(eval("cosize(():())").unwrap().to_string(), "1");
    assert_eq!(eval("complement(():())").unwrap().to_string(), "1:0");
    let (code, out, _) = layout_tool(&["print", "():()"], "");
    assert_eq!(code, 0);
    assert!(out.starts_with("():()"), "{out}");
}

/// Deep nesting overflowed the stack (an abort, not an error): tuples are bounded by the nesting
/// tokens a tuple holds, calls and lists by the expression's depth limit.
#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let tuple = format!("{}1{}", "(".repeat(10_400), ")".repeat(10_400));
    let (code, _, err) = layout_tool(&["eval", &tuple], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("capacity") && err.contains("nesting tokens"), "{err}");
    let calls = format!("{}4:1{}", "size(".repeat(3_400), ")".repeat(3_400));
    let (code, _, err) = layout_tool(&["eval", &calls], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("depth limit"), "{err}");
    let lists = format!("composition(4:1, {}4:1{})", "[".repeat(3_400), "]".repeat(3_400));
    assert!(eval(&lists).unwrap_err().to_string().contains("depth limit"));
    assert!(eval(&"(".repeat(1 << 20)).is_err());
}

/// Every input line gets exactly one answer, in order, whatever the line: blank, not JSON, a
/// megabyte of `(`, a deep tuple or call, the wildcard's value as a number.
#[test]
fn batch_answers_every_line_once_in_order() {
    let lines = [
        r#"{"id": 0, "op": "size", "args": ["4:1"]}"#.to_string(),
        String::new(),
        "   ".to_string(),
        format!(r#"{{"id": 3, "op": "size", "args": ["{}"]}}"#, "(".repeat(1 << 20)),
        format!(r#"{{"id": 4, "op": "size", "args": ["{}1{}"]}}"#, "(".repeat(10_400), ")".repeat(10_400)),
        format!(r#"{{"id": 5, "op": "size", "args": ["{}4:1{}"]}}"#, "size(".repeat(3_400), ")".repeat(3_400)),
        r#"{"id": 6, "op": "size", "args": [-9223372036854775808]}"#.to_string(),
        format!("[{}]", "[".repeat(100_000)),
        r#"{"id": 8, "op": "cosize", "args": ["():()"]}"#.to_string(),
    ];
    let input = lines.join("\n") + "\n";
    let (code, out, err) = layout_tool(&["batch"], &input);
    assert_eq!(code, 0, "{err}");
    let answers: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).expect("a JSON answer")).collect();
    assert_eq!(answers.len(), lines.len(), "{out}");
    assert_eq!(answers[0]["result"], 4);
    for (k, a) in answers.iter().enumerate().skip(1).take(7) {
        assert!(a["error"].is_string(), "line {k}: {a}");
        assert!(!a["error"].as_str().unwrap().contains("panic"), "line {k}: {a}");
    }
    assert_eq!(answers[3]["id"], 3);
    assert!(answers[6]["error"].as_str().unwrap().contains("reserved for the wildcard"));
    assert_eq!(answers[8]["result"], 1);
}

/// The wildcard `_` is `i64::MIN` inside the algebra: errors name it `_`, not -9223372036854775808.
#[test]
fn errors_print_the_wildcard_as_underscore() {
    let e = eval("(4,_):(1,2)").unwrap_err().to_string();
    assert_eq!(e, "make_layout: shape must be positive, found _");
    let a: Value = serde_json::from_str(&answer(r#"{"id": 1, "op": "crd2idx", "args": ["(_,1)", "(4,2):(1,4)"]}"#)).unwrap();
    assert!(!a.to_string().contains("9223372036854775808"), "{a}");
}

#[test]
fn help_names_every_command_and_operation_and_its_examples_evaluate() {
    for flag in ["--help", "-h", "help"] {
        let (code, out, err) = layout_tool(&[flag], "");
        assert_eq!(code, 0, "{flag}: {err}");
        for command in ["layout eval", "layout print", "layout batch", "layout svg"] {
            assert!(out.contains(command), "{flag} does not name `{command}`");
        }
        for op in cute_rs_layout_cli::expr::OPERATIONS {
            assert!(out.split_whitespace().any(|w| w == *op), "{flag} does not list the operation {op}");
        }
    }
    // Each `layout eval` example of the help gives the value printed beside it.
    let (_, out, _) = layout_tool(&["--help"], "");
    let mut examples = 0;
    let examples_part = out.split_once("Examples:").expect("the help has examples").1;
    for line in examples_part.lines().filter(|l| l.trim_start().starts_with("layout eval \"")) {
        let rest = line.trim_start().trim_start_matches("layout eval \"");
        let (expr, shown) = rest.split_once('"').unwrap();
        let (code, value, err) = layout_tool(&["eval", expr], "");
        assert_eq!(code, 0, "{expr}: {err}");
        if !shown.trim().is_empty() {
            assert_eq!(value.trim(), shown.trim(), "the help's value of {expr}");
        }
        examples += 1;
    }
    assert!(examples >= 3, "the help shows {examples} eval examples");
    // Without a command the tool points at the help.
    let (code, _, err) = layout_tool(&[], "");
    assert_eq!(code, 2);
    assert!(err.contains("layout --help"), "{err}");
}
