//! The exactly rounded mean of Python's `statistics.mean`.
//!
//! `statistics.mean` adds the floats as exact fractions and rounds the quotient once, so the
//! mean of 0.1, 0.2, 0.3 is 0.2 where a running f64 sum gives 0.20000000000000004. Every finite
//! f64 is an integer multiple of 2^-1074, so the exact sum is a big integer in units of 2^-1074
//! ([`ExactSum`] keeps it as a `num-bigint` integer), and [`ExactSum::mean`] rounds the fraction
//! sum / (count · 2^1074) to the nearest f64, ties to even, once (`num-rational`'s correctly
//! rounded conversion, subnormals included).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

/// The exponent of the smallest subnormal: every finite f64 is a multiple of 2^-1074.
const UNIT_EXP: usize = 1074;

/// Exact sum of f64 values (finite ones exactly; non-finite ones in f64 arithmetic, as Python).
#[derive(Debug, Clone, Default)]
pub struct ExactSum {
    /// The sum of the finite values in units of 2^-1074.
    units: BigInt,
    non_finite: Option<f64>,
    count: u64,
}

impl ExactSum {
    pub fn new() -> ExactSum {
        ExactSum::default()
    }

    pub fn add(&mut self, x: f64) {
        self.count += 1;
        if !x.is_finite() {
            self.non_finite = Some(self.non_finite.map_or(x, |s| s + x));
            return;
        }
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as usize;
        let frac = bits & ((1u64 << 52) - 1);
        // value = m · 2^(shift - 1074)
        let (m, shift) = if exp == 0 { (frac, 0) } else { (frac | (1u64 << 52), exp - 1) };
        if m == 0 {
            return;
        }
        let term = BigInt::from(m) << shift;
        if x.is_sign_negative() {
            self.units -= term;
        } else {
            self.units += term;
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// The correctly rounded mean; `None` when nothing was added.
    pub fn mean(&self) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        if let Some(s) = self.non_finite {
            return Some(s / self.count as f64);
        }
        if self.units.is_zero() {
            return Some(0.0);
        }
        // Not reduced: the conversion divides once and rounds with the remainder as sticky bit.
        let mean = BigRational::new_raw(self.units.clone(), BigInt::from(self.count) << UNIT_EXP);
        mean.to_f64()
    }
}

/// `statistics.mean(values)` (None for no values).
pub fn exact_mean(values: &[f64]) -> Option<f64> {
    let mut sum = ExactSum::new();
    for &v in values {
        sum.add(v);
    }
    sum.mean()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_means() {
        assert_eq!(exact_mean(&[0.1, 0.2, 0.3]), Some(0.2));
        assert_eq!(exact_mean(&[1e16, 1.0, -1e16]), Some(1.0 / 3.0));
        assert_eq!(exact_mean(&[1.0, 2.0]), Some(1.5));
        assert_eq!(exact_mean(&[]), None);
        assert_eq!(exact_mean(&[-0.0]).map(f64::to_bits), Some(0.0f64.to_bits()));
        assert_eq!(exact_mean(&[-3.0, 1.0]), Some(-1.0));
        // Subnormal halves round to even (Python: mean([5e-324, 0.0]) == 0.0).
        assert_eq!(exact_mean(&[5e-324, 0.0]), Some(0.0));
        assert_eq!(exact_mean(&[5e-324, 5e-324, 5e-324, 0.0]), Some(5e-324));
        assert_eq!(exact_mean(&[5e-324, 0.0, 0.0, 0.0]), Some(0.0));
        assert_eq!(exact_mean(&[f64::MAX, f64::MAX]), Some(f64::MAX));
        assert_eq!(exact_mean(&[2.0, 3.0, 5.0]), Some(10.0 / 3.0));
        assert_eq!(exact_mean(&[1.0, f64::INFINITY]), Some(f64::INFINITY));
        assert!(exact_mean(&[f64::INFINITY, f64::NEG_INFINITY]).is_some_and(f64::is_nan));
    }

    /// Mixed signs whose magnitudes live in different limbs (Python's `statistics.mean`).
    #[test]
    fn mixed_signs_across_limbs() {
        assert_eq!(exact_mean(&[2.0, -1e-300]), Some(1.0));
        assert_eq!(exact_mean(&[-2.0, 1e-300]), Some(-1.0));
        assert_eq!(exact_mean(&[1e300, -1e-300, 3.0]), Some(3.3333333333333335e299));
        assert_eq!(exact_mean(&[0.1, -0.3, 5e-324]), Some(-0.06666666666666667));
        assert_eq!(exact_mean(&[-1e-300, 1e-300, 0.5]), Some(0.16666666666666666));
        assert_eq!(exact_mean(&[1.0, -0.9999999999999998, 1e-310]), Some(7.401486830834377e-17));
    }
}
