//! Writing corpus files: SQLite databases whose tables are created from the manifest's
//! `schema.toml` (never from a column list typed here), and JSON-lines files.
//!
//! Determinism: a fresh file, a fixed page size, no journal, rows inserted in the order the
//! generators produce them, lookup indexes created from the manifest's joins after the rows.
//! Nothing time-dependent is written, so the same rows give the same bytes. Small and medium
//! samples are one transaction; the release size commits every [`RELEASE_COMMIT_ROWS`] rows
//! (a commit bumps the header's change counter, so the batching is part of the release bytes
//! and never applied to the pinned sizes). JSON-lines files are written record by record.

use std::{
    io::{BufWriter, Write},
    path::{Path, PathBuf},
};

use anser_manifest::{Manifest, Route, TableSpec};
use rusqlite::{Connection, types::Value};
use serde::Serialize;

use crate::{Error, Result};

/// Page size of every generated database.
pub const PAGE_SIZE: u32 = 4096;

/// Rows per transaction at release size: large enough that commits cost little, small enough
/// that no transaction holds much more than SQLite's page cache.
pub const RELEASE_COMMIT_ROWS: u64 = 50_000;

/// A text value.
pub fn t(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

/// An integer value.
pub fn i(n: i64) -> Value {
    Value::Integer(n)
}

/// A real value.
pub fn r(x: f64) -> Value {
    Value::Real(x)
}

/// A real value or NULL.
pub fn opt_r(x: Option<f64>) -> Value {
    x.map_or(Value::Null, Value::Real)
}

/// A text value or NULL.
pub fn opt_t(s: Option<String>) -> Value {
    s.map_or(Value::Null, Value::Text)
}

/// A database being written for one route.
#[derive(Debug)]
pub struct DbWriter {
    conn: Connection,
    path: PathBuf,
    route: Route,
    rows: u64,
    /// Commit after this many rows (`None`: one transaction).
    commit_every: Option<u64>,
}

impl DbWriter {
    /// The route's database under the corpus root `corpus` (see [`DbWriter::create`]).
    pub fn in_corpus(corpus: &Path, route: Route, scale: &crate::Scale) -> Result<DbWriter> {
        DbWriter::create(&corpus.join(&Manifest::get().route(route).file), route, scale)
    }

    /// Create `path` (which must not exist) with every table of the route's schema.
    pub fn create(path: &Path, route: Route, scale: &crate::Scale) -> Result<DbWriter> {
        if path.exists() {
            return Err(Error::bug(format!("{} already exists in a fresh output folder", path.display())));
        }
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent)?;
        }
        let sql_err = |source| Error::Sqlite { path: path.to_path_buf(), source };
        let conn = Connection::open(path).map_err(sql_err)?;
        conn.execute_batch(&format!(
            "PRAGMA page_size = {PAGE_SIZE}; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; \
             PRAGMA encoding = 'UTF-8';"
        ))
        .map_err(sql_err)?;
        let spec = Manifest::get().route(route);
        for table in &spec.schema.tables {
            conn.execute_batch(&create_table_sql(table)).map_err(sql_err)?;
        }
        conn.execute_batch("BEGIN").map_err(sql_err)?;
        let commit_every = scale.release.map(|_| RELEASE_COMMIT_ROWS);
        Ok(DbWriter { conn, path: path.to_path_buf(), route, rows: 0, commit_every })
    }

    fn sql_err(&self, source: rusqlite::Error) -> Error {
        Error::Sqlite { path: self.path.clone(), source }
    }

    /// Whether `table` of this route's schema has `column`.
    pub fn has_column(&self, table: &str, column: &str) -> bool {
        Manifest::get()
            .route(self.route)
            .schema
            .tables
            .iter()
            .any(|t| t.name == table && t.columns.iter().any(|c| c.name == column))
    }

    /// Insert one row into `table`; `fields` name columns of the schema. Columns not named are
    /// NULL; naming an unknown column or leaving a NOT NULL column empty is a generator bug.
    pub fn insert(&mut self, table: &str, fields: &[(&str, Value)]) -> Result<()> {
        let spec = Manifest::get().route(self.route);
        let Some(ts) = spec.schema.tables.iter().find(|t| t.name == table) else {
            return Err(Error::bug(format!("{}: no table {table} in the schema", spec.file)));
        };
        let mut values = vec![Value::Null; ts.columns.len()];
        for (name, value) in fields {
            let Some(pos) = ts.columns.iter().position(|c| c.name == *name) else {
                return Err(Error::bug(format!("{}: table {table} has no column {name}", spec.file)));
            };
            values[pos] = value.clone();
        }
        if let Some(c) = ts.columns.iter().zip(&values).find(|(c, v)| c.not_null && **v == Value::Null) {
            return Err(Error::bug(format!("{}: {table}.{} is NOT NULL but was left empty", spec.file, c.0.name)));
        }
        let placeholders = vec!["?"; values.len()].join(", ");
        let sql = format!("INSERT INTO \"{table}\" VALUES ({placeholders})");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.sql_err(e))?;
        stmt.execute(rusqlite::params_from_iter(values.iter())).map_err(|e| self.sql_err(e))?;
        drop(stmt);
        self.rows += 1;
        if self.commit_every.is_some_and(|n| self.rows % n == 0) {
            self.conn.execute_batch("COMMIT; BEGIN").map_err(|e| self.sql_err(e))?;
        }
        Ok(())
    }

    /// Create lookup indexes for the manifest's joins, commit and close. Returns rows written.
    pub fn finish(self) -> Result<u64> {
        let spec = Manifest::get().route(self.route);
        let mut indexes = Vec::new();
        for join in &spec.joins {
            for side in join.split('=').map(str::trim) {
                let Some((table, column)) = side.split_once('.') else { continue };
                let is_sole_pk = spec.schema.tables.iter().any(|t| {
                    t.name == table && t.columns.iter().filter(|c| c.pk > 0).map(|c| c.name.as_str()).eq([column])
                });
                let name = format!("idx_{table}_{column}");
                if !is_sole_pk && !indexes.contains(&name) {
                    self.conn
                        .execute_batch(&format!("CREATE INDEX \"{name}\" ON \"{table}\"(\"{column}\")"))
                        .map_err(|e| self.sql_err(e))?;
                    indexes.push(name);
                }
            }
        }
        self.conn.execute_batch("COMMIT").map_err(|e| self.sql_err(e))?;
        let rows = self.rows;
        let path = self.path.clone();
        self.conn.close().map_err(|(_, source)| Error::Sqlite { path, source })?;
        Ok(rows)
    }
}

fn create_table_sql(table: &TableSpec) -> String {
    let mut pk: Vec<_> = table.columns.iter().filter(|c| c.pk > 0).collect();
    pk.sort_by_key(|c| c.pk);
    let mut parts: Vec<String> = table
        .columns
        .iter()
        .map(|c| {
            let mut s = format!("\"{}\" {}", c.name, c.decl_type);
            if c.not_null {
                s.push_str(" NOT NULL");
            }
            s
        })
        .collect();
    if !pk.is_empty() {
        let cols: Vec<String> = pk.iter().map(|c| format!("\"{}\"", c.name)).collect();
        parts.push(format!("PRIMARY KEY ({})", cols.join(", ")));
    }
    format!("CREATE TABLE \"{}\" (\n  {}\n);", table.name, parts.join(",\n  "))
}

/// Write one JSON object per line; returns the number of records.
pub fn write_jsonl<T: Serialize>(path: &Path, records: &[T]) -> Result<u64> {
    let mut out = JsonlWriter::create(path)?;
    for record in records {
        out.write(record)?;
    }
    out.finish()
}

/// A JSON-lines file written one record at a time (a corpus is never held whole).
#[derive(Debug)]
pub struct JsonlWriter {
    out: BufWriter<fs_err::File>,
    path: PathBuf,
    rows: u64,
}

impl JsonlWriter {
    /// Create `path` and its folders.
    pub fn create(path: &Path) -> Result<JsonlWriter> {
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent)?;
        }
        Ok(JsonlWriter { out: BufWriter::new(fs_err::File::create(path)?), path: path.to_path_buf(), rows: 0 })
    }

    /// Append one record as a line.
    pub fn write<T: Serialize>(&mut self, record: &T) -> Result<()> {
        serde_json::to_writer(&mut self.out, record)
            .map_err(|source| Error::Json { path: self.path.clone(), source })?;
        self.out.write_all(b"\n")?;
        self.rows += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Flush; returns the number of records.
    pub fn finish(mut self) -> Result<u64> {
        self.out.flush()?;
        Ok(self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composite_primary_keys_follow_schema_positions() {
        let spec = Manifest::get().route(Route::FinanceEnReports);
        let sections = spec.schema.tables.iter().find(|t| t.name == "sections").expect("sections table");
        let sql = create_table_sql(sections);
        assert!(sql.contains("PRIMARY KEY (\"accession\", \"section_name\")"), "{sql}");
        assert!(sql.contains("\"text\" TEXT NOT NULL"), "{sql}");
    }

    #[test]
    fn unknown_columns_and_missing_not_null_values_are_rejected() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("p.sqlite");
        let mut db = DbWriter::create(&path, Route::LegalEnPrecedents, &crate::Scale::SMALL).expect("create");
        let err = db.insert("documents", &[("docid", t("1")), ("nope", t("x"))]).expect_err("unknown column");
        assert!(err.to_string().contains("no column nope"), "{err}");
        let err = db.insert("documents", &[("docid", t("1"))]).expect_err("not null");
        assert!(err.to_string().contains("case_text"), "{err}");
        db.insert("documents", &[("docid", t("1")), ("case_text", t("x")), ("corpus_role", t("precedent"))])
            .expect("valid row");
        assert_eq!(db.finish().expect("finish"), 1);
    }
}
