//! Statistics behind the legal predictive ground truth, implemented here on purpose (the agent
//! has its own; sharing code would let one bug hide the other). Formulas, also in the README:
//!
//! - 2×2 table with a = X1∧Y1, b = X1∧Y0, c = X0∧Y1, d = X0∧Y0.
//! - Odds ratio = (a·d)/(b·c); when a cell is zero, the Haldane–Anscombe correction adds 0.5 to
//!   every cell.
//! - p-value: two-sided Fisher exact test, the sum of the hypergeometric probabilities of every
//!   table with the observed margins that is no more likely than the observed one (relative
//!   tolerance 1e-7, as R and SciPy do).
//! - Median: middle value of the sorted sample, mean of the two middle values for even sizes.
//! - Median difference = median(X1) − median(X0); 95% CI = percentile bootstrap with
//!   [`BOOTSTRAP_RESAMPLES`] resamples of each group (with replacement, seeded), quantiles by
//!   linear interpolation between order statistics (NumPy's default; the workspace's one
//!   percentile, `anser_pycompat::percentile_linear`). Printed values are rounded with
//!   `anser_pycompat::round6_scaled`.
//! - Option: binary outcomes are positive/negative when p < [`ALPHA`] and OR > 1 / < 1,
//!   continuous outcomes when the CI lies above / below 0; otherwise no clear relationship.

use anser_pycompat::{percentile_linear, round6_scaled};

use crate::rng::Rng;

/// Significance level for the association option.
pub const ALPHA: f64 = 0.05;
/// Bootstrap resamples for the median-difference confidence interval.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// Direction of an observed association.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Positive,
    Negative,
    Unclear,
}

/// Binary-outcome association of a 2×2 table.
#[derive(Debug, Clone, PartialEq)]
pub struct BinaryAssociation {
    pub n: usize,
    pub rate_x1: f64,
    pub rate_x0: f64,
    pub odds_ratio: f64,
    pub p_value: f64,
    pub direction: Direction,
}

/// The 2×2 table of a binary exposure X and a binary outcome Y, counted case by case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Table2x2 {
    /// X1∧Y1.
    pub a: u64,
    /// X1∧Y0.
    pub b: u64,
    /// X0∧Y1.
    pub c: u64,
    /// X0∧Y0.
    pub d: u64,
}

impl Table2x2 {
    /// Count one case.
    pub fn add(&mut self, x: bool, y: bool) {
        match (x, y) {
            (true, true) => self.a += 1,
            (true, false) => self.b += 1,
            (false, true) => self.c += 1,
            (false, false) => self.d += 1,
        }
    }

    /// Both exposure arms (X1 and X0) hold at least `min` cases.
    pub fn arms_hold(&self, min: u64) -> bool {
        self.a + self.b >= min && self.c + self.d >= min
    }

    /// The association of the table ([`binary_association`]).
    pub fn association(&self) -> BinaryAssociation {
        binary_association(self.a, self.b, self.c, self.d)
    }
}

/// The ground truth of a binary-association task: the direction's `option` label and the
/// statistics rounded as the release prints them.
pub fn binary_ground_truth(option: &str, s: &BinaryAssociation) -> serde_json::Value {
    serde_json::json!({"option": option, "value": {
        "n": s.n, "outcome_rate_x1": round6_scaled(s.rate_x1), "outcome_rate_x0": round6_scaled(s.rate_x0),
        "odds_ratio": round6_scaled(s.odds_ratio), "p_value": round6_scaled(s.p_value)}})
}

/// `a` = X1∧Y1, `b` = X1∧Y0, `c` = X0∧Y1, `d` = X0∧Y0.
pub fn binary_association(a: u64, b: u64, c: u64, d: u64) -> BinaryAssociation {
    let (fa, fb, fc, fd) = (a as f64, b as f64, c as f64, d as f64);
    let odds_ratio = if a == 0 || b == 0 || c == 0 || d == 0 {
        ((fa + 0.5) * (fd + 0.5)) / ((fb + 0.5) * (fc + 0.5))
    } else {
        (fa * fd) / (fb * fc)
    };
    let rate = |y1: f64, y0: f64| if y1 + y0 > 0.0 { y1 / (y1 + y0) } else { 0.0 };
    let p_value = fisher_exact_two_sided(a, b, c, d);
    let direction = if p_value < ALPHA && odds_ratio > 1.0 {
        Direction::Positive
    } else if p_value < ALPHA && odds_ratio < 1.0 {
        Direction::Negative
    } else {
        Direction::Unclear
    };
    BinaryAssociation {
        n: (a + b + c + d) as usize,
        rate_x1: rate(fa, fb),
        rate_x0: rate(fc, fd),
        odds_ratio,
        p_value,
        direction,
    }
}

fn ln_factorials(n: u64) -> Vec<f64> {
    let mut out = Vec::with_capacity(n as usize + 1);
    out.push(0.0);
    let mut acc = 0.0;
    for i in 1..=n {
        acc += (i as f64).ln();
        out.push(acc);
    }
    out
}

/// Two-sided Fisher exact p-value of the 2×2 table `[[a, b], [c, d]]`.
pub fn fisher_exact_two_sided(a: u64, b: u64, c: u64, d: u64) -> f64 {
    let n = a + b + c + d;
    if n == 0 {
        return 1.0;
    }
    let lf = ln_factorials(n);
    let (row1, row2, col1) = (a + b, c + d, a + c);
    // ln P(X = x) for the top-left cell x with fixed margins.
    let ln_p = |x: u64| -> f64 {
        let (xb, xc) = (row1 - x, col1 - x);
        let xd = row2 - xc;
        lf[row1 as usize] + lf[row2 as usize] + lf[col1 as usize] + lf[(n - col1) as usize]
            - lf[n as usize]
            - lf[x as usize]
            - lf[xb as usize]
            - lf[xc as usize]
            - lf[xd as usize]
    };
    let lo = col1.saturating_sub(row2);
    let hi = row1.min(col1);
    let observed = ln_p(a);
    let threshold = observed + (1.0f64 + 1e-7).ln();
    let total: f64 = (lo..=hi).map(ln_p).filter(|&lp| lp <= threshold).map(f64::exp).sum();
    total.min(1.0)
}

/// Median of a sample (`None` when empty).
pub use anser_pycompat::numeric::median;

/// Continuous-outcome association between two groups.
#[derive(Debug, Clone, PartialEq)]
pub struct ContinuousAssociation {
    pub n: usize,
    pub median_x1: f64,
    pub median_x0: f64,
    pub median_difference: f64,
    pub ci95_lower: f64,
    pub ci95_upper: f64,
    pub direction: Direction,
}

/// Median difference with a seeded percentile-bootstrap 95% CI. `None` when a group is empty.
pub fn continuous_association(x1: &[f64], x0: &[f64], seed: u64) -> Option<ContinuousAssociation> {
    let median_x1 = median(x1)?;
    let median_x0 = median(x0)?;
    let mut rng = Rng::new(seed);
    let mut diffs = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let mut buf1 = vec![0.0; x1.len()];
    let mut buf0 = vec![0.0; x0.len()];
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for slot in buf1.iter_mut() {
            *slot = x1[rng.below(x1.len())];
        }
        for slot in buf0.iter_mut() {
            *slot = x0[rng.below(x0.len())];
        }
        let m1 = median(&buf1)?;
        let m0 = median(&buf0)?;
        diffs.push(m1 - m0);
    }
    diffs.sort_by(f64::total_cmp);
    let ci95_lower = percentile_linear(&diffs, 0.025)?;
    let ci95_upper = percentile_linear(&diffs, 0.975)?;
    let direction = if ci95_lower > 0.0 {
        Direction::Positive
    } else if ci95_upper < 0.0 {
        Direction::Negative
    } else {
        Direction::Unclear
    };
    Some(ContinuousAssociation {
        n: x1.len() + x0.len(),
        median_x1,
        median_x0,
        median_difference: median_x1 - median_x0,
        ci95_lower,
        ci95_upper,
        direction,
    })
}

/// Round to two decimals.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fisher_matches_hand_computed_tables() {
        // [[1, 9], [11, 3]]: the classic tea-tasting-style example; P(two-sided) = 0.002759
        // (R: fisher.test(matrix(c(1,11,9,3),2)) gives 0.002759).
        assert!((fisher_exact_two_sided(1, 9, 11, 3) - 0.002_759).abs() < 1e-6);
        // [[3, 1], [1, 3]]: tables with x = 3 (p = 16/70) and x = 1 (16/70) and the extremes
        // x = 4 and x = 0 (1/70 each) are as or less likely: 34/70.
        assert!((fisher_exact_two_sided(3, 1, 1, 3) - 34.0 / 70.0).abs() < 1e-12);
        // A table with no information gives 1.
        assert!((fisher_exact_two_sided(2, 2, 2, 2) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn odds_ratio_uses_haldane_only_for_zero_cells() {
        let plain = binary_association(20, 10, 10, 20);
        assert!((plain.odds_ratio - 4.0).abs() < 1e-12);
        assert!((plain.rate_x1 - 2.0 / 3.0).abs() < 1e-12);
        let zero = binary_association(0, 5, 5, 5);
        assert!((zero.odds_ratio - (0.5 * 5.5) / (5.5 * 5.5)).abs() < 1e-12);
        assert_eq!(plain.n, 60);
        assert_eq!(plain.direction, Direction::Positive, "p = {}", plain.p_value);
    }

    #[test]
    fn bootstrap_ci_brackets_a_clear_shift_and_is_seeded() {
        let x1: Vec<f64> = (0..40).map(|i| 10.0 + f64::from(i % 5)).collect();
        let x0: Vec<f64> = (0..40).map(|i| 2.0 + f64::from(i % 5)).collect();
        let a = continuous_association(&x1, &x0, 9).expect("non-empty");
        assert_eq!(a.median_difference, 8.0);
        assert!(a.ci95_lower > 0.0 && a.ci95_upper >= a.ci95_lower);
        assert_eq!(a.direction, Direction::Positive);
        assert_eq!(Some(a), continuous_association(&x1, &x0, 9));
    }
}
