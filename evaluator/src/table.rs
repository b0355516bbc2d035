//! The terminal summary of an evaluation: per task group (pooled over files) and overall, each
//! metric's mean, count and unavailable count, plus Token Usage (and Latency for the card
//! profile), as an aligned table, Markdown, CSV or JSON.

use std::{fmt::Write as _, str::FromStr};

use crate::{
    Evaluation,
    output::{efficiency_py, metrics_py},
    pyjson::{Dict, DumpStyle, Py, PyInt, dumps, float_repr},
    report::{Efficiency, GroupReport},
};

/// Output format of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Table,
    Markdown,
    Csv,
    Json,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "table" => Ok(Format::Table),
            "markdown" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            other => Err(format!("unknown format {other:?} (expected table, markdown, csv or json)")),
        }
    }
}

/// One printed row.
struct Row {
    scope: String,
    metric: String,
    mean: Option<f64>,
    count: usize,
    unavailable: usize,
}

fn rows_of(scope: &str, metrics: &[crate::MetricSummary], efficiency: &Efficiency) -> Vec<Row> {
    let mut rows: Vec<Row> = metrics
        .iter()
        .map(|m| Row {
            scope: scope.into(),
            metric: m.metric.name().into(),
            mean: m.mean,
            count: m.count,
            unavailable: m.unavailable,
        })
        .collect();
    let t = &efficiency.token_usage;
    rows.push(Row {
        scope: scope.into(),
        metric: "Token Usage (tokens)".into(),
        mean: t.mean,
        count: t.count,
        unavailable: t.unavailable,
    });
    if let Some(l) = &efficiency.latency {
        rows.push(Row {
            scope: scope.into(),
            metric: "Latency mean (s)".into(),
            mean: l.mean,
            count: l.count,
            unavailable: l.unavailable,
        });
        rows.push(Row {
            scope: scope.into(),
            metric: "Latency p50 (s)".into(),
            mean: l.p50,
            count: l.count,
            unavailable: l.unavailable,
        });
        rows.push(Row {
            scope: scope.into(),
            metric: "Latency p95 (s)".into(),
            mean: l.p95,
            count: l.count,
            unavailable: l.unavailable,
        });
    }
    rows
}

fn sections(e: &Evaluation) -> Vec<(String, usize, Vec<Row>)> {
    let groups: Vec<GroupReport> = e.group_reports();
    let mut out: Vec<(String, usize, Vec<Row>)> =
        groups.iter().map(|g| (g.name.clone(), g.count, rows_of(&g.name, &g.metrics, &g.efficiency))).collect();
    out.push(("all".into(), e.evaluated_records(), rows_of("all", &e.metrics, &e.efficiency)));
    out
}

fn short(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() && v.abs() >= 1000.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.4}"),
        None => "null".into(),
    }
}

/// Render the summary.
pub fn render(e: &Evaluation, format: Format) -> String {
    let mut out = String::new();
    match format {
        Format::Table => {
            for (name, count, rows) in sections(e) {
                let _ = writeln!(out, "{name} ({count} tasks)");
                let _ = writeln!(out, "  {:<24} {:>12} {:>7} {:>12}", "metric", "mean", "count", "unavailable");
                for r in rows {
                    let _ =
                        writeln!(out, "  {:<24} {:>12} {:>7} {:>12}", r.metric, short(r.mean), r.count, r.unavailable);
                }
                out.push('\n');
            }
        }
        Format::Markdown => {
            for (name, count, rows) in sections(e) {
                let _ = writeln!(out, "### {name} ({count} tasks)\n");
                let _ = writeln!(out, "| metric | mean | count | unavailable |");
                let _ = writeln!(out, "|---|---:|---:|---:|");
                for r in rows {
                    let _ = writeln!(out, "| {} | {} | {} | {} |", r.metric, short(r.mean), r.count, r.unavailable);
                }
                out.push('\n');
            }
        }
        Format::Csv => {
            out.push_str("group,metric,mean,count,unavailable\n");
            for (_, _, rows) in sections(e) {
                for r in rows {
                    let mean = r.mean.map(float_repr).unwrap_or_default();
                    let _ = writeln!(out, "{},{},{},{},{}", r.scope, r.metric, mean, r.count, r.unavailable);
                }
            }
        }
        Format::Json => {
            let mut groups = Dict::new();
            for g in e.group_reports() {
                let mut entry = Dict::new();
                entry.insert("count", Py::Int(PyInt::from(g.count as u64)));
                entry.insert("metrics", metrics_py(&g.metrics));
                entry.insert("efficiency", efficiency_py(&g.efficiency));
                groups.insert(g.name.clone(), Py::Dict(entry));
            }
            let mut all = Dict::new();
            all.insert("count", Py::Int(PyInt::from(e.evaluated_records() as u64)));
            all.insert("metrics", metrics_py(&e.metrics));
            all.insert("efficiency", efficiency_py(&e.efficiency));
            let mut top = Dict::new();
            top.insert("groups", Py::Dict(groups));
            top.insert("all", Py::Dict(all));
            out = dumps(&Py::Dict(top), DumpStyle::PRETTY);
            out.push('\n');
        }
    }
    out
}
