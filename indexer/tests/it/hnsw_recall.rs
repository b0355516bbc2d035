//! HNSW against exact search: recall@10 ≥ 0.98 on 20,000 clustered, seeded unit vectors, and a
//! save/load round trip that returns the same neighbours.

use anser_indexer::{HnswParams, VectorIndex};
use rand_xoshiro::{
    SplitMix64,
    rand_core::{Rng as _, SeedableRng},
};

/// Uniform in [-1, 1) from the top 24 bits of one draw.
fn unit(rng: &mut SplitMix64) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
}

/// `n` vectors around `centres` random centres; the noise vector has norm ≈ `noise` (sum of
/// three uniforms per component, a cheap bell shape).
pub fn clustered(n: usize, dim: usize, centres: usize, noise: f32, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64::seed_from_u64(seed);
    let cs: Vec<Vec<f32>> = (0..centres)
        .map(|_| {
            let mut c: Vec<f32> = (0..dim).map(|_| unit(&mut rng)).collect();
            normalize(&mut c);
            c
        })
        .collect();
    let mut out = Vec::with_capacity(n * dim);
    for i in 0..n {
        let c = &cs[i % centres];
        let scale = noise / (dim as f32).sqrt();
        let mut v: Vec<f32> =
            c.iter().map(|x| x + scale * (unit(&mut rng) + unit(&mut rng) + unit(&mut rng))).collect();
        normalize(&mut v);
        out.extend(v);
    }
    out
}

#[test]
fn hnsw_recall_at_10_on_20000_clustered_vectors() {
    let (n, dim) = (20_000, 32);
    // Queries are drawn around the same centres but are not indexed.
    let mut data = clustered(n + 200, dim, 200, 0.6, 7);
    let queries = data.split_off(n * dim);
    let index = VectorIndex::build(data, dim, HnswParams::default()).expect("build");
    let mut found = 0usize;
    for q in queries.chunks_exact(dim) {
        let exact: std::collections::HashSet<u32> =
            index.exact_search(q, 10).expect("exact").into_iter().map(|h| h.ord).collect();
        let approx = index.search(q, 10).expect("hnsw");
        assert_eq!(approx.len(), 10);
        found += approx.iter().filter(|h| exact.contains(&h.ord)).count();
    }
    let recall = found as f64 / (10 * queries.len() / dim) as f64;
    assert!(recall >= 0.98, "recall@10 = {recall}");

    let tmp = tempfile::tempdir().expect("tmp");
    index.save(tmp.path()).expect("save");
    let loaded = VectorIndex::load(tmp.path(), dim, HnswParams::default()).expect("load");
    assert_eq!(loaded.len(), n);
    let q = &queries[..dim];
    assert_eq!(
        loaded.search(q, 10).expect("search").iter().map(|h| h.ord).collect::<Vec<_>>(),
        index.search(q, 10).expect("search").iter().map(|h| h.ord).collect::<Vec<_>>()
    );
}
