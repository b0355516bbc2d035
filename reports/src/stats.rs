//! The statistics of a paired comparison: means, percentile bootstrap confidence intervals,
//! the paired sign-flip permutation test and the Holm correction.
//!
//! Every number is reproducible: resampling uses [`crate::rng::Rng`] seeded with
//! [`StatsParams::seed`] mixed with a stable hash of what is being tested (so a comparison's
//! numbers do not change when other runs or metrics are added), and percentiles use
//! `numpy.percentile`'s default linear interpolation (the evaluator's [`percentile`]).
//!
//! Definitions (tested against numpy/scipy reference values, `tests/data/stats_reference.py`):
//! - bootstrap CI: resample the values with replacement `resamples` times, take the mean of each
//!   resample, report the `(1−c)/2` and `(1+c)/2` percentiles (scipy `method="percentile"`);
//! - sign-flip test of paired differences `d`: statistic `mean(d)`; under the null every `d_i`
//!   keeps or flips its sign with probability ½; two-sided p = 2·min(P(T ≤ t), P(T ≥ t)),
//!   clipped to 1 (scipy `permutation_test(permutation_type="samples")`). Enumerated exactly
//!   when at most `exact_max_pairs` differences are non-zero (zeros do not change the sum),
//!   otherwise `permutations` random sign vectors with the (k+1)/(R+1) correction;
//! - Holm: sort the m p-values, multiply the i-th smallest by (m−i+1), make the sequence
//!   non-decreasing, clip to 1.

use anser_evaluator::{exact::exact_mean, report::percentile};

use crate::{
    Error, Result,
    rng::{Rng, stable_hash},
};

/// Bootstrap resamples per confidence interval.
pub const DEFAULT_RESAMPLES: usize = 10_000;
/// The fewest bootstrap resamples or random sign vectors accepted.
pub const MIN_RESAMPLES: usize = 10_000;
/// Random sign vectors per Monte Carlo permutation test.
pub const DEFAULT_PERMUTATIONS: usize = 10_000;
/// Enumerate all 2^k sign vectors when at most this many differences are non-zero (2^20 ≈ 10^6).
pub const DEFAULT_EXACT_MAX_PAIRS: usize = 20;
/// The largest `exact_max_pairs` accepted (2^26 sign vectors).
pub const MAX_EXACT_PAIRS: usize = 26;
/// Seed of every resampling.
pub const DEFAULT_SEED: u64 = 20_240_601;
/// Confidence level of the intervals.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Significance level applied to Holm-adjusted p-values.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// Relative tolerance for ties between the observed statistic and a null value: sums of the
/// same differences in another order differ by rounding only (scipy uses 100·ε·|t|; sums
/// accumulated over 2^20 sign flips need a little more).
const TIE_TOLERANCE: f64 = 1e-9;

/// Resampling parameters, valid by construction: built from a [`StatsParamsBuilder`] (ranges on
/// its fields' docs); read through the getters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StatsParams(StatsParamsBuilder);

/// The unchecked resampling parameters; [`StatsParamsBuilder::build`] checks them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StatsParamsBuilder {
    /// Bootstrap resamples per confidence interval (≥ [`MIN_RESAMPLES`]; `--resamples`).
    pub resamples: usize,
    /// Random sign vectors per Monte Carlo permutation test (≥ [`MIN_RESAMPLES`]).
    pub permutations: usize,
    /// Enumerate all sign vectors up to this many non-zero differences (≤ [`MAX_EXACT_PAIRS`]).
    pub exact_max_pairs: usize,
    /// Seed of every resampling (`--seed`).
    pub seed: u64,
    /// Confidence level of the intervals, in (0, 1).
    pub confidence: f64,
    /// Significance level applied to Holm-adjusted p-values, in (0, 1).
    pub alpha: f64,
}

impl Default for StatsParamsBuilder {
    fn default() -> Self {
        StatsParamsBuilder {
            resamples: DEFAULT_RESAMPLES,
            permutations: DEFAULT_PERMUTATIONS,
            exact_max_pairs: DEFAULT_EXACT_MAX_PAIRS,
            seed: DEFAULT_SEED,
            confidence: DEFAULT_CONFIDENCE,
            alpha: DEFAULT_ALPHA,
        }
    }
}

impl StatsParamsBuilder {
    /// The parameters, when every field is in its range; the message names the parameter.
    pub fn build(self) -> Result<StatsParams> {
        if self.resamples < MIN_RESAMPLES {
            return Err(Error::Param(format!("resamples must be at least {MIN_RESAMPLES} (got {})", self.resamples)));
        }
        if self.permutations < MIN_RESAMPLES {
            return Err(Error::Param(format!(
                "permutations must be at least {MIN_RESAMPLES} (got {})",
                self.permutations
            )));
        }
        if self.exact_max_pairs > MAX_EXACT_PAIRS {
            return Err(Error::Param(format!(
                "exact_max_pairs must be at most {MAX_EXACT_PAIRS} (got {})",
                self.exact_max_pairs
            )));
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(Error::Param(format!("confidence must be in (0, 1) (got {})", self.confidence)));
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(Error::Param(format!("alpha must be in (0, 1) (got {})", self.alpha)));
        }
        Ok(StatsParams(self))
    }
}

impl StatsParams {
    /// A builder holding these parameters, to change some of them.
    pub fn to_builder(self) -> StatsParamsBuilder {
        self.0
    }

    /// Bootstrap resamples per confidence interval.
    pub fn resamples(&self) -> usize {
        self.0.resamples
    }

    /// Random sign vectors per Monte Carlo permutation test.
    pub fn permutations(&self) -> usize {
        self.0.permutations
    }

    /// Largest count of non-zero differences whose sign vectors are enumerated exactly.
    pub fn exact_max_pairs(&self) -> usize {
        self.0.exact_max_pairs
    }

    /// Seed of every resampling.
    pub fn seed(&self) -> u64 {
        self.0.seed
    }

    /// Confidence level of the intervals.
    pub fn confidence(&self) -> f64 {
        self.0.confidence
    }

    /// Significance level applied to Holm-adjusted p-values.
    pub fn alpha(&self) -> f64 {
        self.0.alpha
    }

    /// The lower tail of a confidence interval, `(1 − confidence) / 2` (its upper tail is `1 −` it).
    pub fn tail(&self) -> f64 {
        (1.0 - self.0.confidence) / 2.0
    }

    /// The generator for one named test (`parts` like `[group, metric, run]`).
    pub fn rng(&self, parts: &[&str]) -> Rng {
        Rng::new(self.0.seed ^ stable_hash(parts))
    }
}

/// Mean; `None` for no values. Values of one sign (metric values, costs) get the evaluator's
/// exactly rounded mean, so group means equal evaluation.json's; mixed signs (paired
/// differences) a Neumaier-compensated sum, within an ulp or two of the exact mean.
pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    if values.iter().all(|v| *v >= 0.0) || values.iter().all(|v| *v <= 0.0) {
        return exact_mean(values);
    }
    let (mut sum, mut compensation) = (0.0f64, 0.0f64);
    for &v in values {
        let t = sum + v;
        compensation += if sum.abs() >= v.abs() { (sum - t) + v } else { (v - t) + sum };
        sum = t;
    }
    Some((sum + compensation) / values.len() as f64)
}

/// Percentile bootstrap CI of the mean; `None` for no values, `[v, v]` for one value.
pub fn bootstrap_ci(values: &[f64], params: &StatsParams, rng: &mut Rng) -> Option<(f64, f64)> {
    let n = values.len();
    match n {
        0 => return None,
        1 => return Some((values[0], values[0])),
        _ => {}
    }
    let mut means = Vec::with_capacity(params.resamples());
    for _ in 0..params.resamples() {
        let mut sum = 0.0;
        for _ in 0..n {
            sum += values[rng.below(n)];
        }
        means.push(sum / n as f64);
    }
    means.sort_by(f64::total_cmp);
    let tail = params.tail();
    Some((percentile(&means, tail)?, percentile(&means, 1.0 - tail)?))
}

/// How a sign-flip p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PMethod {
    /// All 2^k sign vectors of the k non-zero differences.
    Exact,
    /// `permutations` random sign vectors.
    MonteCarlo,
}

/// Two-sided paired sign-flip test of `diffs` (see the module docs); 1.0 for no non-zero
/// difference.
pub fn sign_flip_p_value(diffs: &[f64], params: &StatsParams, rng: &mut Rng) -> (f64, PMethod) {
    let nonzero: Vec<f64> = diffs.iter().copied().filter(|d| *d != 0.0).collect();
    let k = nonzero.len();
    if k == 0 {
        return (1.0, PMethod::Exact);
    }
    let observed: f64 = nonzero.iter().sum();
    let scale: f64 = nonzero.iter().map(|d| d.abs()).sum();
    let gamma = TIE_TOLERANCE * scale;
    let (mut less, mut greater) = (0u64, 0u64);
    let mut count = |s: f64| {
        if s <= observed + gamma {
            less += 1;
        }
        if s >= observed - gamma {
            greater += 1;
        }
    };
    if k <= params.exact_max_pairs() {
        // Gray code: each step flips one sign, so each sum costs O(1).
        let mut signs = vec![1.0f64; k];
        let mut sum = observed;
        count(sum);
        for step in 1u64..(1u64 << k) {
            let j = step.trailing_zeros() as usize;
            sum -= 2.0 * signs[j] * nonzero[j];
            signs[j] = -signs[j];
            count(sum);
        }
        let total = (1u64 << k) as f64;
        let p = 2.0 * (less.min(greater) as f64) / total;
        (p.min(1.0), PMethod::Exact)
    } else {
        for _ in 0..params.permutations() {
            let mut sum = 0.0;
            let mut bits = 0u64;
            for (i, d) in nonzero.iter().enumerate() {
                if i % 64 == 0 {
                    bits = rng.next_u64();
                }
                sum += if bits & 1 == 1 { *d } else { -*d };
                bits >>= 1;
            }
            count(sum);
        }
        let total = params.permutations() as f64 + 1.0;
        let p = 2.0 * ((less.min(greater) + 1) as f64) / total;
        (p.min(1.0), PMethod::MonteCarlo)
    }
}

/// Holm-adjusted p-values, in the input order.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]).then(a.cmp(&b)));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        let value = ((m - rank) as f64 * p_values[i]).min(1.0);
        running = running.max(value);
        adjusted[i] = running;
    }
    adjusted
}

/// Significance mark of an adjusted p-value: `***` < 0.001, `**` < 0.01, `*` < alpha.
pub fn stars(p: f64, alpha: f64) -> &'static str {
    if p < 0.001 && p < alpha {
        "***"
    } else if p < 0.01 && p < alpha {
        "**"
    } else if p < alpha {
        "*"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_pinned() {
        let p = StatsParams::default();
        assert_eq!(StatsParamsBuilder::default().build().expect("defaults are valid"), p);
        assert_eq!((p.resamples(), p.permutations(), p.exact_max_pairs()), (10_000, 10_000, 20));
        assert_eq!((p.confidence(), p.alpha(), p.seed()), (0.95, 0.05, 20_240_601));
        // (1 − 0.95) / 2 = 0.025 and (1 − 0.9) / 2 = 0.05.
        assert!((p.tail() - 0.025).abs() < 1e-15);
        let b = p.to_builder();
        let ninety = StatsParamsBuilder { confidence: 0.9, ..b }.build().expect("valid");
        assert!((ninety.tail() - 0.05).abs() < 1e-15);
        let edge = StatsParamsBuilder { resamples: 10_000, permutations: 10_000, exact_max_pairs: 26, ..b };
        assert_eq!(edge.build().expect("bounds are valid").exact_max_pairs(), 26);
        for (bad, says) in [
            (StatsParamsBuilder { resamples: 9_999, ..b }, "resamples must be at least 10000 (got 9999)"),
            (StatsParamsBuilder { permutations: 9_999, ..b }, "permutations must be at least 10000 (got 9999)"),
            (StatsParamsBuilder { exact_max_pairs: 27, ..b }, "exact_max_pairs must be at most 26 (got 27)"),
            (StatsParamsBuilder { confidence: 1.0, ..b }, "confidence must be in (0, 1) (got 1)"),
            (StatsParamsBuilder { confidence: 0.0, ..b }, "confidence must be in (0, 1) (got 0)"),
            (StatsParamsBuilder { confidence: f64::NAN, ..b }, "confidence must be in (0, 1) (got NaN)"),
            (StatsParamsBuilder { alpha: 0.0, ..b }, "alpha must be in (0, 1) (got 0)"),
            (StatsParamsBuilder { alpha: 1.0, ..b }, "alpha must be in (0, 1) (got 1)"),
        ] {
            assert!(bad.build().is_err_and(|e| e.to_string().contains(says)), "{bad:?}");
        }
    }

    #[test]
    fn holm_by_hand() {
        // Sorted 0.01, 0.02, 0.04, 0.30 → ×4, ×3, ×2, ×1 = 0.04, 0.06, 0.08, 0.30.
        let got = holm(&[0.04, 0.01, 0.30, 0.02]);
        let want = [0.08, 0.04, 0.30, 0.06];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
        // Monotone step: 0.01×3 = 0.03, 0.011×2 = 0.022 → raised to 0.03; clipped at 1.
        let got = holm(&[0.011, 0.01, 0.9]);
        assert!((got[0] - 0.03).abs() < 1e-12 && (got[1] - 0.03).abs() < 1e-12 && got[2] == 0.9);
        assert_eq!(holm(&[0.6, 0.7]), [1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    #[test]
    fn exact_sign_flip_by_hand() {
        let params = StatsParams::default();
        let mut rng = params.rng(&["t"]);
        // d = (1, 2, 3): sums over the 8 sign vectors are ±6, ±4, ±2, ±0; T = 6 is the largest of
        // 8 → P(T ≥ 6) = 1/8 → p = 2/8.
        let (p, method) = sign_flip_p_value(&[1.0, 2.0, 3.0], &params, &mut rng);
        assert_eq!(method, PMethod::Exact);
        assert!((p - 0.25).abs() < 1e-15);
        // Ties: d = (1, 1): sums 2, 0, 0, −2 → P(T ≥ 2) = 1/4 → p = 0.5; zeros are ignored.
        let (p, _) = sign_flip_p_value(&[1.0, 0.0, 1.0], &params, &mut rng);
        assert!((p - 0.5).abs() < 1e-15);
        assert_eq!(sign_flip_p_value(&[0.0, 0.0], &params, &mut rng).0, 1.0);
    }

    #[test]
    fn bootstrap_degenerate_cases() {
        let params = StatsParams::default();
        let mut rng = params.rng(&["t"]);
        assert_eq!(bootstrap_ci(&[], &params, &mut rng), None);
        assert_eq!(bootstrap_ci(&[0.5], &params, &mut rng), Some((0.5, 0.5)));
        assert_eq!(bootstrap_ci(&[0.25, 0.25, 0.25], &params, &mut rng), Some((0.25, 0.25)));
        let (lo, hi) = bootstrap_ci(&[0.0, 1.0], &params, &mut rng).unwrap_or_default();
        assert_eq!((lo, hi), (0.0, 1.0), "two values: the 2.5/97.5 percentiles of {{0, ½, 1}} draws");
    }

    #[test]
    fn means_of_mixed_signs() {
        assert_eq!(mean(&[]), None);
        assert_eq!(mean(&[0.1, 0.2, 0.3]), Some(0.2));
        let d = [0.19999999999999996, -0.2, 0.2, 0.0];
        assert!((mean(&d).unwrap_or(f64::NAN) - 0.04999999999999999).abs() < 1e-17);
        assert_eq!(mean(&[1e16, 1.0, -1e16]), Some(1.0 / 3.0));
        assert_eq!(mean(&[-3.0, 1.0]), Some(-1.0));
    }

    #[test]
    fn stars_follow_alpha() {
        assert_eq!(stars(0.0005, 0.05), "***");
        assert_eq!(stars(0.005, 0.05), "**");
        assert_eq!(stars(0.04, 0.05), "*");
        assert_eq!(stars(0.04, 0.01), "");
        assert_eq!(stars(0.2, 0.05), "");
    }
}
