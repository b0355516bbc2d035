//! The exactly rounded mean of Python's `statistics.mean`.
//!
//! `statistics.mean` adds the floats as exact fractions and rounds the quotient once, so the
//! mean of 0.1, 0.2, 0.3 is 0.2 where a running f64 sum gives 0.20000000000000004. Every finite
//! f64 is an integer multiple of 2^-1074, so the exact sum is a big integer in units of 2^-1074
//! (at most 2^2098 per value); [`ExactSum`] accumulates it in fixed-width limbs, and
//! [`ExactSum::mean`] divides by the count and rounds to nearest-even once.

/// Limbs of the fixed-point accumulator: 2^-1074 … 2^1024 needs 2,098 bits, plus headroom for
/// 2^64 additions and for the 128-bit shift used by the division.
const LIMBS: usize = 37;
/// Extra quotient bits computed below the f64 ulp (guard bits; the remainder is the sticky bit).
const GUARD_BITS: usize = 128;

/// Unsigned fixed-width big integer, little-endian limbs.
#[derive(Clone, PartialEq, Eq)]
struct Big([u64; LIMBS]);

/// Numeric order: the most significant limb decides (a derived order would compare the
/// least significant limb first, since the limbs are little-endian).
impl Ord for Big {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Big {
    const ZERO: Big = Big([0; LIMBS]);

    /// Add `m · 2^shift`.
    fn add_shifted(&mut self, m: u64, shift: usize) {
        let (limb, bit) = (shift / 64, shift % 64);
        let wide = u128::from(m) << bit;
        let mut carry = 0u128;
        let parts = [wide as u64, (wide >> 64) as u64];
        for (i, part) in parts.into_iter().enumerate() {
            let sum = u128::from(self.0[limb + i]) + u128::from(part) + carry;
            self.0[limb + i] = sum as u64;
            carry = sum >> 64;
        }
        let mut i = limb + 2;
        while carry != 0 && i < LIMBS {
            let sum = u128::from(self.0[i]) + carry;
            self.0[i] = sum as u64;
            carry = sum >> 64;
            i += 1;
        }
    }

    /// `self - other`, requires `self >= other`.
    fn sub(&self, other: &Big) -> Big {
        let mut out = Big::ZERO;
        let mut borrow = 0i128;
        for i in 0..LIMBS {
            let d = i128::from(self.0[i]) - i128::from(other.0[i]) - borrow;
            if d < 0 {
                out.0[i] = (d + (1i128 << 64)) as u64;
                borrow = 1;
            } else {
                out.0[i] = d as u64;
                borrow = 0;
            }
        }
        out
    }

    fn bit_len(&self) -> usize {
        for i in (0..LIMBS).rev() {
            if self.0[i] != 0 {
                return i * 64 + 64 - self.0[i].leading_zeros() as usize;
            }
        }
        0
    }

    fn bit(&self, i: usize) -> bool {
        i < LIMBS * 64 && (self.0[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Whether any bit below position `n` is set.
    fn any_below(&self, n: usize) -> bool {
        (0..n.min(LIMBS * 64)).step_by(64).any(|start| {
            let limb = self.0[start / 64];
            let width = (n - start).min(64);
            if width == 64 { limb != 0 } else { limb & ((1u64 << width) - 1) != 0 }
        })
    }

    /// Bits `[lo, lo+64)` as a u64.
    fn bits_from(&self, lo: usize) -> u64 {
        let (limb, bit) = (lo / 64, lo % 64);
        let low = self.0.get(limb).copied().unwrap_or(0) >> bit;
        let high = if bit == 0 { 0 } else { self.0.get(limb + 1).copied().unwrap_or(0) << (64 - bit) };
        low | high
    }
}

/// Exact sum of f64 values (finite ones exactly; non-finite ones in f64 arithmetic, as Python).
#[derive(Clone)]
pub struct ExactSum {
    positive: Big,
    negative: Big,
    non_finite: Option<f64>,
    count: u64,
}

impl std::fmt::Debug for ExactSum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExactSum")
            .field("count", &self.count)
            .field("non_finite", &self.non_finite)
            .finish_non_exhaustive()
    }
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum { positive: Big::ZERO, negative: Big::ZERO, non_finite: None, count: 0 }
    }
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
        if x.is_sign_negative() { self.negative.add_shifted(m, shift) } else { self.positive.add_shifted(m, shift) }
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
        let (magnitude, negative) = if self.positive >= self.negative {
            (self.positive.sub(&self.negative), false)
        } else {
            (self.negative.sub(&self.positive), true)
        };
        if magnitude.bit_len() == 0 {
            return Some(0.0);
        }
        // q = floor(magnitude · 2^GUARD / n), sticky = remainder != 0; value = q · 2^(-1074-GUARD).
        let (q, sticky) = shifted_div(&magnitude, GUARD_BITS, self.count);
        let value = round_to_f64(&q, sticky, GUARD_BITS);
        Some(if negative { -value } else { value })
    }
}

/// `(a · 2^shift) / n` and whether the division left a remainder.
fn shifted_div(a: &Big, shift: usize, n: u64) -> (Big, bool) {
    let mut shifted = Big::ZERO;
    let (limbs, bits) = (shift / 64, shift % 64);
    debug_assert_eq!(bits, 0);
    for i in (0..LIMBS - limbs).rev() {
        shifted.0[i + limbs] = a.0[i];
    }
    let mut q = Big::ZERO;
    let mut rem = 0u128;
    for i in (0..LIMBS).rev() {
        let cur = (rem << 64) | u128::from(shifted.0[i]);
        q.0[i] = (cur / u128::from(n)) as u64;
        rem = cur % u128::from(n);
    }
    (q, rem != 0)
}

/// Round `q · 2^(-1074-guard)` (with a sticky bit below `q`) to the nearest f64, ties to even.
fn round_to_f64(q: &Big, sticky: bool, guard: usize) -> f64 {
    let len = q.bit_len();
    // Bits of q at or above `cut` are kept: 53 significant bits, but never finer than 2^-1074.
    let cut = len.saturating_sub(53).max(guard);
    let mut m = q.bits_from(cut);
    if cut > 0 {
        let half = q.bit(cut - 1);
        let rest = q.any_below(cut - 1) || sticky;
        if half && (rest || m & 1 == 1) {
            m += 1;
        }
    }
    let exp = cut as i32 - guard as i32 - 1074;
    scale(m as f64, exp)
}

/// `x · 2^exp` for an exactly representable result (`x` < 2^54).
fn scale(mut x: f64, mut exp: i32) -> f64 {
    while exp > 0 {
        let step = exp.min(1000);
        x *= f64::from_bits(((1023 + step) as u64) << 52);
        exp -= step;
    }
    while exp < 0 {
        let step = exp.max(-1000);
        x *= f64::from_bits(((1023 + step) as u64) << 52);
        exp -= step;
    }
    x
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
