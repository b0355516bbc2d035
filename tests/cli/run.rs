//! `anser run` end to end against the loopback mock LLM: results, traces, evaluation, resume
//! rules (including retrying failed tasks), injected faults, leakage, the run's own response
//! cache, Ctrl-C, and the agent's tool-call protocol.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
    process::Output,
    time::{Duration, Instant},
};

use anser_llm::{
    ToolCall,
    mock::{Fault, FaultInjection, Matcher, MockConfig, MockServer, Reply, Rule},
};
use serde_json::{Value, json};

use crate::common::{IndexedSample, anser, anser_env, examples_query, stderr, stdout, string_leaves, vanilla_run_args};

fn run_args<'a>(base_url: &'a str, out: &'a str, name: &'a str) -> Vec<&'a str> {
    let examples = EXAMPLES.get_or_init(|| examples_query().display().to_string());
    let mut args = vanilla_run_args(name, examples, "/nonexistent-corpus", out, base_url);
    args.extend(["--concurrency", "3"]);
    args
}

static EXAMPLES: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// `anser run` of the examples against `mock` into `out/NAME`, with `extra` flags after the
/// defaults; it must exit 0.
fn run_ok(mock: &MockServer, out: &Path, name: &str, extra: &[&str]) -> Output {
    let base = mock.base_url();
    let mut args = run_args(&base, out.to_str().expect("utf8"), name);
    args.extend(extra);
    let o = anser(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    o
}

fn read_json(path: &Path) -> Value {
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
    let config = MockConfig::instant().with_faults(Some(FaultInjection::transient(0.3, 7))).expect("valid mock config");
    let mock = MockServer::start(config).expect("mock starts");
    let tmp = tempfile::tempdir().expect("tempdir");
    run_ok(&mock, tmp.path(), "faulty", &["--max-attempts", "2"]);
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
    let tmp = tempfile::tempdir().expect("tempdir");
    run_ok(&mock, tmp.path(), "leak", &[]);
    let sent: Vec<String> = mock.requests().iter().map(|r| r.body.to_string()).collect();
    let bench = anser_gold::Benchmark::load(&examples_query()).expect("loads");
    let mut checked = 0;
    for task in bench.tasks() {
        let reference = bench.reference(&task.id).expect("reference");
        let mut needles = Vec::new();
        string_leaves(&reference.ground_truth, &mut needles);
        string_leaves(&reference.evidence, &mut needles);
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

/// The journal's records, in file order.
fn journal(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("results.journal.jsonl")).unwrap_or_default();
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("journal line")).collect()
}

/// How many `task_start` events each task has in a trace file.
fn trace_starts(path: &Path) -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut starts = BTreeMap::new();
    for line in text.lines() {
        let e: Value = serde_json::from_str(line).expect("trace line");
        if e["event"] == "task_start" {
            *starts.entry(e["task_id"].as_str().expect("task id").to_string()).or_insert(0) += 1;
        }
    }
    starts
}

/// The task each recorded chat request was about (by its task text in the last user message).
fn asked_tasks(mock: &MockServer, run_dir: &Path) -> Vec<String> {
    let selection = read_json(&run_dir.join("selection.json"));
    let prompts: Vec<(String, String)> = selection
        .as_array()
        .expect("selection")
        .iter()
        .map(|t| {
            let text = format!(
                "Task:\n{}\n\nInstruction:\n{}",
                t["query"].as_str().expect("query").trim(),
                t["instruction"].as_str().expect("instruction").trim()
            );
            (t["id"].as_str().expect("id").to_string(), text)
        })
        .collect();
    mock.requests()
        .iter()
        .map(|r| {
            let user = r.last_user_message().expect("a user message");
            let ids: Vec<&String> =
                prompts.iter().filter(|(_, p)| user.contains(p.as_str())).map(|(id, _)| id).collect();
            assert_eq!(ids.len(), 1, "one task per request: {ids:?}");
            ids[0].clone()
        })
        .collect()
}

/// The fault test of `--resume`: a first run where the endpoint fails some tasks (HTTP 500, one
/// attempt each), then `--resume --no-retry-failed` (keeps them, calls nobody), then `--resume`:
/// exactly the failed tasks are asked again, the successful records stay byte-identical, the
/// failed attempts are kept aside, and every task has one record and one trace.
#[test]
fn resume_retries_exactly_the_failed_tasks() {
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    mock.set_faults(Some(FaultInjection { rate: 0.4, seed: 11, kinds: vec![Fault::Status(500)] })).expect("faults");
    let base = mock.base_url();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().to_str().expect("utf8");
    let mut args = run_args(&base, out, "retry");
    args.extend(["--max-attempts", "1", "--no-evaluate"]);
    let o = anser(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = tmp.path().join("retry");
    let first = journal(&dir);
    assert_eq!(first.len(), 18);
    let failed: BTreeSet<String> = first
        .iter()
        .filter(|r| r["generation_status"] == "request_error")
        .map(|r| r["id"].as_str().expect("id").to_string())
        .collect();
    assert!((2..16).contains(&failed.len()), "{} failed: pick another seed", failed.len());

    mock.set_faults(None).expect("faults off");
    mock.clear_requests();
    let mut keep = args.clone();
    keep.extend(["--resume", "--no-retry-failed"]);
    let o = anser(&keep);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(mock.requests().len(), 0, "--no-retry-failed asks nobody");
    assert_eq!(journal(&dir), first, "and changes nothing");
    assert!(stdout(&o).contains(&format!("{} request_error/timeout result(s) kept", failed.len())), "{}", stdout(&o));

    let mut resume = args.clone();
    resume.push("--resume");
    let o = anser(&resume);
    assert!(o.status.success(), "{}", stderr(&o));
    let asked = asked_tasks(&mock, &dir);
    assert_eq!(asked.len(), failed.len(), "one call per retried task");
    assert_eq!(asked.into_iter().collect::<BTreeSet<_>>(), failed, "exactly the failed tasks were retried");
    assert!(stdout(&o).contains(&format!("resume: {} task(s)", failed.len())), "{}", stdout(&o));

    let after = journal(&dir);
    let by_id: BTreeMap<String, &Value> =
        after.iter().map(|r| (r["id"].as_str().expect("id").to_string(), r)).collect();
    assert_eq!((after.len(), by_id.len()), (18, 18), "one record per task");
    for r in &first {
        let id = r["id"].as_str().expect("id");
        if failed.contains(id) {
            assert_ne!(by_id[id]["generation_status"], "request_error", "{id} retried and answered");
        } else {
            assert_eq!(by_id[id], r, "{id}: a successful result is never re-run");
        }
    }
    let history: Vec<Value> = std::fs::read_to_string(dir.join("results.retried.jsonl"))
        .expect("failed attempts kept")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let kept: BTreeSet<String> = history.iter().map(|r| r["id"].as_str().expect("id").to_string()).collect();
    assert_eq!((history.len(), kept), (failed.len(), failed.clone()));
    let starts = trace_starts(&dir.join("trace.jsonl"));
    assert_eq!(starts.len(), 18);
    assert!(starts.values().all(|n| *n == 1), "one trace per task: {starts:?}");
    assert_eq!(trace_starts(&dir.join("trace.retried.jsonl")).keys().cloned().collect::<BTreeSet<_>>(), failed);
    let results = read_json(&dir.join("results.json"));
    assert!(results.as_array().expect("array").iter().all(|r| r["generation_status"] != "request_error"));
}

/// Each run has its own response cache: a second run with another name asks the server again
/// instead of silently replaying the first run's answers; `--cache-dir` shares one on purpose.
#[test]
fn a_run_never_answers_from_another_runs_cache() {
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    let tmp = tempfile::tempdir().expect("tempdir");
    for name in ["first", "second"] {
        mock.clear_requests();
        run_ok(&mock, tmp.path(), name, &["--no-evaluate"]);
        assert_eq!(mock.requests().len(), 18, "{name}: every task asked the server");
        assert!(tmp.path().join(name).join("llm-cache").is_dir(), "{name}: the cache is in the run directory");
    }
    let shared = tmp.path().join("shared-cache");
    for (name, expected) in [("third", 18), ("fourth", 0)] {
        mock.clear_requests();
        run_ok(&mock, tmp.path(), name, &["--no-evaluate", "--cache-dir", shared.to_str().expect("utf8")]);
        assert_eq!(mock.requests().len(), expected, "{name}: a named shared cache is shared");
    }
}

/// A cache that cannot be written is one warning, and every answer is kept.
#[test]
fn an_unwritable_cache_is_one_warning_not_a_lost_answer() {
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    let tmp = tempfile::tempdir().expect("tempdir");
    let blocker = tmp.path().join("plain-file");
    std::fs::write(&blocker, "a file where the cache folder should be").expect("write");
    let cache = blocker.join("cache");
    let o = run_ok(&mock, tmp.path(), "nocache", &["--no-evaluate", "--cache-dir", cache.to_str().expect("utf8")]);
    let records = journal(&tmp.path().join("nocache"));
    assert_eq!(records.len(), 18);
    assert!(records.iter().all(|r| r["generation_status"] != "request_error"), "no answer lost");
    assert_eq!(mock.requests().len(), 18);
    let warnings = stderr(&o).lines().filter(|l| l.contains("cannot write the LLM response cache")).count();
    assert_eq!(warnings, 1, "one warning: {}", stderr(&o));
}

/// Ctrl-C (SIGINT) in the middle of a sparse or an agent run: no panic (the tasks unwind while
/// the runtime is alive), exit code 130, an intact journal with one trace per record, and
/// `--resume` finishes the run with every task recorded once.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_sparse_and_agent_runs_cleanly_and_resume_finishes_them() {
    let fixture = IndexedSample::get();
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    // The agent searches at every step until its budget runs out: most of its time is
    // retrieval inside `block_in_place`, where Ctrl-C used to panic.
    mock.add_rule(
        Rule::new(Matcher::Any)
            .reply(Reply::tool_call("s1", "search", json!({"query": "annual report court"})))
            .repeat_last(),
    );
    let base = mock.base_url();
    let tmp = tempfile::tempdir().expect("tempdir");
    // Interrupt once this many tasks are recorded (the signal handler is installed by then).
    // The sparse points straddle the sample's slowest retrievals, where the old loop panicked.
    for (method, points) in [("sparse", &[6, 38, 42][..]), ("agent", &[2, 8][..])] {
        let mut interrupted = 0;
        for (trial, &point) in points.iter().enumerate() {
            let name = format!("{method}-{trial}");
            let args = |resume: bool| {
                let a = fixture.run_args(method, &name, tmp.path().to_str().expect("utf8")).chat(&base);
                let a = a.args(&["--no-evaluate", "--concurrency", "4"]);
                if resume { a.args(&["--resume"]).0 } else { a.0 }
            };
            let dir = tmp.path().join(&name);
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_anser"))
                .args(args(false))
                .envs(fixture.env())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("anser starts");
            let started = Instant::now();
            while journal(&dir).len() < point && started.elapsed() < Duration::from_secs(120) {
                if child.try_wait().expect("wait").is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let kill = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status();
            assert!(kill.expect("kill runs").success() || child.try_wait().expect("wait").is_some());
            let output = child.wait_with_output().expect("anser exits");
            let err = String::from_utf8_lossy(&output.stderr).into_owned();
            eprintln!(
                "{method}: SIGINT after {point} records: exit {:?}, {} recorded",
                output.status.code(),
                journal(&dir).len()
            );
            assert!(!err.contains("panicked") && !err.contains("being shutdown"), "{method} trial {trial}: {err}");
            match output.status.code() {
                Some(130) => interrupted += 1,
                Some(0) => {}
                other => panic!("{method} trial {trial}: exit {other:?}: {err}"),
            }
            let before = journal(&dir);
            let starts = trace_starts(&dir.join("trace.jsonl"));
            for r in &before {
                assert!(starts.contains_key(r["id"].as_str().expect("id")), "{method}: a record without its trace");
            }
            let o = anser_env(&args(true).iter().map(String::as_str).collect::<Vec<_>>(), &fixture.env());
            assert!(o.status.success(), "{method} trial {trial}: resume failed: {}", stderr(&o));
            let after = journal(&dir);
            let ids: BTreeSet<&str> = after.iter().map(|r| r["id"].as_str().expect("id")).collect();
            assert_eq!(ids.len(), after.len(), "{method}: a task recorded twice");
            let selected = read_json(&dir.join("selection.json")).as_array().expect("selection").len();
            assert_eq!(after.len(), selected, "{method}: every task recorded once after resume");
            for r in &before {
                assert!(after.contains(r), "{method}: a result finished before Ctrl-C changed");
            }
            let starts = trace_starts(&dir.join("trace.jsonl"));
            assert_eq!(starts.len(), selected);
            assert!(starts.values().all(|n| *n == 1), "{method}: one trace per task: {starts:?}");
        }
        assert!(interrupted > 0, "{method}: no trial was interrupted mid-run");
    }
}

/// The agent's tool protocol with a broken tool call: the next request carries `{}` as that
/// call's arguments (strict servers reject the whole conversation otherwise) and an error tool
/// message; an empty `answer` is rejected, not recorded `ok`; earlier tool errors stay in the
/// task's `errors`; an unparseable final reply says why.
#[test]
fn agent_repairs_broken_tool_arguments_and_keeps_its_errors() {
    let fixture = IndexedSample::get();
    let bench = anser_manifest::load_public_tasks(&fixture.query).expect("tasks");
    let counting = |t: &&anser_manifest::PublicTask| {
        anser_agent::method::output::AnswerContract::of(t) == anser_agent::method::output::AnswerContract::Integer
    };
    let mut integer_tasks = bench.iter().filter(counting);
    let (first, second) = (integer_tasks.next().expect("a counting task"), integer_tasks.next().expect("another"));
    let prompt =
        |t: &anser_manifest::PublicTask| format!("Task:\n{}\n\nInstruction:\n{}", t.query.trim(), t.instruction.trim());
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    mock.script(
        Matcher::UserContains(prompt(first)),
        [
            Reply::ToolCalls(vec![ToolCall::new("c1", "sql", r#"{"query": "SELECT 1"#)]),
            Reply::tool_call("c2", "answer", json!({"answer": "  "})),
            Reply::tool_call("c3", "answer", json!({"answer": 1, "evidence": []})),
        ],
    );
    mock.script(Matcher::UserContains(prompt(second)), [Reply::text("I could not find out.")]);
    let base = mock.base_url();
    let tmp = tempfile::tempdir().expect("tempdir");
    let ids = format!("{},{}", first.id, second.id);
    let args = fixture.run_args("agent", "protocol", tmp.path().to_str().expect("utf8")).chat(&base);
    let o = anser_env(&args.args(&["--no-evaluate", "--ids", &ids]).strs(), &fixture.env());
    assert!(o.status.success(), "{}", stderr(&o));

    let requests: Vec<Value> = mock
        .requests()
        .into_iter()
        .filter(|r| r.last_user_message().is_some_and(|u| u.contains(&prompt(first))))
        .map(|r| r.body)
        .collect();
    assert_eq!(requests.len(), 3, "three turns for the first task");
    let messages = requests[1]["messages"].as_array().expect("messages");
    let assistant = messages.iter().rev().find(|m| m["role"] == "assistant").expect("assistant turn");
    let arguments = assistant["tool_calls"][0]["function"]["arguments"].as_str().expect("arguments text");
    assert!(serde_json::from_str::<Value>(arguments).is_ok_and(|v| v.is_object()), "history carries JSON: {arguments}");
    let tool = messages.last().expect("tool message");
    assert_eq!(tool["role"], "tool");
    let tool_body: Value = serde_json::from_str(tool["content"].as_str().expect("content")).expect("tool JSON");
    assert_eq!(tool_body["ok"], false);
    assert!(tool_body["error"].as_str().expect("error").contains("not valid JSON"), "{tool_body}");
    for request in &requests {
        for m in request["messages"].as_array().expect("messages") {
            for call in m["tool_calls"].as_array().into_iter().flatten() {
                let args = call["function"]["arguments"].as_str().expect("arguments");
                assert!(serde_json::from_str::<Value>(args).is_ok(), "broken arguments sent back: {args}");
            }
        }
    }
    let third = requests[2]["messages"].as_array().expect("messages");
    let rejected: Value =
        serde_json::from_str(third.last().expect("tool")["content"].as_str().expect("content")).expect("json");
    assert_eq!(rejected["ok"], false, "an empty answer is rejected: {rejected}");

    let records: BTreeMap<String, Value> = journal(&tmp.path().join("protocol"))
        .into_iter()
        .map(|r| (r["id"].as_str().expect("id").to_string(), r))
        .collect();
    let a = &records[&first.id];
    assert_eq!(a["generation_status"], "ok", "{a}");
    assert_eq!(a["answer"], "1");
    let errors: Vec<&str> = a["errors"].as_array().expect("errors").iter().filter_map(Value::as_str).collect();
    assert_eq!(errors.len(), 2, "both earlier tool errors are kept: {errors:?}");
    assert!(errors[0].contains("sql") && errors[0].contains("not valid JSON"), "{errors:?}");
    assert!(errors[1].contains("answer") && errors[1].contains("empty"), "{errors:?}");
    let b = &records[&second.id];
    assert_eq!(b["generation_status"], "unparseable", "{b}");
    let reasons = b["errors"].as_array().expect("errors");
    assert!(!reasons.is_empty() && reasons[0].as_str().expect("text").contains("could not find out"), "{b}");
}
