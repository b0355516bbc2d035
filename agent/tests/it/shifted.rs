//! Information boundaries on every dated route, on the generated sample, with tasks whose
//! cutoffs are shifted earlier than the sample's own: the corpus then holds records dated after
//! the cutoff that are *not* ground truth (the sample's own tasks cannot show a leak, since
//! everything after their cutoff is a ground-truth row). For each dated route, the agent's
//! `search` (BM25, filtered inside the ranking), `sql`, `schema` samples and `open` see only
//! records dated on or before the cutoff, while an unfiltered search of the same query does
//! return later records — so every check can fail.
//!
//! Record dates are read here independently of the code under test (plain SQL on the raw file,
//! the JSONL `year` field).

use std::{collections::HashMap, path::Path, sync::Arc};

use anser_agent::{
    method::{RetrieverSearcher, Searcher, record::open_record},
    tools::{
        boundary::{self, Boundary},
        sql::{GuardedDb, SqlParams},
    },
};
use anser_manifest::{Domain, Language, Manifest, PublicTask, Route, Split, TaskGroup};
use anser_retriever::{Engine, Retriever, SpecRetriever};
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use crate::sample::sample;

/// A dated route and how a shifted task of it is written.
struct Dated {
    route: Route,
    domain: Domain,
    language: Language,
    task_type: &'static str,
    /// Raw SQL: (unit record id, record year) of every non-ground-truth record (SQLite routes).
    years_sql: Option<&'static str>,
    /// Table and column of the record's date, for the schema samples (SQLite routes).
    date_column: Option<(&'static str, &'static str)>,
    /// The cutoff statement for a last admitted year (a phrasing the boundary parser accepts).
    states: fn(i32) -> String,
}

const DATED: [Dated; 5] = [
    Dated {
        route: Route::FinanceZhReports,
        domain: Domain::Finance,
        language: Language::Zh,
        task_type: "mixed_numeric_text",
        years_sql: Some(
            "SELECT c.report_id, r.report_year FROM report_chunks c JOIN reports r ON r.report_id = c.report_id \
             WHERE r.split IS NOT 'ground_truth'",
        ),
        date_column: Some(("reports", "report_year")),
        states: |y| format!("仅依据截至{y}年的年度报告作答。"),
    },
    Dated {
        route: Route::FinanceEnReports,
        domain: Domain::Finance,
        language: Language::En,
        task_type: "mixed_numeric_text",
        years_sql: Some("SELECT accession, fiscal_year FROM filings WHERE split IS NOT 'ground_truth'"),
        date_column: Some(("filings", "fiscal_year")),
        states: |y| format!("Use only information available by FY{y}."),
    },
    Dated {
        route: Route::LegalZhCases,
        domain: Domain::Legal,
        language: Language::Zh,
        task_type: "semantic",
        years_sql: Some("SELECT anhao, CAST(substr(caipanriqi, 1, 4) AS INTEGER) FROM cases"),
        date_column: Some(("cases", "caipanriqi")),
        states: |y| format!("只使用截至{y}年的数据。"),
    },
    Dated {
        route: Route::LegalEnCases,
        domain: Domain::Legal,
        language: Language::En,
        task_type: "semantic",
        years_sql: Some("SELECT case_id, decision_year FROM case_record"),
        date_column: Some(("case_record", "decision_year")),
        states: |y| format!("Use only information available by {y}-12-31."),
    },
    Dated {
        route: Route::ScienceArticles,
        domain: Domain::Science,
        language: Language::En,
        task_type: "effect_direction",
        years_sql: None,
        date_column: None,
        states: |y| format!("Publication period: up to {y}-12-31"),
    },
];

/// The leading year of a value (`2021`, `"2021-05-03"`).
fn year_of(v: &Value) -> Option<i32> {
    match v {
        Value::Number(n) => n.as_i64().and_then(|y| i32::try_from(y).ok()),
        Value::String(s) => s.get(..4).and_then(|y| y.parse().ok()),
        _ => None,
    }
}

/// Record id → year of every retrievable record of the route, read from the raw corpus.
fn record_years(corpus: &Path, d: &Dated) -> HashMap<String, i32> {
    let path = corpus.join(&Manifest::get().route(d.route).file);
    match d.years_sql {
        Some(sql) => crate::raw_years::sql_years(&path, sql),
        None => std::fs::read_to_string(&path)
            .expect("jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|r| Some((boundary::date_text(&r["ID"])?, year_of(&r["year"])?)))
            .collect(),
    }
}

fn task(d: &Dated, cut: i32, words: &str) -> PublicTask {
    let group = TaskGroup { domain: d.domain, language: d.language, split: Split::Predictive };
    PublicTask {
        id: format!("shifted_{}", d.route),
        group,
        task_type: Some(d.task_type.into()),
        query: format!("{words}\n{}", (d.states)(cut)),
        instruction: "Answer briefly.".into(),
        route: d.route,
        source_file: String::new(),
    }
}

/// The record id of a unit id `<record id>:<chunk>`.
fn record_of(unit: &str) -> &str {
    unit.rsplit_once(':').map_or(unit, |(r, _)| r)
}

#[test]
fn shifted_cutoffs_hold_for_search_sql_schema_and_open_on_every_dated_route() {
    let (dir, summary) = sample();
    let corpus = summary.corpus_dir();
    let index_dir = dir.path().join("shifted-index");
    for d in &DATED {
        let years = record_years(&corpus, d);
        let mut sorted: Vec<i32> = years.values().copied().collect();
        sorted.sort_unstable();
        // The median year: records after it exist and are not ground truth.
        let cut = sorted[sorted.len() / 2];
        let late: Vec<&String> = years.iter().filter(|(_, y)| **y > cut).map(|(id, _)| id).collect();
        let early = years.iter().find(|(_, y)| **y <= cut).map(|(id, _)| id.clone()).expect("an early record");
        assert!(!late.is_empty(), "{}: no retrievable record after {cut}", d.route);

        anser_indexer::build_route(&index_dir, &corpus, d.route, &Default::default(), None).expect("index");
        let engine = Arc::new(Engine::new(&index_dir, Some(&corpus)));
        let retriever = SpecRetriever::new(engine.clone(), "bm25".parse().expect("spec"));
        // Query with the words of a late record's first unit, so the unfiltered search finds it.
        let index = engine.route(d.route).expect("route index");
        let late_unit = index
            .store
            .iter()
            .map(|u| u.expect("unit"))
            .find(|u| years.get(&u.record_id).is_some_and(|y| *y > cut))
            .expect("a late unit");
        let words: String = late_unit.text.chars().take(160).collect();
        // The task states only the shifted cutoff: no year of the record's text goes into it.
        let task = task(d, cut, &words.replace(|c: char| c.is_ascii_digit(), " "));
        let boundary = Boundary::from_task(&task).expect("parses").expect("a cutoff");
        assert!(boundary.cutoff.admits(&format!("{cut}-12-31")) && !boundary.cutoff.admits(&format!("{}", cut + 1)));

        let unfiltered = retriever.search(d.route, &words, 20).expect("unfiltered");
        let leaked = unfiltered.iter().filter(|h| years.get(&h.record_id).is_some_and(|y| *y > cut)).count();
        assert!(leaked > 0, "{}: the unfiltered search returns records after {cut}", d.route);

        let searcher = RetrieverSearcher::new(SpecRetriever::new(engine.clone(), "bm25".parse().expect("spec")));
        let hits = searcher.search(&task, &words, 20).expect("search");
        assert!(!hits.is_empty(), "{}: the bounded search finds earlier records", d.route);
        for h in &hits {
            let id = record_of(&h.unit);
            let y = years.get(id).copied();
            assert!(y.is_some_and(|y| y <= cut), "{}: search returned {id} ({y:?}) after {cut}", d.route);
        }

        if let (Some(sql), Some((table, column))) = (d.years_sql, d.date_column) {
            let db = GuardedDb::for_task(&corpus, &task, SqlParams::default()).expect("opens");
            assert_eq!(db.boundary().map(|b| &b.cutoff), Some(&boundary.cutoff));
            // sql: every record of the unit table the agent can read is dated ≤ cut.
            let unit = &Manifest::get().route(d.route).units[0];
            let q = format!("SELECT DISTINCT CAST({} AS TEXT) FROM {}", unit.id_column, unit.source);
            let seen = db.query_with(&q, 1_000_000).expect("sql");
            assert!(!seen.rows.is_empty() && !seen.truncated);
            for row in &seen.rows {
                let id = row[0].as_str().expect("id");
                let y = years.get(id).copied();
                assert!(y.is_some_and(|y| y <= cut), "{}: sql returned {id} ({y:?}) after {cut}", d.route);
            }
            assert!(sql.contains(unit.id_column.as_str()), "the raw years are keyed like the units");
            // schema: the date column's samples are ≤ cut, the dated table's count is the
            // number of admitted records.
            let schema = db.schema(3).expect("schema");
            let t = schema.tables.iter().find(|t| t.name == table).expect("dated table");
            let samples = &t.columns.iter().find(|c| c.name == column).expect("date column").samples;
            assert!(!samples.is_empty());
            for s in samples {
                assert!(year_of(s).is_some_and(|y| y <= cut), "{}: schema sample {s} after {cut}", d.route);
            }
            let raw = Connection::open_with_flags(
                corpus.join(&Manifest::get().route(d.route).file),
                OpenFlags::SQLITE_OPEN_READ_ONLY,
            )
            .expect("raw");
            let split = if d.domain == Domain::Finance { " AND split IS NOT 'ground_truth'" } else { "" };
            let year_expr = if column == "caipanriqi" { "CAST(substr(caipanriqi, 1, 4) AS INTEGER)" } else { column };
            let admitted: i64 = raw
                .query_row(&format!("SELECT count(*) FROM {table} WHERE {year_expr} <= {cut}{split}"), [], |r| r.get(0))
                .expect("count");
            assert_eq!(t.rows, admitted as u64, "{}: visible rows of {table}", d.route);
            // open: a late record is not there; an early one is.
            for id in late.iter().take(5) {
                assert_eq!(open_record(&corpus, &task, Some(&db), id).expect("open"), None, "{}: {id}", d.route);
            }
            assert!(open_record(&corpus, &task, Some(&db), &early).expect("open").is_some(), "{}", d.route);
        } else {
            for id in late.iter().take(5) {
                let err = open_record(&corpus, &task, None, id).expect_err("outside the boundary");
                assert!(err.to_string().contains("information boundary"), "{err}");
            }
            assert!(open_record(&corpus, &task, None, &early).expect("open").is_some());
        }
        eprintln!("{}: cutoff {cut}, {} later records hidden, {} hits checked", d.route, late.len(), hits.len());
    }
}
