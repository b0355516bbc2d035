//! Measures the cost of the comparison statistics on data shaped like a real ablation: paired
//! per-task differences of one metric for 20, 57 and 300 tasks (the sizes of the smallest,
//! a middle and the largest ANSER groups), values drawn deterministically from {0, 0.2, …, 1}
//! like Recall@5. Times (divan: fastest, slowest, median and mean per call) one bootstrap CI
//! (10,000 resamples), one sign-flip test (exact enumeration for ≤ 20 non-zero pairs, else
//! 10,000 random sign vectors) and one Holm correction. Run with `cargo bench -p anser-reports`.

use divan::{Bencher, black_box};

use anser_reports::{
    rng::Rng,
    stats::{StatsParams, bootstrap_ci, holm, sign_flip_p_value},
};

/// Task counts of the smallest, a middle and the largest ANSER group.
const SIZES: [usize; 3] = [20, 57, 300];

fn diffs(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| (rng.below(6) as f64 - rng.below(6) as f64) / 5.0).collect()
}

fn main() {
    divan::main();
}

/// Times `statistic` on `n` paired differences with the default parameters and a fresh
/// generator per call (both statistics draw random resamples or signs).
fn resampling<T>(bencher: Bencher, n: usize, statistic: fn(&[f64], &StatsParams, &mut Rng) -> T) {
    let (d, params) = (diffs(n, n as u64), StatsParams::default());
    bencher.bench_local(|| {
        let mut rng = params.rng(&["bench"]);
        statistic(black_box(&d), &params, &mut rng)
    });
}

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn bootstrap_ci_10k_resamples(bencher: Bencher, n: usize) {
    resampling(bencher, n, bootstrap_ci);
}

#[divan::bench(args = SIZES, sample_count = 5, sample_size = 1)]
fn sign_flip_p_value_test(bencher: Bencher, n: usize) {
    resampling(bencher, n, sign_flip_p_value);
}

#[divan::bench]
fn holm_over_18_metrics(bencher: Bencher) {
    let p: Vec<f64> = (1..=18).map(|i| f64::from(i) / 40.0).collect();
    bencher.bench_local(|| holm(black_box(&p)));
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
