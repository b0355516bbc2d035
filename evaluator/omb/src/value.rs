//! Economic Value and the time-sensitivity breakdown, as the official humanlaya harness reports
//! them (spec §7); EvalScope has neither.
//!
//! **Value table** (`--values FILE`, the release's `economic_value.md`): Markdown tables. A
//! table is read when its header row (the row above `|---|`) has a task column (`uuid`, `id`,
//! `case_id`, `*_id`, `file`, `task`, `name`, `编号`) and a value column (a header containing
//! `value`, `价值`, `price`, `amount`, or a currency: `CNY`/`RMB`/`¥`/`元`, `USD`/`$`); other
//! tables are skipped. A value cell's first number counts, thousands separators dropped, with
//! a `万`/`亿`/`k`/`M` multiplier (`¥12,000`, `$1,500.50`, `1.2万`); `-`, `N/A` and empty cells
//! are no value, other text is an error naming the line. A task is looked up by its `uuid`,
//! `id`, `case_id`, then file name (`<id>.json`), as the harness does. Its currency is the
//! task's language's — CNY for `cn`, USD for `global`: a row with a column in that currency
//! gives that value, else its (only) value is taken in that currency.
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

/// Currency of a value column, from its header (`CNY`, `RMB`, `¥`, `元` / `USD`, `$`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Currency {
    Cny,
    Usd,
}

/// What a header cell names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    /// A task identifier (uuid, id, case_id, file name): all are looked up the same way.
    Key,
    /// A value, optionally in a stated currency.
    Value(Option<Currency>),
    Other,
}

fn column_of(header: &str) -> Column {
    let h = header.to_lowercase().replace([' ', '-'], "_");
    let currency = if ["cny", "rmb", "¥", "￥", "元", "人民币"].iter().any(|c| h.contains(c)) {
        Some(Currency::Cny)
    } else if ["usd", "$", "美元", "dollar"].iter().any(|c| h.contains(c)) {
        Some(Currency::Usd)
    } else {
        None
    };
    let is_value = ["value", "价值", "price", "amount", "worth", "金额", "价格"].iter().any(|v| h.contains(v));
    let is_key = h.contains("uuid")
        || h == "id"
        || h.ends_with("_id")
        || h.ends_with("id")
        || h.contains("编号")
        || h.contains("file")
        || h == "task"
        || h == "name"
        || h.contains("文件");
    if is_value || (currency.is_some() && !is_key) {
        Column::Value(currency)
    } else if is_key {
        Column::Key
    } else {
        Column::Other
    }
}

/// A parsed value table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValueTable {
    /// key → values of its row, with the currency their column states.
    by_key: HashMap<String, Vec<(Option<Currency>, f64)>>,
    /// Data rows read.
    pub rows: usize,
}

fn cells(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('|') {
        return None;
    }
    let inner = t.trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    Some(inner.split('|').map(|c| c.trim().trim_matches('`').trim().trim_matches('*').trim().to_string()).collect())
}

fn is_separator(cells: &[String]) -> bool {
    cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
}

fn amount_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"-?[0-9][0-9,，]*(?:\.[0-9]+)?\s*(万|亿|[kKmM](?:[^a-zA-Z]|$))?")
            .unwrap_or_else(|e| unreachable!("constant regex: {e}"))
    })
}

/// A value cell as a number: the first number in it, thousands separators dropped, with a
/// `万`/`亿`/`k`/`M` multiplier when one follows; `None` when there is no number.
pub fn parse_amount(cell: &str) -> Option<f64> {
    let m = amount_re().captures(cell)?;
    let whole = m.get(0)?.as_str();
    let unit = m.get(1).map(|u| u.as_str().trim());
    let digits: String = whole
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '-' | ',' | '，' | '.'))
        .filter(|c| !matches!(c, ',' | '，'))
        .collect();
    let base: f64 = digits.parse().ok()?;
    let factor = match unit.and_then(|u| u.chars().next()) {
        Some('万') => 1e4,
        Some('亿') => 1e8,
        Some('k' | 'K') => 1e3,
        Some('m' | 'M') => 1e6,
        _ => 1.0,
    };
    Some(base * factor).filter(|v| v.is_finite())
}

/// Cells that mean "no value".
fn is_blank(cell: &str) -> bool {
    matches!(cell.trim(), "" | "-" | "—" | "–" | "n/a" | "N/A" | "NA" | "/")
}

impl ValueTable {
    /// Read `economic_value.md`. An unreadable file, no usable table, or a value cell that is
    /// not a number is an input error naming the line.
    pub fn load(path: &Path) -> Result<Self> {
        let text = fs_err::read_to_string(path).map_err(|e| Error::Input {
            path: path.to_path_buf(),
            message: format!("cannot read the value table: {e}"),
        })?;
        Self::parse(&text).map_err(|message| Error::Input { path: path.to_path_buf(), message })
    }

    /// Parse the Markdown text of a value table. Every table whose header (the row above a
    /// `|---|` separator) names a task column and a value column is read; other tables (e.g.
    /// summaries) are skipped.
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let mut table = ValueTable::default();
        let rows: Vec<(usize, Option<Vec<String>>)> =
            text.lines().enumerate().map(|(i, l)| (i + 1, cells(l))).collect();
        let mut columns: Option<Vec<Column>> = None;
        let mut tables_seen = 0;
        for (i, (line, row)) in rows.iter().enumerate() {
            let Some(row) = row else {
                columns = None;
                continue;
            };
            if is_separator(row) {
                continue;
            }
            let next_is_separator = rows.get(i + 1).and_then(|(_, r)| r.as_ref()).is_some_and(|r| is_separator(r));
            if next_is_separator {
                tables_seen += 1;
                let cols: Vec<Column> = row.iter().map(|h| column_of(h)).collect();
                let usable = cols.contains(&Column::Key) && cols.iter().any(|c| matches!(c, Column::Value(_)));
                columns = usable.then_some(cols);
                continue;
            }
            let Some(cols) = &columns else { continue };
            let mut values = Vec::new();
            for (cell, col) in row.iter().zip(cols) {
                if let Column::Value(currency) = col
                    && !is_blank(cell)
                {
                    let amount =
                        parse_amount(cell).ok_or_else(|| format!("line {line}: value {cell:?} is not a number"))?;
                    values.push((*currency, amount));
                }
            }
            if values.is_empty() {
                continue;
            }
            for (cell, col) in row.iter().zip(cols) {
                if *col == Column::Key && !is_blank(cell) {
                    table.by_key.entry(cell.clone()).or_insert_with(|| values.clone());
                }
            }
            table.rows += 1;
        }
        if table.rows == 0 {
            return Err(if tables_seen == 0 {
                "no Markdown table found (expected a header row such as | id | value | over a |---| row)".into()
            } else {
                "no table has both a task column (uuid, id, case_id or file) and a value column (value, \
                 economic_value, 价值, price, ...) with values in it"
                    .into()
            });
        }
        Ok(table)
    }

    /// The value of a task in its currency (CNY for `cn`, USD otherwise): looked up by uuid,
    /// id, case_id, then file name `<id>.json`. A row with a column in the task's currency
    /// gives that value, else its first value.
    pub fn lookup(&self, record: &Record) -> Option<f64> {
        let case_id = record.case_id.as_ref().filter(|v| !v.is_null()).and_then(py_str);
        let candidates = [record.uuid.clone(), Some(record.id.clone()), case_id, Some(format!("{}.json", record.id))];
        let values = candidates.iter().flatten().find_map(|k| self.by_key.get(k))?;
        let want = if record.language == "cn" { Currency::Cny } else { Currency::Usd };
        values.iter().find(|(c, _)| *c == Some(want)).or_else(|| values.first()).map(|(_, v)| *v)
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
        assert_eq!(parse_amount("¥1.2万"), Some(12000.0));
        assert_eq!(parse_amount("$15k (est.)"), Some(15000.0));
        assert_eq!(parse_amount("12,000 元"), Some(12000.0));
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
