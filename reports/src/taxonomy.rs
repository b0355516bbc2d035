//! Failure taxonomy: why a task went wrong, per run and task group, with counts and example ids.
//!
//! A task can fall into several kinds (an empty evidence list and a wrong value). The kinds and
//! what decides them:
//! - `timeout`, `llm_error` (request error or empty response), `tool_error`: the record's
//!   `generation_status`;
//! - `unparseable`: status `unparseable`, or an answer the evaluator could not read (status ok
//!   but an answer metric — MAE, Accuracy@10%, Relation/Rule Accuracy, SMAPE — unavailable);
//! - `empty_evidence`: no evidence returned (or the method flagged it);
//! - `wrong_route`: an evidence item that is not an identifier of the kind the task's route is
//!   scored on (`Manifest::resolve` → the evidence kind; items are checked with the answer
//!   tool's shaping, so `{"FACT_id": …}` in a RegBench task or an accession number in a Chinese
//!   report task is caught);
//! - `inconsistent`: the method flagged answer and evidence as disagreeing (a count that differs
//!   from the number of population ids, a cohort `n` that differs);
//! - `wrong_value`: an answer was produced and read, and a correctness metric says it is wrong
//!   (Accuracy, Accuracy@10%, Relation Accuracy or Rule Accuracy 0, or an LLM Judge score below
//!   [`JUDGE_PASS_SCORE`]). Graded-only metrics (Token-F1, SMAPE, BERTScore) do not decide it.

use std::collections::{BTreeMap, HashMap};

use anser_evaluator::Metric;
use anser_record::{GenerationStatus, PublicTask, ResultRecord, shape_evidence};

use crate::rundir::{RunData, TaskScore};

/// LLM Judge scores (0–100) below this count as a wrong value.
pub const JUDGE_PASS_SCORE: f64 = 50.0;
/// Example ids kept per kind and group.
pub const EXAMPLES_PER_KIND: usize = 3;

/// Answer metrics whose unavailability means the answer could not be read.
const ANSWER_METRICS: &[Metric] =
    &[Metric::Mae, Metric::Accuracy10, Metric::RelationAccuracy, Metric::RuleAccuracy, Metric::Smape];
/// Correctness metrics: 0 means wrong.
const BINARY_METRICS: &[Metric] =
    &[Metric::Accuracy, Metric::Accuracy10, Metric::RelationAccuracy, Metric::RuleAccuracy];
/// Method flags that mean answer and evidence disagree.
const INCONSISTENCY_FLAGS: &[&str] = &["count_differs_from_evidence", "n_differs_from_evidence"];

/// One kind of failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FailureKind {
    Unparseable,
    EmptyEvidence,
    WrongRoute,
    Inconsistent,
    Timeout,
    ToolError,
    LlmError,
    WrongValue,
}

impl FailureKind {
    pub const ALL: [FailureKind; 8] = [
        FailureKind::Unparseable,
        FailureKind::EmptyEvidence,
        FailureKind::WrongRoute,
        FailureKind::Inconsistent,
        FailureKind::Timeout,
        FailureKind::ToolError,
        FailureKind::LlmError,
        FailureKind::WrongValue,
    ];

    /// Machine name (JSON keys).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Unparseable => "unparseable",
            FailureKind::EmptyEvidence => "empty_evidence",
            FailureKind::WrongRoute => "wrong_route",
            FailureKind::Inconsistent => "inconsistent",
            FailureKind::Timeout => "timeout",
            FailureKind::ToolError => "tool_error",
            FailureKind::LlmError => "llm_error",
            FailureKind::WrongValue => "wrong_value",
        }
    }

    /// Human label (tables and charts).
    pub fn label(self) -> &'static str {
        match self {
            FailureKind::Unparseable => "unparseable answer",
            FailureKind::EmptyEvidence => "empty evidence",
            FailureKind::WrongRoute => "evidence from a wrong route",
            FailureKind::Inconsistent => "answer–evidence inconsistency",
            FailureKind::Timeout => "timeout",
            FailureKind::ToolError => "tool error",
            FailureKind::LlmError => "LLM error",
            FailureKind::WrongValue => "wrong value",
        }
    }
}

/// Count and first example ids of one kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindCount {
    pub count: usize,
    pub examples: Vec<String>,
}

/// Failures of one group (or of all groups).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupFailures {
    pub group: String,
    /// Answered tasks of the group.
    pub tasks: usize,
    /// Tasks with at least one failure.
    pub failed: usize,
    pub kinds: BTreeMap<FailureKind, KindCount>,
}

impl GroupFailures {
    fn new(group: &str) -> GroupFailures {
        GroupFailures { group: group.to_string(), tasks: 0, failed: 0, kinds: BTreeMap::new() }
    }

    fn add(&mut self, id: &str, kinds: &[FailureKind]) {
        self.tasks += 1;
        if !kinds.is_empty() {
            self.failed += 1;
        }
        for k in kinds {
            let slot = self.kinds.entry(*k).or_default();
            slot.count += 1;
            if slot.examples.len() < EXAMPLES_PER_KIND {
                slot.examples.push(id.to_string());
            }
        }
    }

    pub fn count(&self, kind: FailureKind) -> usize {
        self.kinds.get(&kind).map_or(0, |k| k.count)
    }
}

/// The taxonomy of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taxonomy {
    /// Sorted by group name.
    pub groups: Vec<GroupFailures>,
    pub total: GroupFailures,
    /// Whether scores were available (without them `unparseable` uses the status only and
    /// `wrong_value` cannot be decided).
    pub scored: bool,
}

/// Classify every answered task of `run`.
pub fn taxonomy(run: &RunData) -> Taxonomy {
    let mut groups: BTreeMap<String, GroupFailures> = BTreeMap::new();
    let mut total = GroupFailures::new("all");
    let tasks: HashMap<&str, &PublicTask> =
        run.selection.iter().filter_map(|t| t.public.as_ref().map(|p| (t.id.as_str(), p))).collect();
    for record in &run.results {
        let score = run.scores.as_ref().and_then(|s| s.get(&record.id));
        let kinds = classify(record, tasks.get(record.id.as_str()).copied(), score);
        groups.entry(record.group.clone()).or_insert_with(|| GroupFailures::new(&record.group)).add(&record.id, &kinds);
        total.add(&record.id, &kinds);
    }
    Taxonomy { groups: groups.into_values().collect(), total, scored: run.scores.is_some() }
}

/// The failure kinds of one task (`task` enables the evidence-kind check, `score` the
/// evaluator-based kinds).
pub fn classify(record: &ResultRecord, task: Option<&PublicTask>, score: Option<&TaskScore>) -> Vec<FailureKind> {
    let mut kinds = Vec::new();
    let status = record.generation_status;
    match status {
        GenerationStatus::Timeout => kinds.push(FailureKind::Timeout),
        GenerationStatus::ToolError => kinds.push(FailureKind::ToolError),
        GenerationStatus::RequestError | GenerationStatus::EmptyResponse => kinds.push(FailureKind::LlmError),
        GenerationStatus::Ok | GenerationStatus::DryRun | GenerationStatus::Unparseable | GenerationStatus::NoPlan => {}
    }
    let unreadable = score.is_some_and(|s| ANSWER_METRICS.iter().any(|m| s.has(*m) && !has_value(s, *m)));
    let unparseable = status == GenerationStatus::Unparseable || (status == GenerationStatus::Ok && unreadable);
    if unparseable {
        kinds.push(FailureKind::Unparseable);
    }
    if record.retrieved_evidence.is_empty() || record.flags.iter().any(|f| f == "empty_evidence") {
        kinds.push(FailureKind::EmptyEvidence);
    }
    if task.is_some_and(|t| wrong_route(t, record)) {
        kinds.push(FailureKind::WrongRoute);
    }
    if record.flags.iter().any(|f| INCONSISTENCY_FLAGS.contains(&f.as_str())) {
        kinds.push(FailureKind::Inconsistent);
    }
    if status == GenerationStatus::Ok && !unparseable && score.is_some_and(wrong_value) {
        kinds.push(FailureKind::WrongValue);
    }
    kinds.sort();
    kinds
}

/// The raw value (without the finance Accuracy@10% zero rule: that rule is about the mean).
fn has_value(score: &TaskScore, metric: Metric) -> bool {
    score.metrics.iter().any(|(m, v)| *m == metric && v.is_some())
}

fn wrong_value(score: &TaskScore) -> bool {
    let binary_wrong = BINARY_METRICS.iter().any(|m| score.value(*m) == Some(0.0));
    let judged_wrong = score.value(Metric::LlmJudge).is_some_and(|v| v < JUDGE_PASS_SCORE);
    binary_wrong || judged_wrong
}

/// Whether an evidence item is not an identifier of the route's evidence kind.
fn wrong_route(task: &PublicTask, record: &ResultRecord) -> bool {
    !record.retrieved_evidence.is_empty()
        && shape_evidence(task, &record.retrieved_evidence).is_ok_and(|check| !check.rejected.is_empty())
}
