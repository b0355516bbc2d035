//! Economic Value and the time-sensitivity breakdown, as the official humanlaya harness reports
//! them (spec §7); EvalScope has neither.
//!
//! **Value table** (`--values FILE`, the release's `economic_value.md`): a Markdown table. The
//! first table row is the header; one or more columns name the task (`uuid`, `id`, `case_id`,
//! `file`/`file_name`/`filename`/`task`), one column holds its value (`value`,
//! `economic_value`, `economic value`, `价值`, `经济价值`, `price`, `amount`, `cny`, `usd`).
//! A value cell may carry a currency sign or code and thousands separators (`¥12,000`,
//! `$1,500.50`, `USD 900`). A task is looked up by its `uuid`, then `id`, then `case_id`, then
//! file name (`<id>.json`), as the harness does. Its currency is decided by the task's
//! language — CNY for `cn`, USD for `global` — not by the sign in the table.
//!
//! **Economic Value** sums the values of the passed tasks per currency and shows `¥X / $Y`,
//! with `questions_passed/questions_total` counted over the tasks found in the table (a task
//! without a score, e.g. excluded, counts as not passed, as NA counts as 0 in the harness).
//!
//! **Time sensitivity**: `tags.time_sensitivity` (a string, or an object whose `label` is one)
//! is `Time-agnostic` → `agnostic`, `Weakly time-sensitive` → `weak_sensitive`, `强时效性` →
//! `sensitive`; anything else (missing included) counts as agnostic, as in the harness's
//! `categorize_by_time_sensitivity.py`. Each category gets the plain mean of the expert score
//! over its scored tasks (the harness's Macro/Micro Average on that folder), its pass rate and,
//! with a value table, its Economic Value.

use std::{collections::HashMap, path::Path};

use serde::Serialize;
use serde_json::Value;

use crate::{
    Error, Result,
    judge::SampleResult,
    pycompat::py_str,
    record::{Dataset, Record},
};

/// A pass counts when the sample's pass value (1.0/0.0, a fraction with repeats) is at least
/// this (a majority of observations).
pub const PASS_MAJORITY: f64 = 0.5;

/// Column names that identify a task, in lookup order.
const KEY_COLUMNS: [(&str, KeyKind); 7] = [
    ("uuid", KeyKind::Uuid),
    ("id", KeyKind::Id),
    ("case_id", KeyKind::CaseId),
    ("file", KeyKind::File),
    ("file_name", KeyKind::File),
    ("filename", KeyKind::File),
    ("task", KeyKind::File),
];

/// Column names that hold the value.
const VALUE_COLUMNS: [&str; 10] = [
    "value",
    "economic_value",
    "economic value",
    "价值",
    "经济价值",
    "price",
    "amount",
    "cny",
    "usd",
    "value (cny/usd)",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum KeyKind {
    Uuid,
    Id,
    CaseId,
    File,
}

/// A parsed value table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValueTable {
    by_key: HashMap<(KeyKindTag, String), f64>,
    /// Data rows read.
    pub rows: usize,
}

/// Key kind as a plain tag (kept private behind [`ValueTable::lookup`]).
type KeyKindTag = u8;

fn tag(kind: KeyKind) -> KeyKindTag {
    match kind {
        KeyKind::Uuid => 0,
        KeyKind::Id => 1,
        KeyKind::CaseId => 2,
        KeyKind::File => 3,
    }
}

fn cells(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('|') {
        return None;
    }
    let inner = t.trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    Some(inner.split('|').map(|c| c.trim().trim_matches('`').trim().to_string()).collect())
}

fn is_separator(cells: &[String]) -> bool {
    cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

/// A value cell as a number: currency signs/codes, spaces and thousands separators dropped.
pub fn parse_amount(cell: &str) -> Option<f64> {
    let mut s = cell.trim().to_string();
    for code in ["CNY", "RMB", "USD", "US$", "元", "美元"] {
        s = s.replace(code, "");
    }
    let s: String = s.chars().filter(|c| !matches!(c, '¥' | '￥' | '$' | ',' | '，' | ' ' | '\u{a0}')).collect();
    if s.is_empty() {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

impl ValueTable {
    /// Read `economic_value.md`. An unreadable file, no table, no key or value column, or a
    /// value that is not a number is an input error naming the line.
    pub fn load(path: &Path) -> Result<Self> {
        let text = fs_err::read_to_string(path).map_err(|e| Error::Input {
            path: path.to_path_buf(),
            message: format!("cannot read the value table: {e}"),
        })?;
        Self::parse(&text).map_err(|message| Error::Input { path: path.to_path_buf(), message })
    }

    /// Parse the Markdown text of a value table.
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let mut table = ValueTable::default();
        let mut header: Option<(Vec<(usize, KeyKind)>, usize)> = None;
        for (index, line) in text.lines().enumerate() {
            let Some(row) = cells(line) else {
                continue;
            };
            if is_separator(&row) {
                continue;
            }
            let Some((keys, value_col)) = &header else {
                let names: Vec<String> = row.iter().map(|c| c.to_lowercase()).collect();
                let keys: Vec<(usize, KeyKind)> = names
                    .iter()
                    .enumerate()
                    .filter_map(|(i, n)| KEY_COLUMNS.iter().find(|(k, _)| k == n).map(|(_, kind)| (i, *kind)))
                    .collect();
                let value = names.iter().position(|n| VALUE_COLUMNS.contains(&n.as_str()));
                match (keys.is_empty(), value) {
                    (false, Some(v)) => header = Some((keys, v)),
                    _ => {
                        return Err(format!(
                            "line {}: the table header needs a task column (uuid, id, case_id or file) and a value \
                             column (value, economic_value, 价值, ...); found {row:?}",
                            index + 1
                        ));
                    }
                }
                continue;
            };
            let cell = row.get(*value_col).map_or("", String::as_str);
            let amount =
                parse_amount(cell).ok_or_else(|| format!("line {}: value {cell:?} is not a number", index + 1))?;
            for (col, kind) in keys {
                if let Some(key) = row.get(*col).filter(|k| !k.is_empty()) {
                    table.by_key.insert((tag(*kind), key.clone()), amount);
                }
            }
            table.rows += 1;
        }
        if header.is_none() {
            return Err("no Markdown table found (expected | id | value | rows)".into());
        }
        Ok(table)
    }

    /// The value of a task: by uuid, id, case_id, then file name `<id>.json`.
    pub fn lookup(&self, record: &Record) -> Option<f64> {
        let get = |kind: KeyKind, key: &str| self.by_key.get(&(tag(kind), key.to_string())).copied();
        let case_id = record.case_id.as_ref().filter(|v| !v.is_null()).and_then(py_str);
        record
            .uuid
            .as_deref()
            .and_then(|u| get(KeyKind::Uuid, u))
            .or_else(|| get(KeyKind::Id, &record.id))
            .or_else(|| case_id.as_deref().and_then(|c| get(KeyKind::CaseId, c)))
            .or_else(|| get(KeyKind::File, &format!("{}.json", record.id)))
            .or_else(|| get(KeyKind::File, &record.id))
    }
}

/// Economic Value over a set of tasks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EconomicValue {
    /// Σ values of passed `cn` tasks, CNY.
    pub cny: f64,
    /// Σ values of passed `global` tasks, USD.
    pub usd: f64,
    /// `¥X / $Y`.
    pub display: String,
    pub questions_passed: usize,
    /// Tasks found in the value table.
    pub questions_total: usize,
    /// Tasks of the dataset with no row in the table (not counted).
    pub not_in_table: Vec<String>,
}

/// `12345.0` → `12,345`; `12.5` → `12.50`.
pub fn format_amount(x: f64) -> String {
    let negative = x < 0.0;
    let rounded = (x.abs() * 100.0).round() / 100.0;
    let whole = rounded.trunc() as u64;
    let cents = ((rounded - rounded.trunc()) * 100.0).round() as u64;
    let digits = whole.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if negative { "-" } else { "" };
    if cents == 0 { format!("{sign}{grouped}") } else { format!("{sign}{grouped}.{cents:02}") }
}

fn passed(sample: &SampleResult) -> bool {
    sample.pass.is_some_and(|p| p >= PASS_MAJORITY)
}

/// Economic Value of `samples` (the records are looked up in `dataset`).
pub fn economic_value<'a>(
    dataset: &Dataset,
    samples: impl IntoIterator<Item = &'a SampleResult>,
    table: &ValueTable,
) -> EconomicValue {
    let (mut cny, mut usd, mut passed_n, mut total) = (0.0, 0.0, 0usize, 0usize);
    let mut not_in_table = Vec::new();
    for sample in samples {
        let Some(record) = dataset.get(&sample.id) else { continue };
        let Some(value) = table.lookup(record) else {
            not_in_table.push(record.id.clone());
            continue;
        };
        total += 1;
        if passed(sample) {
            passed_n += 1;
            if record.language == "cn" {
                cny += value;
            } else {
                usd += value;
            }
        }
    }
    EconomicValue {
        cny,
        usd,
        display: format!("¥{} / ${}", format_amount(cny), format_amount(usd)),
        questions_passed: passed_n,
        questions_total: total,
        not_in_table,
    }
}

/// The harness's three time-sensitivity folders.
pub const TIME_CATEGORIES: [&str; 3] = ["agnostic", "weak_sensitive", "sensitive"];

/// The category of a `tags.time_sensitivity` value.
pub fn time_category(value: Option<&Value>) -> &'static str {
    let label = match value {
        Some(Value::String(s)) => Some(s.as_str()),
        Some(Value::Object(o)) => o.get("label").and_then(Value::as_str),
        _ => None,
    };
    match label.map(str::trim) {
        Some("Weakly time-sensitive") => "weak_sensitive",
        Some("强时效性") => "sensitive",
        _ => "agnostic",
    }
}

/// One time-sensitivity category.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeBreakdown {
    pub category: &'static str,
    /// Records in the category (invalid ones excluded).
    pub tasks: usize,
    /// Of those, with an expert score.
    pub scored: usize,
    /// Plain mean of the expert score over scored tasks.
    pub expert_score: Option<f64>,
    /// Passed / tasks (unscored tasks count as not passed).
    pub pass_rate: Option<f64>,
    pub questions_passed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub economic_value: Option<EconomicValue>,
}

/// The breakdown over the three categories (each listed, even when empty).
pub fn time_breakdown(dataset: &Dataset, samples: &[SampleResult], table: Option<&ValueTable>) -> Vec<TimeBreakdown> {
    TIME_CATEGORIES
        .iter()
        .map(|&category| {
            let members: Vec<&SampleResult> = samples
                .iter()
                .filter(|s| {
                    dataset.get(&s.id).is_some_and(|r| time_category(r.time_sensitivity.as_ref()) == category)
                        && s.subset.is_some()
                })
                .collect();
            let scores: Vec<f64> = members.iter().filter_map(|s| s.expert_score).collect();
            let passed_n = members.iter().filter(|s| passed(s)).count();
            TimeBreakdown {
                category,
                tasks: members.len(),
                scored: scores.len(),
                expert_score: crate::pycompat::py_mean(&scores),
                pass_rate: (!members.is_empty()).then(|| passed_n as f64 / members.len() as f64),
                questions_passed: passed_n,
                economic_value: table.map(|t| economic_value(dataset, members.iter().copied(), t)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_formatting() {
        assert_eq!(parse_amount("¥12,000"), Some(12000.0));
        assert_eq!(parse_amount(" $1,500.50 "), Some(1500.5));
        assert_eq!(parse_amount("USD 900"), Some(900.0));
        assert_eq!(parse_amount("n/a"), None);
        assert_eq!(format_amount(1_234_567.0), "1,234,567");
        assert_eq!(format_amount(12.5), "12.50");
        assert_eq!(format_amount(0.0), "0");
    }

    #[test]
    fn time_labels() {
        assert_eq!(time_category(Some(&serde_json::json!("强时效性"))), "sensitive");
        assert_eq!(time_category(Some(&serde_json::json!({"label": "Weakly time-sensitive"}))), "weak_sensitive");
        assert_eq!(time_category(Some(&serde_json::json!("Strongly time-sensitive"))), "agnostic");
        assert_eq!(time_category(None), "agnostic");
    }
}
