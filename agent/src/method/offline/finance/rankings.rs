//! Rankings over a screened population: the mean of a metric, or the top (and bottom) k
//! companies by it, written as "name value" pairs in rank order.

use anser_manifest::Language;
use serde_json::json;

use super::{
    Outcome,
    answer_text::fmt2,
    cues::wants_lowest,
    data::{Company, Data},
    glossary::Metric,
    screens::Population,
};
use crate::method::offline::re;

/// The mean of `metric` over the population when the query asks for one, else a ranking (top
/// k, and bottom k when asked; k from "前N"/"top N", 3 by default); the companies counted are
/// evidence.
pub(super) fn rank(data: &Data, pop: &Population, q: &str, name: &str, metric: &Metric) -> Outcome {
    let year = pop.year;
    let filters = &pop.filters;
    let lower = q.to_lowercase();
    let mut evidence = Vec::new();
    let mut rows: Vec<(&Company, f64)> = Vec::new();
    for c in &pop.companies {
        let Some(r) = data.report(&c.key, year) else { continue };
        // "with non-zero total revenue": ratios over a zero denominator are skipped.
        if let Some(v) = metric.value(r) {
            rows.push((c, v));
        }
    }
    if rows.is_empty() {
        return None;
    }
    if lower.contains("mean") || lower.contains("average") || q.contains("平均") {
        let mean = rows.iter().map(|(_, v)| v).sum::<f64>() / rows.len() as f64;
        for (c, _) in &rows {
            if let Some(r) = data.report(&c.key, year) {
                evidence.push(data.evidence(r));
            }
        }
        return Some((Some(fmt2(mean)), evidence, json!({"plan": "mean", "filters": filters, "metric": name})));
    }
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    let k = re(r"(?:前|top\s*)(\d+)").captures(&lower).and_then(|c| c[1].parse::<usize>().ok()).unwrap_or(3);
    let mut picked: Vec<(&Company, f64)> = rows.iter().take(k).cloned().collect();
    let bottom: Vec<(&Company, f64)> =
        if lower.contains("bottom") { rows.iter().rev().take(k).cloned().collect() } else { Vec::new() };
    if wants_lowest(q) && bottom.is_empty() {
        picked = rows.iter().rev().take(k).cloned().collect();
    }
    for (c, _) in picked.iter().chain(bottom.iter()) {
        if let Some(r) = data.report(&c.key, year) {
            evidence.push(data.evidence(r));
        }
    }
    let show = |v: f64| match (data.lang, metric.is_ratio()) {
        (_, true) => format!("{v:.2}%"),
        (Language::Zh, false) => format!("{:.2}亿元", v / 1e8),
        (Language::En, false) => format!("USD {:.2} million", v / 1e6),
    };
    // Plain "name value" pairs in rank order; the wording of the answer is the caller's concern.
    let list = |xs: &[(&Company, f64)]| -> String {
        let sep = if data.lang == Language::Zh { "，" } else { ", " };
        xs.iter().map(|(c, v)| format!("{} {}", c.name, show(*v))).collect::<Vec<_>>().join(sep)
    };
    let answer = match (data.lang, bottom.is_empty()) {
        (Language::Zh, true) => format!("按{name}排序：{}。", list(&picked)),
        (Language::En, true) => format!("By {name}: {}.", list(&picked)),
        (Language::Zh, false) => format!("{name}最高：{}；最低：{}。", list(&picked), list(&bottom)),
        (Language::En, false) => format!("Highest {name}: {}. Lowest {name}: {}.", list(&picked), list(&bottom)),
    };
    Some((Some(answer), evidence, json!({"plan": "rank", "filters": filters, "metric": name, "k": k})))
}
