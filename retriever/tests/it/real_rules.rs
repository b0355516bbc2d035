//! Recall@5 and R-Precision (evaluator spec §5.3, rule identities §5.2 B.1) on the complete real
//! corpus `finance/zh/regulatory_rules.jsonl` and the 100 real finance_zh_prescriptive tasks,
//! query = query + "\n" + instruction, top 10, as the official sparse baseline (which scores
//! Recall@5 0.140, R-Precision 0.117), and with the query alone plus the `/in_force` filter. The
//! BM25 numbers are pinned; dense and hybrid are measured when ORT_DYLIB_PATH is set. Skips
//! without ../shared. Gold is read only here, to score.

use std::{collections::HashSet, sync::Arc};

use anser_gold::Benchmark;
use anser_indexer::{BuildOptions, OnnxEmbedder, build_route};
use anser_manifest::{Manifest, Route};
use anser_retriever::{Engine, Retriever, SpecRetriever, evidence_list};
use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

fn text(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    s.nfkc().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The scorer's rule identity of `{"law"|"law_name": …, "item": …}`.
fn identity(v: &Value) -> String {
    let law = v.get("law").or_else(|| v.get("law_name")).map(text).unwrap_or_default();
    let item = v.get("item").map(text).unwrap_or_default();
    serde_json::json!({"item": item, "law": law}).to_string()
}

/// Mean (Recall@5, R-Precision) of `spec` over the tasks; `spec` ending in ` [query]` searches
/// with the query alone, otherwise with query + "\n" + instruction.
fn measure(engine: &Arc<Engine>, bench: &Benchmark, spec: &str) -> (f64, f64) {
    let (spec, query_only) = match spec.strip_suffix(" [query]") {
        Some(s) => (s, true),
        None => (spec, false),
    };
    let retriever = SpecRetriever::new(engine.clone(), spec.parse().expect("spec"));
    let kind = Manifest::get().evidence_kind("regulatory_rule").expect("kind");
    let tasks: Vec<_> = bench.tasks().iter().filter(|t| t.group.to_string() == "finance_zh_prescriptive").collect();
    assert_eq!(tasks.len(), 100);
    let (mut r5, mut rp) = (0.0, 0.0);
    for task in &tasks {
        let query = if query_only { task.query.clone() } else { format!("{}\n{}", task.query, task.instruction) };
        let hits = retriever.bind(task).expect("bind").search(&query, 10).expect("search");
        let mut seen = HashSet::new();
        let pred: Vec<String> =
            evidence_list(&hits, kind).iter().map(identity).filter(|p| seen.insert(p.clone())).collect();
        let gold: HashSet<String> = bench
            .reference(&task.id)
            .and_then(|r| r.evidence.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(identity)
            .collect();
        let g = gold.len();
        if g == 0 {
            continue;
        }
        let hits_in = |n: usize| pred.iter().take(n).filter(|p| gold.contains(*p)).count() as f64;
        r5 += hits_in(5) / g as f64;
        rp += hits_in(g) / g as f64;
    }
    (r5 / tasks.len() as f64, rp / tasks.len() as f64)
}

#[test]
fn finance_zh_rules_real_numbers() {
    let Some(shared) = anser_manifest::shared_dir_or_skip("real finance_zh_rules retrieval") else { return };
    let corpus = shared.join("anser/corpus");
    let bench = Benchmark::load(&shared.join("anser/query")).expect("tasks");
    let tmp = tempfile::tempdir().expect("tmp");
    let with_dense = anser_encoder::ort_library_path(None).is_some();
    let embedder = with_dense.then(|| OnnxEmbedder::open(&shared.join("models/m3e-small"), 2).expect("m3e"));
    build_route(
        tmp.path(),
        &corpus,
        Route::FinanceZhRules,
        &BuildOptions::default(),
        embedder.as_ref().map(|e| e as _),
    )
    .expect("build");
    let engine = Arc::new(Engine::new(tmp.path(), Some(&corpus)));

    let mut specs = vec!["bm25:zh_bigram", "bm25:zh_jieba", "bm25:zh_jieba [query]", "bm25:zh_jieba/in_force [query]"];
    if with_dense {
        specs.extend([
            "dense",
            "hybrid:bm25:zh_jieba+dense@rrf60",
            "hybrid:bm25:zh_bigram+dense@rrf60",
            "hybrid:bm25:zh_jieba+dense@rrf60 [query]",
            "hybrid:bm25:zh_jieba+dense@rrf60/in_force [query]",
        ]);
    } else {
        anser_manifest::missing_prerequisite(
            "real-rules dense/hybrid",
            "ORT_DYLIB_PATH is not set (run scripts/fetch-ort.sh)",
        );
    }
    let extra_specs = std::env::var("ANSER_EXTRA_SPECS").unwrap_or_default();
    for extra in extra_specs.split(';').filter(|s| !s.is_empty()) {
        specs.push(extra);
    }
    // Pinned (3 decimals). Dense numbers may move slightly with another ONNX Runtime build,
    // so they get a tolerance.
    let pins: &[(&str, f64, f64, f64)] = &[
        ("bm25:zh_bigram", 0.141, 0.114, 0.0005),
        ("bm25:zh_jieba", 0.159, 0.135, 0.0005),
        ("bm25:zh_jieba [query]", 0.188, 0.134, 0.0005),
        ("bm25:zh_jieba/in_force [query]", 0.212, 0.148, 0.0005),
        ("hybrid:bm25:zh_jieba+dense@rrf60/in_force [query]", 0.314, 0.255, 0.01),
        ("dense", 0.179, 0.137, 0.01),
        ("hybrid:bm25:zh_jieba+dense@rrf60", 0.188, 0.173, 0.01),
    ];
    for spec in &specs {
        let (r5, rp) = measure(&engine, &bench, spec);
        eprintln!("{spec:<45} Recall@5 {r5:.3}  R-Precision {rp:.3}");
        if let Some((_, want_r5, want_rp, tol)) = pins.iter().find(|p| p.0 == *spec) {
            assert!((r5 - want_r5).abs() <= *tol && (rp - want_rp).abs() <= *tol, "{spec}: {r5:.4} / {rp:.4}");
        }
    }
}
