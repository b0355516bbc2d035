//! Measures the cost of the comparison statistics on data shaped like a real ablation: paired
//! per-task differences of one metric for 20, 57 and 300 tasks (the sizes of the smallest,
//! a middle and the largest ANSER groups), values drawn deterministically from {0, 0.2, …, 1}
//! like Recall@5. Reports wall time per bootstrap CI (10,000 resamples), per sign-flip test
//! (exact enumeration for ≤ 20 non-zero pairs, else 10,000 random sign vectors) and per Holm
//! correction. Run with `cargo bench -p anser-reports`.

use std::{hint::black_box, time::Instant};

use anser_reports::{
    rng::Rng,
    stats::{StatsParams, bootstrap_ci, holm, sign_flip_p_value},
};

fn diffs(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| (rng.below(6) as f64 - rng.below(6) as f64) / 5.0).collect()
}

fn time<F: FnMut()>(label: &str, reps: usize, mut f: F) {
    let started = Instant::now();
    for _ in 0..reps {
        f();
    }
    let per = started.elapsed().as_secs_f64() / reps as f64;
    println!("{label:<44} {:>10.3} ms", per * 1e3);
}

fn main() {
    let params = StatsParams::default();
    for n in [20, 57, 300] {
        let d = diffs(n, n as u64);
        time(&format!("bootstrap CI, n = {n}"), 5, || {
            let mut rng = params.rng(&["bench"]);
            black_box(bootstrap_ci(black_box(&d), &params, &mut rng));
        });
        time(&format!("sign-flip p-value, n = {n}"), 5, || {
            let mut rng = params.rng(&["bench"]);
            black_box(sign_flip_p_value(black_box(&d), &params, &mut rng));
        });
    }
    let p: Vec<f64> = (1..=18).map(|i| f64::from(i) / 40.0).collect();
    time("Holm over 18 metrics", 10_000, || {
        black_box(holm(black_box(&p)));
    });
}
