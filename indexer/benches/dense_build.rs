//! API dense builds against the loopback mock answering each `/embeddings` request after
//! 100 ms: time of one route's embedding (first request sent to last answer) and of the whole
//! build (with BM25 and the HNSW graph) at `--embedding-concurrency` 1, 2, 4 and 8, and a build
//! stopped by a fault after half of its batches and run again (batches requested again).
//!
//! The corpus is synthetic (`ANSER_BENCH_UNITS` rules, default 2,560, written to a temporary
//! folder), batches are `DEFAULT_EMBED_BATCH` units, vectors have 64 dimensions. Set
//! `ANSER_BENCH_CORPUS_ROOT` and `ANSER_BENCH_ROUTE` to build a real route instead (for example a
//! release-size sample), and `ANSER_BENCH_CONCURRENCY` (default `1,2,4,8`) to pick the levels.
//!
//! Run: `cargo bench -p anser-indexer --bench dense_build`

use std::{
    collections::HashSet,
    path::Path,
    time::{Duration, Instant},
};

use anser_indexer::{ApiEmbedder, BuildOptions, DEFAULT_EMBED_BATCH, DenseParams, build_route};
use anser_llm::{
    ApiKey, EndpointConfig,
    mock::{MockConfig, MockServer},
};
use anser_manifest::{Manifest, Route};

const DELAY: Duration = Duration::from_millis(100);

#[path = "../tests/it/recording.rs"]
mod recording;

use recording::Recording;

fn recording(server: &MockServer, fail_on: Option<usize>) -> Recording<ApiEmbedder> {
    let endpoint = EndpointConfig::new(&server.base_url(), "mock-embed", ApiKey::none()).expect("endpoint");
    Recording::new(ApiEmbedder::new(endpoint, Some(64)).expect("embedder"), fail_on)
}

fn synthetic_rules(root: &Path, n: usize) {
    let file = root.join(&Manifest::get().route(Route::FinanceZhRules).file);
    fs_err::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    let lines: Vec<String> = (0..n)
        .map(|i| {
            serde_json::json!({"id": i + 1, "law_name": format!("办法{}", i % 37), "item": format!("{i}条"),
                "content": format!("第{i}条：上市公司应当在{}日内披露第{i}项重大事项，并说明其对经营业绩的影响。", i % 30 + 1)})
            .to_string()
        })
        .collect();
    fs_err::write(&file, lines.join("\n") + "\n").expect("write corpus");
}

fn opts(concurrency: usize) -> BuildOptions {
    BuildOptions {
        dense: DenseParams::new(DEFAULT_EMBED_BATCH, concurrency).expect("params"),
        rebuild: true,
        ..BuildOptions::default()
    }
}

fn main() {
    let units: usize = std::env::var("ANSER_BENCH_UNITS").ok().and_then(|v| v.parse().ok()).unwrap_or(2_560);
    let tmp = tempfile::tempdir().expect("tempdir");
    let (root, route) = match (std::env::var_os("ANSER_BENCH_CORPUS_ROOT"), std::env::var("ANSER_BENCH_ROUTE")) {
        (Some(root), Ok(route)) => (root.into(), route.parse::<Route>().expect("ANSER_BENCH_ROUTE names a route")),
        _ => {
            let root = tmp.path().join("corpus");
            synthetic_rules(&root, units);
            (root, Route::FinanceZhRules)
        }
    };
    let server = MockServer::start(MockConfig::default().with_delay(DELAY).with_record_requests(false)).expect("mock");
    println!("{route}, mock /embeddings answering after {} ms, batch {DEFAULT_EMBED_BATCH}", DELAY.as_millis());
    println!("| concurrency | units | batches | embedding s | batches/s | speed-up | whole build s |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let (mut base, mut total) = (None, 0usize);
    let levels: Vec<usize> = std::env::var("ANSER_BENCH_CONCURRENCY")
        .unwrap_or_else(|_| "1,2,4,8".into())
        .split(',')
        .map(|v| v.trim().parse().expect("ANSER_BENCH_CONCURRENCY is a comma-separated list of numbers"))
        .collect();
    for &concurrency in &levels {
        let idx = tmp.path().join(format!("c{concurrency}"));
        let e = recording(&server, None);
        let t0 = Instant::now();
        let report = build_route(&idx, &root, route, &opts(concurrency), Some(&e)).expect("build");
        let whole = t0.elapsed().as_secs_f64();
        let s = e.embed_seconds();
        let b = report.dense.embedded_batches;
        total = b as usize;
        let base_s = *base.get_or_insert(s);
        let (units, rate, speedup) = (report.units, b as f64 / s, base_s / s);
        println!("| {concurrency} | {units} | {b} | {s:.2} | {rate:.1} | {speedup:.2}× | {whole:.2} |");
    }

    // Resume: a fault after half of the batches, then a second run.
    let idx = tmp.path().join("resume");
    let failing = recording(&server, Some(total / 2 + 1));
    let t0 = Instant::now();
    let _ = build_route(&idx, &root, route, &opts(4), Some(&failing)).expect_err("injected fault");
    let first_s = t0.elapsed().as_secs_f64();
    let finished: HashSet<Vec<String>> = failing.batches().into_iter().collect();
    let resumed = recording(&server, None);
    let t0 = Instant::now();
    let report = build_route(&idx, &root, route, &opts(4), Some(&resumed)).expect("resumed build");
    let second_s = t0.elapsed().as_secs_f64();
    let again = resumed.batches().iter().filter(|b| finished.contains(*b)).count();
    println!(
        "resume (concurrency 4): {total} batches; stopped after {} finished in {first_s:.2} s; the second run took \
         {} from the checkpoint and requested {} in {second_s:.2} s; finished batches requested again: {again}",
        finished.len(),
        report.dense.resumed_batches,
        report.dense.embedded_batches,
    );
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
