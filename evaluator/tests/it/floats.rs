//! `repr(float)` parity on 2,007 doubles printed by CPython (random bit patterns, 17-digit
//! decimals where shortest-string ties occur, dyadic fractions, powers of ten).

use anser_evaluator::pyjson::{Py, float_repr, loads};

#[test]
fn float_repr_matches_cpython() {
    let text = include_str!("../data/float_repr.json");
    let data = loads(text).unwrap_or(Py::Null);
    let Some(Py::List(cases)) = data.get("cases") else { panic!("float_repr.json has no cases") };
    assert!(cases.len() > 2000);
    for case in cases {
        let Py::List(pair) = case else { panic!("bad case {case:?}") };
        let bits: u64 = match &pair[0] {
            Py::Int(i) => i.as_str().parse().unwrap_or_default(),
            other => panic!("bad bits {other:?}"),
        };
        let want = pair[1].as_str().unwrap_or_default();
        assert_eq!(float_repr(f64::from_bits(bits)), want, "bits {bits:#x}");
    }
}
