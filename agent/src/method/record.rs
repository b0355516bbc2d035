//! The `open` tool: the whole record behind an evidence id of the task's route, read from the
//! corpus itself (SQLite through the guarded connection, so hidden rows stay hidden; JSONL by a
//! scan of the file, refusing a dated record outside the task's information boundary).

use std::{io::BufRead, path::Path};

use anser_manifest::{CorpusFormat, Manifest, PublicTask};
use serde_json::{Map, Value};

use crate::{
    Error, Result,
    tools::{
        boundary::{Boundary, date_text, dated_field},
        sql::GuardedDb,
    },
};

/// Most records returned for one id (several rows can share a report or case id).
pub const MAX_OPENED_ROWS: usize = 5;

/// The identifier text of an evidence item: a scalar, the first id-like key of an object, or
/// `law\u{1f}item` for `{"law", "item"}` objects.
pub fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(m) => {
            let law = m.get("law").or_else(|| m.get("law_name")).and_then(Value::as_str);
            if let (Some(law), Some(item)) = (law, m.get("item").and_then(Value::as_str)) {
                return Some(format!("{law}\u{1f}{item}"));
            }
            ["id", "accession", "cik", "stock_code", "FACT_id", "docid", "anhao", "cluster_id"]
                .iter()
                .find_map(|k| m.get(*k))
                .and_then(id_text)
        }
        _ => None,
    }
}

/// The record(s) with identifier `id` in the task's route, or `None`.
pub fn open_record(corpus_root: &Path, task: &PublicTask, db: Option<&GuardedDb>, id: &str) -> Result<Option<Value>> {
    let spec = Manifest::get().route(task.route);
    match (spec.format, db) {
        (CorpusFormat::Sqlite, Some(db)) => {
            let literal = id.replace('\'', "''");
            for unit in &spec.units {
                let sql = format!(
                    "SELECT * FROM \"{}\" WHERE CAST(\"{}\" AS TEXT) = '{literal}' LIMIT {MAX_OPENED_ROWS}",
                    unit.source, unit.id_column
                );
                let result = db.query(&sql)?;
                if !result.rows.is_empty() {
                    let rows: Vec<Value> = result
                        .rows
                        .into_iter()
                        .map(|r| Value::Object(result.columns.iter().cloned().zip(r).collect::<Map<String, Value>>()))
                        .collect();
                    return Ok(Some(Value::Array(rows)));
                }
            }
            Ok(None)
        }
        (CorpusFormat::Sqlite, None) => Err(Error::NotSqlite(task.route)),
        (CorpusFormat::Jsonl, _) => {
            let path = corpus_root.join(&spec.file);
            let id_column = spec.units.first().map(|u| u.id_column.as_str()).unwrap_or("id");
            let file = fs_err::File::open(&path)?;
            for line in std::io::BufReader::new(file).lines() {
                let line = line?;
                let Ok(Value::Object(record)) = serde_json::from_str::<Value>(&line) else { continue };
                let this = match id.split_once('\u{1f}') {
                    Some((law, item)) => {
                        record.get("law_name").and_then(Value::as_str) == Some(law)
                            && record.get("item").and_then(Value::as_str) == Some(item)
                    }
                    None => record.get(id_column).and_then(id_text).as_deref() == Some(id),
                };
                if this {
                    if let (Some(boundary), Some(field)) = (Boundary::from_task(task)?, dated_field(task.route)) {
                        let date = record.get(field).and_then(date_text).unwrap_or_default();
                        if !boundary.cutoff.admits(&date) {
                            return Err(Error::Param(format!(
                                "record {id} ({field} {date:?}) lies outside the task's information boundary {}",
                                serde_json::to_string(&boundary.cutoff).unwrap_or_default()
                            )));
                        }
                    }
                    return Ok(Some(Value::Object(record)));
                }
            }
            Ok(None)
        }
    }
}
