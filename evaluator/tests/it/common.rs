//! Shared helpers: the shared reference folder and the loaded release benchmark.

use std::{
    path::PathBuf,
    sync::OnceLock,
};

use anser_manifest::Benchmark;

/// `../shared` (or `$ANSER_SHARED`), or `None` after printing why the caller skips.
pub fn shared(what: &str) -> Option<PathBuf> {
    anser_manifest::shared_dir_or_skip(what)
}

/// The release task files, loaded once per test binary.
pub fn release_benchmark(shared: &std::path::Path) -> &'static Benchmark {
    static BENCH: OnceLock<Benchmark> = OnceLock::new();
    BENCH.get_or_init(|| match Benchmark::load(&shared.join("anser/query")) {
        Ok(b) => b,
        Err(e) => panic!("release task files do not load: {e}"),
    })
}
