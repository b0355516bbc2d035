//! `anser run --method agent` over every task of the generated small sample with a mock LLM
//! SCRIPTED FROM GOLD that calls the tools the way a competent model would for the task's group
//! (the scripts: `agent/benches/support/scripted_from_gold.rs`, shared with the overhead
//! benchmark). Its perfect scores test the tool loop and the scorer, not a method.
//!
//! The scripted SQL selects the gold ids and the final answer is the gold answer: what is under
//! test is the tool loop, not the model — tools run on the task's route (the SQL row counts prove
//! it), evidence is resolved into the scorer's identifier kind, answers validate for their group,
//! the compute tool's association statistics reproduce the generator's, every step is traced,
//! and the official scorer gives each task the score the gold itself gets.

#[path = "../../agent/benches/support/scripted_from_gold.rs"]
pub(crate) mod scripted_from_gold;

use std::collections::{BTreeMap, BTreeSet};

use anser_evaluator::{
    EvalOptions, JudgeMode, Metric, Profile, ResultsInput,
    evidence::{Canonicalizer, EvidenceScope, RuleIndex},
    pyjson::Py,
};
use anser_gold::Benchmark;
use anser_llm::mock::{Matcher, MockConfig, MockServer};
use anser_manifest::{Domain, Language, PublicTask};
use serde_json::{Value, json};

use self::scripted_from_gold::{Plan, gold_ids, gold_records, plan_of, script_from_gold, tool_names};
use crate::common::{anser, metrics_by_id, stderr};

/// Metrics whose perfect value is 1 and those whose perfect value is 0 (when the scorer computes
/// them for a task). Recall@5 and Precision@5 are capped by the gold list's size, so for them
/// "perfect" is the score of the gold list itself (checked for every metric below).
const PERFECT_ONE: &[Metric] = &[
    Metric::Accuracy,
    Metric::Accuracy10,
    Metric::SetF1,
    Metric::SetPrecision,
    Metric::SetRecall,
    Metric::RelationAccuracy,
    Metric::RuleAccuracy,
    Metric::TokenF1,
    Metric::Mrr,
    Metric::RPrecision,
];
const PERFECT_ZERO: &[Metric] = &[Metric::Mae, Metric::Smape, Metric::MaeLogOr, Metric::MaeMedianDifference];

/// An answer as a comparable value: objects parsed, scalars as trimmed text.
fn answer_value(v: &Value) -> Value {
    match v {
        Value::String(s) if s.trim_start().starts_with('{') => serde_json::from_str(s).unwrap_or_else(|_| v.clone()),
        Value::String(s) => Value::String(s.trim().to_string()),
        Value::Object(_) => v.clone(),
        other => Value::String(other.to_string()),
    }
}

fn canonical_set(task: &PublicTask, rules: &RuleIndex, items: &Value) -> BTreeSet<String> {
    let canon =
        Canonicalizer { scope: EvidenceScope::for_task(task.group, task.task_type.as_deref()), rules: Some(rules) };
    canon.list(Some(&Py::from_serde(items))).into_iter().collect()
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .expect("json")
}

#[test]
fn agent_scripted_from_gold_answers_every_group_with_gold_evidence_and_perfect_scores() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let sample = tmp.path().join("sample");
    let path = |p: &std::path::Path| p.to_str().expect("utf8").to_string();
    let o = anser(&["sample", "--out", &path(&sample), "--size", "small"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (query, corpus) = (sample.join("query"), sample.join("corpus"));
    let bench = Benchmark::load(&query).expect("sample tasks load");
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");

    let mut expected_tools: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut plans: BTreeMap<String, BTreeSet<Plan>> = BTreeMap::new();
    let mut seen_prompts = BTreeSet::new();
    for task in bench.tasks() {
        let reference = bench.reference(&task.id).expect("reference");
        // The matcher is the task part of the user message; it must single out one task.
        let prompt = format!("Task:\n{}\n\nInstruction:\n{}", task.query.trim(), task.instruction.trim());
        assert!(seen_prompts.insert(prompt.clone()), "{}: two tasks share a prompt", task.id);
        let replies = script_from_gold(task, reference);
        expected_tools.insert(task.id.clone(), tool_names(&replies));
        plans.entry(task.group.name()).or_default().insert(plan_of(task));
        mock.script(Matcher::UserContains(prompt), replies);
    }
    assert_eq!(plans.len(), 14, "every group of the sample is scripted: {plans:?}");

    let index_dir = tmp.path().join("indices");
    let o = anser(&["index", "--corpus-root", &path(&corpus), "--index-dir", &path(&index_dir), "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out_dir = tmp.path().join("runs");
    let o = anser(&[
        "run",
        "--method",
        "agent",
        "--run-name",
        "scripted",
        "--benchmark-dir",
        &path(&query),
        "--corpus-root",
        &path(&corpus),
        "--output-dir",
        &path(&out_dir),
        "--index-dir",
        &path(&index_dir),
        "--base-url",
        &mock.base_url(),
        "--model",
        "mock-llm",
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run_dir = out_dir.join("scripted");

    // Every tool message the model saw was a success.
    let requests = mock.requests();
    let mut tool_messages = 0;
    for r in &requests {
        for m in r.body["messages"].as_array().into_iter().flatten().filter(|m| m["role"] == "tool") {
            let content = m["content"].as_str().expect("tool content");
            assert!(
                !content.starts_with("{\"ok\":false"),
                "a tool failed: {}",
                content.chars().take(400).collect::<String>()
            );
            tool_messages += 1;
        }
    }
    assert!(tool_messages > 0);

    let results = read_json(&run_dir.join("results.json"));
    let results = results.as_array().expect("array");
    assert_eq!(results.len(), bench.tasks().len());
    let rules = RuleIndex::load(&corpus).expect("rule index");
    let tasks: BTreeMap<&str, &PublicTask> = bench.tasks().iter().map(|t| (t.id.as_str(), t)).collect();
    for r in results {
        let id = r["id"].as_str().expect("id");
        let task = tasks[id];
        let reference = bench.reference(id).expect("reference");
        assert_eq!(r["generation_status"], "ok", "{r}");
        assert!(r.get("flags").is_none(), "{id}: a consistent answer has no flags: {r}");
        assert_eq!(answer_value(&r["answer"]), answer_value(&reference.ground_truth), "{id}: answer");
        assert_eq!(
            canonical_set(task, &rules, &r["retrieved_evidence"]),
            canonical_set(task, &rules, &reference.evidence),
            "{id}: evidence in the scorer's identifier kind"
        );
        let sql_calls = r["stages"]["sql"]["calls"].as_u64().expect("sql calls");
        let plan = plan_of(task);
        if plan != Plan::Retrieve {
            assert!(sql_calls >= 2, "{id}: schema + sql traced");
        }
        if plan == Plan::Association {
            assert_eq!(r["stages"]["compute"]["calls"], 1, "{id}: compute traced");
        }
        if plan == Plan::Retrieve {
            assert!(r["stages"]["retrieval"]["calls"].as_u64().expect("calls") >= 2, "{id}: search + open traced");
        }
    }

    // The trace holds every tool call, in the scripted order, without errors.
    let trace = std::fs::read_to_string(run_dir.join("trace.jsonl")).expect("trace");
    let mut traced: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in trace.lines() {
        let e: Value = serde_json::from_str(line).expect("trace line");
        assert!(e.get("error").is_none(), "traced error: {e}");
        if e["event"] == "open_corpus" && e["task_id"].as_str().is_some_and(|id| id.starts_with("finance_")) {
            // Finance predictive tasks state a cutoff; the trace shows it applied.
            let predictive = e["task_id"].as_str().is_some_and(|id| id.contains("_predictive_"));
            assert_eq!(e["detail"]["boundary"]["cutoff"].is_object(), predictive, "cutoff in the trace: {e}");
        }
        if e["event"] == "tool_call" {
            let tool = e["detail"]["tool"].as_str().expect("tool").to_string();
            traced.entry(e["task_id"].as_str().expect("task id").to_string()).or_default().push(tool);
        }
    }
    assert_eq!(traced, expected_tools, "traced tool calls");

    // SQL ran on each task's own route: the id query found exactly the distinct gold ids.
    let mut checked_sql = BTreeSet::new();
    let mut checked_compute = BTreeSet::new();
    let mut checked_binary = BTreeSet::new();
    for r in &requests {
        let messages = r.body["messages"].as_array().cloned().unwrap_or_default();
        let Some(user) = messages.iter().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()) else {
            continue;
        };
        let Some(task) = bench.tasks().iter().find(|t| user.starts_with(&format!("Task:\n{}\n\n", t.query.trim())))
        else {
            continue;
        };
        let reference = bench.reference(&task.id).expect("reference");
        let want = match plan_of(task) {
            Plan::Count if task.group.domain == Domain::Finance && task.group.language == Language::Zh => {
                canonical_set(task, &rules, &reference.evidence).len()
            }
            _ => gold_ids(reference).len(),
        };
        for m in messages.iter().filter(|m| m["role"] == "tool") {
            // Long tool messages (schema, opened records) are cut to the message limit.
            let Ok(v) = serde_json::from_str::<Value>(m["content"].as_str().unwrap_or_default()) else { continue };
            if v.get("stored_as") == Some(&json!("r1")) {
                assert_eq!(v["row_count"], json!(want), "{}: rows of the id query", task.id);
                checked_sql.insert(task.id.clone());
            }
            if let Some(rows) = v["result"]["table"]["rows"].as_array() {
                assert_eq!(rows, &vec![json!([want])], "{}: compute counts the cohort", task.id);
                checked_compute.insert(task.id.clone());
            }
            if v["result"]["kind"] == "binary_association" {
                // The compute tool's statistics reproduce the generator's independently
                // computed gold (option, rates, odds ratio, Fisher p-value).
                assert_eq!(v["result"]["answer"], reference.ground_truth, "{}: compute draft", task.id);
                checked_compute.insert(task.id.clone());
                checked_binary.insert(task.id.clone());
            }
        }
    }

    let sql_tasks: BTreeSet<String> =
        bench.tasks().iter().filter(|t| plan_of(t) != Plan::Retrieve).map(|t| t.id.clone()).collect();
    assert_eq!(checked_sql, sql_tasks, "every SQL plan's id query was checked");
    let association_tasks: BTreeSet<String> =
        bench.tasks().iter().filter(|t| plan_of(t) == Plan::Association).map(|t| t.id.clone()).collect();
    assert_eq!(checked_compute, association_tasks, "every association's compute result was checked");
    let binary_tasks: BTreeSet<String> = association_tasks
        .iter()
        .filter(|id| bench.reference(id).is_some_and(|r| r.ground_truth["value"].get("odds_ratio").is_some()))
        .cloned()
        .collect();
    assert!(!binary_tasks.is_empty());
    assert_eq!(checked_binary, binary_tasks, "every binary association ran through compute");

    // The scorer gives every task the score of the gold itself, and the headline metrics are
    // perfect.
    let options = EvalOptions {
        profile: Profile::Card,
        corpus_root: Some(corpus.clone()),
        judge: JudgeMode::Skip,
        bertscore: None,
    };
    let gold_eval = anser_evaluator::evaluate(
        &ResultsInput::Records { source: "gold".into(), records: gold_records(&bench, bench.tasks()) },
        &bench,
        &options,
    )
    .expect("gold evaluates");
    let evaluation = read_json(&run_dir.join("evaluation.json"));
    let details = metrics_by_id(&evaluation);
    let mut scored_groups = BTreeSet::new();
    for gold in gold_eval.details() {
        let got = details[gold.id.as_str()];
        for (metric, want) in &gold.metrics {
            let Some(want) = want else { continue };
            let value = got[metric.name()].as_f64().unwrap_or_else(|| panic!("{}: {} missing", gold.id, metric.name()));
            assert!((value - want).abs() < 1e-9, "{}: {} = {value}, gold scores {want}", gold.id, metric.name());
            if PERFECT_ONE.contains(metric) {
                assert_eq!(value, 1.0, "{}: {}", gold.id, metric.name());
            }
            if PERFECT_ZERO.contains(metric) {
                assert_eq!(value, 0.0, "{}: {}", gold.id, metric.name());
            }
            if PERFECT_ONE.contains(metric) || PERFECT_ZERO.contains(metric) {
                scored_groups.insert(gold.task_group.clone());
            }
        }
    }
    assert_eq!(scored_groups.len(), 14, "every group has a headline metric at its perfect value: {scored_groups:?}");
}
