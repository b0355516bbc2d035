//! tantivy + our BM25 versus SQLite FTS5 with the official sparse baseline's scheme
//! (rusqlite bundled, contentless FTS5 table, `unicode61` over space-joined bigram terms, OR
//! query of distinct quoted terms, ranked by `rank`), on the same units: index build time and
//! query latency p50/p95 (top 10).
//!
//! Data: the Chinese routes of a generated `medium` sample (anser-samples, seed default:
//! legal_zh_cases, finance_zh_reports) with the sample's own task queries for the route, and the
//! real finance_zh_rules corpus with its 100 real task queries when ../shared is present.
//!
//! Run: `cargo bench -p anser-indexer --bench bm25_vs_fts5`

use std::{path::Path, time::Instant};

use anser_indexer::{
    Analyzer, Bm25Params, Chunking, Tokens,
    bm25::{Bm25Index, Bm25Writer},
    corpus_file,
    units::{Unit, read_units},
};
use anser_manifest::{Route, load_public_tasks};
use anser_samples::{SampleOptions, Size, generate};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn bench_route(name: &str, units: &[Unit], queries: &[String]) {
    let analyzer = Analyzer::ZhBigram;
    let tmp = tempfile::tempdir().expect("tmp");

    // tantivy + our BM25 (k1 1.2, b 0.75, FTS5 idf: the same ranking function).
    let t0 = Instant::now();
    let mut w = Bm25Writer::create(tmp.path(), analyzer, 1).expect("writer");
    for u in units {
        w.add(u, &anser_indexer::UnitAttrs { date: u.date, evidence: 0 }).expect("add");
    }
    w.finish().expect("commit");
    let tantivy_build = t0.elapsed().as_secs_f64();
    let index = Bm25Index::open(tmp.path(), analyzer).expect("open");
    let params = Bm25Params::new(1.2, 0.75, anser_indexer::Idf::Fts5).expect("params");

    // SQLite FTS5, the official baseline's scheme.
    let t0 = Instant::now();
    let conn = rusqlite::Connection::open(tmp.path().join("fts5.sqlite")).expect("sqlite");
    conn.execute_batch("CREATE VIRTUAL TABLE u USING fts5(terms, content='', tokenize='unicode61'); BEGIN;")
        .expect("fts5");
    let mut tokens = Tokens::new(analyzer);
    {
        let mut ins = conn.prepare("INSERT INTO u(rowid, terms) VALUES (?1, ?2)").expect("prepare");
        for u in units {
            ins.execute((i64::from(u.ord) + 1, tokens.terms(&u.text).join(" "))).expect("insert");
        }
    }
    conn.execute_batch("COMMIT;").expect("commit");
    let fts_build = t0.elapsed().as_secs_f64();

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let mut same_top1 = 0usize;
    let mut stmt = conn.prepare("SELECT rowid FROM u WHERE u MATCH ?1 ORDER BY rank LIMIT 10").expect("prepare");
    for q in queries {
        let t0 = Instant::now();
        let hits = index.search(q, 10, &params).expect("search");
        ours.push(t0.elapsed().as_secs_f64() * 1e3);
        let t0 = Instant::now();
        let terms = tokens.terms(q);
        let mut seen = std::collections::HashSet::new();
        let fq = terms
            .iter()
            .filter(|t| seen.insert((*t).clone()))
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(" OR ");
        let rows: Vec<i64> = if fq.is_empty() {
            Vec::new()
        } else {
            stmt.query_map([&fq], |r| r.get(0)).expect("query").map(|r| r.expect("row")).collect()
        };
        theirs.push(t0.elapsed().as_secs_f64() * 1e3);
        if hits.first().map(|h| i64::from(h.ord) + 1) == rows.first().copied() {
            same_top1 += 1;
        }
    }
    ours.sort_by(f64::total_cmp);
    theirs.sort_by(f64::total_cmp);
    println!(
        "| {name} | {} | {} | {:.2} s | {:.2} s | {:.2} / {:.2} ms | {:.2} / {:.2} ms | {same_top1}/{} |",
        units.len(),
        queries.len(),
        tantivy_build,
        fts_build,
        percentile(&ours, 0.5),
        percentile(&ours, 0.95),
        percentile(&theirs, 0.5),
        percentile(&theirs, 0.95),
        queries.len()
    );
}

fn units_of(root: &Path, route: Route) -> Vec<Unit> {
    let mut units = Vec::new();
    read_units(
        route,
        &corpus_file(root, route),
        Chunking::default(),
        |u| {
            units.push(u);
            Ok(())
        },
        || {},
    )
    .expect("units");
    units
}

fn queries_of(query_dir: &Path, route: Route) -> Vec<String> {
    load_public_tasks(query_dir)
        .expect("tasks")
        .into_iter()
        .filter(|t| t.route == route)
        .map(|t| format!("{}\n{}", t.query, t.instruction))
        .collect()
}

fn main() {
    println!(
        "| corpus | units | queries | build tantivy | build FTS5 | query p50/p95 tantivy | query p50/p95 FTS5 | same top-1 |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let sample = tempfile::tempdir().expect("tmp");
    let summary = generate(&SampleOptions { size: Size::Medium, ..Default::default() }, sample.path()).expect("sample");
    for route in [Route::LegalZhCases, Route::FinanceZhReports] {
        let units = units_of(&summary.corpus_dir(), route);
        let queries = queries_of(&summary.query_dir(), route);
        bench_route(&format!("medium sample {route}"), &units, &queries);
    }
    if let Some(shared) = anser_manifest::shared_dir() {
        let units = units_of(&shared.join("anser/corpus"), Route::FinanceZhRules);
        let queries = queries_of(&shared.join("anser/query"), Route::FinanceZhRules);
        bench_route("real finance_zh_rules", &units, &queries);
    }
}
