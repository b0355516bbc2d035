//! The report of one run: metadata, status counts, each group's metric means with bootstrap
//! CIs, the failure taxonomy and the per-stage cost — as a data model, as aligned text (with an
//! option that redacts timings and machine-specific values, for snapshot tests) and as JSON.
//! [`crate::html`] renders the same model as a self-contained HTML page.

use std::collections::BTreeMap;

use anser_evaluator::Metric;
use serde_json::Value;

use crate::{
    Result,
    compare::text_table,
    cost::{CostReport, Summary, cost, stage_name},
    rundir::RunData,
    stats::{StatsParams, bootstrap_ci, mean},
    taxonomy::{FailureKind, Taxonomy, taxonomy},
};

/// One metric of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricStat {
    pub metric: Metric,
    pub mean: Option<f64>,
    /// Tasks with a value.
    pub n: usize,
    /// Tasks where the metric was attempted but unavailable.
    pub unavailable: usize,
    /// Percentile bootstrap CI of the mean over the group's tasks.
    pub ci95: Option<(f64, f64)>,
}

/// The metrics of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupMetrics {
    pub group: String,
    pub tasks: usize,
    /// In the evaluator's order (metric names in code-point order).
    pub metrics: Vec<MetricStat>,
}

/// Everything `anser report` shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    pub name: String,
    pub dir: String,
    /// Flattened metadata (`method`, `generation.model`, `created_at`, …), in a stable order.
    pub metadata: Vec<(String, String)>,
    /// `generation_status` counts.
    pub statuses: BTreeMap<String, usize>,
    /// Empty when the run has no scores.
    pub groups: Vec<GroupMetrics>,
    /// Where the scores came from.
    pub scores_source: Option<String>,
    pub taxonomy: Taxonomy,
    pub cost: CostReport,
    pub params: StatsParams,
}

/// Text rendering options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextOptions {
    /// Print `<t>` for every time value and hide the creation time and paths.
    pub redact_timings: bool,
}

/// Build the report of `run`.
pub fn build(run: &RunData, params: &StatsParams) -> Result<RunReport> {
    let events = run.trace()?;
    let cost = cost(run, events.as_deref());
    let taxonomy = taxonomy(run);
    let mut statuses = BTreeMap::new();
    for r in &run.results {
        let status = serde_json::to_value(r.generation_status).ok().and_then(|v| v.as_str().map(str::to_string));
        *statuses.entry(status.unwrap_or_default()).or_insert(0) += 1;
    }
    let groups = run.scores.as_ref().map(|s| group_metrics(s, params)).unwrap_or_default();
    Ok(RunReport {
        name: run.name.clone(),
        dir: run.dir.display().to_string(),
        metadata: metadata_rows(run),
        statuses,
        groups,
        scores_source: run.scores.as_ref().map(|s| s.source.clone()),
        taxonomy,
        cost,
        params: *params,
    })
}

fn group_metrics(scores: &crate::rundir::TaskScores, params: &StatsParams) -> Vec<GroupMetrics> {
    let mut by_group: BTreeMap<&str, Vec<&crate::rundir::TaskScore>> = BTreeMap::new();
    for t in &scores.tasks {
        by_group.entry(t.group.as_str()).or_default().push(t);
    }
    by_group
        .into_iter()
        .map(|(group, tasks)| {
            let mut metrics: Vec<Metric> = Vec::new();
            for t in &tasks {
                for (m, _) in &t.metrics {
                    if !metrics.contains(m) {
                        metrics.push(*m);
                    }
                }
            }
            metrics.sort_by_key(|m| m.name());
            let stats = metrics
                .into_iter()
                .map(|metric| {
                    let values: Vec<f64> = tasks.iter().filter_map(|t| t.value(metric)).collect();
                    let unavailable = tasks.iter().filter(|t| t.has(metric) && t.value(metric).is_none()).count();
                    let mut rng = params.rng(&[group, metric.name(), "mean-bootstrap"]);
                    MetricStat {
                        metric,
                        mean: mean(&values),
                        n: values.len(),
                        unavailable,
                        ci95: bootstrap_ci(&values, params, &mut rng),
                    }
                })
                .collect();
            GroupMetrics { group: group.to_string(), tasks: tasks.len(), metrics: stats }
        })
        .collect()
}

/// The metadata keys shown first, in this order; then every other setting.
const METADATA_FIRST: &[&str] = &["run_name", "tool", "tool_version", "created_at", "tasks"];

fn metadata_rows(run: &RunData) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let Some(meta) = &run.metadata else {
        if let Some(m) = run.method() {
            rows.push(("method".into(), m));
        }
        return rows;
    };
    for key in METADATA_FIRST {
        if let Some(v) = meta.get(key) {
            rows.push(((*key).to_string(), scalar(v)));
        }
    }
    if let Some(settings) = meta.get("settings") {
        flatten("", settings, &mut rows);
    }
    if let Some(extra) = meta.get("extra") {
        flatten("", extra, &mut rows);
    }
    rows
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, v, out);
            }
        }
        other => out.push((prefix.to_string(), scalar(other))),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// Metadata keys that differ between machines or runs of the same settings.
fn machine_specific(key: &str) -> bool {
    key == "created_at"
        || key.ends_with("_dir")
        || key.ends_with("root")
        || key.contains("base_url")
        || key.ends_with("path")
}

/// A number with 4 decimals, or `–`.
/// A JSON object of each group's entry, then the total's, in that order.
fn groups_then_total<G>(
    groups: &[G],
    total: &G,
    entry: impl Fn(&G) -> (String, Value),
) -> serde_json::Map<String, Value> {
    groups.iter().chain(std::iter::once(total)).map(entry).collect()
}

fn num(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.4}"))
}

impl RunReport {
    /// The report as aligned text.
    pub fn render_text(&self, options: TextOptions) -> String {
        let redact = options.redact_timings;
        let mut out = String::new();
        out.push_str(&format!("run {}", self.name));
        if !redact {
            out.push_str(&format!(" ({})", self.dir));
        }
        out.push('\n');
        for (k, v) in &self.metadata {
            if redact && machine_specific(k) {
                continue;
            }
            out.push_str(&format!("  {k}: {v}\n"));
        }
        let statuses: Vec<String> = self.statuses.iter().map(|(s, n)| format!("{s} {n}")).collect();
        out.push_str(&format!("  generation_status: {}\n", statuses.join(", ")));

        out.push_str("\nmetrics per group (mean over tasks, 95% percentile bootstrap CI)\n");
        match &self.scores_source {
            None => out.push_str("  no scores: evaluate the run (`anser eval`) or pass --benchmark-dir\n"),
            Some(_) => {
                let mut rows = Vec::new();
                for g in &self.groups {
                    for (i, m) in g.metrics.iter().enumerate() {
                        rows.push([
                            if i == 0 { format!("{} ({})", g.group, g.tasks) } else { String::new() },
                            m.metric.name().to_string(),
                            num(m.mean),
                            m.ci95.map_or(String::new(), |(lo, hi)| format!("[{lo:.4}, {hi:.4}]")),
                            m.n.to_string(),
                            m.unavailable.to_string(),
                        ]);
                    }
                }
                out.push_str(&text_table(&["group (tasks)", "metric", "mean", "95% CI", "n", "unavailable"], &rows));
            }
        }

        out.push_str("\nfailure taxonomy (tasks; a task can have several kinds)\n");
        let mut header = vec!["group", "tasks", "failed"];
        header.extend(FailureKind::ALL.iter().map(|k| k.as_str()));
        let header: [&str; 11] = std::array::from_fn(|i| header[i]);
        let mut rows = Vec::new();
        for g in self.taxonomy.groups.iter().chain(std::iter::once(&self.taxonomy.total)) {
            let mut row = vec![g.group.clone(), g.tasks.to_string(), g.failed.to_string()];
            row.extend(FailureKind::ALL.iter().map(|k| g.count(*k).to_string()));
            rows.push(std::array::from_fn::<String, 11, _>(|i| row[i].clone()));
        }
        out.push_str(&text_table(&header, &rows));
        if !self.taxonomy.scored {
            out.push_str("  (no scores: wrong_value is not decided and unparseable uses the generation status only)\n");
        }
        for kind in FailureKind::ALL {
            if let Some(k) = self.taxonomy.total.kinds.get(&kind) {
                out.push_str(&format!("  {}: {} e.g. {}\n", kind.label(), k.count, k.examples.join(", ")));
            }
        }

        out.push_str(&format!(
            "\nper-stage time per task in ms ({}; mean / p50 / p95)\n",
            if self.cost.from_trace { "from trace.jsonl" } else { "from results.json stages: no trace.jsonl" }
        ));
        let triple = |s: &Summary, f: &dyn Fn(f64) -> String| format!("{} / {} / {}", f(s.mean), f(s.p50), f(s.p95));
        let ms = |v: f64| if redact { "<t>".to_string() } else { format!("{:.1}", v * 1e3) };
        let groups: Vec<&crate::cost::GroupCost> =
            self.cost.groups.iter().chain(std::iter::once(&self.cost.total)).collect();
        let rows: Vec<[String; 6]> = groups
            .iter()
            .map(|g| {
                let stage = |i: usize| format!("{} ({:.1})", triple(&g.stages[i].seconds, &ms), g.stages[i].calls);
                [
                    format!("{} ({})", g.group, g.tasks),
                    stage(0),
                    stage(1),
                    stage(2),
                    stage(3),
                    g.latency.as_ref().map_or("–".into(), |s| triple(s, &ms)),
                ]
            })
            .collect();
        out.push_str(&text_table(
            &["group (tasks)", "retrieval (calls)", "sql (calls)", "compute (calls)", "llm (calls)", "task latency"],
            &rows,
        ));
        out.push_str("\ntokens per task (mean / p50 / p95)\n");
        let tokens = |v: f64| format!("{v:.0}");
        let opt = |s: &Option<Summary>| s.as_ref().map_or("–".into(), |s| triple(s, &tokens));
        let rows: Vec<[String; 5]> = groups
            .iter()
            .map(|g| {
                [
                    format!("{} ({})", g.group, g.tasks),
                    triple(&g.stages[3].tokens, &tokens),
                    opt(&g.prompt_tokens),
                    opt(&g.completion_tokens),
                    opt(&g.total_tokens),
                ]
            })
            .collect();
        out.push_str(&text_table(
            &["group (tasks)", "llm calls (trace)", "prompt", "completion", "total (results)"],
            &rows,
        ));
        out
    }

    /// The report as JSON (the same numbers as the text).
    pub fn to_json(&self) -> Value {
        use serde_json::json;
        let summary = |s: &Summary| json!({"mean": s.mean, "p50": s.p50, "p95": s.p95});
        let groups: serde_json::Map<String, Value> = self
            .groups
            .iter()
            .map(|g| {
                let metrics: serde_json::Map<String, Value> = g
                    .metrics
                    .iter()
                    .map(|m| {
                        (
                            m.metric.name().to_string(),
                            json!({"mean": m.mean, "n": m.n, "unavailable": m.unavailable, "ci95": m.ci95.map(|(a, b)| json!([a, b]))}),
                        )
                    })
                    .collect();
                (g.group.clone(), json!({"tasks": g.tasks, "metrics": metrics}))
            })
            .collect();
        let failures = groups_then_total(&self.taxonomy.groups, &self.taxonomy.total, |g| {
            let kinds: serde_json::Map<String, Value> = g
                .kinds
                .iter()
                .map(|(k, c)| (k.as_str().to_string(), json!({"count": c.count, "examples": c.examples})))
                .collect();
            (g.group.clone(), json!({"tasks": g.tasks, "failed": g.failed, "kinds": kinds}))
        });
        let cost = groups_then_total(&self.cost.groups, &self.cost.total, |g| {
            let stages: serde_json::Map<String, Value> = g
                .stages
                .iter()
                .map(|s| {
                    (
                        s.stage.map_or("", stage_name).to_string(),
                        json!({"calls": s.calls, "seconds": summary(&s.seconds), "tokens": summary(&s.tokens)}),
                    )
                })
                .collect();
            (
                g.group.clone(),
                json!({
                    "tasks": g.tasks,
                    "stages": stages,
                    "latency": g.latency.as_ref().map(summary),
                    "total_tokens": g.total_tokens.as_ref().map(summary),
                }),
            )
        });
        json!({
            "run": self.name,
            "metadata": self.metadata.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
            "generation_status": self.statuses,
            "groups": groups,
            "failures": failures,
            "cost": cost,
        })
    }
}
