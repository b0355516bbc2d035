//! The small numeric conventions of the Python side that several crates print: Python's
//! `round(x, 6)`, the scaled six-decimal rounding the sample generator and the run records use,
//! `numpy.percentile`'s default (linear) interpolation, the nearest-sample percentile the
//! benches report latencies with, and `numpy.median`.
//!
//! Each had copies (the agent's compute tool, the sample generator, the evaluator's report, the
//! run records, the benches) and `round6` had two meanings under one name. Here each meaning has
//! one name and one implementation; a leaf module with no dependency, so every crate can reach it.

/// Python's `round(x, 6)`: the six-decimal number nearest to the exact binary value of `x`,
/// an exact tie to the even last digit (`round(0.0078125, 6) == 0.007812`). Rust's fixed
/// precision formatting rounds the exact decimal expansion the same way; NaN and ±inf pass
/// through as in Python.
pub fn round6(x: f64) -> f64 {
    format!("{x:.6}").parse().unwrap_or(x)
}

/// `(x · 10⁶).round() / 10⁶`: rounds the scaled f64 half away from zero. It differs from
/// [`round6`] on exact ties (0.0078125 → 0.007813) and where the product `x · 10⁶` is itself
/// rounded across a half; the sample generator's association values and the run records'
/// `latency` are written this way, so their bytes depend on it.
pub fn round6_scaled(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Percentile `q` (in `[0, 1]`) of ascending `sorted` values with linear interpolation between
/// the closest ranks, `numpy.percentile`'s default: position `q · (n − 1)`. `None` when empty.
pub fn percentile_linear(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let pos = q * last as f64;
    // A q above 1 would index past the end; it gives the largest value instead.
    let lo = (pos.floor() as usize).min(last);
    let hi = (lo + 1).min(last);
    Some(sorted[lo] + (pos - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// Percentile `q` (in `[0, 1]`) of ascending `sorted` values as the sample at position
/// `q · (n − 1)` rounded to the nearest index, halves away from zero (`numpy.percentile`'s
/// `method="nearest"` rounds halves to even instead; the two differ only when `q · (n − 1)`
/// ends in exactly .5). The benches' latency p50/p95 use it: every figure is a measured sample,
/// never an interpolated one. `None` when empty; a `q` above 1 gives the largest value.
pub fn percentile_nearest(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    Some(sorted[((q * last as f64).round() as usize).min(last)])
}

/// The median, `numpy.median`'s value: the middle value, or the mean of the two middle values
/// for an even count; `None` when empty. The agent's compute tool and the sample generator both
/// report it (the generator's association values, hence the samples' bytes, depend on it).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.to_vec();
    median_in_place(&mut v)
}

/// [`median`] of `v`, reordering `v` instead of copying it (a bootstrap loop's per-resample
/// call). The upper middle value is selected by `f64::total_cmp`; for an even count the lower
/// one is the largest value below it (`f64::max`, so NaN never wins).
pub fn median_in_place(v: &mut [f64]) -> Option<f64> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    let (_, upper, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    let upper = *upper;
    if n % 2 == 1 {
        return Some(upper);
    }
    let lower = v[..mid].iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((lower + upper) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        let mut v = [5.0, -1.0, 2.0, 8.0];
        assert_eq!(median_in_place(&mut v), Some(3.5));
    }

    #[test]
    fn nearest_percentile_picks_a_sample() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        // n = 5: positions 0.95·4 = 3.8 → index 4; 0.5·4 = 2 → index 2; 0.3·4 = 1.2 → index 1.
        assert_eq!(percentile_nearest(&v, 0.95), Some(10.0));
        assert_eq!(percentile_nearest(&v, 0.5), Some(3.0));
        assert_eq!(percentile_nearest(&v, 0.3), Some(2.0));
        // A half rounds away from zero: 0.5·1 = 0.5 → index 1 (numpy "nearest" gives index 0).
        assert_eq!(percentile_nearest(&[1.0, 2.0], 0.5), Some(2.0));
        assert_eq!(percentile_nearest(&v, 1.5), Some(10.0));
        assert_eq!(percentile_nearest(&[], 0.5), None);
        // Linear interpolation of the same values: 4 + 0.8·(10 − 4) = 8.8.
        assert!((percentile_linear(&v, 0.95).expect("some") - 8.8).abs() < 1e-12);
    }

    #[test]
    fn round6_is_pythons_round() {
        // Python 3.11: round(x, 6) for each x.
        assert_eq!(round6(0.000_001_499_9), 0.000_001);
        assert_eq!(round6(2.889_583_4), 2.889_583);
        assert_eq!(round6(0.007_812_5), 0.007_812);
        assert_eq!(round6(0.023_437_5), 0.023_438);
        assert_eq!(round6(-0.007_812_5), -0.007_812);
        assert_eq!(round6(-1e-9).to_bits(), (-0.0f64).to_bits());
        assert!(round6(f64::NAN).is_nan());
        assert_eq!(round6(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn round6_scaled_rounds_the_product_half_away_from_zero() {
        assert_eq!(round6_scaled(0.123_456_789), 0.123_457);
        assert_eq!(round6_scaled(0.007_812_5), 0.007_813);
        assert_eq!(round6_scaled(-0.007_812_5), -0.007_813);
        assert_eq!(round6_scaled(2.889_583_4), 2.889_583);
    }

    #[test]
    fn percentiles_match_numpy() {
        // numpy.percentile(values, 100 q) with the default method="linear".
        assert_eq!(percentile_linear(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
        assert_eq!(percentile_linear(&[1.0, 2.0, 3.0, 4.0], 0.25), Some(1.75));
        assert_eq!(percentile_linear(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25), Some(2.0));
        assert_eq!(percentile_linear(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95), Some(4.8));
        assert_eq!(percentile_linear(&[7.0], 0.95), Some(7.0));
        assert_eq!(percentile_linear(&[1.0, 3.0], 1.0), Some(3.0));
        assert_eq!(percentile_linear(&[1.0, 3.0], 1.5), Some(3.0));
        assert_eq!(percentile_linear(&[], 0.5), None);
    }
}
