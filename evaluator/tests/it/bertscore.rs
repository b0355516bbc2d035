//! BERTScore over an ONNX encoder against a Python reference computation
//! (`tests/data/bertscore_m3e_small.json`, made by `scripts/bertscore_reference.py`).

use std::path::PathBuf;

use anser_evaluator::{
    BertScorer,
    pyjson::{Py, loads},
};

use crate::common::shared;

/// The ONNX Runtime library: `$ORT_DYLIB_PATH`, else the workspace's third_party copy.
fn ort_library() -> Option<PathBuf> {
    let from_env = std::env::var_os("ORT_DYLIB_PATH").map(PathBuf::from).filter(|p| p.is_file());
    let local = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../third_party/ort/libonnxruntime.so.1.32.0");
    let found = from_env.or_else(|| local.is_file().then_some(local));
    if found.is_none() {
        anser_manifest::missing_prerequisite(
            "BERTScore",
            "no ONNX Runtime library (set ORT_DYLIB_PATH to libonnxruntime.so from onnxruntime==1.32.0)",
        );
    }
    found
}

/// The encoder directory and a scorer, or `None` (skip reason printed).
pub fn scorer() -> Option<(PathBuf, BertScorer)> {
    let shared = shared("BERTScore")?;
    let library = ort_library()?;
    let dir = shared.join("models/m3e-small");
    let scorer =
        BertScorer::load_with_library(&dir, Some(&library)).unwrap_or_else(|e| panic!("BERTScore encoder: {e}"));
    Some((dir, scorer))
}

#[test]
fn matches_python_reference() {
    let Some((_, scorer)) = scorer() else { return };
    let data = loads(include_str!("../data/bertscore_m3e_small.json")).unwrap_or(Py::Null);
    let Some(Py::List(cases)) = data.get("pairs") else { panic!("no pairs") };
    let pairs: Vec<(String, String)> = cases
        .iter()
        .map(|c| {
            (
                c.get("candidate").and_then(Py::as_str).unwrap_or_default().to_string(),
                c.get("reference").and_then(Py::as_str).unwrap_or_default().to_string(),
            )
        })
        .collect();
    let scores = scorer.score_batch(&pairs).unwrap_or_else(|e| panic!("{e}"));
    for (case, got) in cases.iter().zip(scores) {
        let want = |k: &str| case.get(k).and_then(Py::as_f64).unwrap_or(f64::NAN);
        for (name, g, w) in [
            ("precision", got.precision, want("precision")),
            ("recall", got.recall, want("recall")),
            ("f1", got.f1, want("f1")),
        ] {
            assert!((g - w).abs() < 1e-5, "{name} of {case:?}: {g} vs {w}");
        }
    }
}
