//! Our BM25 with FTS5's idf and k1 = 1.2, b = 0.75 over bigram terms must reproduce SQLite
//! FTS5's `rank` (the official sparse baseline's engine) on the same units: same order, same
//! scores. Also hand-computed scores for other k1/b.

use anser_indexer::{Analyzer, Bm25Params, BuildOptions, Idf, Tokens};
use anser_manifest::Route;
use rusqlite::Connection;

use crate::fixtures::{build_and_open, rules_corpus, rules_fixture};

#[test]
fn fts5_parameters_reproduce_sqlite_fts5_rank() {
    let (_tmp, corpus, idx) = rules_fixture();
    let opts = BuildOptions { analyzers: vec![Analyzer::ZhBigram], ..Default::default() };
    let (_, ri) = build_and_open(&idx, &corpus, Route::FinanceZhRules, &opts, None);
    let (bm25, _) = ri.bm25(Some(Analyzer::ZhBigram)).expect("bm25");
    let params = Bm25Params::new(1.2, 0.75, Idf::Fts5).expect("params");

    let conn = Connection::open_in_memory().expect("sqlite");
    conn.execute_batch("CREATE VIRTUAL TABLE u USING fts5(terms, content='', tokenize='unicode61')").expect("fts5");
    let mut tokens = Tokens::new(Analyzer::ZhBigram);
    for unit in ri.store.iter() {
        let unit = unit.expect("unit");
        conn.execute(
            "INSERT INTO u(rowid, terms) VALUES (?1, ?2)",
            (i64::from(unit.ord) + 1, tokens.terms(&unit.text).join(" ")),
        )
        .expect("insert");
    }
    for query in ["业绩预告更正公告的披露", "回购股份 董事会", "权益变动报告书 5%", "亏损"] {
        let terms = bm25.query_terms(query);
        let fts_query = terms.iter().map(|t| format!("\"{t}\"")).collect::<Vec<_>>().join(" OR ");
        let mut stmt = conn.prepare("SELECT rowid, rank FROM u WHERE u MATCH ?1 ORDER BY rank").expect("prepare");
        let expected: Vec<(u32, f64)> = stmt
            .query_map([&fts_query], |r| Ok((r.get::<_, i64>(0)? as u32 - 1, -r.get::<_, f64>(1)?)))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect();
        let ours = bm25.search(query, 100, &params).expect("search");
        assert_eq!(
            ours.iter().map(|h| h.ord).collect::<Vec<_>>(),
            expected.iter().map(|e| e.0).collect::<Vec<_>>(),
            "{query}"
        );
        for (h, (_, s)) in ours.iter().zip(&expected) {
            assert!((h.score - s).abs() < 1e-9, "{query}: {} vs {s}", h.score);
        }
    }
}

#[test]
fn scores_match_hand_computation_for_other_parameters() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    // Three one-line records with known bigram counts (law and item empty are dropped).
    rules_corpus(&corpus, &[("", "", "甲乙 甲乙 丙丁"), ("", "", "甲乙"), ("", "", "戊己 庚辛 壬癸 子丑")]);
    let idx = tmp.path().join("idx");
    let opts = BuildOptions { analyzers: vec![Analyzer::ZhBigram], ..Default::default() };
    let (_, ri) = build_and_open(&idx, &corpus, Route::FinanceZhRules, &opts, None);
    let (bm25, _) = ri.bm25(Some(Analyzer::ZhBigram)).expect("bm25");
    // Lengths 3, 1, 4 → avgdl 8/3.
    assert!((bm25.avgdl() - 8.0 / 3.0).abs() < 1e-12);
    let p = Bm25Params::new(0.9, 0.4, Idf::Lucene).expect("params");
    let hits = bm25.search("甲乙", 10, &p).expect("search");
    // idf = ln(1 + (3 − 2 + 0.5)/(2 + 0.5)) = ln(1.6)
    let idf = 1.6f64.ln();
    let s = |tf: f64, dl: f64| idf * tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * dl / (8.0 / 3.0)));
    assert_eq!(hits.iter().map(|h| h.ord).collect::<Vec<_>>(), vec![0, 1]);
    assert!((hits[0].score - s(2.0, 3.0)).abs() < 1e-12, "{}", hits[0].score);
    assert!((hits[1].score - s(1.0, 1.0)).abs() < 1e-12, "{}", hits[1].score);
}
