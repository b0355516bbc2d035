//! Integration tests of anser-agent (one test binary; one module per topic).

mod answer;
mod boundary;
mod compute;
mod fixtures;
mod hostile;
mod interrupt;
mod offline;
mod raw_years;
mod sample;
mod shifted;
mod sql_guard;
mod stats;

use std::sync::OnceLock;

use anser_gold::{Benchmark, Reference};
use anser_manifest::{PublicTask, shared_dir};

/// The release's task files from ../shared, loaded once; `None` (the caller skips with a
/// printed reason) when ../shared is absent.
pub fn release(what: &str) -> Option<&'static Benchmark> {
    static BENCH: OnceLock<Option<Benchmark>> = OnceLock::new();
    let bench = BENCH
        .get_or_init(|| shared_dir().map(|d| Benchmark::load(&d.join("anser/query")).expect("release tasks load")))
        .as_ref();
    if bench.is_none() {
        anser_manifest::missing_prerequisite(
            what,
            "../shared not found (set ANSER_SHARED to the shared reference folder)",
        );
    }
    bench
}

/// Public tasks of one release file (`legal/zh/predictive.json`) with their references.
pub fn tasks_of<'b>(bench: &'b Benchmark, file: &str) -> Vec<(&'b PublicTask, &'b Reference)> {
    bench
        .tasks()
        .iter()
        .filter(|t| t.source_file == file)
        .map(|t| (t, bench.reference(&t.id).expect("every task has a reference")))
        .collect()
}
