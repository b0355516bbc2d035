//! `generate` + `judge` over a release-size dataset against an OpenAI-compatible mock, the way
//! `anser omb generate` / `anser omb judge --run-name` run them (EvalScope's transport, one
//! concurrency for both stages). Prints one JSON line: wall times and this process's peak RSS.
//! Driven by `scripts/omb-throughput/run.sh`, which runs EvalScope 1.14.1 on the same data and
//! mock for the comparison. Environment:
//!
//! - `OMB_BENCH_DATASET`: the JSONL file (e.g. from `scripts/omb-throughput/gen_dataset.py`);
//! - `OMB_BENCH_BASE_URL`: the mock's `/v1` URL;
//! - `OMB_BENCH_CONCURRENCY` (default 8), `OMB_BENCH_OUT` (default: a temporary directory).
//!
//! With `OMB_BENCH_SERVE_PORT` set it is the harness's mock instead: the loopback mock of
//! `anser-llm` on that port, answering after `OMB_BENCH_MOCK_DELAY_MS` (default 100) with a
//! plain answer to generation requests and a valid verdict for every rubric of a judge request
//! (`MockServer::set_rubric_verdicts`, seed `OMB_BENCH_MOCK_SEED`, default 0), until killed.
//! It is optimised like the bench and spends microseconds per request, so it is not the
//! bottleneck of either tool, and both tools run their whole scoring path against it.

use std::{collections::BTreeMap, path::PathBuf, time::Duration, time::Instant};

use anser_llm::{
    ApiKey, EndpointConfig,
    mock::{MockConfig, MockServer},
};
use anser_omb::{
    Dataset, EvalscopeBackend, GenerateSettings, JudgeCache, JudgeSettingsBuilder, Mode, Report, RetrySchedule,
    generate, judge_all, load_generations, write_outputs,
};
use anser_runstore::RunName;

/// Peak resident set size of this process (`VmHWM`), kB.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `OMB_BENCH_SERVE_PORT` mode: serve the rubric-verdict mock until the process is killed.
fn serve(port: &str) {
    let number = |name: &str, default: u64| {
        std::env::var(name).map_or(default, |v| v.parse().unwrap_or_else(|_| panic!("{name}={v} is not a number")))
    };
    let port: u16 = port.parse().unwrap_or_else(|_| panic!("OMB_BENCH_SERVE_PORT={port} is not a port"));
    let config = MockConfig::server().with_delay(Duration::from_millis(number("OMB_BENCH_MOCK_DELAY_MS", 100)));
    let server = MockServer::start_on(port, config).expect("mock server");
    server.set_rubric_verdicts(Some(number("OMB_BENCH_MOCK_SEED", 0)));
    println!("omb throughput mock on {}", server.base_url());
    loop {
        std::thread::park();
    }
}

fn main() {
    if let Ok(port) = std::env::var("OMB_BENCH_SERVE_PORT") {
        serve(&port);
    }
    let (Ok(dataset_path), Ok(base_url)) = (std::env::var("OMB_BENCH_DATASET"), std::env::var("OMB_BENCH_BASE_URL"))
    else {
        println!(
            "skipped omb throughput: set OMB_BENCH_DATASET and OMB_BENCH_BASE_URL (scripts/omb-throughput/run.sh)"
        );
        return;
    };
    let concurrency: usize = std::env::var("OMB_BENCH_CONCURRENCY").ok().and_then(|c| c.parse().ok()).unwrap_or(8);
    let temp = tempfile::tempdir().expect("tempdir");
    let out = std::env::var("OMB_BENCH_OUT").map_or_else(|_| temp.path().to_path_buf(), PathBuf::from);
    let started = Instant::now();
    let dataset_path = PathBuf::from(dataset_path);
    let dataset = Dataset::load(&dataset_path).expect("dataset");
    let endpoint = |model: &str| EndpointConfig::new(&base_url, model, ApiKey::none()).expect("endpoint");
    let answerer = EvalscopeBackend::new(endpoint("mock-answerer"), RetrySchedule::default()).expect("backend");
    let settings = GenerateSettings { model: "mock-answerer".into(), concurrency, resume: false };
    let name = RunName::new("throughput").expect("name");
    let runs = out.join("runs");
    let summary = generate(&dataset_path, &dataset, &runs, &name, serde_json::Value::Null, &settings, &answerer)
        .expect("generate");
    let generated = started.elapsed();

    let run_dir = runs.join("throughput");
    let responses: BTreeMap<String, String> = load_generations(&run_dir)
        .expect("generations")
        .iter()
        .map(|g| (g.id.clone(), g.prediction(Mode::Evalscope)))
        .collect();
    let judge = EvalscopeBackend::new(endpoint("mock-judge"), RetrySchedule::default()).expect("backend");
    let judge_settings = JudgeSettingsBuilder { concurrency, ..JudgeSettingsBuilder::new("mock-judge") }
        .build()
        .expect("valid judge settings");
    let cache = JudgeCache::open(&run_dir).expect("cache");
    let run = judge_all(&dataset, &responses, &judge_settings, &judge, &cache).expect("judge");
    let report = Report::new(&dataset, &run, &judge_settings);
    write_outputs(&run_dir, &run, &report).expect("outputs");
    let total = started.elapsed();
    let line = serde_json::json!({
        "records": dataset.records.len(),
        "concurrency": concurrency,
        "generated": summary.generated,
        "generation_failed": summary.failed,
        "scored": report.overall.scored,
        "excluded": report.overall.excluded,
        "generate_s": generated.as_secs_f64(),
        "judge_s": (total - generated).as_secs_f64(),
        "total_s": total.as_secs_f64(),
        "peak_rss_kb": peak_rss_kb(),
    });
    println!("{line}");
}
