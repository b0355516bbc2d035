//! Look-ups about named companies: a value, a change, a trend class, the option with the
//! highest or lowest metric, an option quoted from the report, a share the report states.

use anser_manifest::{Language, PublicTask};
use serde_json::{Value, json};

use super::{
    Mention, Outcome,
    answer_text::{fmt2, is_risk_comparison, risk_comparison, summary},
    cues::{char_bigrams, options, wants_growth, wants_lowest},
    data::{Company, Data, Report},
    glossary::{Metric, growth},
};
use crate::method::offline::{legal_predictive::threshold_after, re};

/// Reports of the named companies for the named years (all visible years when none).
fn company_reports<'a>(data: &'a Data, companies: &[&Company], years: &[i32]) -> Vec<&'a Report> {
    let mut out = Vec::new();
    for c in companies {
        let mut rs: Vec<&Report> =
            data.company_reports(&c.key).filter(|r| years.is_empty() || years.contains(&r.year)).collect();
        rs.sort_by_key(|r| r.year);
        out.extend(rs);
    }
    out
}

/// Tasks about named companies: a value, a change, a trend, options, disclosed shares.
pub(super) fn company_task(
    data: &Data,
    task: &PublicTask,
    companies: &[&Company],
    years: &[i32],
    metrics: &[Mention],
) -> Outcome {
    let q = task.query.as_str();
    let ty = task.task_type.as_deref().unwrap_or("");
    let opts = options(q);
    if ty == "cross_section_screen" || (!opts.is_empty() && companies.len() >= 2) {
        // Options naming companies: the one with the highest/lowest metric in the year.
        let (_, _, name, metric) = metrics.first()?;
        let year = *years.first()?;
        let mut scored = Vec::new();
        let mut evidence = Vec::new();
        for (letter, body) in &opts {
            let c = data.named_companies(body).into_iter().next()?;
            let r = data.report(&c.key, year)?;
            evidence.push(data.evidence(r));
            scored.push((letter.clone(), metric.value(r)?));
        }
        let low = wants_lowest(q);
        let best = scored.iter().max_by(|a, b| if low { b.1.total_cmp(&a.1) } else { a.1.total_cmp(&b.1) })?;
        return Some((
            Some(best.0.clone()),
            evidence,
            json!({"plan": "option_extreme", "metric": name, "values": scored}),
        ));
    }
    let company = *companies.first()?;
    // A change is read against the year before: its report is evidence too.
    let mut span = years.to_vec();
    if years.len() == 1 && matches!(ty, "text_summary" | "change_detection") {
        span.insert(0, years[0] - 1);
    }
    let reports = company_reports(data, &[company], &span);
    if reports.is_empty() {
        return None;
    }
    let evidence: Vec<Value> = reports.iter().map(|r| data.evidence(r)).collect();
    if !opts.is_empty() {
        // Options quoting the report: the one whose words the named report contains most.
        let text: String = reports.iter().map(|r| r.text.as_str()).collect();
        if text.is_empty() {
            return Some((None, evidence, json!({"plan": "reports_only"})));
        }
        let best = opts
            .iter()
            .map(|(l, body)| {
                let grams = char_bigrams(body);
                let hit = grams.iter().filter(|g| text.contains(g.as_str())).count() as f64 / grams.len().max(1) as f64;
                (l.clone(), hit)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        return Some((Some(best.0), evidence, json!({"plan": "option_in_report_text"})));
    }
    let answer = match ty {
        "numeric_fact" => numeric_fact(data, q, company, years, metrics),
        "multi_period_trend" => trend(data, task, company, years, metrics),
        "change_detection" => change_yes_no(data, q, company, years, metrics),
        "mixed_numeric_text" if data.lang == Language::Zh => share_in_text(q, &reports),
        _ if is_risk_comparison(q, years) => risk_comparison(data, &reports),
        _ => summary(data, company, years, metrics),
    };
    Some((answer, evidence, json!({"plan": ty})))
}

fn numeric_fact(data: &Data, q: &str, company: &Company, years: &[i32], metrics: &[Mention]) -> Option<String> {
    let (_, _, _, metric) = metrics.first()?;
    let lower = q.to_lowercase();
    if years.len() >= 2 && wants_growth(&lower) {
        let a = metric.value(data.report(&company.key, years[0])?)?;
        let b = metric.value(data.report(&company.key, years[1])?)?;
        return Some(fmt2(if metric.is_ratio() { b - a } else { growth(b, a)? }));
    }
    let v = metric.value(data.report(&company.key, *years.first()?)?)?;
    Some(if metric.is_ratio() || data.lang == Language::En { fmt2(v) } else { format!("{}", v.round() as i64) })
}

/// Trend class over consecutive years; the options come from the instruction's quoted list.
pub(super) fn trend(
    data: &Data,
    task: &PublicTask,
    company: &Company,
    years: &[i32],
    metrics: &[Mention],
) -> Option<String> {
    let (_, _, _, metric) = metrics.first()?;
    let (from, to) = (*years.iter().min()?, *years.iter().max()?);
    let values: Vec<f64> =
        (from..=to).map(|y| data.report(&company.key, y).and_then(|r| metric.value(r))).collect::<Option<_>>()?;
    // The instruction's own tolerance ("不超过1%", "1个百分点"): default 1.
    let tol = re(r"不超过(\d+(?:\.\d+)?)").captures(&task.instruction).and_then(|c| c[1].parse().ok()).unwrap_or(1.0);
    let steps: Vec<i8> = values
        .windows(2)
        .map(|w| {
            let d = if metric.is_ratio() { w[1] - w[0] } else { growth(w[1], w[0]).unwrap_or(0.0) };
            if d.abs() <= tol { 0 } else { d.signum() as i8 }
        })
        .collect();
    let labels: Vec<String> = re(r"“([^”]+)”")
        .captures_iter(&task.instruction)
        .flat_map(|c| c[1].split('、').map(str::to_string).collect::<Vec<_>>())
        .collect();
    let pick = |cue: &str| labels.iter().find(|l| l.contains(cue)).cloned();
    if steps.iter().all(|s| *s == 0) {
        pick("不变")
    } else if steps.iter().all(|s| *s > 0) {
        pick("上升")
    } else if steps.iter().all(|s| *s < 0) {
        pick("下降")
    } else {
        pick("波动")
    }
}

/// 是/否 questions comparing two growths or one change against a threshold.
fn change_yes_no(data: &Data, q: &str, company: &Company, years: &[i32], metrics: &[Mention]) -> Option<String> {
    let year = *years.iter().max()?;
    let cur = data.report(&company.key, year)?;
    let prev = data.report(&company.key, year - 1)?;
    let change = |m: &Metric| -> Option<f64> {
        let (a, b) = (m.value(prev)?, m.value(cur)?);
        if m.is_ratio() { Some(b - a) } else { growth(b, a) }
    };
    let yes = if metrics.len() >= 2 {
        let (a, b) = (change(&metrics[0].3)?, change(&metrics[1].3)?);
        let between = &q[metrics[0].1..metrics[1].0];
        if ["低于", "慢于", "小于"].iter().any(|w| between.contains(w)) { a < b } else { a > b }
    } else {
        let (_, end, _, m) = metrics.first()?;
        let (cmp, t) = threshold_after(q, *end, 24)?;
        cmp.holds(change(m)?.abs(), t)
    };
    Some(if yes { "是" } else { "否" }.to_string())
}

/// A product's share of revenue as the report states it: among the report's clauses that state
/// a share (比重/占比 and a percentage), the one whose head — the words before its first colon
/// or number — the query names; 未披露 when no stated share belongs to the item asked about.
fn share_in_text(q: &str, reports: &[&Report]) -> Option<String> {
    let r = reports.last()?;
    let pct = re(r"(-?\d+(?:\.\d+)?)%");
    let mut stated: Vec<(Vec<String>, String)> = Vec::new();
    for clause in r.text.split(['；', '。', '\n']) {
        if !(clause.contains("比重") || clause.contains("占比")) {
            continue;
        }
        let Some(m) = pct.captures_iter(clause).last() else { continue };
        let head_end = clause.find(|c: char| c.is_ascii_digit()).unwrap_or(clause.len());
        let segments = clause[..head_end]
            .split(['：', ':', '，', '、'])
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(String::from);
        stated.push((segments.collect(), m[1].to_string()));
    }
    // Words every share clause repeats (营业收入) name no item.
    let common = |seg: &String| stated.iter().filter(|(segs, _)| segs.contains(seg)).count() > 1;
    for (segs, share) in &stated {
        for seg in segs.iter().filter(|x| !common(x)) {
            let grams = char_bigrams(seg);
            if !grams.is_empty() && grams.iter().all(|g| q.contains(g.as_str())) {
                return Some(share.clone());
            }
        }
    }
    Some("未披露".to_string())
}
