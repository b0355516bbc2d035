//! External responses to judge: JSONL `{"id": ..., "response": "..."}` (e.g. the final answers
//! of a tool-using agent). Strict: a malformed line or a repeated id stops with the line number,
//! because silently judging half a file would skew every aggregate.

use std::{collections::BTreeMap, path::Path};

use serde_json::Value;

use crate::{Error, Result, pycompat::py_str};

/// Load `{id: response}` from a JSONL file.
pub fn load_responses(path: &Path) -> Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Input { path: path.to_path_buf(), message: format!("cannot read the responses: {e}") })?;
    let mut out = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |message: String| Error::Input {
            path: path.to_path_buf(),
            message: format!("line {}: {message}", index + 1),
        };
        let value: Value = serde_json::from_str(line).map_err(|e| bad(format!("not valid JSON ({e})")))?;
        let id = value
            .get("id")
            .filter(|v| !v.is_null() && !v.is_array() && !v.is_object())
            .and_then(py_str)
            .ok_or_else(|| bad("missing \"id\" (a string or number matching the dataset's id)".into()))?;
        let response = value
            .get("response")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("missing \"response\" (a string)".into()))?;
        if out.insert(id.clone(), response.to_string()).is_some() {
            return Err(bad(format!("id {id:?} appears twice; keep one response per id")));
        }
    }
    if out.is_empty() {
        return Err(Error::Input {
            path: path.to_path_buf(),
            message: "no responses (expected JSONL {\"id\", \"response\"})".into(),
        });
    }
    Ok(out)
}
