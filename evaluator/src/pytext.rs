//! The official evaluator's text helpers `text()` and `normalized()`, on top of the CPython
//! string predicates of [`anser_pycompat::pystr`] (re-exported here, so
//! `anser_evaluator::pytext::is_space` and friends keep working).

use std::borrow::Cow;

pub use anser_pycompat::pystr::{casefold, digit_value, is_printable, is_space, is_word, nfkc, split_ws, strip};

use crate::pyjson::{DumpStyle, Py, dumps};

/// `text(value)`: a string as is, null as `""`, anything else as sorted-key JSON.
pub fn text(value: &Py) -> Cow<'_, str> {
    match value {
        Py::Str(s) => Cow::Borrowed(s),
        Py::Null => Cow::Borrowed(""),
        other => Cow::Owned(dumps(other, DumpStyle::TEXT)),
    }
}

/// `text(None)` for an absent value.
pub fn text_opt(value: Option<&Py>) -> Cow<'_, str> {
    value.map_or(Cow::Borrowed(""), text)
}

/// `normalized(value)`: NFKC, strip, casefold.
pub fn normalized(value: &Py) -> String {
    normalized_str(&text(value))
}

/// `normalized()` of an absent value (Python `None`): the empty string.
pub fn normalized_opt(value: Option<&Py>) -> String {
    value.map_or_else(String::new, normalized)
}

/// `normalized()` of text.
pub fn normalized_str(s: &str) -> String {
    casefold(strip(&nfkc(s)))
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_values() {
        assert_eq!(normalized(&Py::Str("  ＡＢＣ ".into())), "abc");
        assert_eq!(normalized(&Py::Float(4.0)), "4.0");
        assert_eq!(normalized(&Py::Null), "");
        assert_eq!(normalized(&Py::Str("（是）".into())), "(是)");
    }
}
