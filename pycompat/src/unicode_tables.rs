//! Unicode predicates of CPython 3.11 (Unicode 14.0.0), as data: `unicode_tables.txt`, generated
//! by `pycompat/scripts/gen_unicode_tables.py` from the interpreter's own `unicodedata`, is
//! embedded in the binary and read once, on first use. The tables are data rather than code so
//! that a regeneration is a data change (the format is in the script's docs).

use std::sync::LazyLock;

/// The generated tables.
const DATA: &str = include_str!("unicode_tables.txt");

/// The entries of table `name`, one line each, as hex numbers. The data is embedded and fixed,
/// and the parity tests read every table, so a malformed line is a build defect: it panics.
fn entries(name: &str) -> impl Iterator<Item = Vec<u32>> {
    let header = format!("@{name}");
    DATA.lines()
        .filter(|l| !l.starts_with('#'))
        .skip_while(move |l| *l != header)
        .skip(1)
        .take_while(|l| !l.starts_with('@'))
        .map(|l| {
            l.split(' ')
                .map(|x| u32::from_str_radix(x, 16).unwrap_or_else(|e| panic!("unicode_tables.txt: {l:?}: {e}")))
                .collect()
        })
}

/// A table of inclusive code point ranges, sorted.
fn ranges(name: &str) -> Vec<(u32, u32)> {
    entries(name)
        .map(|e| match e.as_slice() {
            [first, last] => (*first, *last),
            _ => panic!("unicode_tables.txt: @{name}: a range is two code points, not {e:?}"),
        })
        .collect()
}

/// Characters for which `str.isspace()` is true (`\s`, `strip()`, `split()`).
pub(crate) static SPACE: LazyLock<Vec<(u32, u32)>> = LazyLock::new(|| ranges("SPACE"));

/// Characters matched by `\w` in a `str` pattern: `str.isalnum()` or `_`.
pub(crate) static WORD: LazyLock<Vec<(u32, u32)>> = LazyLock::new(|| ranges("WORD"));

/// Characters for which `str.isprintable()` is false (escaped by `repr`).
pub(crate) static NON_PRINTABLE: LazyLock<Vec<(u32, u32)>> = LazyLock::new(|| ranges("NON_PRINTABLE"));

/// First code point (digit zero) of every run of ten decimal digits (category Nd, `\d`).
pub(crate) static DIGIT_ZEROS: LazyLock<Vec<u32>> =
    LazyLock::new(|| entries("DIGIT_ZEROS").filter_map(|e| e.first().copied()).collect());

/// `str.casefold()` of every character it changes, sorted by code point.
pub(crate) static CASEFOLD: LazyLock<Vec<(u32, String)>> = LazyLock::new(|| {
    entries("CASEFOLD")
        .map(|e| {
            let folded = e[1..].iter().map(|&cp| char::from_u32(cp).expect("a scalar value")).collect();
            (e[0], folded)
        })
        .collect()
});

/// Code points unassigned in this Unicode version (category Cn): `unicodedata` gives them no
/// decomposition and combining class 0, whatever later versions assign.
pub(crate) static UNASSIGNED: LazyLock<Vec<(u32, u32)>> = LazyLock::new(|| ranges("UNASSIGNED"));

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table is present and in the order the look-ups' binary searches need.
    #[test]
    fn tables_load_sorted_and_complete() {
        for (name, table) in
            [("SPACE", &SPACE), ("WORD", &WORD), ("NON_PRINTABLE", &NON_PRINTABLE), ("UNASSIGNED", &UNASSIGNED)]
        {
            assert!(!table.is_empty(), "{name}");
            assert!(table.iter().all(|(a, b)| a <= b), "{name}");
            assert!(table.windows(2).all(|w| w[0].1 < w[1].0), "{name} sorted, disjoint");
        }
        assert_eq!(DIGIT_ZEROS.len(), 66);
        assert!(DIGIT_ZEROS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(CASEFOLD.len(), 1530);
        assert!(CASEFOLD.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(CASEFOLD.iter().find(|(cp, _)| *cp == 0xdf).map(|(_, f)| f.as_str()), Some("ss"));
    }
}
