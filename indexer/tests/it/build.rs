//! Building, reopening, staleness, exclusion of ground-truth rows, evidence identifiers.

use anser_indexer::{Analyzer, BuildOptions, Chunking, Error, RouteIndex, build_route};
use anser_manifest::Route;
use rusqlite::params;

use crate::fixtures::{RULES, rules_corpus, sqlite_corpus};

fn top_record(ri: &RouteIndex, analyzer: Analyzer, query: &str) -> Option<String> {
    let (bm25, params) = ri.bm25(Some(analyzer)).expect("bm25");
    let hits = bm25.search(query, 3, &params).expect("search");
    hits.first().map(|h| ri.store.get(h.ord).expect("unit").record_id)
}

#[test]
fn rules_index_build_search_and_reopen() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    rules_corpus(&corpus, RULES);
    let idx = tmp.path().join("idx");
    let report = build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None).expect("build");
    assert_eq!((report.action, report.records, report.units, report.excluded), ("built", 5, 5, 0));

    let ri = RouteIndex::open(&idx, Route::FinanceZhRules, None).expect("open");
    assert_eq!(
        ri.fingerprint.bm25.iter().map(|p| p.analyzer).collect::<Vec<_>>(),
        vec![Analyzer::ZhJieba, Analyzer::ZhBigram]
    );
    for a in [Analyzer::ZhJieba, Analyzer::ZhBigram] {
        assert_eq!(top_record(&ri, a, "回购股份的方案需要董事会审议吗").as_deref(), Some("4"), "{a}");
        assert_eq!(top_record(&ri, a, "权益变动报告书").as_deref(), Some("5"), "{a}");
    }
    let unit = ri.store.get(1).expect("unit");
    assert_eq!(unit.retrieval_id(), "2:0");
    assert_eq!(unit.text, "上市公司信息披露办法\n4条\n业绩预告披露后发现差异较大的，应当及时披露业绩预告更正公告。");
    assert_eq!(
        serde_json::to_string(&unit.evidence["regulatory_rule"]).expect("json"),
        r#"{"item":"4条","law":"上市公司信息披露办法"}"#
    );
    // Same request again: nothing to do.
    let again = build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None).expect("again");
    assert_eq!(again.action, "up_to_date");
}

#[test]
fn stale_and_mismatched_indexes_are_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    let file = rules_corpus(&corpus, RULES);
    let idx = tmp.path().join("idx");
    build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None).expect("build");

    // Other chunking requested: mismatch until --rebuild.
    let other = BuildOptions { chunking: Chunking::new(20, 5).expect("chunking"), ..Default::default() };
    let err = build_route(&idx, &corpus, Route::FinanceZhRules, &other, None).expect_err("mismatch");
    assert!(matches!(err, Error::Stale { .. }), "{err}");
    assert!(err.to_string().contains("chunking") && err.to_string().contains("--rebuild"), "{err}");

    // The corpus changes: opening is an error naming the file.
    rules_corpus(&corpus, &RULES[..3]);
    let err = RouteIndex::open(&idx, Route::FinanceZhRules, None).expect_err("stale");
    assert!(err.is_user_error());
    assert!(err.to_string().contains(&*file.file_name().expect("name").to_string_lossy()), "{err}");

    // --rebuild replaces it; small windows make several units per rule.
    let rebuild = BuildOptions { rebuild: true, ..other };
    let report = build_route(&idx, &corpus, Route::FinanceZhRules, &rebuild, None).expect("rebuild");
    assert_eq!(report.action, "rebuilt");
    assert_eq!(report.records, 3);
    assert!(report.units > 3, "{report:?}");
    RouteIndex::open(&idx, Route::FinanceZhRules, None).expect("fresh again");
    // Missing index: a user error.
    let err = RouteIndex::open(&idx, Route::LegalZhStatutes, None).expect_err("missing");
    assert!(err.is_user_error() && err.to_string().contains("anser index"), "{err}");
}

#[test]
fn ground_truth_report_rows_are_never_indexed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    let (_, conn) = sqlite_corpus(&corpus, Route::FinanceZhReports);
    for (id, split) in [("600001_2024-12-31_annual", "public"), ("600002_2024-12-31_annual", "ground_truth")] {
        conn.execute(
            "INSERT INTO reports (report_id, stock_code, company_name, split) VALUES (?1, ?2, '示例公司', ?3)",
            params![id, &id[..6], split],
        )
        .expect("insert report");
    }
    let chunks = [
        ("c1", "600001_2024-12-31_annual", "公司主营业务为新能源电池材料的研发与销售。"),
        ("c2", "600002_2024-12-31_annual", "独有句子：本公司年度净利润为蓝鲸星云数值。"),
    ];
    for (cid, rid, text) in chunks {
        conn.execute(
            "INSERT INTO report_chunks (chunk_id, report_id, stock_code, company_name, report_period, section_title, chunk_text) VALUES (?1, ?2, ?3, '示例公司', '2024年报', '经营情况', ?4)",
            params![cid, rid, &rid[..6], text],
        )
        .expect("insert chunk");
    }
    drop(conn);
    let idx = tmp.path().join("idx");
    let report = build_route(&idx, &corpus, Route::FinanceZhReports, &BuildOptions::default(), None).expect("build");
    assert_eq!((report.records, report.units, report.excluded), (1, 1, 1));
    let ri = RouteIndex::open(&idx, Route::FinanceZhReports, None).expect("open");
    for a in [Analyzer::ZhJieba, Analyzer::ZhBigram] {
        let (bm25, params) = ri.bm25(Some(a)).expect("bm25");
        assert!(bm25.search("蓝鲸星云数值", 10, &params).expect("search").is_empty(), "{a}");
        assert_eq!(bm25.search("新能源电池材料", 10, &params).expect("search").len(), 1, "{a}");
    }
    let unit = ri.store.get(0).expect("unit");
    assert_eq!(unit.evidence["financial_report_zh"], serde_json::json!("600001_2024-12-31_annual"));
    assert_eq!(unit.evidence["company_stock_code"], serde_json::json!("600001"));
}

#[test]
fn cluster_ids_are_looked_up_for_english_case_documents() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    let (_, conn) = sqlite_corpus(&corpus, Route::LegalEnCases);
    conn.execute("INSERT INTO case_record (case_id, cluster_id) VALUES ('case-1', 'cluster_42')", []).expect("case");
    conn.execute(
        "INSERT INTO search_document (document_id, case_id, section_type, chunk_text) VALUES ('d1', 'case-1', 'opinion', 'The tenant withheld rent after repeated flooding.')",
        [],
    )
    .expect("doc");
    drop(conn);
    let idx = tmp.path().join("idx");
    build_route(&idx, &corpus, Route::LegalEnCases, &BuildOptions::default(), None).expect("build");
    let ri = RouteIndex::open(&idx, Route::LegalEnCases, None).expect("open");
    let (bm25, params) = ri.bm25(None).expect("bm25");
    assert_eq!(bm25.analyzer(), Analyzer::EnStem);
    let hits = bm25.search("floods and withholding rent", 5, &params).expect("search");
    assert_eq!(hits.len(), 1, "stemming matches floods/flooding and withholding/withheld partly");
    let unit = ri.store.get(hits[0].ord).expect("unit");
    assert_eq!(unit.record_id, "case-1");
    assert_eq!(unit.evidence["cluster_id"], serde_json::json!("cluster_42"));
}
