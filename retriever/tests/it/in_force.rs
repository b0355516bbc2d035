//! `/in_force` over BM25 admits only the rules in force *inside* the ranking: superseded
//! revisions that match the query better never take a rank, however many there are (a filter
//! after ranking at a fixed depth returns nothing once more than that depth of superseded rules
//! outranks the rule in force).

use std::sync::Arc;

use anser_indexer::{BuildOptions, build_route};
use anser_manifest::Route;
use anser_retriever::{Engine, Retriever, SpecRetriever};

use crate::fixtures::{law_corpus, mock_embedder};

#[test]
fn in_force_filters_inside_the_bm25_ranking() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    let old = "上海证券交易所股票上市规则（2024年4月修订）";
    let new = "上海证券交易所股票上市规则（2026年4月修订）";
    // 300 superseded articles that say "回购股份" three times, then the one in force saying it once.
    let strong = "回购股份 回购股份 回购股份 应当经董事会审议。";
    let items: Vec<String> = (0..=300).map(|i| format!("{i}条")).collect();
    let mut rows: Vec<(&str, &str, &str)> = items[..300].iter().map(|it| (old, it.as_str(), strong)).collect();
    rows.push((new, &items[300], "上市公司回购股份的，应当披露回购方案。"));
    law_corpus(&corpus, Route::FinanceZhRules, &rows);
    let idx = tmp.path().join("idx");
    build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None).expect("build");
    let engine = Arc::new(Engine::new(&idx, Some(&corpus)));

    let plain = SpecRetriever::new(engine.clone(), "bm25".parse().expect("spec"));
    let hits = plain.search(Route::FinanceZhRules, "回购股份", 3).expect("search");
    assert!(hits.iter().all(|h| h.record_id != "301"), "unfiltered, superseded rules rank first");

    let in_force = SpecRetriever::new(engine, "bm25/in_force".parse().expect("spec"));
    let hits = in_force.search(Route::FinanceZhRules, "回购股份", 3).expect("search");
    let ids: Vec<&str> = hits.iter().map(|h| h.record_id.as_str()).collect();
    assert_eq!(ids, vec!["301"], "only the revision in force (no year in the query: the latest)");
    let hits = in_force.search(Route::FinanceZhRules, "2025年 回购股份", 3).expect("search");
    assert_eq!(hits.len(), 3, "in 2025 the 2024 revision is in force");
    assert!(hits.iter().all(|h| h.record_id != "301"));
}

/// Dense and hybrid rankings admit only the rules in force inside their searches too (HNSW
/// `search_filter` or the exact scan, and every hybrid part): with 300 superseded articles, a
/// filter applied after ranking 100 deep loses the rules in force that rank below them.
#[test]
fn in_force_filters_inside_dense_and_hybrid_rankings() {
    let (_server, embedder) = mock_embedder();
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    let old = "上海证券交易所股票上市规则（2024年4月修订）";
    let new = "上海证券交易所股票上市规则（2026年4月修订）";
    let items: Vec<String> = (0..303).map(|i| format!("{i}条")).collect();
    let texts: Vec<String> = (0..303).map(|i| format!("回购股份 回购股份 应当经董事会审议（第{i}款）。")).collect();
    let rows: Vec<(&str, &str, &str)> =
        (0..303).map(|i| (if i < 300 { old } else { new }, items[i].as_str(), texts[i].as_str())).collect();
    law_corpus(&corpus, Route::FinanceZhRules, &rows);
    let idx = tmp.path().join("idx");
    build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), Some(embedder.as_ref()))
        .expect("build");
    let engine = Arc::new(Engine::new(&idx, Some(&corpus)).with_embedder(embedder));
    let in_force = ["301", "302", "303"];
    for spec in ["dense/in_force", "dense(exact)/in_force", "hybrid:bm25+dense@rrf60/in_force"] {
        let retriever = SpecRetriever::new(engine.clone(), spec.parse().expect("spec"));
        let hits = retriever.search(Route::FinanceZhRules, "上市公司回购股份", 3).expect("search");
        let mut ids: Vec<&str> = hits.iter().map(|h| h.record_id.as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, in_force, "{spec}: the three rules in force, whatever their unfiltered rank");
    }
}
