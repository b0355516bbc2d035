//! Local ONNX embedding throughput against Python onnxruntime, side by side in one run.
//!
//! Texts: the real units of `finance_zh_rules` (216) and the first 2,000 chunks
//! (`ANSER_BENCH_SCIENCE_UNITS`) of the real science articles, both from ../shared. Each set is written to `target/onnx-bench/<set>.json`
//! and encoded by anser-encoder (m3e-small, `ANSER_BENCH_BATCH` texts per run, default 32;
//! `ANSER_BENCH_THREADS` intra-op threads, default 2) and, when `ANSER_BENCH_PYTHON` names a
//! Python with the `onnxruntime` wheel, `tokenizers` and `numpy`, by
//! `scripts/ort_python_baseline.py` with the same model, texts, batch size and threads. The two
//! alternate (Rust, Python, Rust, Python, …; `ANSER_BENCH_ROUNDS` rounds, default 3) so that
//! load from other processes hits both alike; the best pass of each is reported with the ratio,
//! and the largest cosine distance between the two sides' vectors.
//!
//! Run: `ORT_DYLIB_PATH=... ANSER_BENCH_PYTHON=/tmp/ortvenv/bin/python cargo bench -p anser-indexer --bench onnx_throughput`

use std::{path::Path, process::Command, time::Instant};

use anser_encoder::{Encoder, EncoderConfigBuilder, cosine};
use anser_indexer::{Chunking, corpus_file, units::read_units};
use anser_manifest::Route;

/// Science chunks encoded (the first this many units of the route).
const SCIENCE_UNITS: usize = 2_000;

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        Err(_) => default,
    }
}

fn units(corpus: &Path, route: Route, limit: usize) -> Vec<String> {
    let mut texts = Vec::new();
    read_units(
        route,
        &corpus_file(corpus, route),
        Chunking::default(),
        |u| {
            if texts.len() < limit {
                texts.push(u.text);
            }
            Ok(())
        },
        || {},
    )
    .expect("units");
    texts
}

struct Pass {
    seconds: f64,
    vectors: Vec<Vec<f32>>,
}

fn rust_pass(encoder: &Encoder, texts: &[&str]) -> Pass {
    let t0 = Instant::now();
    let vectors = encoder.embed(texts).expect("embed");
    Pass { seconds: t0.elapsed().as_secs_f64(), vectors }
}

fn python_pass(
    python: &str,
    model: &Path,
    texts_file: &Path,
    vectors_file: &Path,
    batch: usize,
    threads: usize,
) -> f64 {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/ort_python_baseline.py");
    let out = Command::new(python)
        .arg(&script)
        .arg("--model")
        .arg(model)
        .arg("--texts")
        .arg(texts_file)
        .args(["--batch", &batch.to_string(), "--threads", &threads.to_string()])
        .arg("--vectors")
        .arg(vectors_file)
        .output()
        .expect("python runs");
    assert!(out.status.success(), "python baseline failed: {}", String::from_utf8_lossy(&out.stderr));
    let line = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(line.trim()).expect("python prints one JSON line");
    v["seconds"].as_f64().expect("seconds")
}

fn main() {
    let Some(shared) = anser_manifest::shared_dir() else {
        println!("onnx throughput: skipped (no ../shared)");
        return;
    };
    if anser_encoder::ort_library_path(None).is_none() {
        println!("onnx throughput: skipped (ORT_DYLIB_PATH not set)");
        return;
    }
    let batch = env_usize("ANSER_BENCH_BATCH", 32);
    let threads = env_usize("ANSER_BENCH_THREADS", 2);
    let rounds = env_usize("ANSER_BENCH_ROUNDS", 3).max(1);
    let python = std::env::var("ANSER_BENCH_PYTHON").ok().filter(|p| !p.is_empty());
    let model = shared.join("models/m3e-small");
    let corpus = shared.join("anser/corpus");
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/onnx-bench");
    fs_err::create_dir_all(&out_dir).expect("mkdir target/onnx-bench");

    let science_units = env_usize("ANSER_BENCH_SCIENCE_UNITS", SCIENCE_UNITS);
    // One session on all threads, and (with 2+ threads) two sessions sharing them.
    let session_counts: Vec<usize> = [1, 2].into_iter().filter(|&s| s == 1 || threads >= s).collect();
    let encoders: Vec<(usize, Encoder)> = session_counts
        .iter()
        .map(|&sessions| {
            let cfg = EncoderConfigBuilder { batch_size: batch, threads, sessions, ..EncoderConfigBuilder::default() }
                .build()
                .expect("valid encoder config");
            (sessions, Encoder::open(&model, &cfg).expect("m3e-small"))
        })
        .collect();
    let sets = [
        ("finance_zh_rules", units(&corpus, Route::FinanceZhRules, usize::MAX)),
        ("science_chunks", units(&corpus, Route::ScienceArticles, science_units)),
    ];
    println!("m3e-small, batch {batch}, {threads} intra-op threads in all, best of {rounds}");
    println!(
        "| texts | units | tokens/unit | Rust sessions | Rust units/s | Python units/s | Rust/Python | max cos distance |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, texts) in &sets {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let tokens: usize = encoders[0].1.tokenize(&refs).expect("tokenize").iter().map(|e| e.get_ids().len()).sum();
        let texts_file = out_dir.join(format!("{name}.json"));
        let vectors_file = out_dir.join(format!("{name}.python.f32"));
        fs_err::write(&texts_file, serde_json::to_vec(texts).expect("json")).expect("write texts");
        // Warm-up: the first run plans memory for the shapes it sees.
        for (_, encoder) in &encoders {
            encoder.embed(&refs[..(2 * batch).min(refs.len())]).expect("warm-up");
        }
        let mut rust_best: Vec<Option<Pass>> = encoders.iter().map(|_| None).collect();
        let mut python_best: Option<f64> = None;
        // Alternate the runtimes each round, so load from other processes hits both alike.
        for _ in 0..rounds {
            for ((_, encoder), best) in encoders.iter().zip(&mut rust_best) {
                let pass = rust_pass(encoder, &refs);
                if best.as_ref().is_none_or(|b| pass.seconds < b.seconds) {
                    *best = Some(pass);
                }
            }
            if let Some(py) = &python {
                let s = python_pass(py, &model, &texts_file, &vectors_file, batch, threads);
                python_best = Some(python_best.map_or(s, |b: f64| b.min(s)));
            }
        }
        let py_vectors: Option<Vec<f32>> = python_best.map(|_| {
            let bytes = fs_err::read(&vectors_file).expect("python vectors");
            bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
        });
        for ((sessions, _), best) in encoders.iter().zip(rust_best) {
            let rust = best.expect("at least one round");
            let rust_rate = texts.len() as f64 / rust.seconds;
            let (py_rate, ratio, distance) = match (python_best, &py_vectors) {
                (Some(s), Some(py)) => {
                    let dim = rust.vectors[0].len();
                    let worst = rust
                        .vectors
                        .iter()
                        .zip(py.chunks_exact(dim))
                        .map(|(r, p)| 1.0 - cosine(r, p))
                        .fold(0f64, f64::max);
                    let rate = texts.len() as f64 / s;
                    (format!("{rate:.1}"), format!("{:.2}", rust_rate / rate), format!("{worst:.1e}"))
                }
                _ => ("–".into(), "–".into(), "–".into()),
            };
            println!(
                "| {name} | {} | {:.0} | {sessions} | {rust_rate:.1} | {py_rate} | {ratio} | {distance} |",
                texts.len(),
                tokens as f64 / texts.len() as f64
            );
        }
    }
    if python.is_none() {
        println!("(set ANSER_BENCH_PYTHON to a Python with onnxruntime, tokenizers and numpy for the side-by-side)");
    }
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
