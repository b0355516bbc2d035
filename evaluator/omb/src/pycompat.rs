//! The few Python behaviours EvalScope's adapter relies on, reproduced exactly: `str()` of a
//! JSON scalar (the judge prompt pastes rubric fields with f-strings), `str.strip()`, `int()`
//! (rubric numbers and weights), pydantic's lax `int` coercion (the judge's `rubric_id`) and
//! `round(x, 4)` (report scores). Each function names its Python counterpart and is tested
//! against values measured on EvalScope 1.14.1 / Python 3.11 (tests/data/*probes.json).
//!
//! `repr(float)` and `str.isspace()`/`str.strip()` come from [`anser_pycompat`], the one CPython
//! layer the evaluator uses too; this module adds only what works on serde_json values (omb's
//! records and replies are serde_json) and EvalScope's own coercions.

pub use anser_pycompat::pystr::strip as py_strip;
use anser_pycompat::{float_repr, pystr::is_space};
use serde_json::Value;

/// The `i64` range as floats: `[-2^63, 2^63)`.
const I64_RANGE: std::ops::Range<f64> = -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;

/// Python `str(v)` for a JSON scalar: strings verbatim, `True`/`False`, `None`, integers in
/// decimal, floats as `repr(float)`. Arrays and objects return `None` (Python would print its
/// own container syntax, which no benchmark record uses).
pub fn py_str(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(true) => Some("True".into()),
        Value::Bool(false) => Some("False".into()),
        Value::Null => Some("None".into()),
        Value::Number(n) => Some(match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (None, Some(u), _) => u.to_string(),
            (None, None, Some(f)) => float_repr(f),
            (None, None, None) => n.to_string(),
        }),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// Python `int(v)` for a JSON scalar: integers as is, floats truncated toward zero, booleans as
/// 0/1, strings by [`py_int_str`]. `None` where Python raises (null, containers, non-finite
/// floats, unparsable strings) or the value does not fit in an `i64`.
pub fn py_int(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            let t = f.trunc();
            (f.is_finite() && I64_RANGE.contains(&t)).then_some(t as i64)
        }),
        Value::String(s) => py_int_str(s),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Python `int(s)` for a string: surrounding whitespace, an optional sign, ASCII digits with
/// single underscores between them. (Python also accepts non-ASCII decimal digits; no
/// benchmark record uses them, and they are rejected here.)
pub fn py_int_str(s: &str) -> Option<i64> {
    parse_signed_digits(s.trim_matches(is_space))
}

/// Optional sign, then digits with single underscores between digits.
fn parse_signed_digits(s: &str) -> Option<i64> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let bytes = digits.as_bytes();
    if bytes.is_empty() || !bytes[0].is_ascii_digit() || !bytes[bytes.len() - 1].is_ascii_digit() {
        return None;
    }
    let mut value: i64 = 0;
    let mut previous_underscore = false;
    for &b in bytes {
        if b == b'_' {
            if previous_underscore {
                return None;
            }
            previous_underscore = true;
            continue;
        }
        if !b.is_ascii_digit() {
            return None;
        }
        previous_underscore = false;
        value = value.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
    }
    Some(if negative { -value } else { value })
}

/// pydantic 2 lax-mode `int` validation of a JSON value (EvalScope's `rubric_id: int`):
/// integers; booleans (0/1); floats without a fractional part; strings that, after trimming
/// whitespace, are an integer (`+`/`-`, underscores between digits) optionally followed by `.`
/// and one or more zeros (`"1.0"`, `"1.00"`; not `"1."` or `"1e0"`).
pub fn pydantic_int(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            (f.is_finite() && f.fract() == 0.0 && I64_RANGE.contains(&f)).then_some(f as i64)
        }),
        Value::String(s) => {
            let t = s.trim();
            let integer = match t.split_once('.') {
                Some((int_part, zeros)) if !zeros.is_empty() && zeros.bytes().all(|b| b == b'0') => int_part,
                Some(_) => return None,
                None => t,
            };
            parse_signed_digits(integer)
        }
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Python `round(x, 4)`: the double nearest to `x` rounded to 4 decimals, ties (exact binary
/// ties such as 0.03125) to even — what Rust's exact `{:.4}` formatting produces.
pub fn round4(x: f64) -> f64 {
    format!("{x:.4}").parse().unwrap_or(x)
}

/// `sum(values) / len(values)` with Python's left-to-right float summation (3.11 semantics).
pub fn py_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    Some(sum / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn str_of_scalars() {
        assert_eq!(py_str(&json!(256410256410257.62)).as_deref(), Some("256410256410257.62"));
        assert_eq!(py_str(&json!(1e16)).as_deref(), Some("1e+16"));
        assert_eq!(py_str(&json!(3.0)).as_deref(), Some("3.0"));
        assert_eq!(py_str(&json!(-7)).as_deref(), Some("-7"));
        assert_eq!(py_str(&json!(u64::MAX)).as_deref(), Some("18446744073709551615"));
        assert_eq!(py_str(&json!(true)).as_deref(), Some("True"));
        assert_eq!(py_str(&json!(null)).as_deref(), Some("None"));
        assert_eq!(py_str(&json!("x")).as_deref(), Some("x"));
        assert_eq!(py_str(&json!([1])), None);
    }

    #[test]
    fn python_int_and_strip() {
        assert_eq!(py_int(&json!(3)), Some(3));
        assert_eq!(py_int(&json!(2.9)), Some(2));
        assert_eq!(py_int(&json!(-0.5)), Some(0));
        assert_eq!(py_int(&json!(true)), Some(1));
        assert_eq!(py_int(&json!(" 12 ")), Some(12));
        assert_eq!(py_int(&json!("1_000")), Some(1000));
        assert_eq!(py_int(&json!("3.0")), None);
        assert_eq!(py_int(&json!(null)), None);
        assert_eq!(py_int(&json!([1])), None);
        assert_eq!(py_strip("\u{1f} x \u{3000}"), "x");
    }

    #[test]
    fn mean_is_left_to_right() {
        assert_eq!(py_mean(&[]), None);
        assert_eq!(py_mean(&[0.1, 0.2, 0.3]), Some((0.1 + 0.2 + 0.3) / 3.0));
    }
}
