//! Dense side: embedding throughput of the local ONNX encoder (m3e-small from ../shared, when
//! ORT_DYLIB_PATH is set) over the real finance_zh_rules units, and HNSW against exact search
//! on 20,000 clustered, seeded 384-dimensional unit vectors: build time, QPS and recall@10 per
//! ef_search.
//!
//! Run: `ORT_DYLIB_PATH=... cargo bench -p anser-indexer --bench vectors`

use std::time::Instant;

use anser_indexer::{Chunking, Embedder, HnswParams, OnnxEmbedder, VectorIndex, corpus_file, units::read_units};
use anser_manifest::Route;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
}

fn clustered(n: usize, dim: usize, centres: usize, noise: f32, seed: u64) -> Vec<f32> {
    let mut rng = Rng(seed);
    let cs: Vec<Vec<f32>> = (0..centres)
        .map(|_| {
            let mut c: Vec<f32> = (0..dim).map(|_| rng.unit()).collect();
            normalize(&mut c);
            c
        })
        .collect();
    let scale = noise / (dim as f32).sqrt();
    let mut out = Vec::with_capacity(n * dim);
    for i in 0..n {
        let mut v: Vec<f32> =
            cs[i % centres].iter().map(|x| x + scale * (rng.unit() + rng.unit() + rng.unit())).collect();
        normalize(&mut v);
        out.extend(v);
    }
    out
}

fn embedding_throughput() {
    let Some(shared) = anser_manifest::shared_dir() else {
        println!("embedding throughput: skipped (no ../shared)");
        return;
    };
    if anser_encoder::ort_library_path(None).is_none() {
        println!("embedding throughput: skipped (ORT_DYLIB_PATH not set)");
        return;
    }
    let mut texts = Vec::new();
    let file = corpus_file(&shared.join("anser/corpus"), Route::FinanceZhRules);
    read_units(
        Route::FinanceZhRules,
        &file,
        Chunking::default(),
        |u| {
            texts.push(u.text);
            Ok(())
        },
        || {},
    )
    .expect("units");
    let chars: usize = texts.iter().map(|t| t.chars().count()).sum();
    let e = OnnxEmbedder::open(&shared.join("models/m3e-small"), 2).expect("m3e");
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let t0 = Instant::now();
    let v = e.embed(&refs).expect("embed");
    let s = t0.elapsed().as_secs_f64();
    println!(
        "embedding m3e-small, 2 threads, batch 32: {} units ({:.0} chars avg) in {s:.2} s = {:.1} units/s, dim {}",
        v.len(),
        chars as f64 / texts.len() as f64,
        v.len() as f64 / s,
        e.dim()
    );
}

fn hnsw_vs_exact() {
    let (n, dim, nq) = (20_000, 384, 500);
    let mut data = clustered(n + nq, dim, 200, 0.6, 7);
    let queries = data.split_off(n * dim);
    let t0 = Instant::now();
    let index = VectorIndex::build(data, dim, HnswParams::default()).expect("build");
    println!("HNSW build (m 16, ef_construction 200, 2 cores): {n} × {dim} in {:.1} s", t0.elapsed().as_secs_f64());
    let t0 = Instant::now();
    let exact: Vec<Vec<u32>> = queries
        .chunks_exact(dim)
        .map(|q| index.exact_search(q, 10).expect("exact").into_iter().map(|h| h.ord).collect())
        .collect();
    let exact_s = t0.elapsed().as_secs_f64();
    println!("| search | ef | QPS | recall@10 |");
    println!("|---|---|---|---|");
    println!("| exact (flat) | – | {:.0} | 1.000 |", nq as f64 / exact_s);
    for ef in [16, 32, 64, 128] {
        let t0 = Instant::now();
        let got: Vec<Vec<u32>> = queries
            .chunks_exact(dim)
            .map(|q| index.search_ef(q, 10, ef).expect("hnsw").into_iter().map(|h| h.ord).collect())
            .collect();
        let s = t0.elapsed().as_secs_f64();
        let found: usize = got.iter().zip(&exact).map(|(g, e)| g.iter().filter(|o| e.contains(o)).count()).sum();
        println!("| HNSW | {ef} | {:.0} | {:.3} |", nq as f64 / s, found as f64 / (10 * nq) as f64);
    }
}

fn main() {
    embedding_throughput();
    hnsw_vs_exact();
}
