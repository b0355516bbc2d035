//! Python's view of JSON (`json.loads`/`json.dumps`, `str()`/`repr()` of values), re-exported
//! from [`anser_pycompat`] so the evaluator's modules and its users keep the
//! `anser_evaluator::pyjson::{Py, loads, dumps, ...}` paths.

pub use anser_pycompat::{
    json::{DecodeError, DumpStyle, dumps, float_json, float_repr, loads, py_str, write_json_str},
    value::{Dict, Py, PyInt},
};
