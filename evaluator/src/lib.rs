//! anser-evaluator: the ANSER-Bench evaluator.
//!
//! - `Profile::Official` reproduces the official evaluator (`src/evaluator.py`) byte for byte:
//!   answer parsing and normalisation ([`answer`]), canonical evidence ids and evidence metrics
//!   ([`evidence`]), exact means ([`exact`]), the evaluation.json schema ([`output`]), warnings
//!   and error strings, `result_signature`, the LLM judge request ([`judge`]).
//! - `Profile::Card` (the default of `anser eval`) adds what the ANSER card lists but the
//!   current evaluator does not compute: MAE(log OR), MAE(median difference), SMAPE for
//!   finance predictive numeric answers, Precision@5 for finance predictive evidence,
//!   BERTScore-F1 ([`bertscore`]) and Latency (mean, p50, p95).
//!
//! The run loop calls [`evaluate`] with a path or with records, then [`Evaluation::write_json`]
//! and the summary accessors ([`Evaluation::group_reports`], [`Evaluation::task_values`]).

pub mod answer;
pub mod bertscore;
mod error;
pub mod evidence;
pub mod exact;
pub mod judge;
pub mod output;
pub mod prompts;
pub mod pyjson;
pub mod pytext;
pub mod records;
pub mod report;
pub mod score;
pub mod table;

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    time::Instant,
};

/// The gold benchmark the evaluator scores against (re-exported so that readers of results
/// need not depend on the gold crate themselves).
pub use anser_gold::Benchmark;

#[cfg(feature = "bertscore")]
pub use crate::bertscore::BertScorer;
pub use crate::{
    bertscore::BertScoreOverhead,
    error::{Error, Result},
    judge::{JudgeOverhead, JudgeSettings, JudgeSettingsBuilder},
    prompts::{JudgeTemplate, Prompts},
    report::{Detail, Efficiency, FileReport, GroupReport, LatencyStat, Metric, MetricSummary, Stat},
};
use crate::{
    evidence::RuleIndex,
    judge::{JudgeRequest, JudgeResult},
    pyjson::{Dict, Py},
    records::{input_kind, read_records, result_files},
    report::{aggregate, aggregate_efficiency, by_task_group},
    score::{ScoreContext, needs_rules, score_record},
};

/// The name written to `evaluator.name`.
pub const EVALUATOR_NAME: &str = "ANSER-Bench evaluator";

/// The official warning texts (after `record N: ` or `ID: `); every warning ends with one.
const WARN_MISSING_ID: &str = "missing id";
const WARN_DUPLICATE_ID: &str = "duplicate result id; later record skipped";
const WARN_UNKNOWN_ID: &str = "not found in benchmark";

/// The warnings of an evaluation grouped by kind, for printing one line per kind (the file keeps
/// every warning, as the official evaluator writes them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarningGroup {
    /// The warning text without its record or id prefix (`not found in benchmark`).
    pub kind: String,
    pub count: usize,
    /// The first few prefixes (record numbers or ids), in order.
    pub examples: Vec<String>,
}

/// How many examples a [`WarningGroup`] keeps.
pub const WARNING_EXAMPLES: usize = 3;

/// Group warnings by kind, in order of first appearance.
pub fn group_warnings<'a>(warnings: impl IntoIterator<Item = &'a str>) -> Vec<WarningGroup> {
    let mut groups: Vec<WarningGroup> = Vec::new();
    for w in warnings {
        let known = [WARN_MISSING_ID, WARN_DUPLICATE_ID, WARN_UNKNOWN_ID]
            .into_iter()
            .find_map(|k| w.strip_suffix(k).and_then(|p| p.strip_suffix(": ")).map(|prefix| (k, prefix)));
        // A warning of another shape is its own kind.
        let (kind, prefix) = known.unwrap_or((w, ""));
        let at = match groups.iter().position(|g| g.kind == kind) {
            Some(i) => i,
            None => {
                groups.push(WarningGroup { kind: kind.to_string(), count: 0, examples: Vec::new() });
                groups.len() - 1
            }
        };
        let group = &mut groups[at];
        group.count += 1;
        if group.examples.len() < WARNING_EXAMPLES && !prefix.is_empty() {
            group.examples.push(prefix.to_string());
        }
    }
    groups
}

/// Which metric set to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// Exactly the official evaluator's output.
    Official,
    /// The official metrics plus the card's extra metrics.
    #[default]
    Card,
}

impl Profile {
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Official => "official",
            Profile::Card => "card",
        }
    }
}

/// The LLM judge: skipped (every judged task `{"status": "skipped"}`) or called.
#[derive(Debug, Clone)]
pub enum JudgeMode {
    Skip,
    Call(JudgeSettings),
}

/// Evaluation options.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    pub profile: Profile,
    /// Corpus root for the regulatory-rule id lookup (`finance/zh/regulatory_rules.jsonl`);
    /// `None` leaves row ids unresolved.
    pub corpus_root: Option<PathBuf>,
    pub judge: JudgeMode,
    /// BERTScore encoder (card profile); `None` makes BERTScore-F1 null with the reason.
    pub bertscore: Option<PathBuf>,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions { profile: Profile::Card, corpus_root: None, judge: JudgeMode::Skip, bertscore: None }
    }
}

/// Where the results come from.
#[derive(Debug, Clone)]
pub enum ResultsInput {
    /// A result file, a run directory or a directory of result files; `output` (the evaluation
    /// file about to be written) is never read as a result file.
    Path { input: PathBuf, output: Option<PathBuf> },
    /// Records already in memory (the run loop), reported under `source`.
    Records { source: String, records: Vec<serde_json::Value> },
}

/// A finished evaluation.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub profile: Profile,
    /// `model_for_llm_judge`: `None` when the judge was skipped.
    pub judge_model: Option<String>,
    /// The BERTScore model directory (card profile).
    pub bertscore_model: Option<String>,
    /// Absolute input path (or the record source name).
    pub input: String,
    /// Absolute task directory.
    pub benchmark_dir: String,
    pub files: Vec<FileReport>,
    /// Pooled over all files.
    pub metrics: Vec<MetricSummary>,
    pub efficiency: Efficiency,
    pub judge_overhead: JudgeOverhead,
    pub bertscore_overhead: BertScoreOverhead,
}

impl Evaluation {
    /// Details of all files, in order.
    pub fn details(&self) -> impl Iterator<Item = &Detail> {
        self.files.iter().flat_map(|f| f.details.iter())
    }

    pub fn evaluated_records(&self) -> usize {
        self.files.iter().map(|f| f.details.len()).sum()
    }

    /// Every warning of every file, in order.
    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        self.files.iter().flat_map(|f| f.warnings.iter().map(String::as_str))
    }

    /// Every warning grouped by kind (one printed line each).
    pub fn warning_groups(&self) -> Vec<WarningGroup> {
        group_warnings(self.warnings())
    }

    /// Per-group summaries pooled over all files (sorted by group name).
    pub fn group_reports(&self) -> Vec<GroupReport> {
        by_task_group(self.details(), self.profile == Profile::Card)
    }

    /// The pooled summary of one metric.
    pub fn metric(&self, metric: Metric) -> Option<&MetricSummary> {
        self.metrics.iter().find(|m| m.metric == metric)
    }

    /// Per-task values of one metric (id, value; `None` = unavailable), for paired comparisons.
    pub fn task_values(&self, metric: Metric) -> Vec<(&str, Option<f64>)> {
        self.details().filter_map(|d| d.metric(metric).map(|v| (d.id.as_str(), v))).collect()
    }
}

/// Evaluate results against a loaded benchmark.
pub fn evaluate(input: &ResultsInput, bench: &Benchmark, options: &EvalOptions) -> Result<Evaluation> {
    let prompts = Prompts::official()?;
    let benchmark_dir = absolute(&bench.dir);
    let (input_name, sources) = match input {
        ResultsInput::Path { input, output } => {
            let kind = input_kind(input)?;
            let resolved = absolute(input);
            let files = result_files(&resolved, &kind, output.as_deref())?;
            let mut sources = Vec::with_capacity(files.len());
            for path in files {
                let records = read_records(&path)?;
                sources.push((path.display().to_string(), records));
            }
            (resolved.display().to_string(), sources)
        }
        ResultsInput::Records { source, records } => {
            let mut rows = Vec::with_capacity(records.len());
            for (i, r) in records.iter().enumerate() {
                match Py::from_serde(r) {
                    Py::Dict(d) => rows.push(d),
                    _ => {
                        return Err(Error::results(
                            source,
                            format!("record {}: each result record must be an object", i + 1),
                        ));
                    }
                }
            }
            (source.clone(), vec![(source.clone(), rows)])
        }
    };
    evaluate_sources(input_name, benchmark_dir, sources, bench, options, &prompts)
}

fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Where a pending detail lives.
struct Slot {
    file: usize,
    detail: usize,
}

fn evaluate_sources(
    input: String,
    benchmark_dir: PathBuf,
    sources: Vec<(String, Vec<Dict>)>,
    bench: &Benchmark,
    options: &EvalOptions,
    prompts: &Prompts,
) -> Result<Evaluation> {
    let profile = options.profile;
    let tasks: HashMap<&str, &anser_manifest::PublicTask> = bench.tasks().iter().map(|t| (t.id.as_str(), t)).collect();
    let mut rules: Option<RuleIndex> = None;
    let mut files: Vec<(String, usize, Vec<String>, Vec<Detail>)> = Vec::with_capacity(sources.len());
    let mut judge_queue: Vec<(Slot, JudgeRequest)> = Vec::new();
    let mut bert_queue: Vec<(Slot, (String, String))> = Vec::new();

    for (file_index, (source, records)) in sources.into_iter().enumerate() {
        let mut warnings = Vec::new();
        let mut details = Vec::new();
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        for (position, record) in records.iter().enumerate() {
            let position = position + 1;
            let id = match record.get("id") {
                None => String::new(),
                Some(v) => pyjson::py_str(v),
            };
            if id.is_empty() {
                warnings.push(format!("record {position}: {WARN_MISSING_ID}"));
                continue;
            }
            if !seen.insert(id.clone()) {
                warnings.push(format!("{id}: {WARN_DUPLICATE_ID}"));
                continue;
            }
            let (Some(task), Some(reference)) = (tasks.get(id.as_str()), bench.reference(&id)) else {
                warnings.push(format!("{id}: {WARN_UNKNOWN_ID}"));
                continue;
            };
            if rules.is_none() && needs_rules(task.group) {
                rules = Some(match &options.corpus_root {
                    Some(root) => RuleIndex::load(root)?,
                    None => RuleIndex::default(),
                });
            }
            let ctx = ScoreContext { profile, prompts, rules: rules.as_ref() };
            let (detail, pending) = score_record(&ctx, task, reference, record)
                .map_err(|e| Error::results(&source, format!("record {position} (id {id}): {}", e.0)))?;
            let slot = || Slot { file: file_index, detail: details.len() };
            if let Some((_, prompt)) = pending.judge_prompt {
                judge_queue.push((slot(), JudgeRequest { result_signature: detail.result_signature.clone(), prompt }));
            }
            if let Some(pair) = pending.bert_pair {
                bert_queue.push((slot(), pair));
            }
            details.push(detail);
        }
        files.push((source, records.len(), warnings, details));
    }

    // The judge pass.
    let requests: Vec<JudgeRequest> = judge_queue.iter().map(|(_, r)| r.clone()).collect();
    let (judge_model, judged, judge_overhead): (Option<String>, Vec<JudgeResult>, JudgeOverhead) = match &options.judge
    {
        JudgeMode::Skip => (
            None,
            vec![judge::skipped(); requests.len()],
            JudgeOverhead { requests: requests.len(), ..Default::default() },
        ),
        JudgeMode::Call(settings) => {
            let (results, overhead) = judge::judge_all(settings, &requests)?;
            (Some(settings.model().to_string()), results, overhead)
        }
    };
    for ((slot, _), result) in judge_queue.iter().zip(judged) {
        let detail = &mut files[slot.file].3[slot.detail];
        detail.set_metric(Metric::LlmJudge, result.score);
        detail.llm_judge = Some(result.record);
    }

    // The BERTScore pass (card profile).
    let mut bertscore_model = None;
    let mut bertscore_overhead = BertScoreOverhead::default();
    if !bert_queue.is_empty() {
        let started = Instant::now();
        let pairs: Vec<(String, String)> = bert_queue.iter().map(|(_, p)| p.clone()).collect();
        let scores: Vec<std::result::Result<f64, String>> = match &options.bertscore {
            Some(dir) => {
                bertscore_model = Some(dir.display().to_string());
                bertscore::f1_with_model(dir, &pairs)
            }
            None => {
                vec![
                    Err("no encoder given (pass --bertscore-model DIR with model.onnx and tokenizer.json)".to_string());
                    pairs.len()
                ]
            }
        };
        bertscore_overhead = BertScoreOverhead { pairs: pairs.len(), seconds: started.elapsed().as_secs_f64() };
        for ((slot, _), score) in bert_queue.iter().zip(scores) {
            let detail = &mut files[slot.file].3[slot.detail];
            match score {
                Ok(f1) => detail.set_metric(Metric::BertScoreF1, Some(f1)),
                Err(reason) => {
                    detail.set_metric(Metric::BertScoreF1, None);
                    detail.errors.push(format!("BERTScore-F1 unavailable: {reason}"));
                }
            }
        }
    }

    let with_latency = profile == Profile::Card;
    let files: Vec<FileReport> = files
        .into_iter()
        .map(|(source, submitted, warnings, details)| {
            FileReport::new(source, submitted, warnings, details, with_latency)
        })
        .collect();
    let all = files.iter().flat_map(|f| f.details.iter());
    let metrics = aggregate(all.clone());
    let efficiency = aggregate_efficiency(all, with_latency);
    Ok(Evaluation {
        profile,
        judge_model,
        bertscore_model,
        input,
        benchmark_dir: benchmark_dir.display().to_string(),
        files,
        metrics,
        efficiency,
        judge_overhead,
        bertscore_overhead,
    })
}
