//! Measures how long `anser_samples::generate` takes to write a complete sample (ten corpora,
//! task files for all 14 groups) into a fresh temporary folder: the `small` size (tests and the
//! demo; target: a few seconds) three times and the `medium` size (benchmark scale: 20,000 cases
//! per legal language, >100,000 report chunks, 10,500 articles) once. divan prints the wall
//! times (fastest, slowest, median, mean); each size also prints its bytes written, tasks and
//! corpus rows once. Run with `cargo bench -p anser-samples --bench generate`; time only `small`
//! with `cargo bench -p anser-samples --bench generate -- small`.

use std::sync::Once;

use anser_samples::{SampleOptions, Size, generate};
use divan::Bencher;

fn main() {
    divan::main();
}

/// Times `generate` for `size` with seeds 100, 101, …, and prints the first sample's size.
fn bench_size(bencher: Bencher, size: Size, printed: &Once) {
    let mut seed = 100;
    bencher
        .with_inputs(|| {
            seed += 1;
            (seed - 1, tempfile::tempdir().expect("tempdir"))
        })
        .bench_local_values(|(seed, dir)| {
            let s = generate(&SampleOptions { seed, size }, &dir.path().join("sample")).expect("generate");
            printed.call_once(|| {
                println!(
                    "generate {size:<6}: {:.1} MiB, {} tasks, {} corpus rows",
                    s.total_bytes() as f64 / (1024.0 * 1024.0),
                    s.task_count(),
                    s.corpus_rows.values().sum::<u64>()
                );
            });
            dir
        });
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn small(bencher: Bencher) {
    static PRINTED: Once = Once::new();
    bench_size(bencher, Size::Small, &PRINTED);
}

#[divan::bench(sample_count = 1, sample_size = 1)]
fn medium(bencher: Bencher) {
    static PRINTED: Once = Once::new();
    bench_size(bencher, Size::Medium, &PRINTED);
}
