//! Rank fusion of several ranked lists of unit ordinals.

use std::collections::HashMap;

use anser_indexer::Scored;

/// Reciprocal rank fusion: `Σ 1 / (k + rank)` (rank 1-based) over the lists a unit appears in.
/// Ties are broken by unit ordinal.
pub fn rrf(lists: &[Vec<Scored>], k: f64) -> Vec<Scored> {
    let mut acc: HashMap<u32, f64> = HashMap::new();
    for list in lists {
        for (rank, hit) in list.iter().enumerate() {
            *acc.entry(hit.ord).or_default() += 1.0 / (k + rank as f64 + 1.0);
        }
    }
    sorted(acc)
}

/// Weighted fusion of min–max normalised scores: each list's scores are mapped to [0, 1]
/// (all 1 when the list's scores are equal), multiplied by the list's weight and summed.
pub fn weighted(lists: &[Vec<Scored>], weights: &[f64]) -> Vec<Scored> {
    let mut acc: HashMap<u32, f64> = HashMap::new();
    for (list, w) in lists.iter().zip(weights) {
        let (min, max) =
            list.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), h| (lo.min(h.score), hi.max(h.score)));
        for hit in list {
            let norm = if max > min { (hit.score - min) / (max - min) } else { 1.0 };
            *acc.entry(hit.ord).or_default() += w * norm;
        }
    }
    sorted(acc)
}

fn sorted(acc: HashMap<u32, f64>) -> Vec<Scored> {
    let mut out: Vec<Scored> = acc.into_iter().map(|(ord, score)| Scored { ord, score }).collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.ord.cmp(&b.ord)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(v: &[(u32, f64)]) -> Vec<Scored> {
        v.iter().map(|&(ord, score)| Scored { ord, score }).collect()
    }

    #[test]
    fn rrf_by_hand() {
        let a = list(&[(1, 9.0), (2, 5.0)]);
        let b = list(&[(2, 0.9), (3, 0.8)]);
        let fused = rrf(&[a, b], 60.0);
        // 2: 1/62 + 1/61; 1: 1/61; 3: 1/62.
        assert_eq!(fused.iter().map(|h| h.ord).collect::<Vec<_>>(), vec![2, 1, 3]);
        assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-15);
    }

    #[test]
    fn weighted_by_hand() {
        let a = list(&[(1, 10.0), (2, 6.0), (3, 2.0)]);
        let b = list(&[(3, 0.9), (1, 0.5)]);
        let fused = weighted(&[a, b], &[0.5, 1.0]);
        // a → 1: 1, 2: 0.5, 3: 0; b → 3: 1, 1: 0.
        // 1: 0.5, 2: 0.25, 3: 1.0.
        assert_eq!(fused.iter().map(|h| (h.ord, h.score)).collect::<Vec<_>>(), vec![(3, 1.0), (1, 0.5), (2, 0.25)]);
        // A single-score list normalises to 1.
        assert_eq!(weighted(&[list(&[(7, 3.0)])], &[2.0])[0].score, 2.0);
    }
}
