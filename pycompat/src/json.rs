//! Python's view of JSON, reproduced exactly.
//!
//! The official evaluator is a Python program, and several of its outputs are Python renderings
//! of JSON data: `json.dumps` of answers (sorted keys, `", "`/`": "`), `str()` of evidence ids
//! (`True`, `None`, `1.0`), the `json.loads` error text of a malformed structured answer
//! (`Expecting ',' delimiter: line 1 column 145 (char 144)`), the SHA-256 of a compact dump, and
//! the final `json.dumps(..., indent=2)` with `repr` floats. serde_json differs in all of these
//! (integers vs floats, NaN literals, big integers, error messages), so this module carries its
//! own value type [`Py`], a parser that follows CPython's `_json` scanner position for position,
//! and the writers.

use std::fmt::{self, Write as _};

use crate::value::{Dict, Py, PyInt};

// ---------------------------------------------------------------------------------------------
// Parsing: CPython 3.11 `json.loads` (C scanner, strict=True).
// ---------------------------------------------------------------------------------------------

/// A `json.JSONDecodeError`: message and position in code points, displayed as Python does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub msg: &'static str,
    pub pos: usize,
    pub lineno: usize,
    pub colno: usize,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: line {} column {} (char {})", self.msg, self.lineno, self.colno, self.pos)
    }
}

impl std::error::Error for DecodeError {}

enum Fail {
    /// `StopIteration(pos)`: reported as "Expecting value" by `raw_decode`.
    Stop(usize),
    Error(&'static str, usize),
}

/// `json.loads(s)` for a `str`.
pub fn loads(s: &str) -> Result<Py, DecodeError> {
    let make = |msg: &'static str, byte_pos: usize| decode_error(s, msg, byte_pos);
    if s.starts_with('\u{feff}') {
        return Err(make("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0));
    }
    let b = s.as_bytes();
    let start = skip_ws(b, 0);
    let mut p = Parser { s, b };
    match p.scan_once(start, 0) {
        Ok((value, end)) => {
            let end = skip_ws(b, end);
            if end != b.len() { Err(make("Extra data", end)) } else { Ok(value) }
        }
        Err(Fail::Stop(pos)) => Err(make("Expecting value", pos)),
        Err(Fail::Error(msg, pos)) => Err(make(msg, pos)),
    }
}

fn decode_error(s: &str, msg: &'static str, byte_pos: usize) -> DecodeError {
    let before = &s[..byte_pos.min(s.len())];
    let pos = before.chars().count();
    let lineno = before.matches('\n').count() + 1;
    let colno = match before.rfind('\n') {
        Some(nl) => pos - s[..nl].chars().count(),
        None => pos + 1,
    };
    DecodeError { msg, pos, lineno, colno }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Nesting deeper than this is refused (Python raises RecursionError near 1,000 levels).
const MAX_DEPTH: usize = 900;

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
}

impl Parser<'_> {
    fn scan_once(&mut self, idx: usize, depth: usize) -> Result<(Py, usize), Fail> {
        let b = self.b;
        let len = b.len();
        if idx >= len {
            return Err(Fail::Stop(idx));
        }
        let lit = |word: &[u8]| b[idx..].starts_with(word);
        match b[idx] {
            b'"' => return self.scan_string(idx + 1).map(|(s, e)| (Py::Str(s), e)),
            b'{' => {
                if depth >= MAX_DEPTH {
                    return Err(Fail::Error("maximum recursion depth exceeded", idx));
                }
                return self.parse_object(idx + 1, depth + 1);
            }
            b'[' => {
                if depth >= MAX_DEPTH {
                    return Err(Fail::Error("maximum recursion depth exceeded", idx));
                }
                return self.parse_array(idx + 1, depth + 1);
            }
            b'n' if lit(b"null") => return Ok((Py::Null, idx + 4)),
            b't' if lit(b"true") => return Ok((Py::Bool(true), idx + 4)),
            b'f' if lit(b"false") => return Ok((Py::Bool(false), idx + 5)),
            b'N' if lit(b"NaN") => return Ok((Py::Float(f64::NAN), idx + 3)),
            b'I' if lit(b"Infinity") => return Ok((Py::Float(f64::INFINITY), idx + 8)),
            b'-' if lit(b"-Infinity") => return Ok((Py::Float(f64::NEG_INFINITY), idx + 9)),
            _ => {}
        }
        self.match_number(idx)
    }

    fn match_number(&self, start: usize) -> Result<(Py, usize), Fail> {
        let b = self.b;
        let len = b.len();
        let digit = |i: usize| i < len && b[i].is_ascii_digit();
        let mut idx = start;
        if b[idx] == b'-' {
            idx += 1;
            if idx >= len {
                return Err(Fail::Stop(start));
            }
        }
        match b[idx] {
            b'1'..=b'9' => {
                idx += 1;
                while digit(idx) {
                    idx += 1;
                }
            }
            b'0' => idx += 1,
            _ => return Err(Fail::Stop(start)),
        }
        let mut is_float = false;
        if idx + 1 < len && b[idx] == b'.' && b[idx + 1].is_ascii_digit() {
            is_float = true;
            idx += 2;
            while digit(idx) {
                idx += 1;
            }
        }
        if idx + 1 < len && (b[idx] == b'e' || b[idx] == b'E') {
            let e_start = idx;
            idx += 1;
            if idx + 1 < len && (b[idx] == b'-' || b[idx] == b'+') {
                idx += 1;
            }
            while digit(idx) {
                idx += 1;
            }
            if b[idx - 1].is_ascii_digit() {
                is_float = true;
            } else {
                idx = e_start;
            }
        }
        let text = &self.s[start..idx];
        let value =
            if is_float { Py::Float(text.parse().unwrap_or(f64::NAN)) } else { Py::Int(PyInt::from_literal(text)) };
        Ok((value, idx))
    }

    /// `scanstring`: `end` is the index just after the opening quote.
    fn scan_string(&self, mut end: usize) -> Result<(String, usize), Fail> {
        let b = self.b;
        let len = b.len();
        let begin = end - 1;
        let mut out = String::new();
        loop {
            let mut next = end;
            let mut c = 0u8;
            while next < len {
                c = b[next];
                if c == b'"' || c == b'\\' {
                    break;
                }
                if c <= 0x1f {
                    return Err(Fail::Error("Invalid control character at", next));
                }
                next += 1;
            }
            if next >= len || (c != b'"' && c != b'\\') {
                return Err(Fail::Error("Unterminated string starting at", begin));
            }
            out.push_str(&self.s[end..next]);
            next += 1;
            if c == b'"' {
                return Ok((out, next));
            }
            if next == len {
                return Err(Fail::Error("Unterminated string starting at", begin));
            }
            let esc = b[next];
            if esc != b'u' {
                end = next + 1;
                let ch = match esc {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    _ => return Err(Fail::Error("Invalid \\escape", end - 2)),
                };
                out.push(ch);
                continue;
            }
            next += 1;
            end = next + 4;
            if end >= len {
                return Err(Fail::Error("Invalid \\uXXXX escape", next - 1));
            }
            let mut code = hex4(&b[next..end]).ok_or(Fail::Error("Invalid \\uXXXX escape", end - 5))?;
            if (0xD800..=0xDBFF).contains(&code) && end + 6 < len && b[end] == b'\\' && b[end + 1] == b'u' {
                let second = hex4(&b[end + 2..end + 6]).ok_or(Fail::Error("Invalid \\uXXXX escape", end + 1))?;
                if (0xDC00..=0xDFFF).contains(&second) {
                    code = 0x10000 + ((code - 0xD800) << 10) + (second - 0xDC00);
                    end += 6;
                }
            }
            // A lone surrogate cannot live in a Rust string; U+FFFD stands in for it.
            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
        }
    }

    fn parse_object(&mut self, idx: usize, depth: usize) -> Result<(Py, usize), Fail> {
        let b = self.b;
        let len = b.len();
        let mut dict = Dict::new();
        let end = self.scan_items(idx, b'}', |scanner, mut idx| {
            if idx >= len || b[idx] != b'"' {
                return Err(Fail::Error("Expecting property name enclosed in double quotes", idx));
            }
            let (key, next) = scanner.scan_string(idx + 1)?;
            idx = skip_ws(b, next);
            if idx >= len || b[idx] != b':' {
                return Err(Fail::Error("Expecting ':' delimiter", idx));
            }
            idx = skip_ws(b, idx + 1);
            let (value, next) = scanner.scan_once(idx, depth)?;
            dict.insert(key, value);
            Ok(next)
        })?;
        Ok((Py::Dict(dict), end))
    }

    fn parse_array(&mut self, idx: usize, depth: usize) -> Result<(Py, usize), Fail> {
        let mut list = Vec::new();
        let end = self.scan_items(idx, b']', |scanner, idx| {
            let (value, next) = scanner.scan_once(idx, depth)?;
            list.push(value);
            Ok(next)
        })?;
        Ok((Py::List(list), end))
    }

    /// The comma-separated items of an object or array, from just past its opening byte to its
    /// `close` byte, as CPython's scanner walks them: `item` scans one item starting at its first
    /// byte (white space skipped) and returns the index after it. Returns the index past `close`.
    fn scan_items(
        &mut self,
        idx: usize,
        close: u8,
        mut item: impl FnMut(&mut Self, usize) -> Result<usize, Fail>,
    ) -> Result<usize, Fail> {
        let b = self.b;
        let len = b.len();
        let mut idx = skip_ws(b, idx);
        if idx >= len || b[idx] != close {
            loop {
                idx = skip_ws(b, item(self, idx)?);
                if idx < len && b[idx] == close {
                    break;
                }
                if idx >= len || b[idx] != b',' {
                    return Err(Fail::Error("Expecting ',' delimiter", idx));
                }
                idx = skip_ws(b, idx + 1);
            }
        }
        Ok(idx + 1)
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &d in b {
        v = (v << 4) | char::from(d).to_digit(16)?;
    }
    Some(v)
}

// ---------------------------------------------------------------------------------------------
// Writing: json.dumps and str()/repr().
// ---------------------------------------------------------------------------------------------

/// Python `repr(float)`: shortest round-trip digits; exponent form below 1e-4 and from 1e16.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` prints the shortest digits that round-trip, like Python's repr, but when two
    // strings of that length round-trip it may not pick Python's (the nearest, ties to even):
    // 256410256410257.625 is `…257.62` in Python and `…257.63` from `{:e}`. The correctly
    // rounded string of the same length is the nearest one; it is used whenever it round-trips.
    let shortest = format!("{x:e}");
    let digits_len = shortest.split_once('e').map_or(0, |(m, _)| m.chars().filter(char::is_ascii_digit).count());
    let nearest = format!("{x:.prec$e}", prec = digits_len.saturating_sub(1));
    let sci = if nearest.parse::<f64>().ok() == Some(x) { nearest } else { shortest };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let decpt = exp + 1;
    let n = digits.len() as i32;
    let body = if -4 < decpt && decpt <= 16 {
        if decpt <= 0 {
            format!("0.{}{digits}", "0".repeat((-decpt) as usize))
        } else if decpt >= n {
            format!("{digits}{}.0", "0".repeat((decpt - n) as usize))
        } else {
            format!("{}.{}", &digits[..decpt as usize], &digits[decpt as usize..])
        }
    } else {
        let frac = if digits.len() > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{}{frac}e{esign}{:02}", &digits[..1], exp.unsigned_abs())
    };
    format!("{sign}{body}")
}

/// A float as `json.dumps` writes it (`NaN`, `Infinity`, `-Infinity` for non-finite values).
pub fn float_json(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity".into() } else { "-Infinity".into() }
    } else {
        float_repr(x)
    }
}

/// A JSON string literal with `ensure_ascii=False`: only `"`, `\` and control characters are
/// escaped (`\b \f \n \r \t` short forms, others `\u00xx`).
pub fn write_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `json.dumps` options that matter here.
#[derive(Debug, Clone, Copy)]
pub struct DumpStyle {
    pub sort_keys: bool,
    pub item_sep: &'static str,
    pub key_sep: &'static str,
    pub indent: Option<usize>,
}

impl DumpStyle {
    /// `json.dumps(v, ensure_ascii=False, sort_keys=True)`: what the evaluator's `text()` uses.
    pub const TEXT: DumpStyle = DumpStyle { sort_keys: true, item_sep: ", ", key_sep: ": ", indent: None };
    /// `separators=(",", ":")`, sorted keys: `result_signature` and rule identities.
    pub const COMPACT_SORTED: DumpStyle = DumpStyle { sort_keys: true, item_sep: ",", key_sep: ":", indent: None };
    /// `separators=(",", ":")`, keys in insertion order: JSONL lines that must round-trip.
    pub const COMPACT: DumpStyle = DumpStyle { sort_keys: false, item_sep: ",", key_sep: ":", indent: None };
    /// `json.dumps(v, ensure_ascii=False, indent=2)`: the evaluation file.
    pub const PRETTY: DumpStyle = DumpStyle { sort_keys: false, item_sep: ",", key_sep: ": ", indent: Some(2) };
}

/// `json.dumps(value, ...)` in the given style.
pub fn dumps(value: &Py, style: DumpStyle) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, &JSON_SPELLING, 0);
    out
}

/// How a printer spells scalars and strings: the one difference between `json.dumps` and
/// Python's `repr` of the same value (their containers print alike).
struct Spelling {
    null: &'static str,
    true_: &'static str,
    false_: &'static str,
    float: fn(f64) -> String,
    string: fn(&mut String, &str),
}

const JSON_SPELLING: Spelling =
    Spelling { null: "null", true_: "true", false_: "false", float: float_json, string: write_json_str };

/// `repr` of lists and dicts: `, ` and `: ` separators, insertion order, one line.
const REPR_STYLE: DumpStyle = DumpStyle { sort_keys: false, item_sep: ", ", key_sep: ": ", indent: None };
const REPR_SPELLING: Spelling =
    Spelling { null: "None", true_: "True", false_: "False", float: float_repr, string: write_str_repr };

fn newline(out: &mut String, style: DumpStyle, level: usize) {
    if let Some(width) = style.indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', width * level));
    }
}

fn write_value(out: &mut String, value: &Py, style: DumpStyle, spelling: &Spelling, level: usize) {
    match value {
        Py::Null => out.push_str(spelling.null),
        Py::Bool(true) => out.push_str(spelling.true_),
        Py::Bool(false) => out.push_str(spelling.false_),
        Py::Int(i) => out.push_str(i.as_str()),
        Py::Float(f) => out.push_str(&(spelling.float)(*f)),
        Py::Str(s) => (spelling.string)(out, s),
        Py::List(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(style.item_sep);
                }
                newline(out, style, level + 1);
                write_value(out, item, style, spelling, level + 1);
            }
            newline(out, style, level);
            out.push(']');
        }
        Py::Dict(dict) => {
            if dict.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&str, &Py)> = dict.iter().collect();
            if style.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(style.item_sep);
                }
                newline(out, style, level + 1);
                (spelling.string)(out, k);
                out.push_str(style.key_sep);
                write_value(out, v, style, spelling, level + 1);
            }
            newline(out, style, level);
            out.push('}');
        }
    }
}

/// Python `str(value)` of a JSON value (`None`, `True`, `1.0`, `{'a': 1}`).
pub fn py_str(value: &Py) -> String {
    match value {
        Py::Str(s) => s.clone(),
        other => {
            let mut out = String::new();
            write_value(&mut out, other, REPR_STYLE, &REPR_SPELLING, 0);
            out
        }
    }
}

/// Python `repr(str)`: single quotes unless the text has `'` and no `"`; non-printable
/// characters escaped as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.push(quote);
    for c in s.chars() {
        match c {
            c if c == quote || c == '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x7f => out.push(c),
            c if crate::pystr::is_printable(c) => out.push(c),
            c if (c as u32) <= 0xff => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) <= 0xffff => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        loads(s).map(|_| String::new()).unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn python_error_messages_and_positions() {
        assert_eq!(err("{bad}"), "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)");
        assert_eq!(err(r#"{"a" 1}"#), "Expecting ':' delimiter: line 1 column 6 (char 5)");
        assert_eq!(err(r#"{"a": 1 "b": 2}"#), "Expecting ',' delimiter: line 1 column 9 (char 8)");
        assert_eq!(err(r#"{"a": }"#), "Expecting value: line 1 column 7 (char 6)");
        assert_eq!(err(r#"{"a": 1,}"#), "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)");
        assert_eq!(err("{\"a\": 1}\n{\"b\": 2}"), "Extra data: line 2 column 1 (char 9)");
        assert_eq!(err(r#"{"a": "x}"#), "Unterminated string starting at: line 1 column 7 (char 6)");
        assert_eq!(err("{\"a\":\n \"\\q\"}"), "Invalid \\escape: line 2 column 3 (char 8)");
        assert_eq!(err(r#"{"a": "\u12"}"#), "Invalid \\uXXXX escape: line 1 column 9 (char 8)");
        assert_eq!(err("{\"é\": -}"), "Expecting value: line 1 column 7 (char 6)");
        assert_eq!(err("\"a\tb\""), "Invalid control character at: line 1 column 3 (char 2)");
        assert_eq!(err(""), "Expecting value: line 1 column 1 (char 0)");
    }

    #[test]
    fn python_number_model() {
        assert_eq!(loads("-0").ok(), Some(Py::Int(PyInt("0".into()))));
        assert_eq!(loads("1.0").ok(), Some(Py::Float(1.0)));
        assert_eq!(loads("1e3").ok(), Some(Py::Float(1000.0)));
        assert_eq!(
            loads("123456789012345678901234567890").ok(),
            Some(Py::Int(PyInt("123456789012345678901234567890".into())))
        );
        assert!(matches!(loads("NaN"), Ok(Py::Float(f)) if f.is_nan()));
        assert_eq!(loads("-Infinity").ok(), Some(Py::Float(f64::NEG_INFINITY)));
        assert_eq!(err("1e"), "Extra data: line 1 column 2 (char 1)");
        assert_eq!(err("01"), "Extra data: line 1 column 2 (char 1)");
        assert_eq!(loads(r#""\ud83d\ude00""#).ok(), Some(Py::Str("😀".into())));
    }

    #[test]
    fn duplicate_keys_keep_first_position_last_value() {
        let v = loads(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap_or(Py::Null);
        assert_eq!(dumps(&v, DumpStyle::COMPACT_SORTED), r#"{"a":3,"b":2}"#);
        let Py::Dict(d) = v else { panic!("not a dict") };
        assert_eq!(d.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn float_repr_matches_python() {
        for (x, s) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e-5, "1e-05"),
            (2.5e-7, "2.5e-07"),
            (0.0001, "0.0001"),
            (123456.789, "123456.789"),
            (-0.0, "-0.0"),
            (0.20000000000000004, "0.20000000000000004"),
            (200.00000000000003, "200.00000000000003"),
            (256410256410257.62, "256410256410257.62"),
            (0.3, "0.3"),
            (2.675, "2.675"),
            (1e300, "1e+300"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(float_repr(x), s, "{x:e}");
        }
        assert_eq!(float_json(f64::INFINITY), "Infinity");
        assert_eq!(float_json(f64::NAN), "NaN");
    }

    #[test]
    fn dumps_and_str_match_python() {
        let v = loads(r#"{"b": [1, 2.0, true, null], "a": "Ｘ\"\n\u0001", "c": {}}"#).unwrap_or(Py::Null);
        assert_eq!(dumps(&v, DumpStyle::TEXT), r#"{"a": "Ｘ\"\n\u0001", "b": [1, 2.0, true, null], "c": {}}"#);
        assert_eq!(
            dumps(&v, DumpStyle::PRETTY),
            "{\n  \"b\": [\n    1,\n    2.0,\n    true,\n    null\n  ],\n  \"a\": \"Ｘ\\\"\\n\\u0001\",\n  \"c\": {}\n}"
        );
        assert_eq!(py_str(&v), r#"{'b': [1, 2.0, True, None], 'a': 'Ｘ"\n\x01', 'c': {}}"#);
        assert_eq!(py_str(&Py::Str("it's".into())), "it's");
        assert_eq!(py_str(&Py::List(vec![Py::Str("it's".into()), Py::Str("\u{a0}".into())])), r#"["it's", '\xa0']"#);
    }
}
