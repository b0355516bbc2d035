//! `anser omb generate` + `anser omb judge` end to end against the loopback mock: EvalScope's
//! transport (a transient 500 is retried inside the attempt), `--values` Economic Value and the
//! time-sensitivity breakdown in report.json, and a bad value table as a user error.

use anser_llm::mock::{Fault, Matcher, MockConfig, MockServer, Reply};
use serde_json::{Value, json};

use crate::common::{anser_env, spawn_mock_llm, stderr, stdout};

fn record(id: &str, language: &str, topic: &str, label: &str) -> Value {
    json!({"id": id, "language": language, "tags": {"topics": [topic], "time_sensitivity": {"label": label}},
        "question": format!("question {id}"),
        "rubrics": [{"rubric_number": 1, "rubric_detail": "d1", "rubric_weight": 8, "rubric_tag": "t"},
                    {"rubric_number": 2, "rubric_detail": "d2", "rubric_weight": 2, "rubric_tag": "t"}]})
}

fn verdict(one: &str) -> Reply {
    Reply::text(
        json!({"results": [{"rubric_id": 1, "status": one, "justification": "j"},
                           {"rubric_id": 2, "status": "否", "justification": "j"}]})
        .to_string(),
    )
}

#[test]
fn omb_generate_and_judge_with_values() {
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    // One transient 500 on the first judge request, then verdicts: cn passes (8/10), global fails.
    mock.script(
        Matcher::UserContains("### 评分项（Rubrics）\n**Rubric 1**".into()),
        [Reply::Fault(Fault::Status(500))],
    );
    mock.script(Matcher::UserContains("question c1\n".into()), [verdict("是")]);
    mock.script(Matcher::UserContains("question g1\n".into()), [verdict("否")]);
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = dir.path().join("test.jsonl");
    let lines = [record("c1", "cn", "法律", "强时效性"), record("g1", "global", "Law", "Time-agnostic")];
    std::fs::write(&dataset, lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n")).expect("dataset");
    let values = dir.path().join("economic_value.md");
    std::fs::write(&values, "| id | value |\n|---|---|\n| c1 | ¥9,000 |\n| g1 | $1,200 |\n").expect("values");
    let (ds, runs, base) = (dataset.to_string_lossy(), dir.path().join("runs"), mock.base_url());
    let runs = runs.to_string_lossy();
    let fast = ["--retry-delay-ms", "0", "--sdk-retry-delay-ms", "0"];
    let mut args = vec!["omb", "generate", "--dataset", &ds, "--run-name", "m", "--output-dir", &runs];
    args.extend(["--model", "answerer", "--base-url", &base, "--api-key", "k"]);
    args.extend(fast);
    let out = anser_env(&args, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 generated, 0 failed"), "{}", stdout(&out));

    let values_arg = values.to_string_lossy();
    let mut args = vec!["omb", "judge", "--dataset", &ds, "--run-name", "m", "--runs-dir", &runs, "--json"];
    args.extend(["--judge-model", "judge", "--judge-base-url", &base, "--judge-api-key", "k", "--values", &values_arg]);
    args.extend(fast);
    args.extend(["--judge-concurrency", "1"]);
    let out = anser_env(&args, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("report json");
    assert_eq!(report["overall"]["scored"], 2);
    assert_eq!(report["judge_usage"]["transport_failures"], 0, "the 500 was retried");
    assert_eq!(report["economic_value"]["display"], "¥9,000 / $0");
    assert_eq!(
        (report["economic_value"]["questions_passed"].as_u64(), report["economic_value"]["questions_total"].as_u64()),
        (Some(1), Some(2))
    );
    let sensitive = report["time_sensitivity"]
        .as_array()
        .expect("breakdown")
        .iter()
        .find(|t| t["category"] == "sensitive")
        .cloned();
    assert_eq!(sensitive.map(|t| (t["tasks"].clone(), t["expert_score"].clone())), Some((json!(1), json!(0.8))));
    let judge_requests =
        mock.requests().iter().filter(|r| r.last_user_message().is_some_and(|m| m.contains("评分项"))).count();
    assert_eq!(judge_requests, 3, "two samples, one retried request");

    std::fs::write(&values, "| id | value |\n|---|---|\n| c1 | lots |\n").expect("values");
    let out = anser_env(&args, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("economic_value.md") && stderr(&out).contains("not a number"), "{}", stderr(&out));
}

/// `anser mock-llm --rubric-verdicts SEED` answers judge requests with a valid verdict for every
/// rubric, so `omb generate` + `omb judge` against it score every sample (without the flag the
/// prose reply fails the reply contract and every sample is excluded).
#[test]
fn mock_llm_rubric_verdicts_let_omb_judge_score_every_sample() {
    let (mut child, first, url) = spawn_mock_llm(&["--port", "0", "--delay-ms", "0", "--rubric-verdicts", "4"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = dir.path().join("test.jsonl");
    let lines = [
        record("c1", "cn", "法律", "强时效性"),
        record("c2", "cn", "法律", "强时效性"),
        record("g1", "global", "Law", "Time-agnostic"),
    ];
    std::fs::write(&dataset, lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n")).expect("dataset");
    let (ds, runs) = (dataset.to_string_lossy(), dir.path().join("runs"));
    let runs = runs.to_string_lossy();
    let outputs = url.as_ref().map(|base| {
        let mut generate = vec!["omb", "generate", "--dataset", &ds, "--run-name", "m", "--output-dir", &runs];
        generate.extend(["--model", "answerer", "--base-url", base, "--api-key", "k"]);
        let generated = anser_env(&generate, &[]);
        let mut judge = vec!["omb", "judge", "--dataset", &ds, "--run-name", "m", "--runs-dir", &runs, "--json"];
        judge.extend(["--judge-model", "judge", "--judge-base-url", base, "--judge-api-key", "k"]);
        (generated, anser_env(&judge, &[]))
    });
    let _ = child.kill();
    let _ = child.wait();
    let (generated, judged) = outputs.unwrap_or_else(|| panic!("no URL in {first:?}"));
    assert!(generated.status.success(), "{}", stderr(&generated));
    assert!(judged.status.success(), "{}", stderr(&judged));
    let report: Value = serde_json::from_str(&stdout(&judged)).expect("report json");
    assert_eq!((report["overall"]["scored"].as_u64(), report["overall"]["excluded"].as_u64()), (Some(3), Some(0)));
}
