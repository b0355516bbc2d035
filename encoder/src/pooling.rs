//! Pooling and vector arithmetic shared by the encoder and its callers (dense retrieval,
//! BERTScore): kept here so every crate computes cosines the same way.

/// Mean of the `dim`-wide rows of `hidden` whose attention mask is non-zero.
/// Returns a zero vector when no row is attended.
pub fn mean_pool(hidden: &[f32], attention_mask: &[u32], dim: usize) -> Vec<f32> {
    let mut out = vec![0f32; dim];
    let mut n = 0usize;
    for (row, &m) in hidden.chunks_exact(dim).zip(attention_mask) {
        if m != 0 {
            n += 1;
            for (o, v) in out.iter_mut().zip(row) {
                *o += *v;
            }
        }
    }
    if n > 0 {
        let inv = 1.0 / n as f32;
        out.iter_mut().for_each(|o| *o *= inv);
    }
    out
}

/// Scale `v` to unit L2 norm in place (a zero vector stays zero).
pub fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if norm > 0.0 {
        let inv = (1.0 / norm) as f32;
        v.iter_mut().for_each(|x| *x *= inv);
    }
}

/// Cosine similarity of two equally long vectors (0 when either is zero), accumulated in f64.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na.sqrt() * nb.sqrt()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_pool_skips_masked_rows() {
        let hidden = [1.0, 2.0, 3.0, 4.0, 100.0, 100.0];
        assert_eq!(mean_pool(&hidden, &[1, 1, 0], 2), vec![2.0, 3.0]);
        assert_eq!(mean_pool(&hidden, &[0, 0, 0], 2), vec![0.0, 0.0]);
    }

    #[test]
    fn normalise_and_cosine() {
        let mut v = vec![3.0, 4.0];
        l2_normalize(&mut v);
        assert_eq!(v, vec![0.6, 0.8]);
        assert!((cosine(&[1.0, 0.0], &[1.0, 1.0]) - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
    }
}
