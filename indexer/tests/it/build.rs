//! Building, reopening, staleness, exclusion of ground-truth rows, evidence identifiers.

use anser_indexer::{Analyzer, BuildOptions, Chunking, Error, RouteIndex, build_route};
use anser_manifest::Route;
use rusqlite::params;

use crate::fixtures::{RULES, build_and_open, rules_corpus, rules_fixture, sqlite_fixture};

fn top_record(ri: &RouteIndex, analyzer: Analyzer, query: &str) -> Option<String> {
    let (bm25, params) = ri.bm25(Some(analyzer)).expect("bm25");
    let hits = bm25.search(query, 3, &params).expect("search");
    hits.first().map(|h| ri.store.get(h.ord).expect("unit").record_id)
}

#[test]
fn rules_index_build_search_and_reopen() {
    let (_tmp, corpus, idx) = rules_fixture();
    let (report, ri) = build_and_open(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None);
    assert_eq!((report.action, report.records, report.units, report.excluded), ("built", 5, 5, 0));

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
    let (_tmp, corpus, idx, conn) = sqlite_fixture(Route::FinanceZhReports);
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
    let (report, ri) = build_and_open(&idx, &corpus, Route::FinanceZhReports, &BuildOptions::default(), None);
    assert_eq!((report.records, report.units, report.excluded), (1, 1, 1));
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
    let (_tmp, corpus, idx, conn) = sqlite_fixture(Route::LegalEnCases);
    conn.execute("INSERT INTO case_record (case_id, cluster_id) VALUES ('case-1', 'cluster_42')", []).expect("case");
    conn.execute(
        "INSERT INTO search_document (document_id, case_id, section_type, chunk_text) VALUES ('d1', 'case-1', 'opinion', 'The tenant withheld rent after repeated flooding.')",
        [],
    )
    .expect("doc");
    drop(conn);
    let (_, ri) = build_and_open(&idx, &corpus, Route::LegalEnCases, &BuildOptions::default(), None);
    let (bm25, params) = ri.bm25(None).expect("bm25");
    assert_eq!(bm25.analyzer(), Analyzer::EnStem);
    let hits = bm25.search("floods and withholding rent", 5, &params).expect("search");
    assert_eq!(hits.len(), 1, "stemming matches floods/flooding and withholding/withheld partly");
    let unit = ri.store.get(hits[0].ord).expect("unit");
    assert_eq!(unit.record_id, "case-1");
    assert_eq!(unit.evidence["cluster_id"], serde_json::json!("cluster_42"));
}

#[test]
fn units_carry_record_dates_into_bm25_and_bm25_filters_inside_the_scorer() {
    use anser_indexer::UnitFilter;
    use anser_manifest::boundary::{Cutoff, RecordDate};

    let (_tmp, corpus, idx, conn) = sqlite_fixture(Route::FinanceEnReports);
    // Filings of fiscal years 2018–2023 (one undated); the later the filing, the more often its
    // section says "liquidity", so an unfiltered top 3 holds only late filings.
    for (i, fy) in [Some(2018), Some(2019), Some(2020), Some(2021), Some(2022), Some(2023), None].iter().enumerate() {
        let acc = format!("0000000001-{i:02}-000001");
        let filed = fy.map_or("n.d.".to_string(), |y| format!("{}-02-1{i}", y + 1));
        conn.execute(
            "INSERT INTO filings (accession, cik, company_name, form, filing_date, fiscal_year, split, primary_document, filing_url, quality_score, downloaded_at) \
             VALUES (?1, 1, 'Acme', '10-K', ?2, ?3, 'retrieval', 'a.htm', 'u', 1.0, 'now')",
            params![acc, filed, fy],
        )
        .expect("filing");
        let text = format!("Item 7 {} discussion", "liquidity ".repeat(i + 1));
        conn.execute(
            "INSERT INTO sections (accession, section_name, section_order, text) VALUES (?1, 'Item 7', 1, ?2)",
            params![acc, text],
        )
        .expect("section");
    }
    drop(conn);
    let (_, ri) = build_and_open(&idx, &corpus, Route::FinanceEnReports, &BuildOptions::default(), None);
    assert!(ri.fingerprint.dated.is_some());
    let (bm25, params) = ri.bm25(None).expect("bm25");
    // The stored dates are the manifest's (fiscal year, filing date), in the store, the
    // attribute array and the BM25 statistics alike.
    let stored = bm25.unit_attrs().expect("BM25 attributes");
    assert_eq!(stored.len(), 7);
    for (ord, attrs) in &stored {
        let unit = ri.store.get(*ord).expect("unit");
        assert_eq!(attrs.date, unit.date, "unit {ord}");
        assert_eq!(ri.unit_attrs(*ord), Some(attrs));
    }
    let unit = ri.store.get(2).expect("unit");
    assert_eq!(unit.date, RecordDate { year: Some(2020), days: Some((20210212, 20210212)) });
    assert_eq!(ri.store.get(6).expect("unit").date, RecordDate::default(), "undated");

    let year = |ord: u32| ri.store.get(ord).expect("unit").date.year;
    let unfiltered = bm25.search("liquidity", 3, &params).expect("search");
    assert!(unfiltered.iter().all(|h| year(h.ord).is_none_or(|y| y > 2020)), "late filings rank first");
    let filter = ri.unit_filter(Some(Cutoff::FiscalYear { last: 2020 }.window()), &[]);
    let hits = bm25.search_filtered("liquidity", 3, &params, &filter).expect("filtered");
    assert_eq!(hits.iter().map(|h| year(h.ord)).collect::<Vec<_>>(), vec![Some(2020), Some(2019), Some(2018)]);
    let window = Cutoff::Dates { from: Some("2020-01-01".into()), through: "2022-12-31".into() }.window();
    let hits = bm25.search_filtered("liquidity", 10, &params, &ri.unit_filter(Some(window), &[])).expect("dates");
    assert_eq!(hits.iter().map(|h| year(h.ord)).collect::<Vec<_>>(), vec![Some(2021), Some(2020), Some(2019)]);
    assert_eq!(bm25.search_filtered("liquidity", 10, &params, &UnitFilter::none()).expect("all").len(), 7);
}

#[test]
fn an_index_of_the_previous_format_asks_for_a_rebuild() {
    let (_tmp, corpus, idx) = rules_fixture();
    build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None).expect("build");
    let fp = idx.join("finance_zh_rules/fingerprint.json");
    let text = std::fs::read_to_string(&fp).expect("fingerprint");
    let old = text.replace(&format!("format {}", anser_indexer::INDEX_FORMAT), "format 1");
    assert_ne!(old, text);
    std::fs::write(&fp, old).expect("write");
    let err = RouteIndex::open(&idx, Route::FinanceZhRules, None).expect_err("old format");
    let msg = err.to_string();
    assert!(matches!(err, Error::OldFormat { found: 1, .. }) && err.is_user_error(), "{msg}");
    assert!(msg.contains("re-run `anser index`") && !msg.contains('\n'), "{msg}");
    let err = build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None).expect_err("old");
    assert!(matches!(err, Error::OldFormat { .. }), "{err}");
    let rebuilt = BuildOptions { rebuild: true, ..Default::default() };
    build_route(&idx, &corpus, Route::FinanceZhRules, &rebuilt, None).expect("rebuild");
    RouteIndex::open(&idx, Route::FinanceZhRules, None).expect("rebuilt index opens");
}

/// A small route's BM25 index is one file per analyzer (`index.pack`); a damaged one is refused
/// at open with one line naming it and saying to rebuild, and a rebuild replaces it.
#[test]
fn a_small_routes_bm25_index_is_one_file_and_a_damaged_one_asks_for_a_rebuild() {
    let (_tmp, corpus, idx) = rules_fixture();
    build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None).expect("build");
    let bm25 = idx.join("finance_zh_rules/bm25");
    for a in [Analyzer::ZhJieba, Analyzer::ZhBigram] {
        let files: Vec<String> = std::fs::read_dir(bm25.join(a.as_str()))
            .expect("bm25 folder")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(files, vec!["index.pack".to_string()], "{a}");
    }
    let pack = bm25.join("zh_bigram/index.pack");
    let bytes = std::fs::read(&pack).expect("pack");
    std::fs::write(&pack, &bytes[..bytes.len() - 3]).expect("truncate");
    let err = RouteIndex::open(&idx, Route::FinanceZhRules, None).expect_err("damaged pack");
    let msg = err.to_string();
    assert!(msg.contains("index.pack") && msg.contains("--rebuild") && !msg.contains('\n'), "{msg}");
    let rebuilt = BuildOptions { rebuild: true, ..Default::default() };
    build_route(&idx, &corpus, Route::FinanceZhRules, &rebuilt, None).expect("rebuild");
    let ri = RouteIndex::open(&idx, Route::FinanceZhRules, None).expect("rebuilt index opens");
    assert_eq!(top_record(&ri, Analyzer::ZhBigram, "权益变动报告书").as_deref(), Some("5"));
}

/// A killed build leaves `.<route>.building-<pid>` behind: the next build of that route removes
/// it when the process is gone, and leaves the folder of a running build and other routes'
/// folders alone.
#[test]
fn stray_staging_folders_of_dead_builds_are_removed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    rules_corpus(&corpus, RULES);
    let idx = tmp.path().join("idx");
    let mut finished = std::process::Command::new("true").spawn().expect("spawn true");
    let dead = finished.id();
    finished.wait().expect("wait");
    let mut running = std::process::Command::new("sleep").arg("60").spawn().expect("spawn sleep");
    let folder = |route: &str, pid: u32| idx.join(format!(".{route}.building-{pid}"));
    let stray = folder("finance_zh_rules", dead);
    let live = folder("finance_zh_rules", running.id());
    let other_route = folder("finance_en_audit", dead);
    for d in [&stray, &live, &other_route] {
        std::fs::create_dir_all(d.join("bm25")).expect("mkdir");
        std::fs::write(d.join("units.bin"), b"partial").expect("write");
    }
    let report = build_route(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), None);
    let (live_kept, other_kept, stray_gone) = (live.is_dir(), other_route.is_dir(), !stray.exists());
    running.kill().expect("kill sleep");
    running.wait().expect("wait sleep");
    assert_eq!(report.expect("build").action, "built");
    assert!(stray_gone, "the dead build's folder is removed");
    assert!(live_kept, "a running build's folder is kept");
    assert!(other_kept, "another route's folder is kept");
    // Nothing of this process's own build is left behind either.
    let own = folder("finance_zh_rules", std::process::id());
    assert!(!own.exists());
}
