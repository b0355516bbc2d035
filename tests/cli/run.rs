//! `anser run` end to end against the loopback mock LLM: results, traces, evaluation, resume
//! rules, injected faults and leakage.

use anser_llm::mock::{FaultInjection, MockConfig, MockServer};
use serde_json::Value;

use crate::common::{anser, examples_query, stderr, stdout};

fn run_args<'a>(base_url: &'a str, out: &'a str, name: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        "--method",
        "vanilla",
        "--run-name",
        name,
        "--benchmark-dir",
        EXAMPLES.get_or_init(|| examples_query().display().to_string()),
        "--corpus-root",
        "/nonexistent-corpus",
        "--output-dir",
        out,
        "--base-url",
        base_url,
        "--model",
        "mock-llm",
        "--quiet",
        "--concurrency",
        "3",
    ]
}

static EXAMPLES: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("file exists")).expect("json")
}

#[test]
fn vanilla_run_writes_results_traces_and_evaluation() {
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    let base = mock.base_url();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().to_str().expect("utf8");
    let o = anser(&run_args(&base, out, "v1"));
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = tmp.path().join("v1");
    let results = read_json(&dir.join("results.json"));
    let results = results.as_array().expect("array");
    assert_eq!(results.len(), 18, "every example task answered once");
    for r in results {
        for key in
            ["id", "answer", "retrieved_evidence", "latency", "prompt_tokens", "total_tokens", "generation_status"]
        {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
        assert_eq!(r["method"], "vanilla");
        assert!(r["latency"].as_f64().expect("latency") >= 0.0);
    }
    assert_eq!(mock.requests().len(), 18, "one call per task");
    let trace = std::fs::read_to_string(dir.join("trace.jsonl")).expect("trace");
    let events: Vec<Value> = trace.lines().map(|l| serde_json::from_str(l).expect("json line")).collect();
    assert_eq!(events.iter().filter(|e| e["event"] == "llm_call").count(), 18);
    assert_eq!(events.iter().filter(|e| e["event"] == "task_end").count(), 18);
    let selection = std::fs::read_to_string(dir.join("selection.json")).expect("selection");
    assert!(!selection.contains("ground_truth") && !selection.contains("\"evidence\""));
    let metadata = read_json(&dir.join("metadata.json"));
    assert_eq!(metadata["settings"]["method"], "vanilla");
    assert!(!metadata.to_string().contains("api_key\":\""), "no key on disk");
    let evaluation = read_json(&dir.join("evaluation.json"));
    assert!(evaluation.get("files").is_some(), "official schema");
    assert!(stdout(&o).contains("legal_zh_descriptive"), "per-group table printed");

    // An existing run is never overwritten without --resume.
    let again = anser(&run_args(&base, out, "v1"));
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(stderr(&again).contains("--resume") || stderr(&again).contains("exists"), "{}", stderr(&again));

    // Resuming a finished run does nothing and calls nobody.
    mock.clear_requests();
    let mut args = run_args(&base, out, "v1");
    args.push("--resume");
    let resumed = anser(&args);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_eq!(mock.requests().len(), 0);
    assert_eq!(read_json(&dir.join("results.json")).as_array().expect("array").len(), 18);

    // Resuming with a changed setting names it and stops.
    let mut args = run_args(&base, out, "v1");
    args.extend(["--resume", "--temperature", "0.7"]);
    let changed = anser(&args);
    assert_eq!(changed.status.code(), Some(2));
    assert!(stderr(&changed).contains("temperature"), "{}", stderr(&changed));
}

#[test]
fn injected_faults_are_recorded_and_bounded() {
    let config = MockConfig { faults: Some(FaultInjection::transient(0.3, 7)), ..MockConfig::instant() };
    let mock = MockServer::start(config).expect("mock starts");
    let base = mock.base_url();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().to_str().expect("utf8");
    let mut args = run_args(&base, out, "faulty");
    args.extend(["--max-attempts", "2"]);
    let o = anser(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let results = read_json(&tmp.path().join("faulty/results.json"));
    let results = results.as_array().expect("array");
    assert_eq!(results.len(), 18);
    // Bounded: at most 2 attempts per task.
    assert!(mock.requests().len() <= 36, "{} requests", mock.requests().len());
    for r in results.iter().filter(|r| r["generation_status"] == "request_error") {
        assert!(!r["errors"].as_array().expect("errors").is_empty(), "failure recorded: {r}");
    }
    let trace = std::fs::read_to_string(tmp.path().join("faulty/trace.jsonl")).expect("trace");
    let failed_calls = trace.lines().filter(|l| l.contains("\"llm_call\"") && l.contains("\"error\"")).count();
    let failed_results = results.iter().filter(|r| r["generation_status"] == "request_error").count();
    assert_eq!(failed_calls, failed_results, "each failure is in the trace too");
}

/// No gold answer or gold evidence string reaches the model.
#[test]
fn no_reference_string_leaves_the_machine() {
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    let base = mock.base_url();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().to_str().expect("utf8");
    let o = anser(&run_args(&base, out, "leak"));
    assert!(o.status.success(), "{}", stderr(&o));
    let sent: Vec<String> = mock.requests().iter().map(|r| r.body.to_string()).collect();
    let bench = anser_gold::Benchmark::load(&examples_query()).expect("loads");
    let mut checked = 0;
    for task in bench.tasks() {
        let reference = bench.reference(&task.id).expect("reference");
        let mut needles = Vec::new();
        collect_strings(&reference.ground_truth, &mut needles);
        collect_strings(&reference.evidence, &mut needles);
        for needle in needles.into_iter().filter(|n| n.chars().count() >= 6) {
            // A gold string that is also part of the public query or instruction is not a leak.
            if task.query.contains(&needle) || task.instruction.contains(&needle) {
                continue;
            }
            checked += 1;
            let escaped = serde_json::to_string(&needle).expect("json");
            let escaped = escaped.trim_matches('"');
            assert!(!sent.iter().any(|b| b.contains(escaped)), "{} leaked {needle:?}", task.id);
        }
    }
    assert!(checked > 10, "the test looked at {checked} gold strings");
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}
