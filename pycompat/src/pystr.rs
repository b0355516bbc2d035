//! CPython's `str` methods and `re` character classes: `str.isspace()` (`\s`, `strip()`,
//! `split()`), `\w`, `\d`, `str.isprintable()`, `str.casefold()` and
//! `unicodedata.normalize("NFKC", ...)`.
//!
//! Rust's `char::is_whitespace` and `is_alphanumeric` differ from CPython at the edges
//! (U+001C–U+001F are spaces to Python; combining marks are alphabetic to Rust), and Rust has no
//! full case folding, so byte-exact output needs Python's own tables (generated from CPython
//! 3.11 by `scripts/gen_unicode_tables.py`). A leaf module over the tables: nothing here knows
//! about JSON.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

use crate::unicode_tables::{CASEFOLD, DIGIT_ZEROS, NON_PRINTABLE, SPACE, UNASSIGNED, WORD};

fn in_ranges(c: char, table: &[(u32, u32)]) -> bool {
    let cp = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `str.isspace()` / regex `\s`.
pub fn is_space(c: char) -> bool {
    if c.is_ascii() { matches!(c, '\t'..='\r' | '\x1c'..=' ') } else { in_ranges(c, &SPACE) }
}

/// Regex `\w` on a `str`: `isalnum()` or `_`.
pub fn is_word(c: char) -> bool {
    if c.is_ascii() { c.is_ascii_alphanumeric() || c == '_' } else { in_ranges(c, &WORD) }
}

/// `str.isprintable()`.
pub fn is_printable(c: char) -> bool {
    !in_ranges(c, &NON_PRINTABLE)
}

/// The value of a decimal digit (regex `\d`, category Nd), any script.
pub fn digit_value(c: char) -> Option<u32> {
    if c.is_ascii_digit() {
        return Some(c as u32 - '0' as u32);
    }
    let cp = c as u32;
    let i = DIGIT_ZEROS.partition_point(|&z| z <= cp);
    let zero = *DIGIT_ZEROS.get(i.checked_sub(1)?)?;
    (cp - zero < 10).then_some(cp - zero)
}

/// `str.strip()` with no argument.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `str.split()` with no argument.
pub fn split_ws(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_space).filter(|t| !t.is_empty())
}

/// `str.casefold()`.
pub fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            match CASEFOLD.binary_search_by_key(&(c as u32), |&(cp, _)| cp) {
                Ok(i) => out.push_str(&CASEFOLD[i].1),
                Err(_) => out.push(c),
            }
        }
    }
    out
}

/// Whether CPython 3.11's `unicodedata` (Unicode 14.0.0) has no character at `c`.
fn unassigned(c: char) -> bool {
    !c.is_ascii() && in_ranges(c, &UNASSIGNED)
}

/// `unicodedata.normalize("NFKC", s)` as CPython 3.11 computes it (Unicode 14.0.0).
///
/// `unicode-normalization` carries a newer Unicode version (the workspace cannot pin its 14.0
/// release, 0.1.21: polars needs ^0.1.24). By Unicode's normalization stability policy, a string
/// of characters assigned in 14.0 normalises the same under every later version; only
/// characters assigned later differ, and to Python those are unassigned: no decomposition,
/// combining class 0, no composition. Such a character is therefore a boundary nothing crosses,
/// and normalising the text between them with the newer tables, leaving them as they are,
/// gives Python's result exactly.
pub fn nfkc(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    if !s.chars().any(unassigned) {
        return if unicode_normalization::is_nfkc_quick(s.chars()) == unicode_normalization::IsNormalized::Yes {
            Cow::Borrowed(s)
        } else {
            Cow::Owned(s.nfkc().collect())
        };
    }
    let mut out = String::with_capacity(s.len());
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if unassigned(c) {
            out.extend(s[start..i].nfkc());
            out.push(c);
            start = i + c.len_utf8();
        }
    }
    out.extend(s[start..].nfkc());
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_predicates() {
        assert!(is_space('\u{3000}') && is_space('\u{1c}') && is_space('\u{85}') && !is_space('\u{200b}'));
        assert!(is_word('中') && is_word('_') && is_word('é') && is_word('²') && !is_word('-') && !is_word('。'));
        assert_eq!(digit_value('５'), Some(5));
        assert_eq!(digit_value('٢'), Some(2));
        assert_eq!(digit_value('²'), None);
        assert_eq!(digit_value('a'), None);
        assert_eq!(casefold("Straße ΣΑΣ"), "strasse σασ");
        assert_eq!(strip("\u{3000} x \u{a0}"), "x");
        assert_eq!(split_ws(" a\u{3000}b  c ").collect::<Vec<_>>(), ["a", "b", "c"]);
        assert!(!is_printable('\u{a0}') && is_printable('中') && !is_printable('\u{200b}'));
    }

    /// Expected values measured with Python 3.11.7 (`unicodedata.unidata_version` 14.0.0).
    #[test]
    fn nfkc_follows_unicode_14() {
        // U+1E030 MODIFIER LETTER CYRILLIC SMALL A is new in Unicode 15 (<super> U+0430); to
        // Python 3.11 it is unassigned, left alone, and blocks composition across it.
        assert_eq!(nfkc("\u{1e030}"), "\u{1e030}");
        assert_eq!(nfkc("ａ\u{1e030}\u{301}ｘ①e\u{301}"), "a\u{1e030}\u{301}x1\u{e9}");
        assert_eq!(nfkc("e\u{301}\u{1e030}"), "\u{e9}\u{1e030}");
        assert_eq!(nfkc("ＡＢＣ①"), "ABC1");
        assert!(matches!(nfkc("éclair 中文"), Cow::Borrowed(_)));
    }
}
