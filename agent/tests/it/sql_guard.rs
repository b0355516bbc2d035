//! The SQL tool on fixture databases: filtered views, refusals, limits, schema output.

use std::{
    path::Path,
    process::Command,
    time::{Duration, Instant},
};

use anser_agent::{
    Error,
    tools::{
        boundary::{Boundary, Cutoff},
        compute::stats::SplitMix64,
        sql::{GuardedDb, SqlParams, SqlParamsBuilder},
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
    let params = SqlParamsBuilder { time_limit_ms: 100, max_rows: 5, max_cell_chars: 16, ..SqlParamsBuilder::DEFAULT }
        .build()
        .expect("valid limits");
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

/// Wall-clock allowance for a statement against the default 2 s limit: generous for 2 shared CI
/// cores, far below the 15–20 s (or minutes) these statements took before the guard's limits.
const WITHIN: Duration = Duration::from_secs(10);

fn timed_query(db: &GuardedDb, sql: &str) -> (Result<anser_agent::tools::sql::SqlResult, Error>, Duration) {
    let start = Instant::now();
    let r = db.query(sql);
    let took = start.elapsed();
    eprintln!("sql_guard timing: {took:?} for {}", sql.chars().take(90).collect::<String>());
    (r, took)
}

#[test]
fn the_guard_defaults_are_the_documented_values() {
    let p = SqlParams::default();
    assert_eq!(p, SqlParams::DEFAULT);
    assert_eq!(p.to_builder(), SqlParamsBuilder::DEFAULT);
    assert_eq!(SqlParamsBuilder::DEFAULT.build().expect("defaults are valid"), p);
    assert_eq!(
        (
            p.time_limit_ms(),
            p.max_rows(),
            p.max_cell_chars(),
            p.max_value_bytes(),
            p.like_pattern_bytes(),
            p.heap_limit_bytes()
        ),
        (2_000, 200, 2_000, 8_388_608, 2_000, 536_870_912)
    );
    let b = SqlParamsBuilder::DEFAULT;
    for (bad, field) in [
        (SqlParamsBuilder { time_limit_ms: 0, ..b }, "time_limit_ms 0 is outside 1..=600000"),
        (SqlParamsBuilder { time_limit_ms: 600_001, ..b }, "time_limit_ms"),
        (SqlParamsBuilder { max_rows: 0, ..b }, "max_rows 0 is outside"),
        (SqlParamsBuilder { max_rows: 1_000_001, ..b }, "max_rows"),
        (SqlParamsBuilder { max_cell_chars: 15, ..b }, "max_cell_chars 15 is below 16"),
        (SqlParamsBuilder { max_value_bytes: 65_535, ..b }, "max_value_bytes"),
        (SqlParamsBuilder { max_value_bytes: 268_435_457, ..b }, "max_value_bytes"),
        (SqlParamsBuilder { like_pattern_bytes: 15, ..b }, "like_pattern_bytes"),
        (SqlParamsBuilder { like_pattern_bytes: 10_001, ..b }, "like_pattern_bytes"),
        (SqlParamsBuilder { heap_limit_bytes: 16_777_215, ..b }, "heap_limit_bytes"),
        (SqlParamsBuilder { heap_limit_bytes: 68_719_476_737, ..b }, "heap_limit_bytes"),
    ] {
        let msg = bad.build().expect_err("out of range").to_string();
        assert!(msg.contains(field), "{msg}");
    }
    for good in [
        SqlParamsBuilder { time_limit_ms: 1, ..b },
        SqlParamsBuilder { time_limit_ms: 600_000, ..b },
        SqlParamsBuilder { max_rows: 1_000_000, ..b },
        SqlParamsBuilder { max_cell_chars: 16, ..b },
        SqlParamsBuilder { max_value_bytes: 65_536, ..b },
        SqlParamsBuilder { max_value_bytes: 268_435_456, ..b },
        SqlParamsBuilder { like_pattern_bytes: 16, ..b },
        SqlParamsBuilder { heap_limit_bytes: 16_777_216, ..b },
        SqlParamsBuilder { heap_limit_bytes: 68_719_476_736, ..b },
    ] {
        assert_eq!(good.build().expect("in range").to_builder(), good);
    }
}

#[test]
fn one_long_function_call_cannot_outrun_the_time_limit() {
    let (_dir, path) = fixture(Route::LegalEnCases);
    let db = open(&path, Route::LegalEnCases, None);
    // Quadratic in SQLite's built-ins (one VM instruction, never interrupted); linear here, so
    // they answer correctly and fast.
    for (sql, want) in [
        ("SELECT instr(printf('%.*c', 4000000, 'a'), printf('%.*c', 100000, 'a') || 'b')", 0),
        ("SELECT length(replace(printf('%.*c', 4000000, 'a'), printf('%.*c', 100000, 'a') || 'b', ''))", 4_000_000),
        ("SELECT length(trim(printf('%.*c', 300000, 'a'), printf('%.*c', 300000, 'b') || 'a'))", 0),
        ("SELECT length(unhex(printf('%.*c', 300000, 'z'), printf('%.*c', 300000, 'y') || 'z'))", 0),
    ] {
        let (r, took) = timed_query(&db, sql);
        assert_eq!(r.expect("answers").rows[0][0].as_i64(), Some(want), "{sql}");
        assert!(took < WITHIN, "{sql}: {took:?}");
    }
    // Still O(string × pattern) steps, but stopped at the limit from inside the call.
    for sql in [
        "SELECT printf('%.*c', 4000000, 'a') LIKE '%' || printf('%.*c', 1900, 'a') || 'b%'",
        "SELECT printf('%.*c', 4000000, 'a') GLOB '*' || printf('%.*c', 1900, 'a') || 'b*'",
        "SELECT count(*) FROM case_record WHERE printf('%.*c', 4000000, case_id) LIKE '%' || printf('%.*c', 1900, case_id) || '!%'",
    ] {
        let (r, took) = timed_query(&db, sql);
        match r {
            Err(Error::SqlTimeout { limit_ms: 2_000 }) => {}
            other => panic!("{sql}: {other:?}"),
        }
        assert!(took < WITHIN, "{sql}: {took:?}");
    }
    assert_eq!(count(&db, "SELECT count(*) FROM case_record WHERE case_name LIKE 'case%'"), ROWS as i64);
}

#[test]
fn values_over_the_length_limit_fail_clearly() {
    let (_dir, path) = fixture(Route::LegalEnCases);
    let db = open(&path, Route::LegalEnCases, None);
    for sql in [
        "SELECT length(zeroblob(9000000))",
        "SELECT length(printf('%.*c', 9000000, 'a'))",
        "SELECT length(replace(printf('%.*c', 3000000, 'a'), 'a', 'aaa'))",
    ] {
        match db.query(sql) {
            Err(Error::SqlLimit(msg)) => assert!(msg.contains("8 MiB size limit"), "{msg}"),
            other => panic!("{sql}: {other:?}"),
        }
    }
    let r = db.query("SELECT length(printf('%.*c', 8000000, 'a'))").expect("under the limit");
    assert_eq!(r.rows[0][0].as_i64(), Some(8_000_000));
}

fn sql_text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The guard's replacements of instr, replace, trim, unhex, LIKE and GLOB return exactly what
/// SQLite's built-ins return (a plain in-memory connection is the reference).
#[test]
fn replaced_functions_answer_like_sqlite() {
    let (_dir, path) = fixture(Route::LegalEnCases);
    let db = open(&path, Route::LegalEnCases, None);
    let reference = rusqlite::Connection::open_in_memory().expect("memory db");
    let check = |expr: &str| {
        let sql = format!("SELECT {expr}");
        let want: rusqlite::types::Value = reference.query_row(&sql, [], |r| r.get(0)).expect("reference runs");
        let want = match want {
            rusqlite::types::Value::Null => Value::Null,
            rusqlite::types::Value::Integer(i) => Value::from(i),
            rusqlite::types::Value::Real(f) => Value::from(f),
            rusqlite::types::Value::Text(t) => Value::from(t),
            rusqlite::types::Value::Blob(b) => Value::from(format!("<blob of {} bytes>", b.len())),
        };
        let got = db.query(&sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(got.rows[0][0], want, "{sql}");
    };
    for expr in [
        "instr('abc', 'c')",
        "instr('héllo wörld', 'ö')",
        "instr(x'01020302', x'0302')",
        "instr('abc', '')",
        "instr('', '')",
        "instr(NULL, 'a')",
        "instr('a', NULL)",
        "instr(123454, 45)",
        "instr(1.5, '.')",
        "instr(x'61e9', 'é')",
        "replace('aaa', 'aa', 'b')",
        "replace('abc', '', 'x')",
        "replace('abc', NULL, 'x')",
        "replace(NULL, 'a', 'x')",
        "replace('abc', 'b', NULL)",
        "replace('héllo', 'l', 'L')",
        "replace(12.5, '.', ',')",
        "hex(replace(x'00410041', 'A', 'B'))",
        "trim('xxhixx', 'x')",
        "ltrim('xxhixx', 'x')",
        "rtrim('xxhixx', 'x')",
        "trim('éaé', 'é')",
        "trim('abc', '')",
        "trim(NULL, 'a')",
        "trim('abc', NULL)",
        "trim('  hi  ')",
        "trim('xyzhizyx', 'zyx')",
        "hex(unhex('AB CD', ' '))",
        "unhex('A BCD', ' ')",
        "hex(unhex('ABCD', ''))",
        "hex(unhex('AB-CD-', '-'))",
        "unhex('ABC', '')",
        "hex(unhex('ab€cd', '€'))",
        "'abc' LIKE 'A%'",
        "'abc' LIKE '%b_'",
        "'a_c' LIKE 'a\\_c' ESCAPE '\\'",
        "'abc' LIKE 'a\\_c' ESCAPE '\\'",
        "'100%' LIKE '100x%' ESCAPE 'x'",
        "'a%b' LIKE 'a%%b' ESCAPE '%'",
        "'ÉCOLE' LIKE 'école'",
        "'École' LIKE 'é%'",
        "'abc' NOT LIKE 'x%'",
        "NULL LIKE 'a'",
        "'a' LIKE NULL",
        "'abc' LIKE 'abc' ESCAPE NULL",
        "12345 LIKE '12%'",
        "'aXbXc' LIKE '%x%x%'",
        "'abc' GLOB 'a*'",
        "'ABC' GLOB 'a*'",
        "'abc' GLOB '[a-c]bc'",
        "'abc' GLOB '[^a]bc'",
        "']' GLOB '[]]'",
        "'a-' GLOB 'a[-]'",
        "'*' GLOB '[*]'",
        "'abcd' GLOB '*[cd]'",
        "'héllo' GLOB 'h?llo'",
        "'x' GLOB '[z-a]'",
    ] {
        check(expr);
    }
    // Seeded random strings and patterns over an alphabet rich in wildcards.
    let alphabet = ["a", "b", "A", "%", "_", "*", "?", "[", "]", "^", "-", "é", "\\"];
    let mut rng = SplitMix64::new(0x5EED_1234);
    let word = |rng: &mut SplitMix64, max: usize| -> String {
        (0..rng.below(max + 1)).map(|_| alphabet[rng.below(alphabet.len())]).collect()
    };
    for _ in 0..400 {
        let (x, y) = (sql_text(&word(&mut rng, 8)), sql_text(&word(&mut rng, 5)));
        for expr in [
            format!("{x} LIKE {y}"),
            format!("{x} LIKE {y} ESCAPE '\\'"),
            format!("{x} GLOB {y}"),
            format!("instr({x}, {y})"),
            format!("replace({x}, {y}, 'Z')"),
            format!("trim({x}, {y}) || '|' || ltrim({x}, {y}) || '|' || rtrim({x}, {y})"),
        ] {
            check(&expr);
        }
    }
}

#[test]
fn the_task_deadline_stops_a_running_statement() {
    let (_dir, path) = fixture(Route::LegalEnCases);
    let params = SqlParamsBuilder { time_limit_ms: 60_000, ..SqlParamsBuilder::DEFAULT }.build().expect("valid limits");
    let db = GuardedDb::open(&path, Route::LegalEnCases, None, params).expect("opens");
    let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
    db.set_task_deadline(Some(Instant::now() + Duration::from_millis(300)));
    let (r, took) = timed_query(&db, endless);
    match r {
        Err(Error::SqlLimit(msg)) => assert!(msg.contains("task's deadline"), "{msg}"),
        other => panic!("{other:?}"),
    }
    assert!(took < WITHIN, "{took:?}");
    // Inside one long function call too.
    db.set_task_deadline(Some(Instant::now() + Duration::from_millis(300)));
    let (r, took) =
        timed_query(&db, "SELECT printf('%.*c', 4000000, 'a') LIKE '%' || printf('%.*c', 1900, 'a') || 'b%'");
    assert!(matches!(r, Err(Error::SqlLimit(_))), "{r:?}");
    assert!(took < WITHIN, "{took:?}");
    let msg = db.query("SELECT 1").expect_err("deadline passed").to_string();
    assert!(msg.contains("deadline has passed"), "{msg}");
    db.set_task_deadline(None);
    assert_eq!(count(&db, "SELECT count(*) FROM case_record"), ROWS as i64);
}

#[test]
fn an_interrupt_handle_stops_a_statement_from_another_thread() {
    let (_dir, path) = fixture(Route::LegalEnCases);
    let params = SqlParamsBuilder { time_limit_ms: 60_000, ..SqlParamsBuilder::DEFAULT }.build().expect("valid limits");
    let db = GuardedDb::open(&path, Route::LegalEnCases, None, params).expect("opens");
    let handle = db.interrupt_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        handle.interrupt();
    });
    let (r, took) =
        timed_query(&db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c");
    stopper.join().expect("stopper thread");
    match r {
        Err(Error::SqlLimit(msg)) => assert!(msg.contains("interrupted"), "{msg}"),
        other => panic!("{other:?}"),
    }
    assert!(took < WITHIN, "{took:?}");
    assert!(matches!(db.query("SELECT 1"), Err(Error::SqlLimit(_))), "later statements are refused");
}

/// Environment of the child process of [`a_huge_sort_stays_in_memory_and_fails_clearly`].
const CHILD_ENV: &str = "ANSER_SQL_GUARD_CHILD_DB";
/// Heap ceiling of the child (bytes).
const CHILD_HEAP: u64 = 128 << 20;

/// Runs in a child process with SQLITE_TMPDIR/TMPDIR pointing at a fresh directory: a sort of
/// 5,000 one-megabyte rows (5 GB), which SQLite would spill to temp files. A thread watches
/// the process's open files for anything in that directory (SQLite unlinks its temp files
/// right after opening them, so a directory listing alone would not see them).
#[test]
#[ignore = "helper: run by a_huge_sort_stays_in_memory_and_fails_clearly in a child process"]
fn huge_sort_child() {
    let Ok(db_path) = std::env::var(CHILD_ENV) else { return };
    let tmp = std::env::var("SQLITE_TMPDIR").expect("SQLITE_TMPDIR set by the parent");
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut seen = 0usize;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                for fd in std::fs::read_dir("/proc/self/fd").into_iter().flatten().flatten() {
                    if std::fs::read_link(fd.path()).is_ok_and(|t| t.to_string_lossy().starts_with(&tmp)) {
                        seen += 1;
                    }
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            seen
        })
    };
    let params =
        SqlParamsBuilder { heap_limit_bytes: CHILD_HEAP, ..SqlParamsBuilder::DEFAULT }.build().expect("valid limits");
    let db = GuardedDb::open(Path::new(&db_path), Route::LegalEnCases, None, params).expect("opens");
    let start = Instant::now();
    let r = db.query(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) \
         SELECT x, zeroblob(1000000) AS z FROM c ORDER BY x DESC",
    );
    let took = start.elapsed();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let temp_fds = watcher.join().expect("watcher");
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    let after = db.query("SELECT count(*) FROM case_record").map(|r| r.rows[0][0].clone());
    let outcome = match r {
        Ok(r) => format!("ok rows={}", r.row_count),
        Err(e) => format!("{e:?}"),
    };
    println!(
        "CHILD_RESULT\ttook_ms={}\ttemp_fds={temp_fds}\thwm_kb={hwm_kb}\tafter={after:?}\toutcome={outcome}",
        took.as_millis()
    );
}

#[test]
fn a_huge_sort_stays_in_memory_and_fails_clearly() {
    if !Path::new("/proc/self/fd").is_dir() {
        assert!(std::env::var("CI").is_err(), "CI=true: /proc is needed to watch for temp files");
        eprintln!("skipped a_huge_sort_stays_in_memory_and_fails_clearly: no /proc (Linux only)");
        return;
    }
    let (_dir, path) = fixture(Route::LegalEnCases);
    let tmp = TempDir::new().expect("tempdir");
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args(["sql_guard::huge_sort_child", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &path)
        .env("SQLITE_TMPDIR", tmp.path())
        .env("TMPDIR", tmp.path())
        .output()
        .expect("child runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // libtest prints the test's name on the same line before the child's own output.
    let line = stdout
        .lines()
        .find_map(|l| l.find("CHILD_RESULT").map(|at| &l[at..]))
        .unwrap_or_else(|| panic!("no result: {stdout}"));
    eprintln!("sql_guard huge sort: {line}");
    let field = |name: &str| -> &str {
        line.split('\t').find_map(|f| f.strip_prefix(name).and_then(|v| v.strip_prefix('='))).unwrap_or_default()
    };
    assert_eq!(field("temp_fds"), "0", "a temp file was opened: {line}");
    assert_eq!(std::fs::read_dir(tmp.path()).expect("ls").count(), 0, "files in the temp dir: {line}");
    assert!(field("outcome").contains("SqlLimit") && field("outcome").contains("memory"), "{line}");
    let took: u64 = field("took_ms").parse().expect("took_ms");
    assert!(took < WITHIN.as_millis() as u64, "{line}");
    let hwm_mb = field("hwm_kb").parse::<u64>().expect("hwm") >> 10;
    assert!(hwm_mb < (CHILD_HEAP >> 20) + 400, "peak RSS {hwm_mb} MiB: {line}");
    assert!(field("after").contains(&format!("Number({ROWS})")), "the connection works after the error: {line}");
}
