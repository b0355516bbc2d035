//! Crash test of the run loop: start `anser run`, SIGKILL it at a random moment, resume, and
//! check that every selected task is recorded exactly once, that the results finished before
//! the kill are unchanged, and that the trace is complete: right after the kill every journaled
//! task already has its whole trace (`task_start` … `task_end`), and after the resume every task
//! has exactly one trace and no trace belongs to an unrecorded task. Seeded, so a failure
//! reproduces.

use std::{
    collections::HashMap,
    path::Path,
    process::{Command, Stdio},
    time::Duration,
};

use anser_llm::mock::{MockConfig, MockServer};
use rand_xoshiro::{
    SplitMix64,
    rand_core::{Rng as _, SeedableRng},
};
use serde_json::Value;

const TRIALS: u64 = 20;

fn journal(dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join("results.journal.jsonl")).unwrap_or_default();
    // Only complete lines: a torn last line is what a kill leaves behind.
    let complete = text.rfind('\n').map_or("", |i| &text[..=i]);
    complete.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("journal line")).collect()
}

/// `task_start` and `task_end` events per task id in the run's trace (complete lines only).
fn trace_events(dir: &Path) -> HashMap<String, (usize, usize)> {
    let text = std::fs::read_to_string(dir.join("trace.jsonl")).unwrap_or_default();
    let complete = text.rfind('\n').map_or("", |i| &text[..=i]);
    let mut events: HashMap<String, (usize, usize)> = HashMap::new();
    for line in complete.lines().filter(|l| !l.trim().is_empty()) {
        let e: Value = serde_json::from_str(line).expect("trace line");
        let counts = events.entry(e["task_id"].as_str().expect("task id").to_string()).or_default();
        match e["event"].as_str() {
            Some("task_start") => counts.0 += 1,
            Some("task_end") => counts.1 += 1,
            _ => {}
        }
    }
    events
}

fn run(base: &str, out: &Path, resume: bool) -> Command {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/query");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_anser"));
    cmd.args(["run", "--method", "vanilla", "--run-name", "crash", "--no-evaluate", "--quiet"])
        .args(["--concurrency", "2", "--model", "mock-llm", "--base-url", base])
        .arg("--benchmark-dir")
        .arg(&examples)
        .arg("--output-dir")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if resume {
        cmd.arg("--resume");
    }
    cmd
}

fn main() {
    let config = MockConfig::instant().with_delay(Duration::from_millis(25));
    let mock = MockServer::start(config).expect("mock starts");
    let base = mock.base_url();
    // Seeded kill times, so a failing trial can be repeated.
    let mut rng = SplitMix64::seed_from_u64(2026);
    let mut killed_mid_run = 0;
    for trial in 0..TRIALS {
        let tmp = tempfile::tempdir().expect("tempdir");
        let kill_after = Duration::from_millis(rng.next_u64() % 450);
        let mut child = run(&base, tmp.path(), false).spawn().expect("anser starts");
        std::thread::sleep(kill_after);
        let finished_on_its_own = child.try_wait().expect("wait").is_some();
        let _ = child.kill();
        let _ = child.wait();
        let dir = tmp.path().join("crash");
        if !dir.join("metadata.json").exists() {
            // Killed before the run directory was set up: a fresh start must work then.
            let _ = std::fs::remove_dir_all(&dir);
            let status = run(&base, tmp.path(), false).status().expect("rerun");
            assert!(status.success(), "trial {trial}: fresh start after an early kill failed");
        }
        let before: HashMap<String, Value> =
            journal(&dir).into_iter().map(|r| (r["id"].as_str().expect("id").to_string(), r)).collect();
        if !finished_on_its_own && before.len() < 18 {
            killed_mid_run += 1;
        }
        // No finished task without its trace, at the moment of the kill.
        let traced = trace_events(&dir);
        for id in before.keys() {
            let (starts, ends) = traced.get(id).copied().unwrap_or_default();
            assert!(starts >= 1 && ends >= 1, "trial {trial}: {id} is journaled but its trace is missing or cut");
        }
        let output = run(&base, tmp.path(), true).output().expect("resume runs");
        assert!(output.status.success(), "trial {trial}: resume failed: {}", String::from_utf8_lossy(&output.stderr));
        let after = journal(&dir);
        let mut seen = HashMap::new();
        for r in &after {
            let id = r["id"].as_str().expect("id").to_string();
            assert!(seen.insert(id.clone(), r.clone()).is_none(), "trial {trial}: {id} recorded twice");
        }
        assert_eq!(seen.len(), 18, "trial {trial}: every task exactly once");
        let traced = trace_events(&dir);
        assert_eq!(traced.len(), 18, "trial {trial}: a trace for every task and for no other");
        for (id, counts) in &traced {
            assert!(seen.contains_key(id), "trial {trial}: trace of unrecorded task {id}");
            assert_eq!(*counts, (1, 1), "trial {trial}: {id} must have exactly one trace");
        }
        for (id, r) in &before {
            assert_eq!(seen.get(id), Some(r), "trial {trial}: finished result {id} changed on resume");
        }
        let results: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).expect("results")).expect("json");
        assert_eq!(results.as_array().expect("array").len(), 18, "trial {trial}");
    }
    assert!(killed_mid_run >= TRIALS / 4, "only {killed_mid_run} of {TRIALS} kills hit a run in progress");
    println!("crash test: {TRIALS} trials, {killed_mid_run} killed mid-run; 1 passed, 0 failed");
}
