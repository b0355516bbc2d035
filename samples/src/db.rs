//! Writing corpus files: SQLite databases whose tables are created from the manifest's
//! `schema.toml` (never from a column list typed here), and JSON-lines files.
//!
//! Determinism: a fresh file, a fixed page size, no journal, one transaction, rows inserted in
//! the order the generators produce them, lookup indexes created from the manifest's joins after
//! the rows. Nothing time-dependent is written, so the same rows give the same bytes.

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
}

impl DbWriter {
    /// Create `path` (which must not exist) with every table of the route's schema.
    pub fn create(path: &Path, route: Route) -> Result<DbWriter> {
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
        Ok(DbWriter { conn, path: path.to_path_buf(), route, rows: 0 })
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
    if let Some(parent) = path.parent() {
        fs_err::create_dir_all(parent)?;
    }
    let mut out = BufWriter::new(fs_err::File::create(path)?);
    for record in records {
        serde_json::to_writer(&mut out, record).map_err(|source| Error::Json { path: path.to_path_buf(), source })?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(records.len() as u64)
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
        let mut db = DbWriter::create(&path, Route::LegalEnPrecedents).expect("create");
        let err = db.insert("documents", &[("docid", t("1")), ("nope", t("x"))]).expect_err("unknown column");
        assert!(err.to_string().contains("no column nope"), "{err}");
        let err = db.insert("documents", &[("docid", t("1"))]).expect_err("not null");
        assert!(err.to_string().contains("case_text"), "{err}");
        db.insert("documents", &[("docid", t("1")), ("case_text", t("x")), ("corpus_role", t("precedent"))])
            .expect("valid row");
        assert_eq!(db.finish().expect("finish"), 1);
    }
}
