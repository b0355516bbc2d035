//! The SQL tool on fixture databases: filtered views, refusals, limits, schema output.

use std::{path::Path, time::Instant};

use anser_agent::{
    Error,
    tools::{
        boundary::{Boundary, Cutoff},
        sql::{GuardedDb, SqlParams},
        timed,
    },
};
use anser_manifest::{Domain, Language, PublicTask, Route, Split, TaskGroup};
use serde_json::Value;
use tempfile::TempDir;

use crate::fixtures::{self, ROWS, SECRET};

fn fixture(route: Route) -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new().expect("tempdir");
    let path = dir.path().join("corpus.sqlite");
    fixtures::build(route, &path);
    (dir, path)
}

fn open(path: &Path, route: Route, boundary: Option<Boundary>) -> GuardedDb {
    GuardedDb::open(path, route, boundary, SqlParams::default()).expect("opens")
}

fn count(db: &GuardedDb, sql: &str) -> i64 {
    db.query(sql).expect("query runs").rows[0][0].as_i64().expect("integer")
}

fn assert_no_secret(v: &Value) {
    assert!(!v.to_string().contains(SECRET), "hidden row leaked: {v}");
}

#[test]
fn ground_truth_rows_and_their_children_are_hidden() {
    for (route, parent, children) in [
        (Route::FinanceZhReports, "reports", ["financial_fields", "report_chunks"]),
        (Route::FinanceEnReports, "filings", ["financial_facts", "sections"]),
    ] {
        let (_dir, path) = fixture(route);
        let db = open(&path, route, None);
        assert_eq!(count(&db, &format!("SELECT count(*) FROM {parent}")), fixtures::visible_parents() as i64);
        assert_eq!(count(&db, &format!("SELECT count(*) FROM {parent} WHERE split = 'ground_truth'")), 0);
        for child in children {
            let all = db.query(&format!("SELECT * FROM {child}")).expect("child rows");
            assert!(all.row_count > 0 && all.row_count < ROWS, "{route} {child}: {}", all.row_count);
            assert_no_secret(&serde_json::to_value(&all.rows).expect("json"));
        }
        let joined = db
            .query(&format!(
                "SELECT * FROM {parent} p JOIN {} c USING ({})",
                children[0],
                if parent == "reports" { "report_id" } else { "accession" }
            ))
            .expect("join");
        assert_no_secret(&serde_json::to_value(&joined.rows).expect("json"));
        for sql in [
            format!("SELECT * FROM main.{parent}"),
            format!("SELECT count(*) FROM \"main\".\"{parent}\""),
            format!("WITH {parent} AS (SELECT * FROM main.{parent}) SELECT * FROM {parent}"),
            format!("SELECT * FROM (SELECT * FROM main.{parent}) AS {parent}"),
            format!("SELECT 1 WHERE EXISTS (SELECT 1 FROM main.{parent} WHERE split = 'ground_truth')"),
            format!("SELECT * FROM main.{}", children[1]),
            "SELECT * FROM sqlite_temp_master".to_string(),
        ] {
            match db.query(&sql) {
                Err(Error::SqlRefused(msg)) => assert!(!msg.is_empty()),
                other => panic!("{route}: {sql:?} was not refused: {other:?}"),
            }
        }
        assert!(db.query("SELECT * FROM companies").expect("unfiltered table").row_count == ROWS);
        assert_eq!(db.hidden_rules().len(), 1);
    }
}

#[test]
fn writes_and_escapes_are_refused_and_the_file_is_untouched() {
    let (dir, path) = fixture(Route::FinanceZhReports);
    let before = std::fs::read(&path).expect("read");
    let db = open(&path, Route::FinanceZhReports, None);
    let escape = dir.path().join("copy.sqlite");
    for sql in [
        "DELETE FROM reports".to_string(),
        "UPDATE companies SET company_name = 'x'".to_string(),
        "INSERT INTO companies(stock_code, company_name) VALUES ('1', 'x')".to_string(),
        "DROP VIEW reports".to_string(),
        "CREATE TEMP VIEW v AS SELECT * FROM main.reports".to_string(),
        "PRAGMA query_only = 0".to_string(),
        "SELECT * FROM pragma_table_list".to_string(),
        format!("ATTACH DATABASE '{}' AS x", escape.display()),
        format!("VACUUM INTO '{}'", escape.display()),
        "SELECT 1; DROP TABLE reports".to_string(),
        "SELECT 1; SELECT 2".to_string(),
        "SELECT load_extension('libx')".to_string(),
        "WITH x AS (SELECT 1) DELETE FROM reports".to_string(),
        "EXPLAIN SELECT * FROM reports".to_string(),
        "SELECT * FROM dbstat".to_string(),
        "BEGIN".to_string(),
    ] {
        match db.query(&sql) {
            Err(Error::SqlRefused(_)) => {}
            other => panic!("{sql:?} was not refused: {other:?}"),
        }
    }
    assert!(db.query("SELECT * FROM sqlite_dbpage").is_err(), "raw pages are out of reach");
    let json = db.query("SELECT value FROM json_each('[1, 2]')").expect("JSON functions are allowed");
    assert_eq!(json.rows, [[serde_json::json!(1)], [serde_json::json!(2)]]);
    drop(db);
    assert_eq!(std::fs::read(&path).expect("read"), before, "the corpus file changed");
    assert!(!escape.exists(), "a file was written");
}

#[test]
fn refusals_say_why() {
    let (_dir, path) = fixture(Route::FinanceZhReports);
    let db = open(&path, Route::FinanceZhReports, None);
    let msg = db.query("SELECT * FROM main.reports").expect_err("refused").to_string();
    assert!(msg.contains("cannot be read directly"), "{msg}");
    let msg = db.query("SELECT * FROM cases").expect_err("refused").to_string();
    assert!(msg.contains("no such table") || msg.contains("not part of this route"), "{msg}");
    let msg = db.query("DELETE FROM reports").expect_err("refused").to_string();
    assert!(msg.contains("SELECT or WITH"), "{msg}");
    let report = timed("sql", || db.query("SELECT nope FROM reports"));
    assert!(!report.ok && report.caller_error == Some(true));
}

#[test]
fn row_cell_and_time_limits_are_reported() {
    let (_dir, path) = fixture(Route::LegalEnCases);
    let params = SqlParams { time_limit_ms: 100, max_rows: 5, max_cell_chars: 16 };
    let db = GuardedDb::open(&path, Route::LegalEnCases, None, params).expect("opens");
    let r = db.query("SELECT case_id, case_name FROM case_record").expect("runs");
    assert!(r.truncated && r.row_count == 5);
    assert!(r.truncated_cells > 0, "case_record_case_name_N is longer than 16 characters");
    assert!(r.rows[0][1].as_str().expect("text").ends_with('…'));
    let start = Instant::now();
    let err = db
        .query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
        .expect_err("interrupted");
    assert!(matches!(err, Error::SqlTimeout { limit_ms: 100 }), "{err}");
    assert!(start.elapsed().as_millis() < 1_000, "{:?}", start.elapsed());
    assert_eq!(db.query("SELECT count(*) FROM case_record").expect("works after a timeout").row_count, 1);
    assert!(SqlParams { time_limit_ms: 0, ..SqlParams::default() }.validate().is_err());
}

fn predictive_task(query: &str) -> PublicTask {
    PublicTask {
        id: "finance_en_predictive_x".into(),
        group: TaskGroup { domain: Domain::Finance, language: Language::En, split: Split::Predictive },
        task_type: Some("multi_period_trend".into()),
        query: query.into(),
        instruction: "Use the specified historical filing data and trends.".into(),
        route: Route::FinanceEnReports,
        source_file: "finance/en/predictive.json".into(),
    }
}

#[test]
fn the_task_cutoff_hides_later_records_and_is_recorded() {
    let (dir, path) = fixture(Route::FinanceEnReports);
    std::fs::create_dir_all(dir.path().join("finance/en")).expect("mkdir");
    std::fs::rename(&path, dir.path().join("finance/en/finance_reports.sqlite")).expect("move");
    let task =
        predictive_task("An analyst can access only ACME INC (ACM)'s financial records through FY2020. Forecast.");
    let db = GuardedDb::for_task(dir.path(), &task, SqlParams::default()).expect("opens");
    assert_eq!(db.boundary().map(|b| &b.cutoff), Some(&Cutoff::FiscalYear { last: 2020 }));
    assert_eq!(count(&db, "SELECT count(*) FROM filings WHERE fiscal_year > 2020"), 0);
    let visible = count(&db, "SELECT count(*) FROM filings");
    // Years 2018..=2024 cycle; 2018-2020 are i mod 7 in 0..=2; every fourth row is ground truth.
    let expected = (0..ROWS).filter(|i| i % 7 <= 2 && i % 4 != 0).count() as i64;
    assert_eq!(visible, expected);
    let facts = db.query("SELECT f.fiscal_year FROM financial_facts x JOIN filings f USING (accession)").expect("join");
    assert!(facts.rows.iter().all(|r| r[0].as_i64().expect("year") <= 2020));
    assert_eq!(
        count(&db, "SELECT count(*) FROM financial_facts WHERE accession NOT IN (SELECT accession FROM filings)"),
        0
    );
    let r = db.query("SELECT 1").expect("runs");
    let json = serde_json::to_value(&r).expect("json");
    assert_eq!(json["boundary"]["cutoff"], serde_json::json!({"kind": "fiscal_year", "last": 2020}));
    assert_eq!(db.hidden_rules().len(), 2);
}

#[test]
fn schema_report_lists_tables_samples_and_registry() {
    let (_dir, path) = fixture(Route::FinanceZhReports);
    let db = open(&path, Route::FinanceZhReports, None);
    let s = db.schema(3).expect("schema");
    let json = serde_json::to_value(&s).expect("json");
    assert_no_secret(&json);
    let reports = s.tables.iter().find(|t| t.name == "reports").expect("reports");
    assert!(reports.filtered && reports.rows == fixtures::visible_parents() as u64);
    assert!(reports.columns.iter().all(|c| c.samples.len() <= 3));
    assert_eq!(reports.columns.iter().find(|c| c.name == "report_year").expect("col").decl_type, "INTEGER");
    assert_eq!(s.hidden.len(), 1);
    assert!(s.feature_registry.is_none());

    for (route, source) in [(Route::LegalEnCases, "annotation_registry"), (Route::LegalZhCases, "case_features")] {
        let (_dir, path) = fixture(route);
        let db = open(&path, route, None);
        let reg = db.schema(2).expect("schema").feature_registry.expect("registry");
        assert_eq!(reg.source, source);
        assert_eq!(reg.entries.len(), ROWS, "{route}: one entry per distinct key");
    }
}

#[test]
fn jsonl_routes_and_missing_files_are_clear_errors() {
    let err = GuardedDb::open(Path::new("/nonexistent/x.sqlite"), Route::ScienceArticles, None, SqlParams::default())
        .expect_err("jsonl");
    assert!(matches!(err, Error::NotSqlite(Route::ScienceArticles)));
    let err = GuardedDb::open(Path::new("/nonexistent/x.sqlite"), Route::LegalZhCases, None, SqlParams::default())
        .expect_err("missing");
    let msg = err.to_string();
    assert!(msg.contains("/nonexistent/x.sqlite") && msg.contains("legal_zh_cases"), "{msg}");
    assert!(!err.is_caller_error());
}
