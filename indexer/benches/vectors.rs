//! Dense side: embedding throughput of the local ONNX encoder (m3e-small from ../shared, when
//! ORT_DYLIB_PATH is set) over the real finance_zh_rules units, and HNSW against exact search
//! on 20,000 clustered, seeded 384-dimensional unit vectors. The build time and recall@10 per
//! ef_search are printed once before the timings (they are measured once, not sampled); divan
//! then times the embedding pass and one query per search kind (fastest, slowest, median, mean;
//! items per second). `ANSER_BENCH_VECTORS=N` sets the number of vectors (default 20,000).
//!
//! Run: `ORT_DYLIB_PATH=... cargo bench -p anser-indexer --bench vectors`

use std::{sync::OnceLock, time::Instant};

use anser_indexer::{Chunking, Embedder, HnswParams, OnnxEmbedder, VectorIndex, corpus_file, units::read_units};
use anser_manifest::Route;
use divan::{Bencher, black_box, counter::ItemsCount};

/// Vectors indexed.
const DEFAULT_VECTORS: usize = 20_000;
/// Vector dimension (m3e-small's).
const DIM: usize = 384;
/// Queries of the recall measurement (and cycled through by the search timings).
const QUERIES: usize = 500;
/// ef_search values measured.
const EFS: [usize; 4] = [16, 32, 64, 128];

/// The index and its queries, built once in `main`.
struct Fixture {
    index: VectorIndex,
    queries: Vec<f32>,
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

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

/// The real finance_zh_rules unit texts and the m3e-small encoder, or why they are missing.
fn rules_and_encoder() -> Result<(Vec<String>, OnnxEmbedder), &'static str> {
    let shared = anser_manifest::shared_dir().ok_or("no ../shared")?;
    if anser_encoder::ort_library_path(None).is_none() {
        return Err("ORT_DYLIB_PATH not set");
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
    Ok((texts, OnnxEmbedder::open(&shared.join("models/m3e-small"), 2).expect("m3e")))
}

/// All rule units through m3e-small (2 threads, batch 32), throughput in units per second.
#[divan::bench(sample_count = 3, sample_size = 1)]
fn embed_finance_zh_rules(bencher: Bencher) {
    let (texts, encoder) = match rules_and_encoder() {
        Ok(v) => v,
        Err(why) => {
            println!("embedding throughput: skipped ({why})");
            return;
        }
    };
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    bencher.counter(ItemsCount::new(refs.len())).bench_local(|| encoder.embed(&refs).expect("embed"));
}

fn fixture() -> &'static Fixture {
    FIXTURE.get().expect("the index is built in main")
}

/// One exact (flat) top-10 search, cycling through the queries.
#[divan::bench]
fn exact_search(bencher: Bencher) {
    let f = fixture();
    let mut queries = f.queries.chunks_exact(DIM).cycle();
    bencher.bench_local(|| f.index.exact_search(black_box(queries.next().expect("cycle")), 10).expect("exact"));
}

/// One HNSW top-10 search at `ef`, cycling through the queries.
#[divan::bench(args = EFS)]
fn hnsw_search(bencher: Bencher, ef: usize) {
    let f = fixture();
    let mut queries = f.queries.chunks_exact(DIM).cycle();
    bencher.bench_local(|| f.index.search_ef(black_box(queries.next().expect("cycle")), 10, ef).expect("hnsw"));
}

/// Builds the index (timed once) and prints recall@10 of each ef against exact search.
fn build_fixture() -> Fixture {
    let n = std::env::var("ANSER_BENCH_VECTORS").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_VECTORS);
    let mut data = clustered(n + QUERIES, DIM, 200, 0.6, 7);
    let queries = data.split_off(n * DIM);
    let t0 = Instant::now();
    let index = VectorIndex::build(data, DIM, HnswParams::default()).expect("build");
    println!("HNSW build (m 16, ef_construction 200): {n} × {DIM} in {:.1} s", t0.elapsed().as_secs_f64());
    let top10 = |hits: Vec<anser_indexer::Scored>| hits.into_iter().map(|h| h.ord).collect::<Vec<u32>>();
    let exact: Vec<Vec<u32>> =
        queries.chunks_exact(DIM).map(|q| top10(index.exact_search(q, 10).expect("exact"))).collect();
    for ef in EFS {
        let found: usize = queries
            .chunks_exact(DIM)
            .zip(&exact)
            .map(|(q, e)| top10(index.search_ef(q, 10, ef).expect("hnsw")).iter().filter(|o| e.contains(o)).count())
            .sum();
        println!("HNSW ef {ef}: recall@10 {:.3} over {QUERIES} queries", found as f64 / (10 * QUERIES) as f64);
    }
    Fixture { index, queries }
}

fn main() {
    if FIXTURE.set(build_fixture()).is_ok() {
        divan::main();
    }
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
