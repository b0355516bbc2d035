//! Every `anser run` method over every task group of the generated sample, against the loopback
//! mock LLM, with BM25 and dense indexes whose vectors come from the mock's `/v1/embeddings`
//! (the API embedder, so no ONNX model is needed). Each run must finish, answer every selected
//! task exactly once in the official format, give evidence in the identifier kind the scorer
//! expects for the task's route, and be scorable by `anser eval`. Vanilla's resume, faults and
//! leakage are covered by `run.rs`; the agent's tool loop by `agent.rs`.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
    time::Instant,
};

use anser_gold::Benchmark;
use anser_manifest::{EvidenceKind, EvidenceShape, Manifest, PublicTask};
use serde_json::Value;

use crate::common::{IndexedSample, anser_env, stderr, stdout};

/// The official fields of a results record (issue 6).
const OFFICIAL_FIELDS: [&str; 9] = [
    "id",
    "answer",
    "retrieved_evidence",
    "latency",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "generation_status",
    "errors",
];

/// Method, the retriever spec its metadata must record (`None`: no retrieval), and whether it
/// calls the LLM.
const METHODS: [(&str, Option<&str>, bool); 7] = [
    ("vanilla", None, true),
    ("sparse", Some("bm25"), true),
    ("dense", Some("dense"), true),
    ("hybrid", Some("hybrid:bm25+dense@rrf60"), true),
    ("retrieval", Some("bm25"), false),
    ("agent", Some("bm25"), true),
    ("offline", Some("bm25"), false),
];

/// Methods whose evidence comes from the retriever (every task must get some).
const RETRIEVING: [&str; 5] = ["sparse", "dense", "hybrid", "retrieval", "offline"];

/// Evidence metrics of the scorer; a positive mean means it matched the gold identifiers.
const EVIDENCE_METRICS: [&str; 8] =
    ["Recall@5", "Precision@5", "MRR", "R-Precision", "Set Recall", "Set Precision", "Set F1", "NDCG@5"];

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Why `item` is not an identifier of the kind the scorer expects for `task`, if it is not.
/// A Chinese company population also accepts report ids: the scorer reduces them to their stock
/// code (and the reference uses them).
fn kind_mismatch(task: &PublicTask, item: &Value) -> Option<String> {
    let manifest = Manifest::get();
    let kind = match manifest.resolve(&task.id, task.group, task.task_type.as_deref()) {
        Ok(r) => r.evidence,
        Err(e) => return Some(e.to_string()),
    };
    let mut accepted = vec![kind];
    if kind.name == "company_stock_code" {
        accepted.extend(manifest.evidence_kind("financial_report_zh"));
    }
    let identifier = |v: Option<&Value>| match v {
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Number(n)) => n.is_u64(),
        _ => false,
    };
    let is_kind = |k: &EvidenceKind| match k.shape {
        EvidenceShape::Bare => identifier(Some(item)),
        EvidenceShape::Object => {
            identifier(item.get(k.key.as_deref().unwrap_or_default()))
                && item.get("type").and_then(Value::as_str) == k.type_label.as_deref()
        }
        EvidenceShape::LawItem => identifier(item.get("law")) && identifier(item.get("item")),
    };
    (!accepted.into_iter().any(is_kind))
        .then(|| format!("{}: {item} is not a {} ({})", task.id, kind.name, kind.description))
}

#[test]
fn every_method_answers_every_group_in_the_scorers_identifiers() {
    let fixture = IndexedSample::get();
    let env = fixture.env();
    let bench = Benchmark::load(&fixture.query).expect("sample loads");
    let tasks: BTreeMap<&str, &PublicTask> = bench.tasks().iter().map(|t| (t.id.as_str(), t)).collect();
    let groups: BTreeSet<String> = tasks.values().map(|t| t.group.name()).collect();
    assert_eq!(groups.len(), 14, "the sample covers every group");

    // The checker agrees with the reference: every gold evidence item is of the expected kind.
    for task in tasks.values() {
        let gold = &bench.reference(&task.id).expect("reference").evidence;
        for item in gold.as_array().into_iter().flatten() {
            assert_eq!(kind_mismatch(task, item), None, "gold evidence");
        }
    }

    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().to_str().expect("utf8");
    let mut evidence_by_method: BTreeMap<&str, BTreeMap<String, Value>> = BTreeMap::new();
    let mut timings = Vec::new();
    for (method, retriever, calls_llm) in METHODS {
        let started = Instant::now();
        let base_url = fixture.mock.base_url();
        let args = fixture.run_args(method, method, out).chat(&base_url).args(&["--concurrency", "4"]);
        let o = anser_env(&args.strs(), &env);
        assert!(o.status.success(), "anser run --method {method}: {}", stderr(&o));
        let run_dir = tmp.path().join(method);

        // Every selected task exactly once, with the official fields.
        let results = read_json(&run_dir.join("results.json"));
        let results = results.as_array().expect("results array");
        let mut seen = BTreeSet::new();
        for r in results {
            for field in OFFICIAL_FIELDS {
                assert!(r.get(field).is_some(), "{method}: {field} missing in {r}");
            }
            let id = r["id"].as_str().expect("string id");
            assert!(seen.insert(id.to_string()), "{method}: {id} twice");
            let task = tasks.get(id).unwrap_or_else(|| panic!("{method}: {id} was not selected"));
            assert_eq!(r["method"], method);
            assert!(r["latency"].as_f64().expect("latency") >= 0.0);
            let status = r["generation_status"].as_str().expect("status");
            if calls_llm {
                assert!(matches!(status, "ok" | "unparseable"), "{method}: {id} failed against the mock: {r}");
                assert!(r["total_tokens"].as_u64().expect("tokens counted") > 0, "{method}: {r}");
            } else if method == "retrieval" {
                assert_eq!((status, &r["answer"]), ("dry_run", &Value::from("")), "{method}: {r}");
            }
            let evidence = r["retrieved_evidence"].as_array().expect("evidence array");
            for item in evidence {
                assert_eq!(kind_mismatch(task, item), None, "{method}");
            }
            if method == "vanilla" {
                assert!(evidence.is_empty(), "vanilla retrieves nothing: {r}");
            }
            if RETRIEVING.contains(&method) {
                assert!(!evidence.is_empty(), "{method}: no evidence for {id}");
            }
            evidence_by_method.entry(method).or_default().insert(id.to_string(), r["retrieved_evidence"].clone());
        }
        assert_eq!(seen.len(), tasks.len(), "{method}: every selected task answered");

        let metadata = read_json(&run_dir.join("metadata.json"));
        assert_eq!(metadata["settings"]["method"], method);
        assert_eq!(metadata["settings"].get("retriever").and_then(Value::as_str), retriever, "{method}");

        // The run's own evaluation scored every task...
        let evaluation = read_json(&run_dir.join("evaluation.json"));
        let evaluated: u64 = evaluation["files"]
            .as_array()
            .expect("files")
            .iter()
            .map(|f| f["evaluated_records"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(evaluated, tasks.len() as u64, "{method}: evaluation.json");

        // ... and so does `anser eval` on results.json.
        let scored = tmp.path().join(format!("{method}.evaluation.json"));
        let o = anser_env(
            &[
                "eval",
                run_dir.join("results.json").to_str().expect("utf8"),
                "--benchmark-dir",
                fixture.benchmark_dir(),
                "--corpus-root",
                fixture.corpus_root(),
                "--skip-llm-judge",
                "--no-judge-cache",
                "--output",
                scored.to_str().expect("utf8"),
                "--format",
                "json",
            ],
            &env,
        );
        assert!(o.status.success(), "anser eval ({method}): {}", stderr(&o));
        assert!(scored.is_file());
        let summary: Value = serde_json::from_str(&stdout(&o)).expect("eval json");
        let by_group = summary["groups"].as_object().expect("groups");
        assert_eq!(by_group.keys().cloned().collect::<BTreeSet<_>>(), groups, "{method}");
        let counted: u64 = by_group.values().map(|g| g["count"].as_u64().unwrap_or(0)).sum();
        assert_eq!(counted, tasks.len() as u64, "{method}: eval counts every task");
        if retriever.is_some_and(|r| r == "bm25") && method != "agent" {
            // BM25 evidence in the right identifier kind matches gold in every group.
            for (group, g) in by_group {
                let best = EVIDENCE_METRICS
                    .iter()
                    .filter_map(|m| g["metrics"].get(*m).and_then(|v| v["mean"].as_f64()))
                    .fold(0.0, f64::max);
                assert!(best > 0.0, "{method}: no evidence metric above 0 in {group}: {g}");
            }
        }
        timings.push(format!("{method} {:.1} s", started.elapsed().as_secs_f64()));
    }

    // Dense retrieval really used the embeddings: its evidence differs from BM25's.
    let differing = evidence_by_method["dense"]
        .iter()
        .filter(|(id, ev)| evidence_by_method["retrieval"].get(*id) != Some(*ev))
        .count();
    assert!(differing > tasks.len() / 2, "dense and bm25 evidence differ for only {differing} tasks");
    eprintln!("index {:.1} s; runs (with eval): {}", fixture.build_seconds, timings.join(", "));
}
