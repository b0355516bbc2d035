//! Measures the per-call latency of the agent's tools (the non-LLM time of an agent step) on a
//! generated finance_zh_reports fixture of 2,000 rows per table (a quarter of the reports in the
//! ground-truth split, hidden behind the filter views) built from the manifest's schema:
//! opening a guarded connection, typical queries (count, filtered join, group-by, the guard's
//! LIKE against SQLite's built-in), schema introspection, a polars frame pipeline, binary
//! association statistics (Fisher + Wald) and a bootstrap CI, and final answer/evidence
//! validation. divan prints fastest, slowest, median and mean per operation.
//!
//! Run: `cargo bench -p anser-agent --bench tools`.

#[allow(dead_code)]
#[path = "../tests/it/fixtures.rs"]
mod fixtures;

use std::{path::PathBuf, sync::OnceLock};

use anser_agent::tools::{
    answer::check_final,
    compute::{
        BootstrapParams, ComputeRequest, ContinuousAssociation, Table, TwoByTwo, compute, stats::BinaryAssociation,
    },
    sql::{GuardedDb, SqlParams},
};
use anser_manifest::{Language, PublicTask, Route};
use divan::{Bencher, black_box};
use serde_json::json;

const ROWS: usize = 2_000;

/// The generated fixture, made once in `main`.
struct Fixture {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

fn main() {
    let dir = tempfile::TempDir::new().expect("tempdir");
    let path = dir.path().join("finance_reports.sqlite");
    fixtures::build_rows(Route::FinanceZhReports, &path, ROWS);
    println!("fixture: finance_zh_reports, {ROWS} rows per table");
    if FIXTURE.set(Fixture { path, _dir: dir }).is_ok() {
        divan::main();
    }
}

fn path() -> &'static PathBuf {
    &FIXTURE.get().expect("fixture is built in main").path
}

/// A guarded connection to the fixture (connections are not `Sync`: one per benchmark).
fn db() -> GuardedDb {
    GuardedDb::open(path(), Route::FinanceZhReports, None, SqlParams::default()).expect("opens")
}

/// Open a guarded connection (+ filter views).
#[divan::bench(sample_count = 30, sample_size = 1)]
fn open_guarded_connection() -> GuardedDb {
    db()
}

mod sql {
    use super::*;

    /// The guard replaces LIKE with a deadline-checking port of SQLite's matcher; the plain
    /// benchmarks show its cost against the built-in.
    const LIKE: &str = "SELECT count(*) FROM report_chunks WHERE chunk_text LIKE '%revenue%growth%'";

    /// One guarded query over a fresh connection, timed per run.
    fn bench_query(bencher: Bencher, sql: &str) {
        let db = db();
        bencher.bench_local(|| db.query(sql).expect("runs"));
    }

    #[divan::bench]
    fn count_over_filtered_reports(bencher: Bencher) {
        bench_query(bencher, "SELECT count(*) FROM reports");
    }

    #[divan::bench(sample_count = 50)]
    fn join_chunks_reports_200_rows(bencher: Bencher) {
        bench_query(
            bencher,
            "SELECT r.report_id, c.chunk_text FROM report_chunks c JOIN reports r USING (report_id) WHERE r.report_year >= 2020",
        );
    }

    #[divan::bench(sample_count = 50)]
    fn group_by_year_over_filtered_fields(bencher: Bencher) {
        bench_query(
            bencher,
            "SELECT r.report_year, count(DISTINCT f.stock_code), avg(f.total_revenue) FROM financial_fields f JOIN reports r USING (report_id) GROUP BY 1",
        );
    }

    #[divan::bench(sample_count = 50)]
    fn like_over_chunks_guard(bencher: Bencher) {
        bench_query(bencher, LIKE);
    }

    #[divan::bench(sample_count = 50)]
    fn same_scan_without_like_guard(bencher: Bencher) {
        bench_query(bencher, "SELECT count(*) FROM report_chunks WHERE length(chunk_text) > 0");
    }

    #[divan::bench(sample_count = 50)]
    fn same_like_sqlite_builtin_plain(bencher: Bencher) {
        let plain =
            rusqlite::Connection::open_with_flags(path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("opens");
        bencher.bench_local(|| plain.query_row(LIKE, [], |r| r.get::<_, i64>(0)).expect("runs"));
    }

    #[divan::bench]
    fn refused_statement(bencher: Bencher) {
        let db = db();
        bencher.bench_local(|| db.query("SELECT * FROM main.reports").expect_err("refused"));
    }
}

/// Schema introspection with 3 sample values per column.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn schema_introspection(bencher: Bencher) {
    let db = db();
    bencher.bench_local(|| db.schema(3).expect("schema"));
}

/// A polars frame pipeline (change, group-by, rank, sort) over the fixture's revenue rows.
#[divan::bench(sample_count = 30, sample_size = 1)]
fn compute_frame_pipeline(bencher: Bencher) {
    let db = db();
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
    bencher.bench_local(|| compute(&table, &req, Language::Zh).expect("runs"));
}

/// Binary association statistics (Fisher + Wald) of a 2×2 table with n = 2,000.
#[divan::bench]
fn binary_association_n_2000() -> BinaryAssociation {
    let t = TwoByTwo { x1_y1: 310, x1_y0: 402, x0_y1: 530, x0_y0: 758 };
    BinaryAssociation::new(black_box(t)).expect("stats")
}

/// Bootstrap CI of a median difference (n = 400, the default resamples).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn bootstrap_ci_n_400(bencher: Bencher) {
    let x1: Vec<f64> = (0..150).map(|i| (i % 37) as f64).collect();
    let x0: Vec<f64> = (0..250).map(|i| (i % 29) as f64).collect();
    let params = BootstrapParams::default();
    bencher.bench_local(|| ContinuousAssociation::new(&x1, &x0, &params).expect("stats"));
}

/// Bootstrap CI at the release's cohort size (n = 2,000, ≈ 30 distinct values per group): split
/// over the machine's threads (`PARALLEL_MIN_DRAWS`).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn bootstrap_ci_n_2000(bencher: Bencher) {
    let x1: Vec<f64> = (0..800).map(|i| (i % 31) as f64).collect();
    let x0: Vec<f64> = (0..1200).map(|i| (i % 29) as f64 * 1.5).collect();
    let params = BootstrapParams::default();
    bencher.bench_local(|| ContinuousAssociation::new(&x1, &x0, &params).expect("stats"));
}

/// Final answer + evidence check with 500 evidence ids.
#[divan::bench(sample_count = 50)]
fn check_final_500_evidence_ids(bencher: Bencher) {
    let db = db();
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
    bencher.bench_local(|| check_final(&task, &json!("12"), &ev, Some(&db)).expect("checks"));
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
