//! The generated corpus matches the manifest (tables, columns, types, keys, JSONL fields).

use anser_manifest::{Route, RouteStatus, check_corpus};

use crate::common::{db, sample};

#[test]
fn small_corpus_passes_the_schema_check() {
    let report = check_corpus(&sample().corpus_dir(), &[]).expect("corpus root");
    for r in &report.routes {
        assert_eq!(r.status, RouteStatus::Ok, "{}: {:?}", r.route, r.problems);
    }
    assert!(report.ok());
    assert_eq!(report.routes.len(), Route::ALL.len());
    for r in &report.routes {
        let rows: u64 = r.tables.iter().map(|t| t.rows).sum::<u64>() + r.records.unwrap_or(0);
        assert!(rows > 0, "{} is empty", r.route);
        assert_eq!(Some(rows), sample().corpus_rows.get(r.route.as_str()).copied(), "{}: summary row count", r.route);
    }
}

#[test]
fn finance_ground_truth_rows_exist_and_are_only_the_year_after_the_cutoff() {
    let zh = db("finance/zh/finance_reports.sqlite");
    let (gt, max_retrieval, min_gt): (i64, i64, i64) = zh
        .query_row(
            "SELECT (SELECT count(*) FROM reports WHERE split = 'ground_truth'),
                    (SELECT max(report_year) FROM reports WHERE split <> 'ground_truth'),
                    (SELECT min(report_year) FROM reports WHERE split = 'ground_truth')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("query");
    assert!(gt > 0);
    assert_eq!(min_gt, max_retrieval + 1);
    let en = db("finance/en/finance_reports.sqlite");
    let gt: i64 =
        en.query_row("SELECT count(*) FROM filings WHERE split = 'ground_truth'", [], |r| r.get(0)).expect("query");
    assert!(gt > 0);
}

#[test]
fn financial_identities_hold_in_the_stored_rows() {
    let zh = db("finance/zh/finance_reports.sqlite");
    let bad: i64 = zh
        .query_row(
            "SELECT count(*) FROM financial_fields
             WHERE gross_profit <> operating_revenue - operating_cost
                OR total_assets <> total_current_assets + total_noncurrent_assets
                OR total_liabilities <> total_current_liabilities + total_noncurrent_liabilities
                OR total_equity <> total_assets - total_liabilities
                OR net_profit <> total_profit - income_tax_expense",
            [],
            |r| r.get(0),
        )
        .expect("query");
    assert_eq!(bad, 0);
    // Every report has chunks that state its revenue as reports print it (8,749,279,719.00元).
    let missing: i64 = zh
        .query_row(
            "SELECT count(*) FROM reports r JOIN financial_fields f USING (report_id)
             WHERE NOT EXISTS (SELECT 1 FROM report_chunks c WHERE c.report_id = r.report_id
                               AND instr(c.chunk_text, printf('营业收入%,d.00元', CAST(f.operating_revenue AS INTEGER))) > 0)",
            [],
            |r| r.get(0),
        )
        .expect("query");
    assert_eq!(missing, 0);
}
