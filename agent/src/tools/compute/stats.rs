//! Association statistics for the legal predictive tasks: a binary predictor X against a binary
//! outcome (2×2 table) or a continuous outcome (two samples).
//!
//! What the release's ground truth uses (worked out from its numbers — see the README section
//! "Agent tools" and `tests/it/stats.rs`, which re-derives all 130 binary tasks):
//! - `legal_zh_predictive`: odds ratio with the Haldane–Anscombe +0.5 on **every** cell, and a
//!   two-sided **Wald** p-value of log(OR) with SE = √Σ 1/(cell+0.5) — 35 of 35 tasks exact.
//! - `legal_en_predictive`: the raw odds ratio and the Wald p-value with SE = √Σ 1/cell —
//!   95 of 95 exact. None of its tables has a zero cell.
//! - Neither matches Fisher's exact test (1 of 95 and 3 of 35 agree to 6 decimals).
//! - Continuous outcomes: `median_difference = median_x1 − median_x0` in all 65 tasks; the CI
//!   endpoints are whole or half units and asymmetric in 48 of 65, as a percentile bootstrap of
//!   the difference of medians gives (a normal approximation is symmetric; the
//!   Hodges–Lehmann/Mann–Whitney interval is centred on another estimator), and the instruction
//!   itself says "bootstrap". Resample count and seed are not published, so endpoints can
//!   differ at the margin.
//! - `option`: binary — p < 0.05 and OR > 1 positive, OR < 1 negative, else no clear relation;
//!   continuous — CI above 0 positive, below 0 negative, else none. True for all 195 tasks.
//!
//! This module computes all of them ([`BinaryAssociation`] carries the Haldane-when-zero odds
//! ratio and Fisher's exact p-value as well as the release's conventions) and
//! [`Convention`] selects which ones fill the answer's `value` object.

use anser_manifest::Language;
use anser_pycompat::{numeric::median_in_place, percentile_linear};
use rand_xoshiro::rand_core::{Rng as _, SeedableRng};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{Error, Result};

/// Two-sided significance level of the `option` rule.
pub const SIGNIFICANCE: f64 = 0.05;
/// Default bootstrap resamples of the median-difference CI.
pub const DEFAULT_BOOTSTRAP_RESAMPLES: usize = 2_000;
/// Default bootstrap seed (fixed: the same data give the same interval).
pub const DEFAULT_BOOTSTRAP_SEED: u64 = 20_240_601;
/// Default confidence level of the interval.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Relative tolerance under which two hypergeometric probabilities count as equal in Fisher's
/// test (R uses the same).
const FISHER_REL_TOL: f64 = 1e-7;

/// Counts of a 2×2 table: X (predictor, 1/0) by Y (outcome, 1/0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TwoByTwo {
    pub x1_y1: u64,
    pub x1_y0: u64,
    pub x0_y1: u64,
    pub x0_y0: u64,
}

impl TwoByTwo {
    /// Count (x, y) pairs.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (bool, bool)>) -> TwoByTwo {
        let mut t = TwoByTwo { x1_y1: 0, x1_y0: 0, x0_y1: 0, x0_y0: 0 };
        for (x, y) in pairs {
            match (x, y) {
                (true, true) => t.x1_y1 += 1,
                (true, false) => t.x1_y0 += 1,
                (false, true) => t.x0_y1 += 1,
                (false, false) => t.x0_y0 += 1,
            }
        }
        t
    }

    pub fn n(&self) -> u64 {
        self.x1_y1 + self.x1_y0 + self.x0_y1 + self.x0_y0
    }

    fn cells(&self) -> [f64; 4] {
        [self.x1_y1 as f64, self.x1_y0 as f64, self.x0_y1 as f64, self.x0_y0 as f64]
    }

    pub fn has_zero_cell(&self) -> bool {
        self.cells().contains(&0.0)
    }
}

/// When the odds ratio (and its standard error) adds 0.5 to every cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    /// Only when a cell is zero (the raw ratio is 0, ∞ or undefined otherwise).
    HaldaneWhenZero,
    /// Always (the Chinese release's convention).
    HaldaneAlways,
}

impl Correction {
    fn cells(self, t: &TwoByTwo) -> ([f64; 4], bool) {
        let c = t.cells();
        let add = self == Correction::HaldaneAlways || t.has_zero_cell();
        (if add { c.map(|v| v + 0.5) } else { c }, add)
    }
}

/// Odds ratio (x1_y1·x0_y0)/(x1_y0·x0_y1) and whether the +0.5 correction was applied.
pub fn odds_ratio(t: &TwoByTwo, correction: Correction) -> (f64, bool) {
    let ([a, b, c, d], corrected) = correction.cells(t);
    ((a * d) / (b * c), corrected)
}

/// Two-sided Wald p-value of log(OR) with SE = √(1/a + 1/b + 1/c + 1/d) on the (corrected)
/// cells.
pub fn wald_p(t: &TwoByTwo, correction: Correction) -> f64 {
    let ([a, b, c, d], _) = correction.cells(t);
    let z = ((a * d) / (b * c)).ln() / (1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d).sqrt();
    normal_two_sided_p(z)
}

/// ln(k!) for k = 0..=n.
fn log_factorials(n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n + 1);
    let mut acc = 0.0f64;
    out.push(0.0);
    for k in 1..=n {
        acc += (k as f64).ln();
        out.push(acc);
    }
    out
}

/// Two-sided Fisher exact p-value: the probability, under the hypergeometric null with the
/// table's margins, of every table no more likely than the observed one.
pub fn fisher_exact_p(t: &TwoByTwo) -> f64 {
    let n = t.n() as usize;
    let row1 = (t.x1_y1 + t.x1_y0) as usize;
    let col1 = (t.x1_y1 + t.x0_y1) as usize;
    let lf = log_factorials(n);
    let log_p = |x: usize| -> f64 {
        // P(X = x) = C(col1, x) C(n - col1, row1 - x) / C(n, row1)
        lf[col1] - lf[x] - lf[col1 - x] + lf[n - col1] - lf[row1 - x] - lf[n - col1 - (row1 - x)] - lf[n]
            + lf[row1]
            + lf[n - row1]
    };
    let lo = (row1 + col1).saturating_sub(n);
    let hi = row1.min(col1);
    let observed = log_p(t.x1_y1 as usize);
    let threshold = observed + FISHER_REL_TOL.ln_1p();
    let p: f64 = (lo..=hi).map(log_p).filter(|&lp| lp <= threshold).map(f64::exp).sum();
    p.min(1.0)
}

/// Complementary error function (`libm`'s port of the FreeBSD/musl implementation, within
/// 1 ulp; it reproduces the scipy reference p-values of `tests/it/stats.rs`).
pub use libm::erfc;

/// Two-sided normal p-value of a z statistic: P(|Z| ≥ |z|).
pub fn normal_two_sided_p(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// Median (mean of the two middle values for an even count); `None` for no values.
pub use anser_pycompat::numeric::median;

/// Python's `round(x, 6)`, as the release prints association values.
pub use anser_pycompat::round6;

/// The bootstrap's generator: SplitMix64 (`rand_xoshiro`, the published algorithm, pinned by
/// a unit test) with Lemire's index draw, so the same seed gives the same interval on every
/// platform.
#[derive(Debug, Clone)]
pub struct SplitMix64(rand_xoshiro::SplitMix64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(rand_xoshiro::SplitMix64::seed_from_u64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// The generator seeded with `seed` after `draws` draws. SplitMix64's state is a counter
    /// that every draw moves by the same odd constant, so any point of the stream is reached in
    /// one step: the bootstrap starts each thread at its first resample's draws.
    pub fn at(seed: u64, draws: u64) -> Self {
        SplitMix64::new(seed.wrapping_add(draws.wrapping_mul(SPLITMIX64_GAMMA)))
    }

    /// Uniform index below `n` (Lemire's multiply-shift).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

/// The increment of SplitMix64's state per draw (the published algorithm's golden gamma).
const SPLITMIX64_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// Draws (resamples × both groups' sizes) from which a bootstrap splits its resamples over the
/// machine's threads: below it (≈ 1 ms of draws here) starting a thread costs more than it
/// saves.
const PARALLEL_MIN_DRAWS: usize = 1 << 18;

/// Threads a large bootstrap is split over: the machine's, at most 4.
fn bootstrap_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

/// Percentile-bootstrap parameters, valid by construction: [`BootstrapParams::new`] and
/// deserialization both check them (a compute request carries them from the model).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawBootstrapParams")]
pub struct BootstrapParams {
    resamples: usize,
    seed: u64,
    confidence: f64,
}

/// The fields as a request writes them, before validation.
#[derive(Deserialize)]
struct RawBootstrapParams {
    resamples: usize,
    seed: u64,
    confidence: f64,
}

impl TryFrom<RawBootstrapParams> for BootstrapParams {
    type Error = Error;

    fn try_from(raw: RawBootstrapParams) -> Result<Self> {
        BootstrapParams::new(raw.resamples, raw.seed, raw.confidence)
    }
}

impl Default for BootstrapParams {
    fn default() -> Self {
        BootstrapParams {
            resamples: DEFAULT_BOOTSTRAP_RESAMPLES,
            seed: DEFAULT_BOOTSTRAP_SEED,
            confidence: DEFAULT_CONFIDENCE,
        }
    }
}

impl BootstrapParams {
    /// Resamples in 100..=1,000,000 and a confidence strictly inside (0, 1).
    pub fn new(resamples: usize, seed: u64, confidence: f64) -> Result<BootstrapParams> {
        if !(100..=1_000_000).contains(&resamples) {
            return Err(Error::Param(format!("bootstrap resamples {resamples} is outside 100..=1000000")));
        }
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(Error::Param(format!("confidence {confidence} is not inside (0, 1)")));
        }
        Ok(BootstrapParams { resamples, seed, confidence })
    }

    /// The same parameters with another seed (every seed is valid).
    pub fn with_seed(self, seed: u64) -> BootstrapParams {
        BootstrapParams { seed, ..self }
    }

    pub fn resamples(&self) -> usize {
        self.resamples
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn confidence(&self) -> f64 {
        self.confidence
    }
}

/// Percentile-bootstrap CI of median(x1) − median(x0), resampling each group with replacement
/// at its own size.
pub fn bootstrap_median_difference_ci(x1: &[f64], x0: &[f64], params: &BootstrapParams) -> Result<(f64, f64)> {
    if x1.is_empty() || x0.is_empty() {
        return Err(Error::Statistics("both groups need at least one value for a bootstrap interval".into()));
    }
    let draws = params.resamples.saturating_mul(x1.len() + x0.len());
    let threads = if draws >= PARALLEL_MIN_DRAWS { bootstrap_threads() } else { 1 };
    let mut diffs = median_differences(x1, x0, params, threads);
    diffs.sort_by(f64::total_cmp);
    let alpha = (1.0 - params.confidence) / 2.0;
    match (percentile_linear(&diffs, alpha), percentile_linear(&diffs, 1.0 - alpha)) {
        (Some(lo), Some(hi)) => Ok((lo, hi)),
        _ => Err(Error::Statistics("the bootstrap drew no resample".into())),
    }
}

/// The differences of resampled medians, resample by resample: resample `r` draws group 1's
/// `n1` indices then group 0's `n0`, from draw `r·(n1 + n0)` of the seed's stream. `threads`
/// contiguous runs of resamples are drawn at once, each from its own point of the stream, so the
/// differences (and their order) do not depend on `threads`.
fn median_differences(x1: &[f64], x0: &[f64], params: &BootstrapParams, threads: usize) -> Vec<f64> {
    let per_resample = (x1.len() + x0.len()) as u64;
    let (g1, g0) = (ResampledMedian::new(x1), ResampledMedian::new(x0));
    let run = |first: usize, last: usize| {
        let (mut g1, mut g0) = (g1.clone(), g0.clone());
        let mut rng = SplitMix64::at(params.seed, (first as u64).wrapping_mul(per_resample));
        let mut diffs = Vec::with_capacity(last - first);
        for _ in first..last {
            let m1 = g1.draw(&mut rng);
            let m0 = g0.draw(&mut rng);
            if let (Some(m1), Some(m0)) = (m1, m0) {
                diffs.push(m1 - m0);
            }
        }
        diffs
    };
    let threads = threads.clamp(1, params.resamples);
    if threads == 1 {
        return run(0, params.resamples);
    }
    let bounds: Vec<usize> = (0..=threads).map(|t| params.resamples * t / threads).collect();
    std::thread::scope(|s| {
        let run = &run;
        let others: Vec<_> = bounds[1..].windows(2).map(|w| s.spawn(move || run(w[0], w[1]))).collect();
        let mut diffs = run(bounds[0], bounds[1]);
        for other in others {
            // A draw cannot panic (indices are below each group's size); if a thread did, its
            // panic is the caller's.
            diffs.extend(other.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        diffs
    })
}

/// The median of one group's resamples with replacement.
///
/// A resample of n values is only a count per distinct value, so the distinct values are sorted
/// once and each resample counts its draws per distinct value and walks the counts up to the
/// middle: no per-resample copy or selection, and the counts to clear and walk are as many as the
/// group's distinct values (cohort values repeat: months of a sentence, amounts). The draws,
/// their order and the median are exactly those of copying the drawn values and taking
/// [`median_in_place`] (values equal under `f64::total_cmp` are the same bits); with a NaN in
/// the group (the order by `total_cmp` and the even-count rule by `f64::max` could then differ)
/// the group takes that path itself.
#[derive(Clone)]
struct ResampledMedian<'a> {
    values: &'a [f64],
    /// Index in `distinct` of each value, in input order; empty in the NaN fallback.
    class: Vec<u32>,
    /// The distinct values in increasing `f64::total_cmp` order.
    distinct: Vec<f64>,
    /// Per-resample draws per distinct value.
    counts: Vec<u32>,
    /// The drawn values in the NaN fallback.
    drawn: Vec<f64>,
}

impl<'a> ResampledMedian<'a> {
    fn new(values: &'a [f64]) -> Self {
        let n = values.len();
        if values.iter().any(|v| v.is_nan()) || u32::try_from(n).is_err() {
            return ResampledMedian {
                values,
                class: Vec::new(),
                distinct: Vec::new(),
                counts: Vec::new(),
                drawn: vec![0.0; n],
            };
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        let mut class = vec![0u32; n];
        let mut distinct: Vec<f64> = Vec::new();
        for &i in &order {
            if distinct.last().is_none_or(|last| last.total_cmp(&values[i]).is_ne()) {
                distinct.push(values[i]);
            }
            // At most n classes, and n fits in u32 (checked above).
            class[i] = (distinct.len() - 1) as u32;
        }
        let counts = vec![0; distinct.len()];
        ResampledMedian { values, class, distinct, counts, drawn: Vec::new() }
    }

    /// Draws one resample (n indices from `rng`, in order) and returns its median.
    fn draw(&mut self, rng: &mut SplitMix64) -> Option<f64> {
        let n = self.values.len();
        if self.class.is_empty() {
            for v in self.drawn.iter_mut() {
                *v = self.values[rng.below(n)];
            }
            return median_in_place(&mut self.drawn);
        }
        self.counts.fill(0);
        for _ in 0..n {
            self.counts[self.class[rng.below(n)] as usize] += 1;
        }
        // The drawn values at sorted positions mid - 1 (even n) and mid.
        let mid = n / 2;
        let (mut seen, mut lower) = (0usize, None);
        for (d, &c) in self.counts.iter().enumerate() {
            let c = c as usize;
            if c == 0 {
                continue;
            }
            if seen < mid && mid - 1 < seen + c {
                lower = Some(self.distinct[d]);
            }
            if seen + c > mid {
                let upper = self.distinct[d];
                return Some(if n % 2 == 1 { upper } else { (lower.unwrap_or(upper) + upper) / 2.0 });
            }
            seen += c;
        }
        None
    }
}

/// Which estimates fill the answer's `value` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Convention {
    /// Haldane–Anscombe on every cell, Wald p-value (legal_zh_predictive ground truth).
    HaldaneWald,
    /// Raw odds ratio (Haldane only with a zero cell), Wald p-value (legal_en_predictive).
    RawWald,
    /// Raw odds ratio (Haldane only with a zero cell), Fisher's exact p-value.
    RawFisher,
}

impl Convention {
    /// The convention the release's ground truth follows for a language.
    pub fn release(language: Language) -> Convention {
        match language {
            Language::Zh => Convention::HaldaneWald,
            Language::En => Convention::RawWald,
        }
    }
}

/// Relation labels of the answer's `option`.
pub fn option_labels(language: Language) -> [&'static str; 3] {
    match language {
        Language::Zh => ["正向关联", "负向关联", "无明确关联"],
        Language::En => ["positive", "negative", "no_clear_relationship"],
    }
}

/// Every statistic of a binary outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BinaryAssociation {
    pub table: TwoByTwo,
    pub n: u64,
    pub n_x1: u64,
    pub n_x0: u64,
    pub outcome_rate_x1: f64,
    pub outcome_rate_x0: f64,
    /// Raw odds ratio, Haldane–Anscombe +0.5 on every cell only when a cell is zero.
    pub odds_ratio: f64,
    pub odds_ratio_corrected: bool,
    /// Odds ratio with +0.5 on every cell regardless.
    pub odds_ratio_haldane: f64,
    /// Two-sided Fisher exact p-value.
    pub fisher_p: f64,
    /// Two-sided Wald p-value of log(`odds_ratio`).
    pub wald_p: f64,
    /// Two-sided Wald p-value of log(`odds_ratio_haldane`).
    pub wald_p_haldane: f64,
}

impl BinaryAssociation {
    /// Compute from a 2×2 table; both predictor groups must be non-empty.
    pub fn new(table: TwoByTwo) -> Result<BinaryAssociation> {
        let n_x1 = table.x1_y1 + table.x1_y0;
        let n_x0 = table.x0_y1 + table.x0_y0;
        if n_x1 == 0 || n_x0 == 0 {
            return Err(Error::Statistics(format!(
                "the X=1 group has {n_x1} cases and the X=0 group {n_x0}; both need at least one"
            )));
        }
        let (raw, odds_ratio_corrected) = odds_ratio(&table, Correction::HaldaneWhenZero);
        Ok(BinaryAssociation {
            table,
            n: table.n(),
            n_x1,
            n_x0,
            outcome_rate_x1: table.x1_y1 as f64 / n_x1 as f64,
            outcome_rate_x0: table.x0_y1 as f64 / n_x0 as f64,
            odds_ratio: raw,
            odds_ratio_corrected,
            odds_ratio_haldane: odds_ratio(&table, Correction::HaldaneAlways).0,
            fisher_p: fisher_exact_p(&table),
            wald_p: wald_p(&table, Correction::HaldaneWhenZero),
            wald_p_haldane: wald_p(&table, Correction::HaldaneAlways),
        })
    }

    /// (odds ratio, p-value) under a convention.
    pub fn reported(&self, convention: Convention) -> (f64, f64) {
        match convention {
            Convention::HaldaneWald => (self.odds_ratio_haldane, self.wald_p_haldane),
            Convention::RawWald => (self.odds_ratio, self.wald_p),
            Convention::RawFisher => (self.odds_ratio, self.fisher_p),
        }
    }

    /// The answer's `value` object: n and the four statistics rounded to six decimals.
    pub fn value(&self, convention: Convention) -> Value {
        let (or, p) = self.reported(convention);
        json!({
            "n": self.n,
            "outcome_rate_x1": round6(self.outcome_rate_x1),
            "outcome_rate_x0": round6(self.outcome_rate_x0),
            "odds_ratio": round6(or),
            "p_value": round6(p),
        })
    }

    /// The relation label: significant at 0.05 and OR above/below 1.
    pub fn option(&self, convention: Convention, language: Language) -> &'static str {
        let (or, p) = self.reported(convention);
        let [pos, neg, none] = option_labels(language);
        if p < SIGNIFICANCE && or > 1.0 {
            pos
        } else if p < SIGNIFICANCE && or < 1.0 {
            neg
        } else {
            none
        }
    }
}

/// Every statistic of a continuous outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContinuousAssociation {
    pub n: u64,
    pub n_x1: u64,
    pub n_x0: u64,
    pub median_x1: f64,
    pub median_x0: f64,
    pub median_difference: f64,
    pub ci95_lower: f64,
    pub ci95_upper: f64,
    /// How the interval was computed.
    pub ci_method: String,
    pub bootstrap: BootstrapParams,
}

impl ContinuousAssociation {
    /// Compute from the outcome values of the two predictor groups.
    pub fn new(x1: &[f64], x0: &[f64], params: &BootstrapParams) -> Result<ContinuousAssociation> {
        if let Some(bad) = x1.iter().chain(x0).find(|v| !v.is_finite()) {
            return Err(Error::Statistics(format!("outcome value {bad} is not a finite number")));
        }
        let (Some(median_x1), Some(median_x0)) = (median(x1), median(x0)) else {
            return Err(Error::Statistics(format!(
                "the X=1 group has {} values and the X=0 group {}; both need at least one",
                x1.len(),
                x0.len()
            )));
        };
        let (lo, hi) = bootstrap_median_difference_ci(x1, x0, params)?;
        Ok(ContinuousAssociation {
            n: (x1.len() + x0.len()) as u64,
            n_x1: x1.len() as u64,
            n_x0: x0.len() as u64,
            median_x1,
            median_x0,
            median_difference: median_x1 - median_x0,
            ci95_lower: lo,
            ci95_upper: hi,
            ci_method: format!(
                "percentile bootstrap of median(x1) - median(x0), {} resamples per group with replacement, seed {}",
                params.resamples, params.seed
            ),
            bootstrap: *params,
        })
    }

    /// The answer's `value` object.
    pub fn value(&self) -> Value {
        json!({
            "n": self.n,
            "median_x1": round6(self.median_x1),
            "median_x0": round6(self.median_x0),
            "median_difference": round6(self.median_difference),
            "ci95_lower": round6(self.ci95_lower),
            "ci95_upper": round6(self.ci95_upper),
        })
    }

    /// The relation label: the interval entirely above or below zero.
    pub fn option(&self, language: Language) -> &'static str {
        let [pos, neg, none] = option_labels(language);
        if self.ci95_lower > 0.0 {
            pos
        } else if self.ci95_upper < 0.0 {
            neg
        } else {
            none
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(a: u64, b: u64, c: u64, d: u64) -> TwoByTwo {
        TwoByTwo { x1_y1: a, x1_y0: b, x0_y1: c, x0_y0: d }
    }

    #[test]
    fn hand_computed_odds_ratios() {
        // (10·40)/(20·30) = 2/3
        assert!((odds_ratio(&t(10, 20, 30, 40), Correction::HaldaneWhenZero).0 - 2.0 / 3.0).abs() < 1e-15);
        // A zero cell: (0.5·4.5)/(2.5·3.5) = 2.25/8.75
        let (or, corrected) = odds_ratio(&t(0, 2, 3, 4), Correction::HaldaneWhenZero);
        assert!(corrected && (or - 2.25 / 8.75).abs() < 1e-15);
        let (or, corrected) = odds_ratio(&t(1, 1, 1, 1), Correction::HaldaneAlways);
        assert!(corrected && (or - 1.0).abs() < 1e-15);
    }

    #[test]
    fn hand_computed_fisher() {
        // Tea tasting [[3,1],[1,3]]: tables x = 0..=4 have probabilities 1,16,36,16,1 over 70;
        // two-sided p = (1+16+16+1)/70.
        assert!((fisher_exact_p(&t(3, 1, 1, 3)) - 34.0 / 70.0).abs() < 1e-12);
        // The most extreme table [[4,0],[0,4]]: p = 2/70.
        assert!((fisher_exact_p(&t(4, 0, 0, 4)) - 2.0 / 70.0).abs() < 1e-12);
        // The most likely table has p = 1.
        assert!((fisher_exact_p(&t(2, 2, 2, 2)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn erfc_known_values() {
        assert_eq!(erfc(0.0), 1.0);
        assert!((erfc(1.0) - 0.157_299_207_050_285_13).abs() < 1e-15);
        assert!((erfc(3.0) - 2.209_049_699_858_544e-5).abs() < 1e-17);
        assert!((erfc(-1.0) - 1.842_700_792_949_715).abs() < 1e-15);
        assert!((normal_two_sided_p(1.959_963_984_540_054) - 0.05).abs() < 1e-12);
    }

    /// The bootstrap generator's first outputs for two seeds, computed with the hand-written
    /// SplitMix64 this module had before it used `rand_xoshiro`: every bootstrap interval
    /// depends on them.
    #[test]
    fn splitmix_stream_is_pinned_for_two_seeds() {
        let mut r = SplitMix64::new(0);
        let first: Vec<u64> = (0..8).map(|_| r.next_u64()).collect();
        assert_eq!(
            first,
            [
                0xe220_a839_7b1d_cdaf,
                0x6e78_9e6a_a1b9_65f4,
                0x06c4_5d18_8009_454f,
                0xf88b_b8a8_724c_81ec,
                0x1b39_896a_51a8_749b,
                0x53cb_9f0c_747e_a2ea,
                0x2c82_9abe_1f45_32e1,
                0xc584_133a_c916_ab3c,
            ]
        );
        let mut r = SplitMix64::new(DEFAULT_BOOTSTRAP_SEED);
        let first: Vec<u64> = (0..8).map(|_| r.next_u64()).collect();
        assert_eq!(
            first,
            [
                0x0687_6576_7c3c_f2f8,
                0xa253_9ed8_ea3f_7e6b,
                0x0220_7029_b717_51b7,
                0xd440_e7f3_380b_43fc,
                0x05e7_5433_7024_414b,
                0x1e9f_2acf_8859_25a3,
                0x439e_a525_4f87_cf0a,
                0x4a0f_3eb4_e87b_92d7,
            ]
        );
        let mut r = SplitMix64::new(0);
        assert_eq!((0..4).map(|_| r.below(1000)).collect::<Vec<_>>(), [883, 431, 26, 970]);
        let mut r = SplitMix64::new(DEFAULT_BOOTSTRAP_SEED);
        assert_eq!((0..4).map(|_| r.below(1000)).collect::<Vec<_>>(), [25, 634, 8, 829]);
    }

    #[test]
    fn bootstrap_defaults_are_valid_and_construction_validates() {
        assert_eq!(
            (DEFAULT_BOOTSTRAP_RESAMPLES, DEFAULT_BOOTSTRAP_SEED, DEFAULT_CONFIDENCE),
            (2_000, 20_240_601, 0.95)
        );
        let p = BootstrapParams::default();
        assert_eq!(BootstrapParams::new(p.resamples(), p.seed(), p.confidence()).expect("valid"), p);
        assert_eq!(p.with_seed(1).seed(), 1);
        assert!(BootstrapParams::new(99, 1, 0.95).is_err());
        assert!(BootstrapParams::new(1_000_001, 1, 0.95).is_err());
        assert!(BootstrapParams::new(100, 1, 1.0).is_err());
        assert!(BootstrapParams::new(100, 1, f64::NAN).is_err());
        let bad = serde_json::from_value::<BootstrapParams>(json!({"resamples": 5, "seed": 1, "confidence": 0.9}));
        assert!(bad.is_err_and(|e| e.to_string().contains("resamples 5")));
        let ok: BootstrapParams =
            serde_json::from_value(json!({"resamples": 100, "seed": 7, "confidence": 0.9})).expect("valid");
        assert_eq!((ok.resamples(), ok.seed(), ok.confidence()), (100, 7, 0.9));
    }

    #[test]
    fn bootstrap_of_constant_groups_is_a_point() {
        let ci = bootstrap_median_difference_ci(&[5.0; 7], &[2.0; 4], &BootstrapParams::default()).expect("ci");
        assert_eq!(ci, (3.0, 3.0));
        let a = ContinuousAssociation::new(&[12.0, 6.0, 9.0], &[3.0, 4.0], &BootstrapParams::default()).expect("ok");
        assert_eq!((a.median_x1, a.median_x0, a.median_difference), (9.0, 3.5, 5.5));
        assert!(a.ci95_lower <= a.ci95_upper);
        assert!(ContinuousAssociation::new(&[], &[1.0], &BootstrapParams::default()).is_err());
        assert!(ContinuousAssociation::new(&[f64::NAN], &[1.0], &BootstrapParams::default()).is_err());
    }

    #[test]
    fn options_follow_significance_and_direction() {
        let strong = BinaryAssociation::new(t(40, 10, 10, 40)).expect("ok");
        assert_eq!(strong.option(Convention::RawFisher, Language::En), "positive");
        assert_eq!(strong.option(Convention::HaldaneWald, Language::Zh), "正向关联");
        let flat = BinaryAssociation::new(t(10, 10, 10, 10)).expect("ok");
        assert_eq!(flat.option(Convention::RawWald, Language::En), "no_clear_relationship");
        assert!(BinaryAssociation::new(t(0, 0, 3, 4)).is_err());
    }

    #[test]
    fn splitmix_at_is_the_stream_after_that_many_draws() {
        for seed in [0, 7, DEFAULT_BOOTSTRAP_SEED, u64::MAX] {
            let mut stepped = SplitMix64::new(seed);
            for k in 0..300u64 {
                assert_eq!(SplitMix64::at(seed, k).next_u64(), stepped.next_u64(), "seed {seed}, draw {k}");
            }
        }
    }

    #[test]
    fn bootstrap_differences_do_not_depend_on_threads() {
        // The reference: one generator drawing group 1 then group 0, resample after resample.
        let x1: Vec<f64> = (0..37).map(|i| f64::from(i % 9) * 1.5).collect();
        let x0: Vec<f64> = (0..23).map(|i| f64::from((i * 7) % 11)).collect();
        let params = BootstrapParams::new(301, 5, 0.95).expect("valid");
        let mut rng = SplitMix64::new(5);
        let (mut g1, mut g0) = (ResampledMedian::new(&x1), ResampledMedian::new(&x0));
        let want: Vec<u64> = (0..301)
            .filter_map(|_| {
                let m1 = g1.draw(&mut rng);
                let m0 = g0.draw(&mut rng);
                Some((m1? - m0?).to_bits())
            })
            .collect();
        for threads in [1, 2, 3, 7, 1000] {
            let got: Vec<u64> = median_differences(&x1, &x0, &params, threads).into_iter().map(f64::to_bits).collect();
            assert_eq!(got, want, "{threads} threads");
        }
    }

    #[test]
    fn resampled_medians_equal_copying_the_draws_and_selecting() {
        // The reference: draw the values themselves (the same indices in the same order) and
        // take the median of the copy.
        let mut data_rng = SplitMix64::new(99);
        for n in 1..=40usize {
            for case in 0..6 {
                let values: Vec<f64> = (0..n)
                    .map(|i| match case {
                        0 => data_rng.below(5) as f64,
                        1 => data_rng.below(1000) as f64 / 7.0 - 50.0,
                        2 => [0.0, -0.0, 1.5][i % 3],
                        3 if i == n / 2 => f64::NAN,
                        _ => (data_rng.below(3) as f64) * 0.5,
                    })
                    .collect();
                let mut fast = ResampledMedian::new(&values);
                let (mut a, mut b) = (SplitMix64::new(n as u64), SplitMix64::new(n as u64));
                for _ in 0..30 {
                    let got = fast.draw(&mut a);
                    let mut copy: Vec<f64> = (0..n).map(|_| values[b.below(n)]).collect();
                    let want = median_in_place(&mut copy);
                    assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "n {n}, case {case}, {values:?}");
                }
            }
        }
    }
}
