//! `anser run --method agent` on the generated sample with a scripted mock LLM that calls the
//! tools the way a competent model would: look at the schema, select the population with SQL,
//! submit the count with the population as evidence. Answers and evidence are checked against
//! the generated gold.

use std::collections::BTreeSet;

use anser_llm::mock::{Matcher, MockConfig, MockServer, Reply};
use serde_json::{Value, json};

use crate::common::{anser, stderr};

fn quoted(ids: &[String]) -> String {
    ids.iter().map(|s| format!("'{}'", s.replace('\'', "''"))).collect::<Vec<_>>().join(",")
}

#[test]
fn scripted_agent_answers_counting_tasks_with_their_populations() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let sample = tmp.path().join("sample");
    let o = anser(&["sample", "--out", sample.to_str().expect("utf8"), "--size", "small"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bench = anser_manifest::Benchmark::load(&sample.join("query")).expect("sample tasks load");
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    let mut ids = Vec::new();
    for group in ["legal_zh_descriptive", "legal_en_descriptive"] {
        for task in bench.tasks().iter().filter(|t| t.group.name() == group).take(3) {
            let reference = bench.reference(&task.id).expect("reference");
            let gold: Vec<String> = reference
                .evidence
                .as_array()
                .expect("list")
                .iter()
                .map(|v| v.as_str().expect("string id").to_string())
                .collect();
            // What a competent model's final SQL returns: exactly the qualifying cases.
            let (sql, column) = if group == "legal_zh_descriptive" {
                (format!("SELECT DISTINCT anhao FROM cases WHERE anhao IN ({})", quoted(&gold)), "anhao")
            } else {
                (format!("SELECT DISTINCT case_id FROM case_record WHERE case_id IN ({})", quoted(&gold)), "case_id")
            };
            mock.script(
                Matcher::UserContains(task.query.clone()),
                [
                    Reply::tool_call("c1", "schema", json!({})),
                    Reply::tool_call("c2", "sql", json!({"query": sql})),
                    Reply::tool_call(
                        "c3",
                        "answer",
                        json!({"answer": reference.ground_truth, "evidence_from": {"result": "r1", "column": column}}),
                    ),
                ],
            );
            ids.push(task.id.clone());
        }
    }
    let index_dir = tmp.path().join("indices");
    let o = anser(&[
        "index",
        "--corpus-root",
        sample.join("corpus").to_str().expect("utf8"),
        "--index-dir",
        index_dir.to_str().expect("utf8"),
        "--routes",
        "legal_zh_cases,legal_en_cases",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out_dir = tmp.path().join("runs");
    let o = anser(&[
        "run",
        "--method",
        "agent",
        "--run-name",
        "scripted",
        "--benchmark-dir",
        sample.join("query").to_str().expect("utf8"),
        "--corpus-root",
        sample.join("corpus").to_str().expect("utf8"),
        "--output-dir",
        out_dir.to_str().expect("utf8"),
        "--index-dir",
        index_dir.to_str().expect("utf8"),
        "--base-url",
        &mock.base_url(),
        "--model",
        "mock-llm",
        "--ids",
        &ids.join(","),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("scripted/results.json")).expect("results"))
            .expect("json");
    let results = results.as_array().expect("array");
    assert_eq!(results.len(), ids.len());
    for r in results {
        let id = r["id"].as_str().expect("id");
        let reference = bench.reference(id).expect("reference");
        assert_eq!(r["generation_status"], "ok", "{r}");
        assert_eq!(r["answer"].as_str().map(str::to_string), Some(reference.ground_truth.to_string()), "{id}");
        let got: BTreeSet<String> = r["retrieved_evidence"]
            .as_array()
            .expect("list")
            .iter()
            .map(|v| v.as_str().expect("id").to_string())
            .collect();
        let want: BTreeSet<String> =
            reference.evidence.as_array().expect("list").iter().map(|v| v.as_str().expect("id").to_string()).collect();
        assert_eq!(got, want, "{id}: the counted population is the evidence");
        assert!(r.get("flags").is_none(), "{id}: consistent answer has no flags: {r}");
        assert!(r["stages"]["sql"]["calls"].as_u64().expect("calls") >= 2, "schema + sql traced");
    }
    let evaluation: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("scripted/evaluation.json")).expect("evaluation"))
            .expect("json");
    let summary = evaluation["summary"].to_string();
    assert!(summary.contains("Set F1"), "{summary}");
    for (name, m) in evaluation["summary"]["metrics"].as_object().into_iter().flatten() {
        if ["Set F1", "Set Precision", "Set Recall", "Accuracy@10%"].contains(&name.as_str()) {
            assert_eq!(m["mean"], 1.0, "{name}: {m}");
        }
        if name == "MAE" {
            assert_eq!(m["mean"], 0.0, "{name}: {m}");
        }
    }
}
