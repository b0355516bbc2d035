//! anser-pycompat: the CPython 3.11 behaviours the workspace reproduces byte for byte.
//!
//! Both the ANSER-Bench evaluator (the official evaluator is a Python program) and the
//! $OneMillion-Bench judge path (EvalScope is a Python program) print and parse text the way
//! CPython does. One implementation serves both, so a fix (the round-half-even float repr, the
//! `str.isspace` table) reaches every output at once:
//!
//! - [`value`]: the JSON value model ([`Py`], arbitrary-precision [`PyInt`], ordered [`Dict`]);
//!   a leaf module.
//! - [`pystr`]: `str.isspace`/`strip`/`split`, `\w`, `\d`, `isprintable`, `casefold`, NFKC,
//!   from tables generated with CPython 3.11 (`scripts/gen_unicode_tables.py`); a leaf module.
//! - [`json`]: `json.loads` (the C scanner, position for position, with Python's error text),
//!   `json.dumps`, `repr(float)` and `str()` of values; uses the two leaves.
//! - [`numeric`]: Python's `round(x, 6)`, the scaled six-decimal rounding, and
//!   `numpy.percentile`'s linear interpolation, the benches' nearest-sample percentile and
//!   `numpy.median`; a leaf module.

pub mod json;
pub mod numeric;
pub mod pystr;
mod unicode_tables;
pub mod value;

pub use json::{DecodeError, DumpStyle, dumps, float_json, float_repr, loads, py_str};
pub use numeric::{percentile_linear, percentile_nearest, round6, round6_scaled};
pub use value::{Dict, Py, PyInt};
