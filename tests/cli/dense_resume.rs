//! `anser index` with API embeddings killed in the middle of the dense build (SIGKILL, no
//! clean-up) and run again: no batch that had finished is requested again, and the vectors equal
//! those of an uninterrupted build. The mock answers each request after a delay, and batches go
//! one at a time, so when the mock sees request k + 1, batches 1..k are checkpointed.

use std::{
    collections::HashSet,
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anser_llm::mock::{MockConfig, MockServer, RecordedRequest};

use crate::common::{anser, anser_env, stderr, stdout};

/// Batches finished before the kill.
const FINISHED_BEFORE_KILL: usize = 3;

/// The input texts of each embeddings request (the embedder's dimension probe left out).
fn batches(requests: &[RecordedRequest]) -> Vec<Vec<String>> {
    requests
        .iter()
        .filter(|r| r.path.ends_with("/embeddings"))
        .filter_map(|r| r.body.get("input")?.as_array().cloned())
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect::<Vec<_>>())
        .filter(|texts| texts != &["dimension probe".to_string()])
        .collect()
}

fn env(mock: &MockServer) -> Vec<(String, String)> {
    vec![
        ("EMBEDDING_BACKEND".into(), "api".into()),
        ("EMBEDDING_BASE_URL".into(), mock.base_url()),
        ("EMBEDDING_MODEL".into(), "mock-embedding".into()),
        ("EMBEDDING_DIM".into(), "8".into()),
    ]
}

fn index_args<'a>(corpus: &'a str, index: &'a str) -> Vec<&'a str> {
    vec![
        "index",
        "--corpus-root",
        corpus,
        "--index-dir",
        index,
        "--routes",
        "finance_zh_rules",
        "--embedding-backend",
        "api",
        "--embedding-batch",
        "2",
        "--embedding-concurrency",
        "1",
        "--quiet",
        "--json",
    ]
}

fn vectors(index: &Path) -> Vec<u8> {
    std::fs::read(index.join("finance_zh_rules/dense/vectors.f32")).expect("vectors.f32")
}

#[test]
fn a_killed_dense_build_resumes_without_re_requesting_finished_batches() {
    let mock = MockServer::start(MockConfig::instant().with_delay(Duration::from_millis(150))).expect("mock starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = dir.path().join("sample");
    let o = anser(&["sample", "--out", sample.to_str().expect("utf8")]);
    assert!(o.status.success(), "anser sample: {}", stderr(&o));
    let corpus = sample.join("corpus");
    let corpus = corpus.to_str().expect("utf8");
    let (killed, clean) = (dir.path().join("killed"), dir.path().join("clean"));

    let mut command = Command::new(env!("CARGO_BIN_EXE_anser"));
    for var in ["EMBEDDING_BACKEND", "EMBEDDING_BASE_URL", "EMBEDDING_MODEL", "EMBEDDING_API_KEY", "EMBEDDING_DIM"] {
        command.env_remove(var);
    }
    let mut child = command
        .args(index_args(corpus, killed.to_str().expect("utf8")))
        .envs(env(&mock))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("anser index starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    while batches(&mock.requests()).len() <= FINISHED_BEFORE_KILL {
        assert!(Instant::now() < deadline, "the build never reached batch {}", FINISHED_BEFORE_KILL + 1);
        assert!(child.try_wait().expect("wait").is_none(), "the build ended before it could be killed");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill");
    child.wait().expect("reap");
    let first = batches(&mock.requests());
    let finished: HashSet<Vec<String>> = first[..FINISHED_BEFORE_KILL].iter().cloned().collect();
    assert!(!killed.join("finance_zh_rules").exists(), "no index in place after the kill");
    assert!(killed.join(".finance_zh_rules.dense-checkpoint").is_file(), "the checkpoint survives the kill");

    mock.clear_requests();
    let o = anser_env(&index_args(corpus, killed.to_str().expect("utf8")), &env(&mock));
    assert!(o.status.success(), "resumed anser index: {}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json report");
    let resumed = report[0]["resumed_batches"].as_u64().expect("resumed_batches");
    let embedded = report[0]["embedded_batches"].as_u64().expect("embedded_batches");
    let second = batches(&mock.requests());
    let again: Vec<&Vec<String>> = second.iter().filter(|b| finished.contains(*b)).collect();
    assert!(again.is_empty(), "finished batches requested again: {again:?}");
    assert!(resumed >= FINISHED_BEFORE_KILL as u64, "{report}");
    assert_eq!(embedded as usize, second.len(), "{report}");
    assert!(!killed.join(".finance_zh_rules.dense-checkpoint").exists(), "checkpoint removed when done");

    mock.clear_requests();
    let o = anser_env(&index_args(corpus, clean.to_str().expect("utf8")), &env(&mock));
    assert!(o.status.success(), "clean anser index: {}", stderr(&o));
    let total = batches(&mock.requests()).len() as u64;
    assert_eq!(resumed + embedded, total, "every batch embedded once across the killed and resumed runs");
    assert_eq!(vectors(&killed), vectors(&clean), "the resumed build's vectors equal an uninterrupted build's");
}
