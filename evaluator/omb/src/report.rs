//! `samples.jsonl`, `report.json` and the terminal table.

use std::{io::Write, path::Path};

use serde::Serialize;

use crate::{
    Result,
    aggregate::{Aggregate, Level, aggregate},
    judge::{JudgeRun, JudgeSettings, JudgeUsage, RunSummary},
    prompt::{JUDGE_MAX_TOKENS, JUDGE_TEMPERATURE, PROMPT_VERSION, template_sha256},
    record::{Dataset, InvalidRecord},
    value::{EconomicValue, TimeBreakdown, ValueTable, economic_value, time_breakdown},
    verdict::Mode,
};

/// File names inside the output directory.
pub const SAMPLES_FILE: &str = "samples.jsonl";
pub const REPORT_FILE: &str = "report.json";

/// The comparability note every report carries.
pub const COMPARABILITY_NOTE: &str = "Scores depend on the judge. Results of tool-using agents judged from their \
final responses (--responses) are only comparable with other results judged under the same judge configuration \
(judge models, prompt version, mode, repeats).";

/// How the samples were judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeConfigReport {
    pub models: Vec<String>,
    pub repeats: u32,
    pub mode: Mode,
    pub prompt_version: &'static str,
    pub prompt_sha256: &'static str,
    pub temperature: f64,
    pub max_tokens: u32,
}

/// Mean and sample standard deviation (n − 1) of a metric over the (judge, repeat) runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunSpread {
    pub mean: f64,
    pub std: f64,
    pub runs: usize,
}

/// `report.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub overall: Level,
    pub categories: crate::aggregate::Levels,
    pub subsets: crate::aggregate::Levels,
    pub judge: JudgeConfigReport,
    /// Records in the dataset, valid or not.
    pub records: usize,
    /// Skipped records with their reasons.
    pub invalid_records: Vec<InvalidRecord>,
    /// Response ids that match no record.
    pub unknown_response_ids: Vec<String>,
    /// Per (judge, repeat) overall scores.
    pub runs: Vec<RunSummary>,
    /// Spread of the overall expert score and pass rate over runs (with two or more runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_spread: Option<[RunSpread; 2]>,
    pub judge_usage: JudgeUsage,
    /// Generation cost, when judging a run made by `anser omb generate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<serde_json::Value>,
    /// Economic Value (official harness, spec §7), with `--values`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub economic_value: Option<EconomicValue>,
    /// Scores per `tags.time_sensitivity` category (official harness's three folders).
    pub time_sensitivity: Vec<TimeBreakdown>,
    pub note: &'static str,
}

fn run_spread(values: impl Iterator<Item = Option<f64>>) -> Option<RunSpread> {
    let v: Vec<f64> = values.flatten().collect();
    if v.len() < 2 {
        return None;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    Some(RunSpread { mean, std: var.sqrt(), runs: v.len() })
}

impl Report {
    /// Build the report of a judge run.
    pub fn new(dataset: &Dataset, run: &JudgeRun, settings: &JudgeSettings) -> Self {
        let Aggregate { overall, categories, subsets } = aggregate(&run.values());
        let spread = run_spread(run.runs.iter().map(|r| r.expert_score))
            .zip(run_spread(run.runs.iter().map(|r| r.pass_rate)))
            .map(|(e, p)| [e, p]);
        Report {
            overall,
            categories,
            subsets,
            judge: JudgeConfigReport {
                models: settings.judges().to_vec(),
                repeats: settings.repeats(),
                mode: settings.mode(),
                prompt_version: PROMPT_VERSION,
                prompt_sha256: template_sha256(),
                temperature: JUDGE_TEMPERATURE,
                max_tokens: JUDGE_MAX_TOKENS,
            },
            records: dataset.records.len() + dataset.invalid.len(),
            invalid_records: dataset.invalid.clone(),
            unknown_response_ids: run.unknown_response_ids.clone(),
            runs: run.runs.clone(),
            run_spread: spread,
            judge_usage: run.usage,
            generation: None,
            economic_value: None,
            time_sensitivity: time_breakdown(dataset, &run.samples, None),
            note: COMPARABILITY_NOTE,
        }
    }

    /// Add Economic Value (overall and per time-sensitivity category) from a value table.
    pub fn with_values(mut self, dataset: &Dataset, run: &JudgeRun, table: &ValueTable) -> Self {
        self.economic_value = Some(economic_value(dataset, &run.samples, table));
        self.time_sensitivity = time_breakdown(dataset, &run.samples, Some(table));
        self
    }
}

/// Write `samples.jsonl` and `report.json` into `dir`, each atomically.
pub fn write_outputs(dir: &Path, run: &JudgeRun, report: &Report) -> Result<()> {
    fs_err::create_dir_all(dir)?;
    let mut lines = Vec::new();
    for sample in &run.samples {
        serde_json::to_writer(&mut lines, sample).map_err(std::io::Error::other)?;
        lines.push(b'\n');
    }
    anser_runstore::write_atomic(&dir.join(SAMPLES_FILE), &lines)?;
    anser_runstore::write_json_atomic(&dir.join(REPORT_FILE), report)?;
    Ok(())
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{:.1}%", v * 100.0))
}

/// The terminal table: one row per subset, category and overall.
pub fn write_table(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    writeln!(out, "{:<32} {:>6} {:>8} {:>12} {:>9}", "level", "scored", "excluded", "expert_score", "pass_rate")?;
    let row = |out: &mut dyn Write, name: &str, l: &Level| {
        writeln!(
            out,
            "{name:<32} {:>6} {:>8} {:>12} {:>9}",
            l.scored,
            l.excluded,
            pct(l.expert_score),
            pct(l.pass_rate)
        )
    };
    for (name, level) in &report.subsets.0 {
        row(out, name, level)?;
    }
    for (name, level) in &report.categories.0 {
        row(out, &format!("{name} (macro {})", pct(level.macro_expert_score)), level)?;
    }
    row(out, &format!("OVERALL (macro {})", pct(report.overall.macro_expert_score)), &report.overall)?;
    if let Some(v) = &report.economic_value {
        writeln!(out, "economic value: {} ({}/{} questions passed)", v.display, v.questions_passed, v.questions_total)?;
    }
    for t in &report.time_sensitivity {
        let value = t.economic_value.as_ref().map_or_else(String::new, |v| format!(", value {}", v.display));
        writeln!(
            out,
            "time sensitivity {:<14} {:>4} task(s), {:>4} scored, expert_score {}, pass_rate {}{value}",
            t.category,
            t.tasks,
            t.scored,
            pct(t.expert_score),
            pct(t.pass_rate)
        )?;
    }
    if !report.invalid_records.is_empty() {
        writeln!(out, "invalid records skipped: {}", report.invalid_records.len())?;
    }
    let u = &report.judge_usage;
    writeln!(
        out,
        "judge: {} request(s), {} sent, {} cached, {} transport failure(s), {} tokens, mean latency {}",
        u.requests,
        u.sent,
        u.cached,
        u.transport_failures,
        u.tokens.total_tokens,
        u.latency_ms_mean.map_or_else(|| "-".into(), |ms| format!("{ms:.0} ms"))
    )?;
    writeln!(out, "note: {COMPARABILITY_NOTE}")
}
