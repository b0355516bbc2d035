//! Reading results (spec §1.2): a JSON array, `{"results": [...]}`, `{"predictions": [...]}`, a
//! single record, JSONL, a run directory (`results.json` inside) or a directory of result files.
//!
//! Files are parsed with the Python-faithful parser so that answers keep Python's number model
//! (an integer answer stays an integer in `text()` and in `result_signature`).

use std::path::{Path, PathBuf};

use crate::{
    Error, Result,
    pyjson::{Dict, Py, loads},
    pytext::strip,
};

/// Names in a results directory that are never result files.
const NOT_RESULTS: &[&str] =
    &["evaluation_results.json", "selection.json", "metadata.json", "manifest.json", "summary.json", "evaluation.json"];

/// The file a run directory keeps its results in.
pub const RUN_RESULTS_FILE: &str = "results.json";

/// What the input path is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKind {
    /// One result file.
    File,
    /// A run directory: `results.json` directly inside; only that file is evaluated.
    RunDir,
    /// A directory of result files, each evaluated on its own.
    Dir,
}

/// Classify an input path.
pub fn input_kind(input: &Path) -> Result<InputKind> {
    if input.is_file() {
        Ok(InputKind::File)
    } else if input.is_dir() {
        Ok(if input.join(RUN_RESULTS_FILE).is_file() { InputKind::RunDir } else { InputKind::Dir })
    } else {
        Err(Error::results(input, "no such file or directory; pass a results file (.json/.jsonl) or a run directory"))
    }
}

/// The default output path: `<dir>/<stem>.evaluation.json` for a file, `<run>/evaluation.json`
/// for a run directory, `<dir>/evaluation_results.json` for a directory of result files.
pub fn default_output(input: &Path, kind: &InputKind) -> PathBuf {
    match kind {
        InputKind::File => {
            let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            input.with_file_name(format!("{stem}.evaluation.json"))
        }
        InputKind::RunDir => input.join("evaluation.json"),
        InputKind::Dir => input.join("evaluation_results.json"),
    }
}

/// The result files an input stands for, in evaluation order. `output` is excluded from a
/// directory listing.
pub fn result_files(input: &Path, kind: &InputKind, output: Option<&Path>) -> Result<Vec<PathBuf>> {
    match kind {
        InputKind::File => Ok(vec![input.to_path_buf()]),
        InputKind::RunDir => Ok(vec![input.join(RUN_RESULTS_FILE)]),
        InputKind::Dir => {
            let mut files = Vec::new();
            collect(input, &mut files)?;
            let output = output.map(|o| std::fs::canonicalize(o).unwrap_or_else(|_| o.to_path_buf()));
            files.retain(|p| {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let resolved = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
                output.as_ref() != Some(&resolved)
                    && !name.ends_with(".evaluation.json")
                    && !name.ends_with(".errors.jsonl")
                    && !NOT_RESULTS.contains(&name.as_str())
            });
            // Path order compares component by component, as Python's sorted(Path) does.
            files.sort();
            if files.is_empty() {
                return Err(Error::results(input, "no result JSON files found (*.json or *.jsonl)"));
            }
            Ok(files)
        }
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs_err::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json" || e == "jsonl") {
            out.push(path);
        }
    }
    Ok(())
}

/// Read one result file into records.
pub fn read_records(path: &Path) -> Result<Vec<Dict>> {
    let bytes = fs_err::read(path)?;
    let text = String::from_utf8(bytes).map_err(|e| Error::results(path, format!("not UTF-8 text: {e}")))?;
    // Python reads text files with universal newlines.
    let text = if text.contains('\r') { text.replace("\r\n", "\n").replace('\r', "\n") } else { text };
    let payload = if path.extension().is_some_and(|e| e == "jsonl") {
        let mut rows = Vec::new();
        for (n, line) in text.split_inclusive('\n').enumerate() {
            if strip(line).is_empty() {
                continue;
            }
            rows.push(loads(line).map_err(|e| Error::results(path, format!("line {}: invalid JSON: {e}", n + 1)))?);
        }
        Py::List(rows)
    } else {
        loads(&text).map_err(|e| Error::results(path, format!("invalid JSON: {e}")))?
    };
    records_from_payload(payload).map_err(|m| Error::results(path, m))
}

/// The accepted top-level shapes, tried in the official order.
pub fn records_from_payload(payload: Py) -> std::result::Result<Vec<Dict>, String> {
    let rows = match payload {
        Py::List(rows) => rows,
        Py::Dict(mut d) => {
            if let Some(Py::List(_)) = d.get("results") {
                take_list(&mut d, "results")
            } else if let Some(Py::List(_)) = d.get("predictions") {
                take_list(&mut d, "predictions")
            } else if d.contains_key("id") {
                vec![Py::Dict(d)]
            } else {
                return Err(shape_error());
            }
        }
        _ => return Err(shape_error()),
    };
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| match row {
            Py::Dict(d) => Ok(d),
            _ => Err(format!("record {}: each result record must be an object", i + 1)),
        })
        .collect()
}

fn take_list(d: &mut Dict, key: &str) -> Vec<Py> {
    let entries = std::mem::take(d);
    entries.into_iter().find(|(k, _)| k == key).map_or_else(Vec::new, |(_, v)| match v {
        Py::List(rows) => rows,
        _ => Vec::new(),
    })
}

fn shape_error() -> String {
    "result JSON must be a list, a result object, or contain results/predictions".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(s: &str) -> std::result::Result<usize, String> {
        records_from_payload(loads(s).unwrap_or(Py::Null)).map(|r| r.len())
    }

    #[test]
    fn accepted_shapes() {
        assert_eq!(shape(r#"[{"id": "a"}, {"id": "b"}]"#), Ok(2));
        assert_eq!(shape(r#"{"results": [{"id": "a"}], "predictions": [{}, {}]}"#), Ok(1));
        assert_eq!(shape(r#"{"results": null, "predictions": [{}, {}]}"#), Ok(2));
        assert_eq!(shape(r#"{"id": "a", "answer": 1}"#), Ok(1));
        assert_eq!(shape(r#"{"answer": 1}"#), Err(shape_error()));
        assert_eq!(shape("3"), Err(shape_error()));
        assert_eq!(shape(r#"[{"id": "a"}, 3]"#), Err("record 2: each result record must be an object".into()));
    }
}
