//! How EvalScope's dataset loader (Hugging Face `datasets` 5.x reading a local folder's
//! `test.jsonl` into Arrow) rewrites a record before the adapter sees it (spec §9 item 12).
//! The rewriting depends on the whole file, so it runs over all records at once:
//!
//! - **Mixed-type fields become JSON.** Per field path (`rubrics[].rubric_number`, `id`, ...),
//!   over every non-null value in the file: when strings, numbers and booleans are mixed, or
//!   containers are mixed with scalars, or (below the top level) objects have different key
//!   sets, the field is stored as JSON: a *string* that parses as JSON (pandas' `ujson`: leading
//!   zeros and surrounding whitespace allowed, `5.` and `-` accepted, `NaN` → null,
//!   `Infinity` → inf) is read back as that value (`"07"` → 7, `"true"` → True, `"3e0"` →
//!   3.0); other strings stay; numbers pass through `ujson` (10 decimals). A field that only
//!   holds strings is left alone (`"07"` stays `07`).
//! - **Integers and floats in one field** are all floats (`1` → `1.0`).
//! - **A top-level key missing from a record** but present in another is `null` there (so a
//!   missing `question` renders as `None`).
//!
//! Measured on `datasets` 5.2.0 (`load_dataset(folder, split='test')`), the version the spec's
//! probes were made with; `datasets` 4.x aborts on the same files instead.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Item,
}

/// What the loader does to a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rewrite {
    Json,
    Float,
}

/// Rewrite `records` (one JSON value per dataset line) as the loader would.
pub fn rewrite_mixed_types(records: &mut [Value]) {
    let objects: Vec<&Value> = records.iter().filter(|r| r.is_object()).collect();
    let mut plan = Vec::new();
    analyze(&mut Vec::new(), objects, true, &mut plan);
    for record in records.iter_mut().filter(|r| r.is_object()) {
        for (path, rewrite) in &plan {
            apply(record, path, *rewrite);
        }
    }
    let keys: BTreeSet<String> = records.iter().filter_map(Value::as_object).flat_map(|o| o.keys().cloned()).collect();
    for record in records.iter_mut() {
        if let Value::Object(o) = record {
            for key in &keys {
                o.entry(key.clone()).or_insert(Value::Null);
            }
        }
    }
}

fn key_set(o: &Map<String, Value>) -> BTreeSet<&str> {
    o.keys().map(String::as_str).collect()
}

fn analyze(path: &mut Vec<Seg>, values: Vec<&Value>, root: bool, plan: &mut Vec<(Vec<Seg>, Rewrite)>) {
    let values: Vec<&Value> = values.into_iter().filter(|v| !v.is_null()).collect();
    let Some(first) = values.first() else { return };
    if values.iter().all(|v| v.is_object()) {
        let first_keys = first.as_object().map(key_set).unwrap_or_default();
        let differ = values.iter().any(|v| v.as_object().map(key_set).unwrap_or_default() != first_keys);
        if !root && (differ || first_keys.is_empty()) {
            plan.push((path.clone(), Rewrite::Json));
            return;
        }
        let fields: BTreeSet<&str> =
            values.iter().filter_map(|v| v.as_object()).flat_map(|o| o.keys()).map(String::as_str).collect();
        for field in fields {
            let sub: Vec<&Value> = values.iter().filter_map(|v| v.get(field)).collect();
            path.push(Seg::Key(field.to_string()));
            analyze(path, sub, false, plan);
            path.pop();
        }
    } else if values.iter().all(|v| v.is_array()) {
        let items: Vec<&Value> = values.iter().filter_map(|v| v.as_array()).flatten().collect();
        path.push(Seg::Item);
        analyze(path, items, false, plan);
        path.pop();
    } else if values.iter().any(|v| v.is_object() || v.is_array()) {
        plan.push((path.clone(), Rewrite::Json));
    } else {
        let kinds: BTreeSet<u8> = values
            .iter()
            .map(|v| match v {
                Value::String(_) => 0,
                Value::Number(_) => 1,
                _ => 2,
            })
            .collect();
        if kinds.len() > 1 {
            plan.push((path.clone(), Rewrite::Json));
        } else if kinds.contains(&1) && values.iter().any(|v| v.as_number().is_some_and(|n| n.is_f64())) {
            plan.push((path.clone(), Rewrite::Float));
        }
    }
}

fn apply(value: &mut Value, path: &[Seg], rewrite: Rewrite) {
    match path.split_first() {
        None => {
            if value.is_null() {
                return;
            }
            *value = match (rewrite, &*value) {
                (Rewrite::Json, Value::String(s)) => ujson_loads(s).unwrap_or_else(|| value.clone()),
                (Rewrite::Json, other) => ujson_round_trip(other),
                (Rewrite::Float, Value::Number(n)) => {
                    n.as_f64().and_then(serde_json::Number::from_f64).map_or_else(|| value.clone(), Value::Number)
                }
                (Rewrite::Float, other) => other.clone(),
            };
        }
        Some((Seg::Key(k), rest)) => {
            if let Some(v) = value.as_object_mut().and_then(|o| o.get_mut(k)) {
                apply(v, rest, rewrite);
            }
        }
        Some((Seg::Item, rest)) => {
            if let Some(items) = value.as_array_mut() {
                for v in items {
                    apply(v, rest, rewrite);
                }
            }
        }
    }
}

/// `ujson_loads(ujson_dumps(v))` for a non-string: floats keep 10 decimals.
fn ujson_round_trip(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(0.0);
            let rounded = if f.abs() < 1e15 { (f * 1e10).round() / 1e10 } else { f };
            serde_json::Number::from_f64(rounded).map_or_else(|| v.clone(), Value::Number)
        }
        Value::Array(a) => Value::Array(a.iter().map(ujson_round_trip).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), ujson_round_trip(v))).collect()),
        other => other.clone(),
    }
}

/// A non-finite float as the loader yields it; JSON cannot hold it, and Python's `str` of it
/// is `inf` (`int()` of it fails, so such a field is unusable either way).
fn non_finite(negative: bool) -> Value {
    Value::String(if negative { "-inf" } else { "inf" }.into())
}

/// pandas' `ujson_loads` of a string, `None` where it raises.
pub fn ujson_loads(s: &str) -> Option<Value> {
    let t = s.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    let first = t.chars().next()?;
    match first {
        '{' | '[' | '"' => serde_json::from_str(t).ok(),
        _ if t == "true" => Some(Value::Bool(true)),
        _ if t == "false" => Some(Value::Bool(false)),
        _ if t == "null" || t == "NaN" => Some(Value::Null),
        _ if t == "Infinity" => Some(non_finite(false)),
        _ if t == "-Infinity" => Some(non_finite(true)),
        '-' | '0'..='9' => ujson_number(t),
        _ => None,
    }
}

fn ujson_number(t: &str) -> Option<Value> {
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let int_len = body.bytes().take_while(u8::is_ascii_digit).count();
    let (int_part, mut rest) = body.split_at(int_len);
    let mut frac: Option<&str> = None;
    if let Some(after) = rest.strip_prefix('.') {
        let n = after.bytes().take_while(u8::is_ascii_digit).count();
        frac = Some(&after[..n]);
        rest = &after[n..];
    }
    let mut exp: Option<&str> = None;
    if let Some(after) = rest.strip_prefix(['e', 'E']) {
        let sign = usize::from(after.starts_with(['+', '-']));
        let n = after[sign..].bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        exp = Some(&after[..sign + n]);
        rest = &after[sign + n..];
    }
    if !rest.is_empty() {
        return None;
    }
    if frac.is_none() && exp.is_none() {
        let digits = if int_part.is_empty() { "0" } else { int_part };
        let magnitude: u128 = digits.parse().ok()?;
        return if negative {
            i64::try_from(magnitude)
                .ok()
                .map(|m| Value::from(-m))
                .or_else(|| (magnitude == 1u128 << 63).then(|| Value::from(i64::MIN)))
        } else {
            u64::try_from(magnitude).ok().map(Value::from)
        };
    }
    let text = format!(
        "{}{}.{}{}",
        if negative { "-" } else { "" },
        if int_part.is_empty() { "0" } else { int_part },
        frac.filter(|f| !f.is_empty()).unwrap_or("0"),
        exp.map(|e| format!("e{e}")).unwrap_or_default()
    );
    let f: f64 = text.parse().ok()?;
    if f.is_finite() { serde_json::Number::from_f64(f).map(Value::Number) } else { Some(non_finite(f < 0.0)) }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ujson_acceptance_matches_the_measured_probe() {
        // Values measured with datasets 5.2.0 on a Json column.
        for (s, want) in [
            (" 3 ", Some(json!(3))),
            ("+3", None),
            ("03", Some(json!(3))),
            ("1_0", None),
            ("3e0", Some(json!(3.0))),
            ("３", None),
            ("null", Some(Value::Null)),
            ("NaN", Some(Value::Null)),
            ("1.50", Some(json!(1.5))),
            ("-0", Some(json!(0))),
            ("[1]", Some(json!([1]))),
            ("\"q\"", Some(json!("q"))),
            ("3 x", None),
            ("True", None),
            ("0x10", None),
            (".5", None),
            ("5.", Some(json!(5.0))),
            ("-", Some(json!(0))),
            ("1E2", Some(json!(100.0))),
            ("-07", Some(json!(-7))),
            ("\t4\n", Some(json!(4))),
            ("9223372036854775808", Some(json!(9_223_372_036_854_775_808u64))),
            ("18446744073709551616", None),
            ("'a'", None),
            ("", None),
        ] {
            assert_eq!(ujson_loads(s), want, "{s:?}");
        }
        assert_eq!(ujson_loads("1e400"), Some(json!("inf")));
    }

    #[test]
    fn mixed_fields_are_rewritten_per_file() {
        let mut records = vec![
            json!({"id": "x1", "n": "07", "w": 5, "r": [{"a": "07", "b": 1}], "q": "x"}),
            json!({"id": 12, "n": 2, "w": 2.5, "r": [{"a": 3, "b": 2}]}),
        ];
        rewrite_mixed_types(&mut records);
        assert_eq!(records[0]["n"], json!(7));
        assert_eq!(records[0]["w"], json!(5.0));
        assert_eq!(records[0]["r"][0]["a"], json!(7));
        assert_eq!(records[0]["id"], json!("x1"));
        assert_eq!(records[1]["q"], Value::Null);
        let mut strings = vec![json!({"n": "07"}), json!({"n": "x"})];
        rewrite_mixed_types(&mut strings);
        assert_eq!(strings[0]["n"], json!("07"));
        // Objects with different key sets below the top level are kept whole.
        let mut keys = vec![json!({"r": [{"a": "07", "b": 1}]}), json!({"r": [{"a": 3}]})];
        rewrite_mixed_types(&mut keys);
        assert_eq!(keys[0]["r"][0]["a"], json!("07"));
    }
}
