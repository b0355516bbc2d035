//! Fixture databases built from the manifest's schema (`Manifest::get().route(r).schema`):
//! every table of the route with its declared columns, rows linked along the manifest's joins,
//! dates spread over 2018–2024, and — on finance report routes — every fourth parent row in the
//! ground-truth split. Every text cell of a ground-truth row, and of any child row joined to
//! one, carries the marker [`SECRET`], so a test can assert it never comes back.

use std::{collections::HashMap, path::Path};

use anser_manifest::{CorpusFormat, Manifest, Route};
use rusqlite::{Connection, params_from_iter, types::Value as Sql};

/// Marker in every text cell of a hidden row.
pub const SECRET: &str = "SECRET_GT";
/// Parent rows per table (children have the same count, linked round-robin).
pub const ROWS: usize = 24;

fn year_of(i: usize) -> i64 {
    2018 + (i % 7) as i64
}

/// Write the route's fixture database to `path` with [`ROWS`] rows per table.
pub fn build(route: Route, path: &Path) {
    build_rows(route, path, ROWS);
}

/// Write the route's fixture database to `path` with `n` rows per table.
pub fn build_rows(route: Route, path: &Path, n: usize) {
    let spec = Manifest::get().route(route);
    assert_eq!(spec.format, CorpusFormat::Sqlite, "{route} is not a SQLite route");
    let conn = Connection::open(path).expect("create fixture db");
    // child table.column -> (parent table, parent column)
    let mut links: HashMap<(String, String), (String, String)> = HashMap::new();
    for j in &spec.joins {
        let (l, r) = j.split_once('=').expect("join");
        let (lt, lc) = l.trim().split_once('.').expect("left side");
        let (rt, rc) = r.trim().split_once('.').expect("right side");
        links.insert((rt.to_string(), rc.to_string()), (lt.to_string(), lc.to_string()));
    }
    let excl = spec.exclude.clone();
    // Parents before children (topological order along the joins).
    let mut tables = Vec::new();
    let mut pending: Vec<_> = spec.schema.tables.iter().collect();
    while !pending.is_empty() {
        let ready = pending
            .iter()
            .position(|t| {
                links.iter().all(|((ct, _), (pt, _))| {
                    ct != &t.name || tables.iter().any(|d: &&anser_manifest::TableSpec| &d.name == pt)
                })
            })
            .expect("joins form no cycle");
        tables.push(pending.remove(ready));
    }
    let mut values: HashMap<(String, String), Vec<Sql>> = HashMap::new();
    let mut secret_rows: HashMap<String, Vec<bool>> = HashMap::new();
    for t in tables {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| {
                let pk =
                    if c.pk == 1 && t.columns.iter().filter(|x| x.pk > 0).count() == 1 { " PRIMARY KEY" } else { "" };
                format!("\"{}\" {}{pk}", c.name, c.decl_type)
            })
            .collect();
        conn.execute_batch(&format!("CREATE TABLE \"{}\" ({})", t.name, cols.join(", "))).expect("create table");
        let mut secret = vec![false; n];
        let mut rows: Vec<Vec<Sql>> = vec![Vec::new(); n];
        for c in &t.columns {
            let link = links.get(&(t.name.clone(), c.name.clone())).cloned();
            for (i, row) in rows.iter_mut().enumerate() {
                let v = if let Some((pt, pc)) = &link {
                    let parent = &values[&(pt.clone(), pc.clone())];
                    let pi = (i * 7 + 3) % parent.len(); // a permutation while gcd(7, n) = 1
                    if secret_rows.get(pt).is_some_and(|s| s[pi]) {
                        secret[i] = true;
                    }
                    parent[pi].clone()
                } else if excl.as_ref().is_some_and(|e| e.table == t.name && e.column == c.name) {
                    let gt = i % 4 == 0;
                    secret[i] |= gt;
                    Sql::Text(if gt { "ground_truth".into() } else { "train".into() })
                } else if c.name.ends_with("_year") {
                    Sql::Integer(year_of(i))
                } else if [
                    "report_period",
                    "report_date",
                    "filing_date",
                    "disclosure_date",
                    "caipanriqi",
                    "decision_date",
                ]
                .contains(&c.name.as_str())
                {
                    let day = if c.name == "filing_date" || c.name == "disclosure_date" { "03-15" } else { "12-31" };
                    let y = if day == "03-15" { year_of(i) + 1 } else { year_of(i) };
                    Sql::Text(format!("{y}-{day}"))
                } else if c.decl_type == "INTEGER" {
                    Sql::Integer(i as i64 + 1)
                } else if c.decl_type == "REAL" {
                    Sql::Real(i as f64 * 1.5 + 1.0)
                } else {
                    Sql::Text(format!("{}_{}_{}", t.name, c.name, i))
                };
                row.push(v);
            }
        }
        // Mark the text of hidden rows (keys and dates stay as they are).
        for (i, row) in rows.iter_mut().enumerate() {
            if !secret[i] {
                continue;
            }
            for (c, v) in t.columns.iter().zip(row.iter_mut()) {
                if let Sql::Text(s) = v {
                    let is_link = links.contains_key(&(t.name.clone(), c.name.clone()));
                    let is_key = c.pk > 0 || excl.as_ref().is_some_and(|e| e.key == c.name || e.column == c.name);
                    if !is_link && !is_key && !c.name.contains("date") && c.name != "report_period" {
                        *s = format!("{SECRET} {s}");
                    }
                }
            }
        }
        let marks: Vec<String> = (1..=t.columns.len()).map(|i| format!("?{i}")).collect();
        let insert = format!("INSERT INTO \"{}\" VALUES ({})", t.name, marks.join(", "));
        conn.execute_batch("BEGIN").expect("begin");
        for row in &rows {
            conn.execute(&insert, params_from_iter(row.iter())).expect("insert row");
        }
        conn.execute_batch("COMMIT").expect("commit");
        for (ci, c) in t.columns.iter().enumerate() {
            values.insert((t.name.clone(), c.name.clone()), rows.iter().map(|r| r[ci].clone()).collect());
        }
        secret_rows.insert(t.name.clone(), secret);
    }
}

/// Number of parent rows of the fixture that are not ground truth.
pub fn visible_parents() -> usize {
    (0..ROWS).filter(|i| i % 4 != 0).count()
}
