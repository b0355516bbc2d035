//! Forward-looking tasks: the direction and guidance range the latest visible report's outlook
//! states about a metric (the task's cutoff hides later reports), or the mean of the visible
//! growth rates, matched to the options or the question.

use anser_manifest::{Language, PublicTask};
use serde_json::{Value, json};

use super::{
    Mention, Outcome,
    answer_text::fmt2,
    cues::{options, wants_number, wants_yes_no},
    data::{Company, Data, Report},
    glossary::{Metric, growth},
};
use crate::method::offline::re;

/// Words that say a figure will go up, go down or stay level (reports' outlooks, option texts,
/// questions). Generic vocabulary of direction, not any report's sentence.
const UP_WORDS: &[&str] = &[
    "上升", "增长", "提高", "提升", "增加", "扩大", "走高", "高于", "超过", "rise", "increase", "grow", "higher",
    "improve", "expand",
];
const DOWN_WORDS: &[&str] = &[
    "下降", "减少", "降低", "下滑", "收窄", "回落", "低于", "decline", "decrease", "fall", "lower", "shrink",
    "contract",
];
const FLAT_WORDS: &[&str] =
    &["持平", "稳定", "基本不变", "大致相当", "以内", "flat", "stable", "unchanged", "in line", "similar"];
/// Words that mark a sentence as forward-looking.
const FORWARD_WORDS: &[&str] = &[
    "展望",
    "预计",
    "预期",
    "计划",
    "将",
    "力争",
    "目标",
    "下一年",
    "未来",
    "expect",
    "anticipate",
    "outlook",
    "guidance",
    "forecast",
    "plan to",
    "will",
    "next year",
    "fiscal",
];

/// The direction a text states (+1 up, −1 down, 0 level), by the earliest direction word.
fn direction_of(text: &str) -> Option<i8> {
    let l = text.to_lowercase();
    let first = |words: &[&str]| words.iter().filter_map(|w| l.find(w)).min();
    [(first(UP_WORDS), 1i8), (first(DOWN_WORDS), -1), (first(FLAT_WORDS), 0)]
        .into_iter()
        .filter_map(|(at, d)| at.map(|a| (a, d)))
        .min_by_key(|(a, _)| *a)
        .map(|(_, d)| d)
}

/// Clauses of a report's text.
pub(super) fn clauses(text: &str) -> impl Iterator<Item = &str> {
    text.split(['；', '。', '\n', ';']).flat_map(|s| s.split(". ")).map(str::trim).filter(|s| !s.is_empty())
}

/// The forward-looking clause of a report about one metric name — a clause with a forward word
/// that names the metric (the last such clause: outlooks close the discussion) — from the
/// metric's name on, so that what it says about the metric comes first.
fn outlook_clause(text: &str, name: &str) -> Option<String> {
    let name = name.to_lowercase();
    clauses(text)
        .map(str::to_lowercase)
        .filter(|l| l.contains(&name) && FORWARD_WORDS.iter().any(|w| l.contains(w)))
        .last()
        .and_then(|l| l.find(&name).map(|at| l[at..].to_string()))
}

/// Forward-looking tasks: the visible reports of the company, and the latest report's outlook.
/// Options that state ranges are answered with the guidance range's midpoint (or the
/// history's mean growth); options that state a direction, and yes/no questions, with the
/// direction the latest report's forward-looking clause about the named metric states.
pub(super) fn predictive(data: &Data, task: &PublicTask, companies: &[&Company], metrics: &[Mention]) -> Outcome {
    let company = *companies.first()?;
    let mut reports: Vec<&Report> = data.company_reports(&company.key).collect();
    reports.sort_by_key(|r| r.year);
    let evidence: Vec<Value> = reports.iter().rev().take(5).rev().map(|r| data.evidence(r)).collect();
    let latest = *reports.last()?;
    let q = task.query.as_str();
    let text = &latest.text;
    let revenue_name = match data.lang {
        Language::Zh => "营业收入",
        Language::En => "revenue",
    };
    let named = metrics.first().map(|m| m.2.clone()).unwrap_or_else(|| revenue_name.to_string());
    let metric = metrics.first().map(|m| m.3.clone()).unwrap_or(Metric::Col(match data.lang {
        Language::Zh => "operating_revenue".into(),
        Language::En => "total_revenue".into(),
    }));
    // A guidance range "28%至31%", "between 24% and 28%" in the outlook clause about the metric.
    let range_re = re(r"(-?\d+(?:\.\d+)?)\s*%?\s*(?:至|到|to|and|-|–|~)\s*(-?\d+(?:\.\d+)?)\s*%");
    let range = outlook_clause(text, &named)
        .or_else(|| outlook_clause(text, revenue_name))
        .and_then(|c| range_re.captures(&c).map(|c| (c[1].to_string(), c[2].to_string())))
        .and_then(|(a, b)| Some((a.parse::<f64>().ok()? + b.parse::<f64>().ok()?) / 2.0));
    let opts = options(q);
    let instr = task.instruction.as_str();
    let growths: Vec<f64> = reports
        .windows(2)
        .filter(|w| w[1].year == w[0].year + 1)
        .filter_map(|w| metric.value(w[0]).zip(metric.value(w[1])).and_then(|(x, y)| growth(y, x)))
        .collect();
    let last_growth = growths.last().copied();
    // Without guidance the forecast is the mean of the visible growth rates (growth reverts to
    // its own history) — a baseline, not a model.
    let mean_growth = (!growths.is_empty()).then(|| growths.iter().sum::<f64>() / growths.len() as f64);
    let forecast = range.or(mean_growth);
    // The direction stated for the first named metric the outlook talks about.
    let stated = metrics
        .iter()
        .map(|m| m.2.as_str())
        .chain([named.as_str()])
        .find_map(|n| outlook_clause(text, n))
        .and_then(|c| direction_of(&c));
    let answer = if !opts.is_empty() {
        let ranges = opts.iter().all(|(_, b)| b.contains('%'));
        if ranges {
            let mid = forecast?;
            opts.iter().find(|(_, b)| option_range_contains(b, mid)).map(|(l, _)| l.clone())
        } else {
            let want = stated?;
            opts.iter().find(|(_, b)| direction_of(b) == Some(want)).map(|(l, _)| l.clone())
        }
    } else if wants_yes_no(instr) {
        // The question's own direction word against the one the outlook states.
        let after_metric = metrics.first().and_then(|m| q.get(m.1..)).unwrap_or(q);
        let asked = direction_of(after_metric).unwrap_or(1);
        let said = stated?;
        Some(if said == asked { "是" } else { "否" }.to_string())
    } else if wants_number(instr) {
        forecast.map(fmt2)
    } else {
        let f = forecast?;
        Some(match data.lang {
            Language::Zh => format!(
                "依据{}年年报的前瞻表述与历史增速，{}年{named}同比变动预计约{f:.2}%{}。",
                latest.year,
                latest.year + 1,
                last_growth.map(|l| format!("（{}年为{l:.2}%）", latest.year)).unwrap_or_default()
            ),
            Language::En => format!(
                "From the FY{} filing's forward-looking statements and the growth history, FY{} {named} growth is \
                 expected at about {f:.2}%{}.",
                latest.year,
                latest.year + 1,
                last_growth.map(|l| format!(", against {l:.2}% in FY{}", latest.year)).unwrap_or_default()
            ),
        })
    };
    Some((
        answer,
        evidence,
        json!({"plan": "outlook", "latest_report": latest.id, "guidance_mid": range, "stated_direction": stated}),
    ))
}

/// Whether an option like "above 10%", "0% to 10%", "-10% to below 0%", "below -10%",
/// "同比增速≥8%", "-5%<同比增速<2%" holds `x`.
fn option_range_contains(body: &str, x: f64) -> bool {
    let nums: Vec<f64> = re(r"-?\d+(?:\.\d+)?").find_iter(body).filter_map(|m| m.as_str().parse().ok()).collect();
    let b = body.to_lowercase();
    let above = ["above", "over", "more than", "超过", "以上", "高于", "大于", "≥", ">"].iter().any(|w| b.contains(w));
    let below = ["below", "under", "less than", "低于", "以下", "小于", "不足", "≤", "<"].iter().any(|w| b.contains(w));
    match nums.as_slice() {
        [lo, hi] => x >= *lo && x < *hi || (x == *hi && !b.contains("below") && !b.contains('<')),
        [t] if above && !below => x >= *t,
        [t] if below && !above => x <= *t,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_ranges() {
        assert!(option_range_contains("above 10%", 26.0));
        assert!(option_range_contains("0% to 10%", 5.0));
        assert!(option_range_contains("-10% to below 0%", -3.0));
        assert!(!option_range_contains("-10% to below 0%", 0.0));
        assert!(option_range_contains("below -10%", -12.5));
    }
}
