//! Schema introspection for planning: the route's tables with their declared column types, a
//! few sample values per column, visible row counts, the joins, what is hidden and why, and —
//! on the legal case routes — the feature registry (English: `annotation_registry`; Chinese:
//! the feature keys of `case_features` with their most frequent values).
//!
//! Everything is read through the guarded connection, so samples and counts never show a
//! hidden row.

use anser_manifest::{Manifest, Route};
use serde::Serialize;
use serde_json::Value;

use super::{GuardedDb, HiddenRule, views::quote_ident};
use crate::{Result, tools::boundary::Boundary};

/// Registry entries listed at most.
pub const MAX_REGISTRY_ENTRIES: usize = 400;
/// Values listed per Chinese feature key.
pub const TOP_FEATURE_VALUES: usize = 8;
/// Characters kept of a sample value.
pub const SAMPLE_CHARS: usize = 60;
/// Rows scanned per column to find distinct samples.
const SAMPLE_SCAN_ROWS: usize = 64;

/// One column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub decl_type: String,
    pub samples: Vec<Value>,
}

/// One table as the caller sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableInfo {
    pub name: String,
    /// Rows visible to queries.
    pub rows: u64,
    /// Whether rows of this table are filtered (ground truth, cutoff).
    pub filtered: bool,
    pub columns: Vec<ColumnInfo>,
}

/// One feature the legal annotations use.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegistryEntry {
    pub key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_values: Option<String>,
    /// Annotated rows (Chinese registry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Most frequent values with their counts (Chinese registry).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub top_values: Vec<(String, u64)>,
}

/// The feature registry of a legal case route.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeatureRegistry {
    pub source: String,
    pub entries: Vec<RegistryEntry>,
    pub truncated: bool,
}

/// What the schema tool returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaReport {
    pub route: Route,
    pub description: String,
    pub tables: Vec<TableInfo>,
    pub joins: Vec<String>,
    pub hidden: Vec<HiddenRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundary: Option<Boundary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_registry: Option<FeatureRegistry>,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn shorten(v: Value) -> Value {
    match v {
        Value::String(s) if s.chars().count() > SAMPLE_CHARS => {
            Value::String(format!("{}…", s.chars().take(SAMPLE_CHARS).collect::<String>()))
        }
        other => other,
    }
}

pub(super) fn describe(db: &GuardedDb, samples_per_column: usize) -> Result<SchemaReport> {
    let spec = Manifest::get().route(db.route);
    let filtered: Vec<&str> = db.plan.filtered_tables().collect();
    let mut tables = Vec::new();
    for t in &spec.schema.tables {
        let name = quote_ident(&t.name);
        let count = db.query_with(&format!("SELECT count(*) FROM {name}"), 1)?;
        let rows = count.rows.first().and_then(|r| r.first()).and_then(Value::as_u64).unwrap_or(0);
        let mut columns = Vec::new();
        for c in &t.columns {
            let mut samples: Vec<Value> = Vec::new();
            if samples_per_column > 0 {
                let col = quote_ident(&c.name);
                let sql = format!("SELECT {col} FROM {name} WHERE {col} IS NOT NULL LIMIT {SAMPLE_SCAN_ROWS}");
                for row in db.query_with(&sql, SAMPLE_SCAN_ROWS)?.rows {
                    let v = row.into_iter().next().map(shorten).unwrap_or(Value::Null);
                    if !samples.contains(&v) {
                        samples.push(v);
                    }
                    if samples.len() == samples_per_column {
                        break;
                    }
                }
            }
            columns.push(ColumnInfo { name: c.name.clone(), decl_type: c.decl_type.clone(), samples });
        }
        tables.push(TableInfo { name: t.name.clone(), rows, filtered: filtered.contains(&t.name.as_str()), columns });
    }
    Ok(SchemaReport {
        route: db.route,
        description: spec.description.clone(),
        tables,
        joins: spec.joins.clone(),
        hidden: db.plan.rules.clone(),
        boundary: db.boundary.clone(),
        feature_registry: registry(db)?,
    })
}

fn registry(db: &GuardedDb) -> Result<Option<FeatureRegistry>> {
    let limit = MAX_REGISTRY_ENTRIES;
    match db.route {
        Route::LegalEnCases => {
            let res = db.query_with(
                "SELECT registry_type, registry_key, parent_key, display_name, value_type, allowed_values_json \
                 FROM annotation_registry ORDER BY registry_type, registry_key",
                limit,
            )?;
            let entries = res
                .rows
                .iter()
                .map(|r| RegistryEntry {
                    kind: r.first().and_then(text),
                    key: r.get(1).and_then(text).unwrap_or_default(),
                    parent: r.get(2).and_then(text),
                    name: r.get(3).and_then(text),
                    value_type: r.get(4).and_then(text),
                    allowed_values: r.get(5).and_then(text),
                    rows: None,
                    top_values: Vec::new(),
                })
                .collect();
            Ok(Some(FeatureRegistry { source: "annotation_registry".into(), entries, truncated: res.truncated }))
        }
        Route::LegalZhCases => {
            let res = db.query_with(
                "SELECT feature_key, count(*) FROM case_features WHERE feature_key IS NOT NULL \
                 GROUP BY feature_key ORDER BY count(*) DESC, feature_key",
                limit,
            )?;
            let keys: Vec<String> = res.rows.iter().map(|r| r.first().and_then(text).unwrap_or_default()).collect();
            // The top values of every listed key in one scan of case_features (the table has no
            // index on feature_key, so a query per key scanned it once per key: ~45 scans and
            // most of the schema tool's time on the sample).
            let listed: Vec<String> = keys.iter().map(|k| format!("'{}'", k.replace('\'', "''"))).collect();
            let sql = format!(
                "SELECT feature_key, feature_value, n FROM (SELECT feature_key, feature_value, count(*) AS n, \
                 row_number() OVER (PARTITION BY feature_key ORDER BY count(*) DESC, feature_value) AS rk \
                 FROM case_features WHERE feature_key IN ({}) GROUP BY feature_key, feature_value) \
                 WHERE rk <= {TOP_FEATURE_VALUES} ORDER BY feature_key, rk",
                listed.join(",")
            );
            let mut top: std::collections::HashMap<String, Vec<(String, u64)>> = std::collections::HashMap::new();
            if !keys.is_empty() {
                for v in db.query_with(&sql, keys.len() * TOP_FEATURE_VALUES)?.rows {
                    let value = v
                        .get(1)
                        .and_then(text)
                        .map(|s| shorten(Value::String(s)).as_str().map(String::from).unwrap_or_default());
                    top.entry(v.first().and_then(text).unwrap_or_default())
                        .or_default()
                        .push((value.unwrap_or_else(|| "NULL".into()), v.get(2).and_then(Value::as_u64).unwrap_or(0)));
                }
            }
            let mut entries = Vec::new();
            for (r, key) in res.rows.iter().zip(keys) {
                let top_values = top.remove(&key).unwrap_or_default();
                entries.push(RegistryEntry {
                    key,
                    kind: None,
                    parent: None,
                    name: None,
                    value_type: None,
                    allowed_values: None,
                    rows: r.get(1).and_then(Value::as_u64),
                    top_values,
                });
            }
            Ok(Some(FeatureRegistry { source: "case_features".into(), entries, truncated: res.truncated }))
        }
        _ => Ok(None),
    }
}
