//! The LLM judge against the loopback mock server: request shape, score parsing and clamping,
//! retries, errors, the missing-key rule, the judge cache and concurrency.

use std::time::Duration;

use anser_evaluator::{EvalOptions, JudgeMode, JudgeSettings, JudgeSettingsBuilder, Metric, Profile};
use anser_llm::{
    ApiKey, EndpointConfig,
    mock::{Fault, Matcher, MockConfig, MockServer, Reply, Rule},
};
use serde_json::json;

use crate::common::{Synthetic, value};

fn server() -> MockServer {
    MockServer::start(MockConfig::instant()).unwrap_or_else(|e| panic!("mock server: {e}"))
}

fn settings(server: &MockServer, cache: Option<std::path::PathBuf>) -> JudgeSettings {
    let endpoint = EndpointConfig::new(&server.base_url(), "judge-model", ApiKey::new("test-key"))
        .unwrap_or_else(|e| panic!("{e}"));
    JudgeSettingsBuilder {
        cache,
        timeout: Duration::from_secs(10),
        ..JudgeSettingsBuilder::new(Some(endpoint), "judge-model")
    }
    .build()
    .expect("valid judge settings")
}

fn options(judge: JudgeSettings, profile: Profile) -> EvalOptions {
    EvalOptions { profile, corpus_root: None, judge: JudgeMode::Call(judge), bertscore: None }
}

fn records() -> serde_json::Value {
    json!([
        {"id": "sp_1", "answer": "ANSWER-SCIENCE"},
        {"id": "le_1", "answer": "ANSWER-LEGAL"},
        {"id": "fr_1", "answer": "ANSWER-REGBENCH"},
        {"id": "fk_text", "answer": "ANSWER-FINANCE"},
        {"id": "fa_zero", "answer": "not judged"}
    ])
}

#[test]
fn request_shape_scores_and_records() {
    let s = Synthetic::new();
    let mock = server();
    mock.script(
        Matcher::UserContains("ANSWER-SCIENCE".into()),
        [Reply::text("{\"score_0_100\": 140, \"reason\": \"fine\"}")],
    );
    mock.script(Matcher::UserContains("ANSWER-LEGAL".into()), [Reply::text("```json\n{\"score_0_100\": 55}\n```")]);
    mock.script(Matcher::UserContains("ANSWER-REGBENCH".into()), [Reply::text("{\"reason\": \"no score\"}")]);
    mock.script(
        Matcher::UserContains("ANSWER-FINANCE".into()),
        [Reply::Fault(Fault::RateLimited { retry_after: "0".into() }), Reply::text("{\"score_0_100\": 12.5}")],
    );
    let e = s.evaluate(records(), &options(settings(&mock, None), Profile::Official));

    assert_eq!(e.judge_model.as_deref(), Some("judge-model"));
    assert!(e.to_json_string().contains("\"model_for_llm_judge\": \"judge-model\""));
    assert_eq!(value(&e, "sp_1", Metric::LlmJudge), Some(Some(100.0)));
    assert_eq!(value(&e, "le_1", Metric::LlmJudge), Some(Some(55.0)));
    assert_eq!(value(&e, "fr_1", Metric::LlmJudge), Some(None));
    assert_eq!(value(&e, "fk_text", Metric::LlmJudge), Some(Some(12.5)));
    assert_eq!(value(&e, "fa_zero", Metric::LlmJudge), None);

    let record = |id: &str| {
        let d = e.details().find(|d| d.id == id).unwrap_or_else(|| panic!("{id}"));
        anser_evaluator::pyjson::dumps(
            &anser_evaluator::pyjson::Py::Dict(d.llm_judge.clone().unwrap_or_default()),
            anser_evaluator::pyjson::DumpStyle::TEXT,
        )
    };
    assert_eq!(record("sp_1"), r#"{"attempts": 1, "reason": "fine", "score_0_100": 100.0, "status": "ok"}"#);
    assert_eq!(record("fr_1"), r#"{"attempts": 1, "error": "missing numeric score_0_100", "status": "error"}"#);
    assert_eq!(record("fk_text"), r#"{"attempts": 2, "score_0_100": 12.5, "status": "ok"}"#);

    let requests = mock.requests();
    assert_eq!(requests.len(), 5, "four tasks, one retried");
    let body = &requests
        .iter()
        .find(|r| r.last_user_message().is_some_and(|m| m.contains("ANSWER-SCIENCE")))
        .unwrap_or(&requests[0])
        .body;
    assert_eq!(body["model"], "judge-model");
    assert_eq!(body["reasoning_effort"], "high");
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], anser_evaluator::judge::SYSTEM_MESSAGE);
    // The science template with the task's query, instruction, gold and the answer.
    let prompts = anser_evaluator::Prompts::official().unwrap_or_else(|e| panic!("{e}"));
    let want = prompts
        .template(anser_evaluator::JudgeTemplate::Science)
        .replace("{query}", "q")
        .replace("{instruction}", "")
        .replace("{ground_truth}", "Positive association")
        .replace("{answer}", "ANSWER-SCIENCE");
    assert_eq!(body["messages"][1]["content"], want.as_str());
    assert!(requests.iter().all(|r| r.authorization.as_deref() == Some("Bearer test-key")));
    assert_eq!(e.judge_overhead.calls, 4);
    assert_eq!(e.judge_overhead.failed, 1);
    assert!(e.judge_overhead.total_tokens > 0);
    // Judge tokens are overhead, never the system's Token Usage.
    assert_eq!(e.efficiency.token_usage.count, 0);
}

#[test]
fn non_retryable_status_is_an_error_record() {
    let s = Synthetic::new();
    let mock = server();
    mock.add_rule(Rule::new(Matcher::Any).reply(Reply::Fault(Fault::Status(400))).repeat_last());
    let e = s.evaluate(json!([{"id": "sp_1", "answer": "x"}]), &options(settings(&mock, None), Profile::Official));
    assert_eq!(value(&e, "sp_1", Metric::LlmJudge), Some(None));
    let rec = e.details().next().and_then(|d| d.llm_judge.clone()).unwrap_or_default();
    assert_eq!(rec.get("status").and_then(|v| v.as_str()), Some("error"));
    assert!(rec.get("error").and_then(|v| v.as_str()).is_some_and(|m| m.starts_with("HTTP 400")), "{rec:?}");
    assert_eq!(mock.requests().len(), 1);
    // The metric is unavailable in the summary.
    let m = e.metric(Metric::LlmJudge).copied();
    assert_eq!(m.map(|m| (m.mean, m.count, m.unavailable)), Some((None, 0, 1)));
}

#[test]
fn missing_key_makes_the_judge_unavailable() {
    let s = Synthetic::new();
    let judge = JudgeSettingsBuilder::new(None, "gpt-5.6-sol").build().expect("valid judge settings");
    let e = s.evaluate(json!([{"id": "sp_1", "answer": "x"}]), &options(judge, Profile::Official));
    assert_eq!(e.judge_model.as_deref(), Some("gpt-5.6-sol"));
    let rec = e.details().next().and_then(|d| d.llm_judge.clone()).unwrap_or_default();
    assert_eq!(
        anser_evaluator::pyjson::dumps(
            &anser_evaluator::pyjson::Py::Dict(rec),
            anser_evaluator::pyjson::DumpStyle::TEXT
        ),
        r#"{"reason": "OPENAI_API_KEY is not set", "status": "unavailable"}"#
    );
}

#[test]
fn cache_avoids_repeat_calls_and_concurrency_does_not_change_results() {
    let s = Synthetic::new();
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cache = tmp.path().join("judge_cache.jsonl");
    let mock = server();
    mock.add_rule(Rule::new(Matcher::Any).reply(Reply::text("{\"score_0_100\": 70}")).repeat_last());

    let base = settings(&mock, Some(cache.clone())).to_builder();
    let one = JudgeSettingsBuilder { concurrency: 1, ..base.clone() }.build().expect("valid judge settings");
    let first = s.evaluate(records(), &options(one, Profile::Official));
    assert_eq!(mock.requests().len(), 4);
    assert_eq!(first.judge_overhead.cached, 0);

    // Same predictions: every score comes from the cache, no call.
    let many = JudgeSettingsBuilder { concurrency: 4, ..base.clone() }.build().expect("valid judge settings");
    let second = s.evaluate(records(), &options(many.clone(), Profile::Official));
    assert_eq!(mock.requests().len(), 4);
    assert_eq!(second.judge_overhead.cached, 4);
    assert_eq!(second.judge_overhead.calls, 0);
    assert!(first.to_json_string() == second.to_json_string(), "cached scores and records differ from the first run");

    // A changed answer changes the result signature: only that task is judged again.
    let mut changed = records();
    changed[0]["answer"] = json!("ANSWER-SCIENCE v2");
    let third = s.evaluate(changed, &options(many.clone(), Profile::Official));
    assert_eq!(mock.requests().len(), 5);
    assert_eq!(third.judge_overhead.cached, 3);

    // Another judge model misses the cache.
    let mut other = JudgeSettingsBuilder { model: "other-model".into(), ..many.to_builder() };
    if let Some(ep) = other.endpoint.as_mut() {
        ep.model = "other-model".into();
    }
    let other = other.build().expect("valid judge settings");
    let _ = s.evaluate(records(), &options(other, Profile::Official));
    assert_eq!(mock.requests().len(), 9);
}
