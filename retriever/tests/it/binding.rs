//! A retriever bound to a task searches only that task's route; hybrid fusion; `none`.

use std::sync::Arc;

use anser_indexer::{ApiEmbedder, BuildOptions, build_route};
use anser_manifest::{Manifest, Route};
use anser_retriever::{Engine, Error, Retriever, SpecRetriever, evidence_list};

use crate::fixtures::{RULES, STATUTES, law_corpus, mock_embedder, rules_task};

fn two_route_index(tmp: &std::path::Path, embedder: Option<&ApiEmbedder>) -> (std::path::PathBuf, std::path::PathBuf) {
    let corpus = tmp.join("corpus");
    law_corpus(&corpus, Route::FinanceZhRules, RULES);
    law_corpus(&corpus, Route::LegalZhStatutes, STATUTES);
    let idx = tmp.join("idx");
    for route in [Route::FinanceZhRules, Route::LegalZhStatutes] {
        let e = embedder.map(|e| e as &dyn anser_indexer::Embedder);
        build_route(&idx, &corpus, route, &BuildOptions::default(), e).expect("build");
    }
    (corpus, idx)
}

#[test]
fn a_bound_retriever_only_searches_its_tasks_route() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (corpus, idx) = two_route_index(tmp.path(), None);
    let engine = Arc::new(Engine::new(&idx, Some(&corpus)));
    let retriever = SpecRetriever::new(engine, "bm25".parse().expect("spec"));
    // Unbound, both routes answer the query (both corpora mention 回购股份 and 董事会).
    assert!(!retriever.search(Route::LegalZhStatutes, "回购股份 董事会", 5).expect("statutes").is_empty());

    let task = rules_task();
    let bound = retriever.bind(&task).expect("no boundary to misread");
    assert_eq!(bound.route(), Route::FinanceZhRules);
    let hits = bound.search("回购股份 董事会", 5).expect("search");
    assert_eq!(hits[0].record_id, "3");
    assert!(hits.iter().all(|h| h.evidence.contains_key("regulatory_rule")), "only rules-route units");
    // Through the trait, another route is refused.
    let err = Retriever::search(&bound, Route::LegalZhStatutes, "回购股份", 5).expect_err("other route");
    assert!(matches!(err, Error::WrongRoute { bound: Route::FinanceZhRules, asked: Route::LegalZhStatutes }), "{err}");

    let kind = Manifest::get().evidence_kind("regulatory_rule").expect("kind");
    let ev = evidence_list(&hits, kind);
    assert_eq!(serde_json::to_string(&ev[0]).expect("json"), r#"{"item":"7.2条","law":"证券交易所股票上市规则"}"#);
}

#[test]
fn hybrid_fuses_bm25_and_dense_and_none_retrieves_nothing() {
    let (_server, embedder) = mock_embedder();
    let tmp = tempfile::tempdir().expect("tmp");
    let (corpus, idx) = two_route_index(tmp.path(), Some(&embedder));
    let engine = Arc::new(Engine::new(&idx, Some(&corpus)).with_embedder(embedder));

    let bm25 = SpecRetriever::new(engine.clone(), "bm25:bigram".parse().expect("spec"));
    let dense = SpecRetriever::new(engine.clone(), "dense(exact)".parse().expect("spec"));
    let hybrid = SpecRetriever::new(engine.clone(), "hybrid:bm25:bigram+dense(exact)@rrf60".parse().expect("spec"));
    let q = "业绩预告更正公告";
    let b = bm25.search(Route::FinanceZhRules, q, 3).expect("bm25");
    let d = dense.search(Route::FinanceZhRules, q, 3).expect("dense");
    let h = hybrid.search(Route::FinanceZhRules, q, 3).expect("hybrid");
    assert_eq!(d.len(), 3);
    // RRF by hand over the two lists.
    let mut expected: Vec<(u32, f64)> = (0..3u32)
        .map(|ord| {
            let r = |list: &[anser_retriever::Hit]| {
                list.iter().position(|x| x.ord == ord).map_or(0.0, |p| 1.0 / (61.0 + p as f64))
            };
            (ord, r(&b) + r(&d))
        })
        .collect();
    expected.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    assert_eq!(h.iter().map(|x| x.ord).collect::<Vec<_>>(), expected.iter().map(|x| x.0).collect::<Vec<_>>());
    assert!((h[0].score - expected[0].1).abs() < 1e-12);
    assert_eq!(h.iter().map(|x| x.rank).collect::<Vec<_>>(), vec![1, 2, 3]);

    let none = SpecRetriever::new(engine, "none".parse().expect("spec"));
    assert!(none.search(Route::FinanceZhRules, q, 10).expect("none").is_empty());
}

#[test]
fn dense_without_embeddings_is_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (corpus, idx) = two_route_index(tmp.path(), None);
    let retriever = SpecRetriever::new(Arc::new(Engine::new(&idx, Some(&corpus))), "dense".parse().expect("spec"));
    let err = retriever.search(Route::FinanceZhRules, "回购", 3).expect_err("no vectors");
    assert!(err.is_user_error() && err.to_string().contains("--embedding-model"), "{err}");
}
