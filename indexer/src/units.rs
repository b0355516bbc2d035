//! Retrieval units of a route, read from its corpus file as the manifest defines them: each
//! record's text columns joined by newlines (empty and null values dropped, nested JSON such as
//! article sections flattened in order), cut into [`Chunking`] windows, each window carrying the
//! identifiers of every evidence kind the route is scored on and its record's dates (as the
//! manifest's `dated` entry of the route reads them). Rows the manifest excludes (finance
//! reports with `split = 'ground_truth'` and the rows that follow them, by the one rule
//! `RouteSpec::exclusion_filter`) are never read.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    io::BufRead,
    path::Path,
};

use rusqlite::types::ValueRef;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use anser_manifest::{
    CorpusFormat, DatedTable, Dating, Manifest, Route, RouteSpec, UnitSpec,
    boundary::{RecordDate, date_text},
    open_sqlite_readonly,
};

use crate::{
    Chunking, Error, Result,
    evidence::{EvidenceSource, evidence_source, law_item},
};

/// One retrievable window of one record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    /// Position in the route's unit store (0-based, dense).
    pub ord: u32,
    /// The manifest's unit name (`regulatory_rule`, `filing_section`, ...).
    pub kind: String,
    /// The record's `id_column` value as text.
    pub record_id: String,
    /// Window number within the record (0-based).
    pub chunk: u32,
    pub text: String,
    /// Identifier per evidence kind name (raw value, or `{"item", "law"}` for rules).
    pub evidence: BTreeMap<String, Value>,
    /// The dates of the unit's record (undated on routes the manifest does not date).
    #[serde(default)]
    pub date: RecordDate,
}

impl Unit {
    /// `<record id>:<chunk>`, the official baseline's `retrieval_id`.
    pub fn retrieval_id(&self) -> String {
        format!("{}:{}", self.record_id, self.chunk)
    }
}

/// Counts of a read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadStats {
    pub records: u64,
    pub units: u64,
    /// Records skipped because the manifest excludes them.
    pub excluded: u64,
}

/// Evidence kinds a route is scored on (over every group and type that maps to it).
pub fn route_evidence_kinds(route: Route) -> BTreeSet<String> {
    let m = Manifest::get();
    let mut out = BTreeSet::new();
    for group in anser_manifest::TaskGroup::all() {
        let spec = m.group(group);
        for ty in &spec.types {
            let task_type = (ty != "null").then_some(ty.as_str());
            if let Ok(r) = m.resolve("", group, task_type) {
                if r.route == route {
                    out.insert(r.evidence.name.clone());
                }
            }
        }
    }
    out
}

/// Number of records the route's units come from (for progress bars).
pub fn count_records(route: Route, corpus_file: &Path) -> Result<u64> {
    let spec = Manifest::get().route(route);
    match spec.format {
        CorpusFormat::Jsonl => {
            let file = fs_err::File::open(corpus_file)?;
            let mut n = 0u64;
            for line in std::io::BufReader::new(file).lines() {
                if !line?.trim().is_empty() {
                    n += 1;
                }
            }
            Ok(n)
        }
        CorpusFormat::Sqlite => {
            let conn = open(corpus_file)?;
            let mut n = 0u64;
            for unit in &spec.units {
                let sql = format!("SELECT count(*) FROM \"{}\"", unit.source);
                let c: i64 = conn.query_row(&sql, [], |r| r.get(0)).map_err(|e| sql_err(corpus_file, e))?;
                n += c.max(0) as u64;
            }
            Ok(n)
        }
    }
}

/// Read every unit of `route` from `corpus_file`, calling `sink` once per unit in order, and
/// `on_record` once per record read (for progress).
pub fn read_units(
    route: Route,
    corpus_file: &Path,
    chunking: Chunking,
    mut sink: impl FnMut(Unit) -> Result<()>,
    mut on_record: impl FnMut(),
) -> Result<ReadStats> {
    let spec = Manifest::get().route(route);
    if !corpus_file.is_file() {
        return Err(Error::Corpus {
            path: corpus_file.to_path_buf(),
            message: format!("corpus file of route {route} not found; check --corpus-root"),
        });
    }
    let kinds = route_evidence_kinds(route);
    let mut stats = ReadStats::default();
    let mut ord = 0u32;
    let mut emit =
        |unit_spec: &UnitSpec, record_id: String, text: String, evidence: BTreeMap<String, Value>, date: RecordDate| {
            stats.records += 1;
            for (chunk, window) in chunking.chunks(&text).into_iter().enumerate() {
                sink(Unit {
                    ord,
                    kind: unit_spec.name.clone(),
                    record_id: record_id.clone(),
                    chunk: chunk as u32,
                    text: window,
                    evidence: evidence.clone(),
                    date,
                })?;
                ord =
                    ord.checked_add(1).ok_or_else(|| Error::Param("more than 4 billion units in one route".into()))?;
                stats.units += 1;
            }
            Ok::<(), Error>(())
        };
    match spec.format {
        CorpusFormat::Jsonl => {
            let unit_spec = spec.units.first().ok_or_else(|| Error::Param(format!("route {route} has no units")))?;
            read_jsonl(spec, unit_spec, corpus_file, &kinds, &mut |id, text, ev, date| {
                on_record();
                emit(unit_spec, id, text, ev, date)
            })?;
        }
        CorpusFormat::Sqlite => {
            let conn = open(corpus_file)?;
            let dates = match &spec.dated {
                Some(Dating::Table(dated)) => Some(record_dates(&conn, dated, corpus_file)?),
                _ => None,
            };
            for unit_spec in &spec.units {
                let dating = match (&spec.dated, &dates) {
                    (Some(Dating::Table(dated)), Some(dates)) => Some((dated.key.as_str(), dates)),
                    _ => None,
                };
                let mut sink = |id, text, ev, date| {
                    on_record();
                    emit(unit_spec, id, text, ev, date)
                };
                stats.excluded += read_sqlite(&conn, spec, unit_spec, corpus_file, &kinds, dating, &mut sink)?;
            }
        }
    }
    Ok(stats)
}

type RecordSink<'a> = dyn FnMut(String, String, BTreeMap<String, Value>, RecordDate) -> Result<()> + 'a;

/// Key of the dated table → the record's dates, evaluated with the manifest's SQL expressions
/// (the same ones the SQL views filter with).
type RecordDates = HashMap<String, RecordDate>;

fn record_dates(conn: &rusqlite::Connection, dated: &DatedTable, path: &Path) -> Result<RecordDates> {
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let sql = format!("SELECT {}, ({}), ({}) FROM {}", q(&dated.key), dated.year_sql, dated.date_sql, q(&dated.table));
    let mut stmt = conn.prepare(&sql).map_err(|e| sql_err(path, e))?;
    let mut rows = stmt.query([]).map_err(|e| sql_err(path, e))?;
    let mut out = HashMap::new();
    while let Some(r) = rows.next().map_err(|e| sql_err(path, e))? {
        let get = |i: usize| r.get_ref(i).map(sql_value).map_err(|e| sql_err(path, e));
        let Some(key) = scalar_text(&get(0)?) else { continue };
        let year = get(1)?.as_i64();
        let date = scalar_text(&get(2)?);
        out.insert(key, RecordDate::of_parts(year, date.as_deref()));
    }
    Ok(out)
}

fn open(path: &Path) -> Result<rusqlite::Connection> {
    open_sqlite_readonly(path).map_err(|message| Error::Corpus { path: path.to_path_buf(), message })
}

fn sql_err(path: &Path, e: rusqlite::Error) -> Error {
    Error::Sqlite { path: path.to_path_buf(), message: e.to_string() }
}

/// Text of a JSON value: strings as they are, numbers and booleans rendered, null dropped,
/// arrays and objects flattened (values in order, one per line).
fn json_text(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Null => {}
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Bool(b) => out.push(if *b { "True".into() } else { "False".into() }),
        Value::Array(items) => items.iter().for_each(|i| json_text(i, out)),
        Value::Object(map) => map.values().for_each(|i| json_text(i, out)),
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn join_parts(parts: Vec<String>) -> String {
    parts.into_iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n")
}

fn read_jsonl(
    spec: &RouteSpec,
    unit: &UnitSpec,
    path: &Path,
    kinds: &BTreeSet<String>,
    sink: &mut RecordSink<'_>,
) -> Result<()> {
    let sources: Vec<(String, EvidenceSource)> =
        kinds.iter().filter_map(|k| evidence_source(k, &unit.source).map(|s| (k.clone(), s))).collect();
    let file = fs_err::File::open(path)?;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let bad =
            |message: String| Error::Corpus { path: path.to_path_buf(), message: format!("line {}: {message}", n + 1) };
        let row: Value = serde_json::from_str(&line).map_err(|e| bad(format!("invalid JSON: {e}")))?;
        let obj = row.as_object().ok_or_else(|| bad("expected a JSON object".into()))?;
        let id = obj
            .get(&unit.id_column)
            .and_then(scalar_text)
            .ok_or_else(|| bad(format!("field `{}` is missing or not a string/number", unit.id_column)))?;
        let mut parts = Vec::new();
        for col in &unit.text_columns {
            if let Some(v) = obj.get(col) {
                json_text(v, &mut parts);
            }
        }
        let mut evidence = BTreeMap::new();
        for (kind, source) in &sources {
            let value = match source {
                EvidenceSource::Column(c) => obj.get(*c).filter(|v| !v.is_null()).cloned(),
                EvidenceSource::LawItem { law, item } => {
                    match (obj.get(*law).and_then(scalar_text), obj.get(*item).and_then(scalar_text)) {
                        (Some(l), Some(i)) => Some(law_item(&l, &i)),
                        _ => None,
                    }
                }
                EvidenceSource::Lookup { .. } => {
                    return Err(Error::Param(format!("route {}: lookups need a SQLite corpus", spec.route)));
                }
            };
            if let Some(v) = value {
                evidence.insert(kind.clone(), v);
            }
        }
        let date = match &spec.dated {
            Some(Dating::Field(f)) => obj.get(&f.field).and_then(date_text).map(|t| RecordDate::parse(&t)),
            _ => None,
        };
        sink(id, join_parts(parts), evidence, date.unwrap_or_default())?;
    }
    Ok(())
}

fn sql_value(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null | ValueRef::Blob(_) => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => Value::from(f),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
    }
}

/// Read one unit kind from SQLite; returns the number of excluded records.
fn read_sqlite(
    conn: &rusqlite::Connection,
    spec: &RouteSpec,
    unit: &UnitSpec,
    path: &Path,
    kinds: &BTreeSet<String>,
    dating: Option<(&str, &RecordDates)>,
    sink: &mut RecordSink<'_>,
) -> Result<u64> {
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let sources: Vec<(String, EvidenceSource)> =
        kinds.iter().filter_map(|k| evidence_source(k, &unit.source).map(|s| (k.clone(), s))).collect();
    // Columns to select: id, text columns, then every column evidence needs from the row.
    let mut columns: Vec<String> = vec![unit.id_column.clone()];
    columns.extend(unit.text_columns.iter().cloned());
    let mut lookups: HashMap<String, HashMap<String, Value>> = HashMap::new();
    for (kind, source) in &sources {
        match source {
            EvidenceSource::Column(c) => columns.push((*c).to_string()),
            EvidenceSource::LawItem { law, item } => {
                columns.push((*law).to_string());
                columns.push((*item).to_string());
            }
            EvidenceSource::Lookup { table, key, value, unit_key } => {
                columns.push((*unit_key).to_string());
                let sql = format!("SELECT {}, {} FROM {}", q(key), q(value), q(table));
                let mut stmt = conn.prepare(&sql).map_err(|e| sql_err(path, e))?;
                let mut rows = stmt.query([]).map_err(|e| sql_err(path, e))?;
                let mut map = HashMap::new();
                while let Some(r) = rows.next().map_err(|e| sql_err(path, e))? {
                    let k = sql_value(r.get_ref(0).map_err(|e| sql_err(path, e))?);
                    let v = sql_value(r.get_ref(1).map_err(|e| sql_err(path, e))?);
                    if let Some(k) = scalar_text(&k) {
                        map.insert(k, v);
                    }
                }
                lookups.insert(kind.clone(), map);
            }
        }
    }
    // The manifest's exclusion rule for this table (`anser_manifest` owns it; the SQL views
    // build theirs from the same rule). Count the hidden records, then read the others.
    let keep = spec.exclusion_filter(&unit.source).map_err(|e| Error::Param(format!("unit {}: {e}", unit.name)))?;
    let mut where_clause = String::new();
    let mut excluded = 0u64;
    if let Some(keep) = &keep {
        // A NULL condition (a NULL key) hides the row as well, so it counts as excluded.
        let count_sql = format!("SELECT count(*) FROM {} WHERE COALESCE(({keep}), 0) = 0", q(&unit.source));
        let n: i64 = conn.query_row(&count_sql, [], |r| r.get(0)).map_err(|e| sql_err(path, e))?;
        excluded = n.max(0) as u64;
        where_clause = format!(" WHERE {keep}");
    }
    // Last column: the key of the record's date (the dated table's key, also in child tables).
    let date_col = dating.map(|(key, _)| {
        columns.push(key.to_string());
        columns.len() - 1
    });
    let select: Vec<String> = columns.iter().map(|c| q(c)).collect();
    let sql = format!("SELECT {} FROM {}{where_clause} ORDER BY rowid", select.join(", "), q(&unit.source));
    let mut stmt = conn.prepare(&sql).map_err(|e| sql_err(path, e))?;
    let mut rows = stmt.query([]).map_err(|e| sql_err(path, e))?;
    let n_text = unit.text_columns.len();
    while let Some(r) = rows.next().map_err(|e| sql_err(path, e))? {
        let get = |i: usize| r.get_ref(i).map(sql_value).map_err(|e| sql_err(path, e));
        let id_value = get(0)?;
        let Some(id) = scalar_text(&id_value) else { continue };
        let mut parts = Vec::new();
        for i in 0..n_text {
            json_text(&get(1 + i)?, &mut parts);
        }
        let mut evidence = BTreeMap::new();
        let mut col = 1 + n_text;
        for (kind, source) in &sources {
            let value = match source {
                EvidenceSource::Column(_) => {
                    col += 1;
                    Some(get(col - 1)?).filter(|v| !v.is_null())
                }
                EvidenceSource::LawItem { .. } => {
                    col += 2;
                    match (scalar_text(&get(col - 2)?), scalar_text(&get(col - 1)?)) {
                        (Some(l), Some(i)) => Some(law_item(&l, &i)),
                        _ => None,
                    }
                }
                EvidenceSource::Lookup { .. } => {
                    col += 1;
                    let key = scalar_text(&get(col - 1)?);
                    key.and_then(|k| lookups.get(kind).and_then(|m| m.get(&k)).cloned()).filter(|v| !v.is_null())
                }
            };
            if let Some(v) = value {
                evidence.insert(kind.clone(), v);
            }
        }
        let date = match (date_col, dating) {
            (Some(c), Some((_, dates))) => scalar_text(&get(c)?).and_then(|k| dates.get(&k).copied()),
            _ => None,
        };
        sink(id, join_parts(parts), evidence, date.unwrap_or_default())?;
    }
    Ok(excluded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_flatten_in_order() {
        let v: Value = serde_json::from_str(r#"[{"heading": "Intro", "text": "Body"}, {"heading": null, "text": 3}]"#)
            .expect("json");
        let mut out = Vec::new();
        json_text(&v, &mut out);
        assert_eq!(out, vec!["Intro", "Body", "3"]);
        assert_eq!(join_parts(vec![" a ".into(), "".into(), "b".into()]), "a\nb");
    }

    #[test]
    fn routes_serve_their_groups_kinds() {
        let kinds = route_evidence_kinds(Route::FinanceZhReports);
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), vec!["company_stock_code", "financial_report_zh"]);
        let kinds = route_evidence_kinds(Route::FinanceZhRules);
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), vec!["regulatory_rule"]);
    }
}
