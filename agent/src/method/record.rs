//! The `open` tool: the whole record behind an evidence id of the task's route, read from the
//! corpus itself (SQLite through the guarded connection, so hidden rows stay hidden; JSONL through
//! a [`JsonlIndex`] built by one scan of the file per process, refusing a dated record outside
//! the task's information boundary with the same [`Cutoff::admits`] check the indexes'
//! filters use, on the date field the manifest names).
//!
//! [`Cutoff::admits`]: crate::tools::boundary::Cutoff::admits

use std::{
    collections::HashMap,
    io::{BufRead, Seek, SeekFrom},
    path::{Path, PathBuf},
    sync::{Arc, Mutex, OnceLock},
};

use anser_manifest::{CorpusFormat, Manifest, PublicTask, Route};
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
            // Any kind's identity keys (manifest data), the official reading order first.
            Manifest::get().all_id_keys().into_iter().find_map(|k| m.get(k)).and_then(id_text)
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
            let Some(&offset) = jsonl_index(corpus_root, task.route)?.offsets.get(id) else { return Ok(None) };
            let mut file = fs_err::File::open(&path)?;
            file.seek(SeekFrom::Start(offset))?;
            let mut line = String::new();
            std::io::BufReader::new(file).read_line(&mut line)?;
            let Ok(Value::Object(record)) = serde_json::from_str::<Value>(&line) else {
                return Err(Error::Internal(format!(
                    "{}: record {id} moved; the file changed during the run",
                    path.display()
                )));
            };
            if let (Some(boundary), Some(field)) = (Boundary::from_task(task)?, dated_field(task.route)) {
                let date = record.get(field).and_then(date_text).unwrap_or_default();
                if !boundary.cutoff.admits(&date) {
                    return Err(Error::Param(format!(
                        "record {id} ({field} {date:?}) lies outside the task's information boundary {}",
                        serde_json::to_string(&boundary.cutoff).unwrap_or_default()
                    )));
                }
            }
            Ok(Some(Value::Object(record)))
        }
    }
}

/// Where the records of a JSONL corpus file are.
#[derive(Debug, Default)]
pub struct JsonlIndex {
    /// Id text (and `law\u{1f}item` for rules) → byte offset of the record's line.
    offsets: HashMap<String, u64>,
}

/// The [`JsonlIndex`] of `route`'s JSONL file under `corpus_root`, built by one scan per file
/// and process (corpus files are read-only during a run).
pub fn jsonl_index(corpus_root: &Path, route: Route) -> Result<Arc<JsonlIndex>> {
    type Cache = Mutex<HashMap<PathBuf, Arc<JsonlIndex>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let spec = Manifest::get().route(route);
    let path = corpus_root.join(&spec.file);
    let cache = CACHE.get_or_init(Cache::default);
    if let Some(index) = cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&path) {
        return Ok(index.clone());
    }
    let id_column = spec.units.first().map(|u| u.id_column.as_str()).unwrap_or("id");
    let mut reader = std::io::BufReader::new(fs_err::File::open(&path)?);
    let mut index = JsonlIndex::default();
    let (mut offset, mut line) = (0u64, String::new());
    loop {
        line.clear();
        let read = reader.read_line(&mut line)?;
        if read == 0 {
            break;
        }
        if let Ok(Value::Object(record)) = serde_json::from_str::<Value>(&line) {
            let law = record.get("law_name").and_then(Value::as_str);
            if let (Some(law), Some(item)) = (law, record.get("item").and_then(Value::as_str)) {
                index.offsets.entry(format!("{law}\u{1f}{item}")).or_insert(offset);
            }
            if let Some(id) = record.get(id_column).and_then(id_text) {
                index.offsets.entry(id).or_insert(offset);
            }
        }
        offset += read as u64;
    }
    let index = Arc::new(index);
    cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(path, index.clone());
    Ok(index)
}
