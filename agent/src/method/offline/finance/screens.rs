//! Screens over a population of companies (the classification values the query names): counts
//! of companies meeting every condition, screened lists, counts of large changes; the rest of a
//! population task is a ranking.

use anser_manifest::PublicTask;
use serde_json::{Value, json};

use super::{
    Mention, Outcome,
    data::{Company, Data},
    glossary::{Metric, growth},
    grammar::{Cond, conditions, main_metric},
    rankings::rank,
};
use crate::method::offline::legal_predictive::threshold_after;

/// Count of companies meeting every condition; the population is the evidence.
pub(super) fn statistic(data: &Data, q: &str, years: &[i32], metrics: &[Mention]) -> Outcome {
    let year = *years.first()?;
    let conds = conditions(q, metrics, data.lang);
    if conds.is_empty() {
        return None;
    }
    let (pop, filters) = data.population(q);
    let mut hits = Vec::new();
    for c in pop {
        if conds.iter().all(|k| k.holds(data, &c.key, year) == Some(true)) {
            hits.push(c.key.clone());
        }
    }
    let evidence = hits.iter().map(|k| data.company_evidence(k)).collect();
    Some((
        Some(hits.len().to_string()),
        evidence,
        json!({"plan": "count", "filters": filters, "conditions": format!("{conds:?}"), "year": year}),
    ))
}

/// The companies a population task screens and the year it reads.
pub(super) struct Population<'a> {
    pub(super) companies: Vec<&'a Company>,
    /// The classification values that define it.
    pub(super) filters: Vec<String>,
    pub(super) year: i32,
}

/// Screens, rankings, means and change counts over a population.
pub(super) fn population_task(data: &Data, task: &PublicTask, years: &[i32], metrics: &[Mention]) -> Outcome {
    let q = task.query.as_str();
    let ty = task.task_type.as_deref().unwrap_or("");
    let (companies, filters) = data.population(q);
    if filters.is_empty() {
        return None;
    }
    let pop = Population { companies, filters, year: *years.iter().max()? };
    let (_, _, name, metric) = main_metric(q, data.lang, metrics)?;
    match ty {
        "change_detection" => {
            let from = *years.iter().min()?;
            let (_, t) = threshold_after(&q.to_lowercase(), metrics.first()?.1, 40)?;
            Some(count_changes(data, &pop, from, t, &metric))
        }
        "screening" => Some(screen(data, &pop, q, metrics)),
        _ => rank(data, &pop, q, &name, &metric),
    }
}

/// How many companies' metric changed by more than `threshold` (points for a ratio, percent
/// otherwise) between `from` and the population's year; both reports of each are evidence.
fn count_changes(
    data: &Data,
    pop: &Population,
    from: i32,
    threshold: f64,
    metric: &Metric,
) -> (Option<String>, Vec<Value>, Value) {
    let mut evidence = Vec::new();
    let mut n = 0;
    for c in &pop.companies {
        let (Some(a), Some(b)) = (data.report(&c.key, from), data.report(&c.key, pop.year)) else { continue };
        let (Some(va), Some(vb)) = (metric.value(a), metric.value(b)) else { continue };
        let d = if metric.is_ratio() { vb - va } else { growth(vb, va).unwrap_or(0.0) };
        if d.abs() > threshold {
            n += 1;
            evidence.push(data.evidence(a));
            evidence.push(data.evidence(b));
        }
    }
    (Some(n.to_string()), evidence, json!({"plan": "count_changes", "filters": pop.filters}))
}

/// The companies meeting every condition, listed; their reports (and the year before's, for a
/// growth condition) are evidence. No answer when the query states no condition.
fn screen(data: &Data, pop: &Population, q: &str, metrics: &[Mention]) -> (Option<String>, Vec<Value>, Value) {
    let year = pop.year;
    let conds = conditions(q, metrics, data.lang);
    let mut evidence = Vec::new();
    let mut lines = Vec::new();
    for c in &pop.companies {
        if !conds.is_empty() && conds.iter().all(|k| k.holds(data, &c.key, year) == Some(true)) {
            let span = if conds.iter().any(Cond::uses_growth) { vec![year - 1, year] } else { vec![year] };
            for y in span {
                if let Some(r) = data.report(&c.key, y) {
                    evidence.push(data.evidence(r));
                }
            }
            lines.push(c.name.clone());
        }
    }
    let answer = (!conds.is_empty()).then(|| lines.join("; "));
    (answer, evidence, json!({"plan": "screen", "filters": pop.filters, "conditions": format!("{conds:?}")}))
}
