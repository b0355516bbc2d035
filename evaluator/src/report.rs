//! The evaluation's data model (details, per-metric summaries, file reports) and its exact
//! aggregation (spec §6–§8): macro means over tasks with an exactly rounded sum, names in
//! code-point order, `unavailable` counts, the finance Accuracy@10% zero rule, Token Usage.

use std::collections::HashMap;

use crate::{answer::AnswerKind, exact::ExactSum, pyjson::Dict, pyjson::Py};

/// Every metric name the evaluator can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    Accuracy,
    Accuracy10,
    BertScoreF1,
    LlmJudge,
    Mae,
    MaeLogOr,
    MaeMedianDifference,
    Mrr,
    PrecisionAt5,
    RPrecision,
    RecallAt5,
    RelationAccuracy,
    RuleAccuracy,
    Smape,
    SetF1,
    SetPrecision,
    SetRecall,
    TokenF1,
}

impl Metric {
    /// Every metric.
    pub const ALL: &'static [Metric] = &[
        Metric::Accuracy,
        Metric::Accuracy10,
        Metric::BertScoreF1,
        Metric::LlmJudge,
        Metric::Mae,
        Metric::MaeLogOr,
        Metric::MaeMedianDifference,
        Metric::Mrr,
        Metric::PrecisionAt5,
        Metric::RPrecision,
        Metric::RecallAt5,
        Metric::RelationAccuracy,
        Metric::RuleAccuracy,
        Metric::Smape,
        Metric::SetF1,
        Metric::SetPrecision,
        Metric::SetRecall,
        Metric::TokenF1,
    ];

    /// The name as written in evaluation.json.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Accuracy => "Accuracy",
            Metric::Accuracy10 => "Accuracy@10%",
            Metric::BertScoreF1 => "BERTScore-F1",
            Metric::LlmJudge => "LLM Judge",
            Metric::Mae => "MAE",
            Metric::MaeLogOr => "MAE(log OR)",
            Metric::MaeMedianDifference => "MAE(median difference)",
            Metric::Mrr => "MRR",
            Metric::PrecisionAt5 => "Precision@5",
            Metric::RPrecision => "R-Precision",
            Metric::RecallAt5 => "Recall@5",
            Metric::RelationAccuracy => "Relation Accuracy",
            Metric::RuleAccuracy => "Rule Accuracy",
            Metric::Smape => "SMAPE",
            Metric::SetF1 => "Set F1",
            Metric::SetPrecision => "Set Precision",
            Metric::SetRecall => "Set Recall",
            Metric::TokenF1 => "Token-F1",
        }
    }

    /// Parse a name as written in evaluation.json.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.iter().copied().find(|m| m.name() == name)
    }

    /// False for error metrics (MAE, SMAPE and the legacy MAEs), where lower is better.
    pub fn higher_is_better(self) -> bool {
        !matches!(self, Metric::Mae | Metric::Smape | Metric::MaeLogOr | Metric::MaeMedianDifference)
    }

    /// Whether only `--profile card` computes it.
    pub fn card_only(self) -> bool {
        matches!(self, Metric::BertScoreF1 | Metric::MaeLogOr | Metric::MaeMedianDifference)
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Distinct canonical evidence ids on each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EvidenceCount {
    pub expected: usize,
    pub returned: usize,
}

/// One evaluated record (one task).
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    pub id: String,
    pub result_signature: String,
    pub benchmark_file: String,
    pub task_group: String,
    pub task_type: Option<String>,
    /// In insertion order: answer metrics, then evidence metrics (then card extras).
    /// `None` = attempted but unavailable.
    pub metrics: Vec<(Metric, Option<f64>)>,
    pub errors: Vec<String>,
    /// Token fields copied from the record (and, for the card profile, latency fields).
    pub generation: Option<Dict>,
    pub answer_kind: Option<AnswerKind>,
    pub llm_judge: Option<Dict>,
    pub evidence_count: EvidenceCount,
}

impl Detail {
    /// The value of one metric: `None` when the task has no such metric, `Some(None)` when it
    /// was unavailable.
    pub fn metric(&self, metric: Metric) -> Option<Option<f64>> {
        self.metrics.iter().find(|(m, _)| *m == metric).map(|(_, v)| *v)
    }

    pub(crate) fn set_metric(&mut self, metric: Metric, value: Option<f64>) {
        match self.metrics.iter_mut().find(|(m, _)| *m == metric) {
            Some(slot) => slot.1 = value,
            None => self.metrics.push((metric, value)),
        }
    }

    /// `generation.total_tokens` when it is a number (not a boolean).
    pub fn total_tokens(&self) -> Option<f64> {
        self.generation.as_ref()?.get("total_tokens")?.as_f64()
    }

    /// The system's latency in seconds: the first non-null of `request_latency_seconds` and
    /// `latency` in `generation` (card profile only captures them).
    pub fn latency_seconds(&self) -> Option<f64> {
        let generation = self.generation.as_ref()?;
        ["request_latency_seconds", "latency"]
            .iter()
            .find_map(|k| generation.get(k).filter(|v| **v != Py::Null))
            .and_then(Py::as_f64)
    }
}

/// Mean and counts of one metric over a scope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricSummary {
    pub metric: Metric,
    /// Exactly rounded mean of the numeric values; `None` when there are none.
    pub mean: Option<f64>,
    /// Tasks with a numeric value.
    pub count: usize,
    /// Tasks where the metric was attempted but unavailable (written only when > 0).
    pub unavailable: usize,
}

/// `aggregate(details)`: names with values in code-point order, then names that only have
/// unavailable entries in first-seen order. A null Accuracy@10% counts as 0.0 in finance groups.
pub fn aggregate<'a>(details: impl IntoIterator<Item = &'a Detail>) -> Vec<MetricSummary> {
    let mut sums: HashMap<Metric, ExactSum> = HashMap::new();
    let mut unavailable: Vec<(Metric, usize)> = Vec::new();
    for detail in details {
        for &(metric, value) in &detail.metrics {
            let value = match value {
                Some(v) => Some(v),
                None if metric == Metric::Accuracy10 && detail.task_group.starts_with("finance_") => Some(0.0),
                None => None,
            };
            match value {
                Some(v) => sums.entry(metric).or_default().add(v),
                None => match unavailable.iter_mut().find(|(m, _)| *m == metric) {
                    Some(slot) => slot.1 += 1,
                    None => unavailable.push((metric, 1)),
                },
            }
        }
    }
    let mut out: Vec<MetricSummary> = sums
        .into_iter()
        .map(|(metric, sum)| MetricSummary { metric, mean: sum.mean(), count: sum.count() as usize, unavailable: 0 })
        .collect();
    out.sort_by(|a, b| a.metric.name().cmp(b.metric.name()));
    for (metric, n) in unavailable {
        match out.iter_mut().find(|s| s.metric == metric) {
            Some(s) => s.unavailable = n,
            None => out.push(MetricSummary { metric, mean: None, count: 0, unavailable: n }),
        }
    }
    out
}

/// Token Usage (and, for the card profile, Latency) over a scope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Efficiency {
    pub token_usage: Stat,
    /// Card profile only.
    pub latency: Option<LatencyStat>,
}

/// Mean and counts of a per-task quantity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    pub mean: Option<f64>,
    pub count: usize,
    pub unavailable: usize,
}

/// Latency mean and percentiles in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyStat {
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub count: usize,
    pub unavailable: usize,
}

/// `aggregate_efficiency(details)`; `with_latency` adds the card's Latency row.
pub fn aggregate_efficiency<'a>(
    details: impl IntoIterator<Item = &'a Detail> + Clone,
    with_latency: bool,
) -> Efficiency {
    let total = details.clone().into_iter().count();
    let mut tokens = ExactSum::new();
    for d in details.clone() {
        if let Some(t) = d.total_tokens() {
            tokens.add(t);
        }
    }
    let token_usage =
        Stat { mean: tokens.mean(), count: tokens.count() as usize, unavailable: total - tokens.count() as usize };
    let latency = with_latency.then(|| {
        let mut values: Vec<f64> = details.into_iter().filter_map(Detail::latency_seconds).collect();
        let mut sum = ExactSum::new();
        values.iter().for_each(|v| sum.add(*v));
        values.sort_by(f64::total_cmp);
        LatencyStat {
            mean: sum.mean(),
            p50: percentile(&values, 0.50),
            p95: percentile(&values, 0.95),
            count: values.len(),
            unavailable: total - values.len(),
        }
    });
    Efficiency { token_usage, latency }
}

/// Percentile of sorted values, `numpy.percentile`'s default (the one implementation, in
/// `anser-pycompat`; re-exported here for the report crates).
pub use anser_pycompat::percentile_linear as percentile;

/// One task group inside a scope.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupReport {
    pub name: String,
    pub count: usize,
    pub metrics: Vec<MetricSummary>,
    pub efficiency: Efficiency,
}

/// Group the details by task group (sorted by name) and aggregate each group.
pub fn by_task_group<'a>(details: impl IntoIterator<Item = &'a Detail>, with_latency: bool) -> Vec<GroupReport> {
    let mut groups: Vec<(&str, Vec<&Detail>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for d in details {
        let i = *index.entry(&d.task_group).or_insert_with(|| {
            groups.push((&d.task_group, Vec::new()));
            groups.len() - 1
        });
        groups[i].1.push(d);
    }
    groups.sort_by(|a, b| a.0.cmp(b.0));
    groups
        .into_iter()
        .map(|(name, rows)| GroupReport {
            name: name.to_string(),
            count: rows.len(),
            metrics: aggregate(rows.iter().copied()),
            efficiency: aggregate_efficiency(rows.iter().copied(), with_latency),
        })
        .collect()
}

/// One evaluated result file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileReport {
    pub source_file: String,
    pub submitted_records: usize,
    pub warnings: Vec<String>,
    pub summary: Vec<MetricSummary>,
    pub efficiency: Efficiency,
    pub by_task_group: Vec<GroupReport>,
    pub details: Vec<Detail>,
}

impl FileReport {
    pub(crate) fn new(
        source_file: String,
        submitted_records: usize,
        warnings: Vec<String>,
        details: Vec<Detail>,
        with_latency: bool,
    ) -> Self {
        FileReport {
            source_file,
            submitted_records,
            warnings,
            summary: aggregate(&details),
            efficiency: aggregate_efficiency(&details, with_latency),
            by_task_group: by_task_group(&details, with_latency),
            details,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detail(group: &str, metrics: Vec<(Metric, Option<f64>)>) -> Detail {
        Detail {
            id: "t".into(),
            result_signature: String::new(),
            benchmark_file: String::new(),
            task_group: group.into(),
            task_type: None,
            metrics,
            errors: vec![],
            generation: None,
            answer_kind: None,
            llm_judge: None,
            evidence_count: EvidenceCount::default(),
        }
    }

    #[test]
    fn aggregate_order_and_null_rules() {
        let details = vec![
            detail(
                "legal_zh_descriptive",
                vec![(Metric::Mae, None), (Metric::Accuracy10, None), (Metric::SetF1, Some(0.5))],
            ),
            detail("finance_zh_descriptive", vec![(Metric::Mae, Some(2.0)), (Metric::Accuracy10, None)]),
            detail("science_en_descriptive", vec![(Metric::LlmJudge, None), (Metric::TokenF1, Some(1.0))]),
        ];
        let out = aggregate(&details);
        let names: Vec<&str> = out.iter().map(|s| s.metric.name()).collect();
        assert_eq!(names, ["Accuracy@10%", "MAE", "Set F1", "Token-F1", "LLM Judge"]);
        // Legal null Accuracy@10% is unavailable; the finance one counts as 0.0.
        assert_eq!(out[0], MetricSummary { metric: Metric::Accuracy10, mean: Some(0.0), count: 1, unavailable: 1 });
        assert_eq!(out[1], MetricSummary { metric: Metric::Mae, mean: Some(2.0), count: 1, unavailable: 1 });
        assert_eq!(out[4], MetricSummary { metric: Metric::LlmJudge, mean: None, count: 0, unavailable: 1 });
    }

    #[test]
    fn percentiles_interpolate() {
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.95), Some(4.8));
        assert_eq!(percentile(&[7.0], 0.95), Some(7.0));
        assert_eq!(percentile(&[], 0.5), None);
    }
}
