//! Measures how long `anser_samples::generate` takes to write a complete sample (ten corpora,
//! task files for all 14 groups) into a fresh temporary folder: the `small` size three times
//! (tests and the demo; target: a few seconds) and the `medium` size once (benchmark scale:
//! 20,000 cases per legal language, >100,000 report chunks, 10,500 articles). Prints wall time,
//! bytes written and tasks per size. Then the `release` size once, scaled by
//! ANSER_BENCH_RELEASE_SCALE (default 0.02; 1 is the full release: minutes and several GB, see
//! scripts/release-bench.sh), with rows per second. Run with
//! `cargo bench -p anser-samples --bench generate`; set ANSER_BENCH_SKIP_MEDIUM=1 to time only
//! `small` and ANSER_BENCH_SKIP_RELEASE=1 to skip the release case.

use std::time::Instant;

use anser_samples::{SampleOptions, Size, generate};

/// Release fraction timed when ANSER_BENCH_RELEASE_SCALE is not set.
const DEFAULT_RELEASE_SCALE: f64 = 0.02;

fn run(size: Size, repeats: usize) {
    let mut times = Vec::new();
    let mut last = None;
    for k in 0..repeats {
        let dir = tempfile::tempdir().expect("tempdir");
        let started = Instant::now();
        let summary =
            generate(&SampleOptions { seed: 100 + k as u64, size, ..Default::default() }, &dir.path().join("sample"))
                .expect("generate");
        times.push(started.elapsed().as_secs_f64());
        last = Some(summary);
    }
    times.sort_by(f64::total_cmp);
    if let Some(s) = last {
        println!(
            "generate {size:<6}: median {:.2} s over {repeats} run(s) (min {:.2} s), {:.1} MiB, {} tasks, {} corpus rows",
            times[times.len() / 2],
            times[0],
            s.total_bytes() as f64 / (1024.0 * 1024.0),
            s.task_count(),
            s.corpus_rows.values().sum::<u64>()
        );
    }
}

fn run_release() {
    let fraction = match std::env::var("ANSER_BENCH_RELEASE_SCALE") {
        Ok(v) => v.parse::<f64>().expect("ANSER_BENCH_RELEASE_SCALE must be a fraction in (0, 1]"),
        Err(_) => DEFAULT_RELEASE_SCALE,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    let options = SampleOptions { size: Size::Release, fraction, ..Default::default() };
    let s = generate(&options, &dir.path().join("sample")).expect("generate release");
    let secs = started.elapsed().as_secs_f64();
    let rows: u64 = s.corpus_rows.values().sum();
    println!(
        "generate release (scale {fraction}): {secs:.2} s, {:.1} MiB, {} tasks, {rows} corpus rows ({:.0} rows/s)",
        s.total_bytes() as f64 / (1024.0 * 1024.0),
        s.task_count(),
        rows as f64 / secs
    );
}

fn main() {
    run(Size::Small, 3);
    if std::env::var_os("ANSER_BENCH_SKIP_MEDIUM").is_none() {
        run(Size::Medium, 1);
    }
    if std::env::var_os("ANSER_BENCH_SKIP_RELEASE").is_none() {
        run_release();
    }
}
