//! Measures how long `anser_samples::generate` takes to write a complete sample (ten corpora,
//! task files for all 14 groups) into a fresh temporary folder: the `small` size (tests and the
//! demo; target: a few seconds) three times, the `medium` size (benchmark scale: 20,000 cases
//! per legal language, >100,000 report chunks, 10,500 articles) once, and the `release` size
//! once, scaled by ANSER_BENCH_RELEASE_SCALE (default 0.02; 1 is the full release: minutes and
//! several GB, see scripts/release-bench.sh). divan prints the wall times (fastest, slowest,
//! median, mean); after the table, each size prints its bytes written, tasks and corpus rows.
//! Run with `cargo bench -p anser-samples --bench generate`; time only `small` with
//! `cargo bench -p anser-samples --bench generate -- small`.

use std::sync::{Mutex, Once};

use anser_samples::{SampleOptions, Size, generate};
use divan::Bencher;

/// Release fraction timed when ANSER_BENCH_RELEASE_SCALE is not set.
const DEFAULT_RELEASE_SCALE: f64 = 0.02;

/// One line per size, printed after divan's table (printing inside it would break the table).
static SUMMARIES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn main() {
    divan::main();
    for line in SUMMARIES.lock().map(|l| l.clone()).unwrap_or_default() {
        println!("{line}");
    }
}

/// Times `generate` for `size` (scaled by `fraction`) with seeds 100, 101, …, and notes the
/// first sample's size.
fn bench_size(bencher: Bencher, size: Size, fraction: f64, printed: &Once) {
    let mut seed = 100;
    bencher
        .with_inputs(|| {
            seed += 1;
            (seed - 1, tempfile::tempdir().expect("tempdir"))
        })
        .bench_local_values(|(seed, dir)| {
            let options = SampleOptions { seed, size, fraction, ..Default::default() };
            let s = generate(&options, &dir.path().join("sample")).expect("generate");
            printed.call_once(|| {
                let line = format!(
                    "generate {size:<7} (scale {fraction}): {:.1} MiB, {} tasks, {} corpus rows",
                    s.total_bytes() as f64 / (1024.0 * 1024.0),
                    s.task_count(),
                    s.corpus_rows.values().sum::<u64>()
                );
                if let Ok(mut lines) = SUMMARIES.lock() {
                    lines.push(line);
                }
            });
            dir
        });
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn small(bencher: Bencher) {
    static PRINTED: Once = Once::new();
    bench_size(bencher, Size::Small, 1.0, &PRINTED);
}

#[divan::bench(sample_count = 1, sample_size = 1)]
fn medium(bencher: Bencher) {
    static PRINTED: Once = Once::new();
    bench_size(bencher, Size::Medium, 1.0, &PRINTED);
}

#[divan::bench(sample_count = 1, sample_size = 1)]
fn release(bencher: Bencher) {
    static PRINTED: Once = Once::new();
    let fraction = match std::env::var("ANSER_BENCH_RELEASE_SCALE") {
        Ok(v) => v.parse::<f64>().expect("ANSER_BENCH_RELEASE_SCALE must be a fraction in (0, 1]"),
        Err(_) => DEFAULT_RELEASE_SCALE,
    };
    bench_size(bencher, Size::Release, fraction, &PRINTED);
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
