//! Every case of the CuTe conformance file (results computed by NVIDIA's C++ CuTe) passes exactly,
//! through the same code path as `layout batch`.
//!
//! The file is `shared/conformance/cases.jsonl` beside the repository when present (the project's
//! shared folder), else the copy vendored in `tests/conformance/cases.jsonl`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

fn cases_path() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = root.join("../shared/conformance/cases.jsonl");
    if shared.exists() {
        shared
    } else {
        root.join("tests/conformance/cases.jsonl")
    }
}

#[test]
fn every_conformance_case_matches_cute() {
    let path = cases_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut total = 0;
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON case");
        let answer: Value = serde_json::from_str(&cute_rs_layout_cli::batch::answer(line)).expect("a JSON answer");
        assert_eq!(answer["id"], case["id"], "the answer names its case");
        total += 1;
        if answer.get("result") != Some(&case["expect"]) {
            let op = case["op"].as_str().unwrap_or("?").to_string();
            failures.entry(op).or_default().push(format!(
                "{} {}: expected {}, got {}",
                case["id"], case["args"], case["expect"], answer
            ));
        }
    }
    assert!(total >= 1365, "only {total} cases read from {}", path.display());
    let failed: usize = failures.values().map(Vec::len).sum();
    assert!(
        failed == 0,
        "{failed} of {total} conformance cases differ from CuTe:\n{}",
        failures.values().flatten().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
    println!("{total} conformance cases match CuTe");
}

#[test]
fn the_vendored_copy_is_the_shared_file() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = root.join("../shared/conformance/cases.jsonl");
    if !shared.exists() {
        println!("shared/ is not beside the repository: the vendored copy is used as it is");
        return;
    }
    let vendored = std::fs::read_to_string(root.join("tests/conformance/cases.jsonl")).unwrap();
    let current = std::fs::read_to_string(&shared).unwrap();
    assert!(
        vendored == current,
        "tests/conformance/cases.jsonl differs from shared/conformance/cases.jsonl: copy the shared file over"
    );
}

#[test]
fn batch_answers_every_line_even_invalid_ones() {
    for (line, want) in [
        ("{", "invalid JSON"),
        (r#"{"id": 1, "op": "nope", "args": []}"#, "unknown operation"),
        (r#"{"id": 2, "op": "complement", "args": ["(2,2):(1,1)", 4]}"#, "injectivity"),
        (r#"{"id": 3, "op": "size"}"#, "missing array field `args`"),
        (r#"{"id": 4, "op": "size", "args": ["(2,"]}"#, "parse error"),
    ] {
        let answer: Value = serde_json::from_str(&cute_rs_layout_cli::batch::answer(line)).unwrap();
        let err = answer["error"].as_str().unwrap_or_else(|| panic!("{line}: no error in {answer}"));
        assert!(err.contains(want), "{line}: error {err:?} should mention {want:?}");
    }
}
