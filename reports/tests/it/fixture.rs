//! The fixture run (`tests/data/run_fixture`: the 18 bundled example tasks answered with every
//! kind of outcome) and helpers to derive variants of it in a temporary directory.

use std::path::{Path, PathBuf};

use anser_evaluator::Benchmark;
use anser_reports::RunData;
use serde_json::Value;

pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/run_fixture")
}

pub fn examples() -> Benchmark {
    Benchmark::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/query")).expect("bundled examples load")
}

/// The fixture, scored against the bundled examples.
pub fn scored(dir: &Path) -> RunData {
    let mut run = RunData::open(dir).expect("run opens");
    run.score(&examples(), None).expect("scores");
    run
}

/// Copy the fixture to `parent/name`, letting `edit` change its results and selection.
pub fn variant(parent: &Path, name: &str, edit: impl FnOnce(&mut Vec<Value>, &mut Vec<Value>)) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).expect("mkdir");
    for f in ["metadata.json", "trace.jsonl"] {
        std::fs::copy(fixture_dir().join(f), dir.join(f)).expect("copy");
    }
    let read = |f: &str| -> Vec<Value> {
        serde_json::from_str(&std::fs::read_to_string(fixture_dir().join(f)).expect("read")).expect("json")
    };
    let (mut results, mut selection) = (read("results.json"), read("selection.json"));
    edit(&mut results, &mut selection);
    let write = |f: &str, v: &Vec<Value>| {
        std::fs::write(dir.join(f), serde_json::to_string_pretty(v).expect("json")).expect("write")
    };
    write("results.json", &results);
    write("selection.json", &selection);
    dir
}
