//! Agent overhead: all non-LLM time of a task — opening the guarded corpus, schema
//! introspection, SQL, compute, search/open, answer validation and the loop's own bookkeeping
//! (message building, tool-call parsing, tracing) — on the generated small sample, with the mock
//! LLM answering instantly. An LLM call's latency is measured around the client call, so the
//! HTTP round trip to the mock belongs to the LLM share, not to the overhead.
//!
//! The sample (all 14 groups) is generated into a temporary folder with `anser-samples`, every
//! route is indexed with `anser-indexer` (BM25 defaults), and the agent method runs over every
//! task through the run loop (`anser_agent::run::run`). The mock is SCRIPTED FROM GOLD with the
//! same "competent model" turns as the CLI test (`support/scripted_from_gold.rs`): schema, SQL,
//! compute, search, open and answer, as each group needs; only the non-LLM time is measured, the
//! answers are the gold's and mean nothing. Per task, from `trace.jsonl`:
//!
//! overhead = task latency (the `task_end` event) − Σ latency of its `llm_call` events.
//!
//! Prints n, mean, p50, p95 and max of the overhead (and of the LLM share for context), the
//! overhead split by step (each tool, corpus opening, the loop outside tools) and by group, and
//! exits non-zero when p95 ≥ 50 ms (the target of the agent issue) or when a task
//! did not end with a validated answer.
//!
//! Run: `cargo bench -p anser-agent --bench overhead`.

#[allow(dead_code)]
#[path = "support/scripted_from_gold.rs"]
mod scripted_from_gold;

use std::{collections::BTreeMap, path::Path, process::ExitCode, sync::Arc, time::Instant};

use anser_agent::{
    method::{AgentMethod, AgentParams, RetrieverSearcher},
    run::{RunConfig, TRACE_FILE, run},
};
use anser_gold::Benchmark;
use anser_indexer::{BuildOptions, build_route, corpus_file};
use anser_llm::{
    ApiKey, Client, ClientOptions, EndpointConfig, RetryPolicy,
    mock::{Matcher, MockConfig, MockServer},
};
use anser_manifest::Route;
use anser_pycompat::numeric::percentile_nearest;
use anser_retriever::{Engine, RetrieverSpec, SpecRetriever};
use anser_runstore::RunName;
use anser_samples::SampleOptions;
use serde_json::Value;

/// The target for the p95 of the per-task non-LLM time.
const P95_TARGET_MS: f64 = 50.0;

/// The nearest-sample percentile shared by the benches (a measured value, not interpolated).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    percentile_nearest(sorted, q).unwrap_or(f64::NAN)
}

fn print_stats(name: &str, values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let p95 = percentile(values, 0.95);
    println!(
        "{name:<28} n {:>4}   mean {:>8.2} ms   p50 {:>8.2} ms   p95 {:>8.2} ms   max {:>8.2} ms",
        values.len(),
        mean,
        percentile(values, 0.5),
        p95,
        values[values.len() - 1]
    );
    p95
}

/// One task's times in milliseconds, from its trace events.
#[derive(Debug, Default)]
struct TaskTimes {
    group: String,
    /// The `task_end` latency.
    task: f64,
    /// Σ `llm_call` latency.
    llm: f64,
    /// Σ latency of the other timed events by tool (or event) name and stage.
    steps: BTreeMap<String, f64>,
}

/// Per task times, from a trace file.
fn task_times(trace: &Path) -> BTreeMap<String, TaskTimes> {
    let text = fs_err::read_to_string(trace).expect("trace readable");
    let mut out: BTreeMap<String, TaskTimes> = BTreeMap::new();
    for line in text.lines() {
        let e: Value = serde_json::from_str(line).expect("trace line is JSON");
        let id = e["task_id"].as_str().expect("task id").to_string();
        let slot = out.entry(id).or_insert_with(|| TaskTimes { task: f64::NAN, ..TaskTimes::default() });
        let ms = e["seconds"].as_f64().expect("event seconds") * 1000.0;
        match e["event"].as_str() {
            Some("task_start") => slot.group = e["detail"]["group"].as_str().unwrap_or_default().to_string(),
            Some("task_end") => slot.task = e["detail"]["latency"].as_f64().expect("task latency") * 1000.0,
            Some("llm_call") => slot.llm += ms,
            Some("tool_call") => {
                let tool = e["detail"]["tool"].as_str().unwrap_or("unknown");
                *slot.steps.entry(format!("{tool} ({})", e["stage"].as_str().unwrap_or("?"))).or_default() += ms;
            }
            Some(other) => {
                *slot.steps.entry(format!("{other} ({})", e["stage"].as_str().unwrap_or("?"))).or_default() += ms
            }
            None => {}
        }
    }
    out
}

fn main() -> ExitCode {
    let tmp = tempfile::TempDir::new().expect("tempdir");
    let sample = tmp.path().join("sample");
    let t = Instant::now();
    anser_samples::generate(&SampleOptions::default(), &sample).expect("sample generates");
    let (query, corpus, index_dir) = (sample.join("query"), sample.join("corpus"), tmp.path().join("indices"));
    println!("sample generated in {:.1} s", t.elapsed().as_secs_f64());

    let t = Instant::now();
    let routes: Vec<Route> = Route::ALL.into_iter().filter(|r| corpus_file(&corpus, *r).is_file()).collect();
    for route in &routes {
        build_route(&index_dir, &corpus, *route, &BuildOptions::default(), None).expect("index builds");
    }
    println!("{} routes indexed (BM25) in {:.1} s", routes.len(), t.elapsed().as_secs_f64());

    let bench = Benchmark::load(&query).expect("sample tasks load");
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    for task in bench.tasks() {
        let reference = bench.reference(&task.id).expect("reference");
        let prompt = format!("Task:\n{}\n\nInstruction:\n{}", task.query.trim(), task.instruction.trim());
        mock.script(Matcher::UserContains(prompt), scripted_from_gold::script_from_gold(task, reference));
    }

    let endpoint = EndpointConfig::new(&mock.base_url(), "mock-llm", ApiKey::none()).expect("endpoint");
    let client = Client::new(endpoint, ClientOptions { retry: RetryPolicy::default(), cache: None }).expect("client");
    let engine = Arc::new(Engine::new(&index_dir, Some(&corpus)));
    let spec: RetrieverSpec = "bm25".parse().expect("retriever spec");
    let searcher = Arc::new(RetrieverSearcher::new(SpecRetriever::new(engine, spec)));
    let method = AgentMethod::new(client, corpus.clone(), Some(searcher), AgentParams::default()).expect("agent");
    let config =
        RunConfig::new(RunName::new("overhead").expect("run name"), tmp.path().join("runs"), bench.tasks().to_vec());
    let summary = run(&config, Arc::new(method)).expect("run finishes");
    let ok = summary.by_status.get("ok").copied().unwrap_or(0);
    println!(
        "agent run: {} tasks, {} groups, {ok} answered ok, {:.1} s wall",
        summary.selected,
        bench.tasks().iter().map(|t| t.group).collect::<std::collections::BTreeSet<_>>().len(),
        summary.wall_seconds
    );

    let times = task_times(&summary.run_dir.join(TRACE_FILE));
    assert_eq!(times.len(), bench.tasks().len(), "every task is traced");
    let mut overhead: Vec<f64> = times.values().map(|t| t.task - t.llm).collect();
    let mut llm: Vec<f64> = times.values().map(|t| t.llm).collect();
    let mut by_group: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let step_names: std::collections::BTreeSet<&String> = times.values().flat_map(|t| t.steps.keys()).collect();
    let mut by_step: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for t in times.values() {
        by_group.entry(t.group.as_str()).or_default().push(t.task - t.llm);
        for name in &step_names {
            by_step.entry(format!("  {name}")).or_default().push(t.steps.get(*name).copied().unwrap_or(0.0));
        }
        let traced: f64 = t.steps.values().sum();
        by_step.entry("  loop (outside tools)".into()).or_default().push(t.task - t.llm - traced);
    }
    println!("per task (ms):");
    let p95 = summary_line(&mut overhead, &mut llm);
    println!("non-LLM time by step (ms per task, 0 where a task has no such step):");
    for (step, values) in &mut by_step {
        print_stats(step, values);
    }
    println!("non-LLM time by group (ms):");
    for (group, values) in &mut by_group {
        print_stats(group, values);
    }
    if ok != summary.selected {
        eprintln!("FAIL: {} of {} tasks did not end with a validated answer", summary.selected - ok, summary.selected);
        return ExitCode::FAILURE;
    }
    if p95 >= P95_TARGET_MS {
        eprintln!("FAIL: p95 of the non-LLM time {p95:.2} ms ≥ target {P95_TARGET_MS} ms");
        return ExitCode::FAILURE;
    }
    println!("p95 of the non-LLM time {p95:.2} ms < target {P95_TARGET_MS} ms");
    ExitCode::SUCCESS
}

/// The two headline lines; returns the overhead p95.
fn summary_line(overhead: &mut [f64], llm: &mut [f64]) -> f64 {
    let p95 = print_stats("non-LLM (overhead)", overhead);
    print_stats("LLM calls (mock)", llm);
    p95
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
