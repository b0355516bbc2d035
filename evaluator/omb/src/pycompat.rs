//! The few Python behaviours EvalScope's adapter relies on, reproduced exactly: `str()` of a
//! JSON scalar (the judge prompt pastes rubric fields with f-strings), `str.strip()`, `int()`
//! (rubric numbers and weights), pydantic's lax `int` coercion (the judge's `rubric_id`) and
//! `round(x, 4)` (report scores). Each function names its Python counterpart and is tested
//! against values measured on EvalScope 1.14.1 / Python 3.11 (tests/data/*probes.json).

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
            (None, None, Some(f)) => py_float_repr(f),
            (None, None, None) => n.to_string(),
        }),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// Python `repr(float)`: shortest round-trip digits, fixed notation for decimal exponents
/// -4..=15 (always with a `.0` when integral), otherwise `d.ddde±XX`.
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x < 0.0 { "-" } else { "" };
    let body = if (-4..=15).contains(&exp) {
        let point = exp + 1;
        let n = digits.len() as i32;
        if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point >= n {
            format!("{digits}{}.0", "0".repeat((point - n) as usize))
        } else {
            format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
        }
    } else {
        let rest = if digits.len() > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!("{}{rest}e{exp_sign}{:02}", &digits[..1], exp.abs())
    };
    format!("{sign}{body}")
}

/// Python `str.isspace()` for one character (Unicode whitespace plus the ASCII separators
/// U+001C..U+001F, which Rust does not count as whitespace).
pub fn py_is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python `s.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(py_is_space)
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
    parse_signed_digits(py_strip(s))
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
    fn float_repr_matches_python() {
        for (x, want) in [
            (3.0, "3.0"),
            (2.9, "2.9"),
            (-0.5, "-0.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123.456, "123.456"),
            (1.0 / 3.0, "0.3333333333333333"),
            (-2.5e300, "-2.5e+300"),
        ] {
            assert_eq!(py_float_repr(x), want, "{x}");
        }
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
