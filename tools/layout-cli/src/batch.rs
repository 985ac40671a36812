//! `layout batch`: one JSON case a line in, one JSON answer a line out (the conformance format of
//! `shared/conformance/cases.jsonl`: fields `id`, `op`, `args`).
//!
//! ```
//! let line = r#"{"id": "x", "op": "logical_divide", "args": ["(4,2,3):(2,1,8)", "4:2"]}"#;
//! assert_eq!(cute_rs_layout_cli::batch::answer(line), r#"{"id":"x","result":"((2,2),(2,3)):((4,1),(2,8))"}"#);
//! ```

use serde_json::{json, Value as Json};

use crate::expr::{apply, ExprError, Value};

/// Converts a JSON argument: a number is an integer, a string a layout or tuple in CuTe notation,
/// an array a by-mode tiler.
fn argument(j: &Json) -> Result<Value, ExprError> {
    match j {
        // i64::MIN is the algebra's `_` (a wildcard): as a number it is out of range.
        Json::Number(n) => match n.as_i64() {
            Some(cute_rs_layout::UNDERSCORE) => Err(ExprError(format!(
                "integer range: {n} is reserved for the wildcard `_` (write \"_\" for it)"
            ))),
            Some(v) => Ok(Value::Num(v)),
            None => Err(ExprError(format!("not an i64: {n}"))),
        },
        Json::String(s) => Value::literal(s),
        Json::Array(items) => Ok(Value::List(items.iter().map(argument).collect::<Result<_, _>>()?)),
        other => Err(ExprError(format!("unsupported argument {other}"))),
    }
}

fn result_json(v: &Value) -> Json {
    match v {
        Value::Num(n) => json!(n),
        // An integer coordinate is an integer, as CuTe prints it.
        Value::Tuple(t) if t.is_int() => t.value().map_or(Json::Null, |v| json!(v)),
        Value::List(items) => Json::Array(items.iter().map(result_json).collect()),
        other => json!(other.to_string()),
    }
}

/// Answers one input line: `{"id": .., "result": ..}` or `{"id": .., "error": ".."}`.
/// Never fails: a line that is not a valid case gets an error answer (with a null id if it has none).
///
/// # Example
/// ```
/// let out = cute_rs_layout_cli::batch::answer(r#"{"id": "c1", "op": "complement", "args": ["4:1", 24]}"#);
/// assert_eq!(out, r#"{"id":"c1","result":"6:4"}"#);
/// let out = cute_rs_layout_cli::batch::answer("not json");
/// assert!(out.contains("\"error\""));
/// // A blank line is answered too (every input line gets exactly one answer).
/// assert!(cute_rs_layout_cli::batch::answer("").contains("\"error\""));
/// // -2^63 is the wildcard's value, not a number a case can pass.
/// let out = cute_rs_layout_cli::batch::answer(r#"{"id": 1, "op": "size", "args": [-9223372036854775808]}"#);
/// assert!(out.contains("reserved for the wildcard"), "{out}");
/// ```
pub fn answer(line: &str) -> String {
    let case: Json = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return json!({"id": Json::Null, "error": format!("invalid JSON: {e}")}).to_string(),
    };
    let id = case.get("id").cloned().unwrap_or(Json::Null);
    let run = || -> Result<Value, ExprError> {
        let op = case.get("op").and_then(Json::as_str).ok_or_else(|| ExprError("missing string field `op`".into()))?;
        let args = case.get("args").and_then(Json::as_array).ok_or_else(|| ExprError("missing array field `args`".into()))?;
        let args = args.iter().map(argument).collect::<Result<Vec<_>, _>>()?;
        apply(op, &args)
    };
    // A panic would be a bug; still, one bad case must not stop the batch.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(v)) => json!({"id": id, "result": result_json(&v)}).to_string(),
        Ok(Err(e)) => json!({"id": id, "error": e.0}).to_string(),
        Err(_) => json!({"id": id, "error": "internal error (panic)"}).to_string(),
    }
}
