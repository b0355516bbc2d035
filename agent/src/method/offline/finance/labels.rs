//! Chinese metric labels learned from the reports themselves: the English figures table has
//! readable column names, the Chinese one does not, so a label written right before a printed
//! amount is tied to the column holding that amount in the same report.

use std::collections::BTreeMap;

use super::{data::Report, glossary::Metric};
use crate::method::offline::re;

/// An amount as reports print it: digits with or without thousands separators, optional
/// decimals, a minus sign or accounting parentheses, and a unit (元, 万元, 亿元; `千元` too).
/// Returns the value in 元 and the rounding tolerance the printed precision implies.
pub(super) fn printed_amount(number: &str, unit: &str) -> Option<(f64, f64)> {
    let t = number.trim();
    let (neg, t) = match t.strip_prefix('(').or_else(|| t.strip_prefix('（')) {
        Some(inner) => (true, inner.trim_end_matches([')', '）'])),
        None => match t.strip_prefix(['-', '−']) {
            Some(inner) => (true, inner),
            None => (false, t),
        },
    };
    let plain = t.replace([',', '，'], "");
    let v: f64 = plain.parse().ok()?;
    let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    let scale = match unit {
        "万元" => 1e4,
        "亿元" => 1e8,
        "千元" => 1e3,
        _ => 1.0,
    };
    let tolerance = (0.5 * 10f64.powi(-decimals) * scale).max(0.5);
    Some((if neg { -v } else { v } * scale, tolerance))
}

/// How many reports with text the labels are learned from (the first ones a task sees).
pub(super) const LABEL_SAMPLE: usize = 40;

/// Chinese labels: the Han run written right before a printed amount (`营业收入8,749,279,719.00元`,
/// `销售费用为1,234.56万元`, `净利润(3,456.78)万元`) in a report's text names the column whose value
/// equals that amount, within the printed precision, in the same report (majority over the
/// `sample`, see [`LABEL_SAMPLE`]).
pub(super) fn learn_zh_labels<'a>(sample: impl Iterator<Item = &'a Report>) -> Vec<(String, Metric)> {
    let pat = re(
        r"(\p{Han}{2,24}?)(?:为|是|达|约)?[:：]?\s*([-−]?\d[\d,]*(?:\.\d+)?|[(（]\d[\d,]*(?:\.\d+)?[)）])\s*(亿元|万元|千元|元)",
    );
    let mut votes: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for r in sample {
        for c in pat.captures_iter(&r.text) {
            let Some((v, tol)) = printed_amount(&c[2], &c[3]) else { continue };
            // The label is the tail of the Han run after the last clause word break.
            let label = c[1].rsplit(['，', '；', '：', '、']).next().unwrap_or(&c[1]).to_string();
            for (col, x) in &r.vals {
                if (x - v).abs() <= tol && v.abs() >= 1.0 {
                    *votes.entry(label.clone()).or_default().entry(col.clone()).or_default() += 1;
                }
            }
        }
    }
    votes
        .into_iter()
        .filter_map(|(label, cols)| {
            let (col, n) = cols.into_iter().max_by_key(|(_, n)| *n)?;
            (n >= 2 && label.chars().count() >= 2).then_some((label, Metric::Col(col)))
        })
        .collect()
}
