//! Measures the per-call latency of the agent's tools (the non-LLM time of an agent step) on a
//! generated finance_zh_reports fixture of 2,000 rows per table (a quarter of the reports in the
//! ground-truth split, hidden behind the filter views) built from the manifest's schema:
//! opening a guarded connection, typical queries (count, filtered join, group-by, the guard's
//! LIKE against SQLite's built-in), schema
//! introspection, a polars frame pipeline, binary association statistics (Fisher + Wald) and a
//! 2,000-resample bootstrap CI, and final answer/evidence validation.
//!
//! Run: `cargo bench -p anser-agent --bench tools` (prints median and p95 per operation).

#[allow(dead_code)]
#[path = "../tests/it/fixtures.rs"]
mod fixtures;

use std::time::{Duration, Instant};

use anser_agent::tools::{
    answer::check_final,
    compute::{
        BootstrapParams, ComputeRequest, ContinuousAssociation, Table, TwoByTwo, compute, stats::BinaryAssociation,
    },
    sql::{GuardedDb, SqlParams},
};
use anser_manifest::{Language, PublicTask, Route};
use serde_json::json;

const ROWS: usize = 2_000;

fn measure(name: &str, iters: usize, mut f: impl FnMut()) {
    f();
    let mut times: Vec<Duration> = (0..iters)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:<44} median {:>10.1} µs   p95 {:>10.1} µs   ({iters} runs)",
        p(0.5).as_secs_f64() * 1e6,
        p(0.95).as_secs_f64() * 1e6
    );
}

fn main() {
    let dir = tempfile::TempDir::new().expect("tempdir");
    let path = dir.path().join("finance_reports.sqlite");
    fixtures::build_rows(Route::FinanceZhReports, &path, ROWS);
    println!("fixture: finance_zh_reports, {ROWS} rows per table");

    measure("open guarded connection (+ filter views)", 50, || {
        GuardedDb::open(&path, Route::FinanceZhReports, None, SqlParams::default()).expect("opens");
    });
    let db = GuardedDb::open(&path, Route::FinanceZhReports, None, SqlParams::default()).expect("opens");
    measure("sql: count(*) over filtered reports", 200, || {
        db.query("SELECT count(*) FROM reports").expect("runs");
    });
    measure("sql: join chunks->reports, 200 rows", 100, || {
        db.query("SELECT r.report_id, c.chunk_text FROM report_chunks c JOIN reports r USING (report_id) WHERE r.report_year >= 2020")
            .expect("runs");
    });
    measure("sql: group by year over filtered fields", 100, || {
        db.query("SELECT r.report_year, count(DISTINCT f.stock_code), avg(f.total_revenue) FROM financial_fields f JOIN reports r USING (report_id) GROUP BY 1")
            .expect("runs");
    });
    // The guard replaces LIKE with a deadline-checking port of SQLite's matcher: its cost
    // against the built-in on a plain connection.
    let like = "SELECT count(*) FROM report_chunks WHERE chunk_text LIKE '%revenue%growth%'";
    measure("sql: LIKE '%a%b%' over chunks (guard)", 100, || {
        db.query(like).expect("runs");
    });
    measure("sql: same scan without LIKE (guard)", 100, || {
        db.query("SELECT count(*) FROM report_chunks WHERE length(chunk_text) > 0").expect("runs");
    });
    let plain =
        rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("opens");
    measure("sql: same LIKE, SQLite built-in (plain)", 100, || {
        plain.query_row(like, [], |r| r.get::<_, i64>(0)).expect("runs");
    });
    measure("sql: refused statement", 200, || {
        db.query("SELECT * FROM main.reports").expect_err("refused");
    });
    measure("schema introspection (3 samples/column)", 10, || {
        db.schema(3).expect("schema");
    });

    let rows = db
        .query_with(
            "SELECT f.stock_code, r.report_year, f.total_revenue FROM financial_fields f JOIN reports r USING (report_id)",
            ROWS,
        )
        .expect("rows");
    let table = Table::from(&rows);
    let req: ComputeRequest = serde_json::from_value(json!({"kind": "frame", "ops": [
        {"op": "change", "column": "total_revenue", "order_by": "report_year", "by": ["stock_code"], "kind": "percent", "as": "yoy"},
        {"op": "group_by", "by": ["report_year"], "aggs": [{"fn": "count_distinct", "column": "stock_code", "as": "n"}, {"fn": "median", "column": "yoy", "as": "yoy"}]},
        {"op": "rank", "column": "yoy", "as": "rank"},
        {"op": "sort", "by": ["report_year"]}
    ]})).expect("request");
    measure(&format!("compute: frame pipeline over {} rows", table.rows.len()), 100, || {
        compute(&table, &req, Language::Zh).expect("runs");
    });
    let t = TwoByTwo { x1_y1: 310, x1_y0: 402, x0_y1: 530, x0_y0: 758 };
    measure("stats: binary association (n = 2,000)", 200, || {
        BinaryAssociation::new(t).expect("stats");
    });
    let x1: Vec<f64> = (0..150).map(|i| (i % 37) as f64).collect();
    let x0: Vec<f64> = (0..250).map(|i| (i % 29) as f64).collect();
    measure("stats: bootstrap CI (n = 400, 2,000 resamples)", 20, || {
        ContinuousAssociation::new(&x1, &x0, &BootstrapParams::default()).expect("stats");
    });
    let task = PublicTask {
        id: "finance_zh_descriptive_1".into(),
        group: "finance_zh_descriptive".parse().expect("group"),
        task_type: Some("statistic".into()),
        query: "q".into(),
        instruction: "直接给出满足条件的上市公司数量。".into(),
        route: Route::FinanceZhReports,
        source_file: String::new(),
    };
    let ev: Vec<_> = (0..500).map(|i| json!(format!("{:06}", 600_000 + i))).collect();
    measure("answer: check_final with 500 evidence ids", 100, || {
        check_final(&task, &json!("12"), &ev, Some(&db)).expect("checks");
    });
}
