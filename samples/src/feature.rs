//! A legal case generator's feature registry entry, one type for the Chinese and the English
//! case generators: the key, the value type, how often a boolean holds, whether the feature is
//! judged from the judgment text rather than read from a structured field, and the language's
//! own wording (`W`) and number annotation (`U`).

/// Value type of a feature; a number carries its range, rounding step and `U` (the English
/// registry's unit; nothing in the Chinese one).
#[derive(Debug, Clone, Copy)]
pub enum Kind<U> {
    Bool,
    Enum(&'static [&'static str]),
    /// Range, rounding step, `U`.
    Num(f64, f64, f64, U),
}

/// One registry entry.
#[derive(Debug, Clone, Copy)]
pub struct Feat<W, U> {
    pub key: &'static str,
    pub kind: Kind<U>,
    /// Probability of true (是) for booleans.
    pub p: f64,
    /// Judged from the text (semantic) rather than read from a structured field.
    pub semantic: bool,
    /// How the language phrases the feature as a condition and in the text.
    pub words: W,
}

impl<W, U> Feat<W, U> {
    /// A boolean feature, true with probability `p`.
    pub const fn boolean(key: &'static str, p: f64, semantic: bool, words: W) -> Self {
        Feat { key, kind: Kind::Bool, p, semantic, words }
    }

    /// A structured feature taking one of `values`.
    pub const fn enumerated(key: &'static str, values: &'static [&'static str], words: W) -> Self {
        Feat { key, kind: Kind::Enum(values), p: 0.0, semantic: false, words }
    }

    /// A structured number in `[lo, hi]`, rounded to `step`.
    pub const fn number(key: &'static str, (lo, hi, step): (f64, f64, f64), unit: U, words: W) -> Self {
        Feat { key, kind: Kind::Num(lo, hi, step, unit), p: 0.0, semantic: false, words }
    }
}
