//! The loopback mock's rubric-verdict mode (`MockServer::set_rubric_verdicts`), used by the
//! throughput harness: over HTTP with EvalScope's transport, `generate` + `judge` must run the
//! whole scoring path (every sample scored, hits and misses both present) and come out the same
//! on a second run, since the verdicts depend only on the seed and the prompt.

use std::collections::BTreeMap;

use anser_llm::{
    ApiKey, EndpointConfig,
    mock::{MockConfig, MockServer},
};
use anser_omb::{
    Dataset, EvalscopeBackend, GenerateSettings, JudgeCache, JudgeSettingsBuilder, Mode, RetrySchedule, SampleStatus,
    generate, judge_all, load_generations,
};
use anser_runstore::RunName;
use serde_json::{Value, json};

use crate::record_json;

/// Six records; record `f` mixes float rubric numbers (rendered `1.0`, `2.0` in the prompt).
fn dataset_text() -> String {
    let mut lines: Vec<Value> = (0..5)
        .map(|i| {
            record_json(
                &format!("r{i}"),
                &(1..=12).map(|n| (json!(n), if n % 4 == 0 { -3 } else { 5 })).collect::<Vec<_>>(),
            )
        })
        .collect();
    lines.push(record_json("f", &[(json!(1.0), 4), (json!(2.0), 6)]));
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

/// `(id, status, expert_score, hits)` per sample of one `generate` + `judge` run.
fn run(server: &MockServer) -> Vec<(String, SampleStatus, Option<f64>, usize)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("test.jsonl");
    std::fs::write(&path, dataset_text()).expect("write dataset");
    let dataset = Dataset::load(&path).expect("dataset");
    let endpoint = EndpointConfig::new(&server.base_url(), "m", ApiKey::none()).expect("endpoint");
    let backend = EvalscopeBackend::new(endpoint, RetrySchedule::default()).expect("backend");
    let settings = GenerateSettings { model: "answerer".into(), concurrency: 3, resume: false };
    let name = RunName::new("r").expect("name");
    let runs = dir.path().join("runs");
    let summary = generate(&path, &dataset, &runs, &name, Value::Null, &settings, &backend).expect("generate");
    assert_eq!(summary.generated, 6);
    let answers: BTreeMap<String, String> = load_generations(&runs.join("r"))
        .expect("generations")
        .iter()
        .map(|g| (g.id.clone(), g.prediction(Mode::Evalscope)))
        .collect();
    let judge_settings =
        JudgeSettingsBuilder { concurrency: 3, ..JudgeSettingsBuilder::new("judge") }.build().expect("judge settings");
    let cache = JudgeCache::open(dir.path()).expect("cache");
    let judged = judge_all(&dataset, &answers, &judge_settings, &backend, &cache).expect("judge");
    judged
        .samples
        .iter()
        .map(|s| {
            let hits = s.rubrics.iter().filter(|r| r.hit == Some(true)).count();
            (s.id.clone(), s.status, s.expert_score, hits)
        })
        .collect()
}

#[test]
fn rubric_verdicts_let_every_sample_be_scored_the_same_way_twice() {
    let server = MockServer::start(MockConfig::instant()).expect("mock server");
    let prose = run(&server);
    assert!(prose.iter().all(|s| s.1 == SampleStatus::Excluded), "prose judge replies fail the contract: {prose:?}");

    server.set_rubric_verdicts(Some(5));
    let first = run(&server);
    assert!(first.iter().all(|s| s.1 == SampleStatus::Scored), "{first:?}");
    let hits: usize = first.iter().map(|s| s.3).sum();
    let rubrics = 5 * 12 + 2;
    assert!(hits > 0 && hits < rubrics, "verdicts mix hits and misses: {hits} of {rubrics}");
    assert_eq!(run(&server), first, "same seed, same prompts: same scores");
}
