//! A task's information boundary is a filter inside every retriever's ranking: BM25 (fast
//! fields), dense exact and HNSW (the per-unit date array) and hybrid fusion of them return only
//! units of records dated inside the boundary, and still the k best of those — not what is left
//! of the unfiltered top k. An unbound search of the same query does return later records, so
//! each check can fail.

use std::{collections::HashMap, path::Path, sync::Arc};

use anser_indexer::{BuildOptions, build_route};
use anser_manifest::{Domain, Language, Manifest, PublicTask, Route, Split, TaskGroup, boundary::Cutoff};
use anser_retriever::{Engine, Error, Retriever, SearchFilter, SpecRetriever};

use crate::fixtures::{RULES, law_corpus, mock_embedder, rules_task};

/// 20 articles published 2020–2024 that match the query strongly, 20 published 2005–2019 that
/// match it weakly, and one undated article that matches it best of all.
fn science_corpus(root: &Path) -> HashMap<String, Option<i32>> {
    let file = root.join(&Manifest::get().route(Route::ScienceArticles).file);
    fs_err::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    let mut lines = Vec::new();
    let mut years = HashMap::new();
    for i in 0..41 {
        let (id, year, text) = match i {
            0..20 => (format!("new{i}"), Some(2020 + i % 5), "metformin glycaemic cohort metformin outcome metformin"),
            20..40 => (format!("old{i}"), Some(2005 + i % 15), "metformin cohort with a different primary outcome"),
            _ => ("undated".to_string(), None, "metformin metformin metformin metformin cohort glycaemic"),
        };
        let mut record = serde_json::json!({
            "ID": id, "title": format!("Study {i}"), "abstract": text,
            "sections": [{"heading": "Methods", "text": format!("Registry analysis number {i}.")}],
        });
        if let Some(y) = year {
            record["year"] = serde_json::Value::from(y.to_string());
        }
        lines.push(record.to_string());
        years.insert(id, year);
    }
    fs_err::write(&file, lines.join("\n") + "\n").expect("write");
    years
}

fn science_task(query: &str) -> PublicTask {
    PublicTask {
        id: "science_predictive_x".into(),
        group: TaskGroup { domain: Domain::Science, language: Language::En, split: Split::Predictive },
        task_type: Some("effect_direction".into()),
        query: query.into(),
        instruction: "Answer with the direction of the effect.".into(),
        route: Route::ScienceArticles,
        source_file: "science/predictive.json".into(),
    }
}

#[test]
fn every_retriever_kind_filters_inside_its_ranking() {
    let (_server, embedder) = mock_embedder();
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    let years = science_corpus(&corpus);
    let idx = tmp.path().join("idx");
    build_route(&idx, &corpus, Route::ScienceArticles, &BuildOptions::default(), Some(embedder.as_ref()))
        .expect("build");
    let engine = Arc::new(Engine::new(&idx, Some(&corpus)).with_embedder(embedder));
    let query = "metformin glycaemic cohort outcome";
    let task = science_task(&format!("Does metformin help?\nPublication period: up to 2019-12-31\n{query}"));

    for spec in ["bm25", "dense", "dense(exact)", "hybrid:bm25+dense@rrf60", "hybrid:bm25+dense(exact)@w0.5,0.5"] {
        let retriever = SpecRetriever::new(engine.clone(), spec.parse().expect("spec"));
        let unbound = retriever.search(Route::ScienceArticles, query, 10).expect("unbound");
        let late = unbound.iter().filter(|h| years[&h.record_id].is_none_or(|y| y > 2019)).count();
        assert!(late > 0, "{spec}: the unfiltered top 10 holds records after the cutoff");

        let bound = retriever.bind(&task).expect("boundary parses");
        assert_eq!(
            bound.boundary().map(|b| &b.cutoff),
            Some(&Cutoff::Dates { from: None, through: "2019-12-31".into() })
        );
        let hits = bound.search(query, 10).expect("bound");
        assert_eq!(hits.len(), 10, "{spec}: the 10 best admitted units, not the admitted rest of the top 10");
        for h in &hits {
            let year = years[&h.record_id];
            assert!(year.is_some_and(|y| y <= 2019), "{spec}: {} ({year:?}) is outside the boundary", h.record_id);
        }
        // Through the trait, a caller's filter can only narrow the boundary.
        let wider = SearchFilter { window: Some(Cutoff::FiscalYear { last: 2030 }.window()), ..SearchFilter::none() };
        for h in Retriever::search_filtered(&bound, Route::ScienceArticles, query, 40, &wider).expect("narrowed") {
            assert!(years[&h.record_id].is_some_and(|y| y <= 2019), "{spec}: {} leaked", h.record_id);
        }
    }

    // BM25 ranks the strong matches first: with the boundary, the old articles come in the
    // unfiltered order of the old articles.
    let bm25 = SpecRetriever::new(engine.clone(), "bm25".parse().expect("spec"));
    let all = bm25.search(Route::ScienceArticles, query, 41).expect("all");
    let old_order: Vec<&str> =
        all.iter().filter(|h| years[&h.record_id].is_some_and(|y| y <= 2019)).map(|h| h.record_id.as_str()).collect();
    let bound: Vec<String> =
        bm25.bind(&task).expect("bind").search(query, 41).expect("bound").into_iter().map(|h| h.record_id).collect();
    assert_eq!(bound, old_order);
}

#[test]
fn undated_routes_and_tasks_without_a_cutoff_are_not_filtered() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    law_corpus(&corpus, Route::FinanceZhRules, RULES);
    let idx = tmp.path().join("idx");
    build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None).expect("build");
    let engine = Arc::new(Engine::new(&idx, Some(&corpus)));
    let retriever = SpecRetriever::new(engine, "bm25".parse().expect("spec"));
    // A cutoff on a route whose records are not dated hides nothing (as the SQL views).
    let bounded = SearchFilter { window: Some(Cutoff::FiscalYear { last: 1990 }.window()), ..SearchFilter::none() };
    let q = "业绩预告 回购股份";
    let plain = retriever.search(Route::FinanceZhRules, q, 5).expect("plain");
    assert!(!plain.is_empty());
    assert_eq!(retriever.search_filtered(Route::FinanceZhRules, q, 5, &bounded).expect("filtered"), plain);
    let bound = retriever.bind(&rules_task()).expect("no cutoff");
    assert!(bound.boundary().is_none());
    assert_eq!(bound.search(q, 5).expect("bound"), plain);
    // An evidence kind the route does not serve admits nothing; its own kind admits all.
    let other = SearchFilter::none().with_evidence_kind("article");
    assert!(retriever.search_filtered(Route::FinanceZhRules, q, 5, &other).expect("other kind").is_empty());
    let own = SearchFilter::none().with_evidence_kind("regulatory_rule");
    assert_eq!(retriever.search_filtered(Route::FinanceZhRules, q, 5, &own).expect("own kind"), plain);
}

#[test]
fn conflicting_cutoffs_refuse_to_bind() {
    let tmp = tempfile::tempdir().expect("tmp");
    let engine = Arc::new(Engine::new(tmp.path(), None));
    let retriever = SpecRetriever::new(engine, "bm25".parse().expect("spec"));
    let task = science_task("Publication period: up to 2019-12-31\nUse only information available by 2021-01-01.");
    let err = retriever.bind(&task).expect_err("two cutoffs");
    assert!(matches!(err, Error::Boundary(_)) && err.is_user_error(), "{err}");
    assert!(err.to_string().contains("ambiguous information cutoff"), "{err}");
}
