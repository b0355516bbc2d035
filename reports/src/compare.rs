//! Paired comparison of runs per task group and metric: each run's mean and count, the delta
//! against the baseline on the tasks both runs have a value for, its bootstrap CI, the sign-flip
//! p-value and the Holm correction across the group's metrics (per compared run).
//!
//! Runs with different task selections are compared on their intersection; what each run loses
//! is reported in `dropped_tasks`.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use anser_evaluator::Metric;
use serde_json::{Value, json};

use crate::{
    Error, Result,
    rundir::{RunData, TaskScores},
    stats::{PMethod, StatsParams, bootstrap_ci, holm, mean, sign_flip_p_value, stars},
};

/// One run as the comparison sees it.
#[derive(Debug, Clone)]
pub struct RunScores<'a> {
    pub name: String,
    /// Selected task ids.
    pub selection: Vec<String>,
    pub scores: &'a TaskScores,
}

impl<'a> RunScores<'a> {
    /// The selection and scores of a run directory (which must have scores).
    pub fn of(run: &'a RunData) -> Result<RunScores<'a>> {
        let scores = run.scores.as_ref().ok_or_else(|| {
            Error::run_file(
                run.dir.join(crate::rundir::EVALUATION_FILE),
                "missing; evaluate the run first (`anser eval`) or pass --benchmark-dir to score it now",
            )
        })?;
        Ok(RunScores {
            name: run.name.clone(),
            selection: run.selection.iter().map(|t| t.id.clone()).collect(),
            scores,
        })
    }
}

/// One run's numbers for one metric of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub run: String,
    pub mean: Option<f64>,
    /// Tasks of the group (in the intersection) with a value.
    pub n: usize,
    /// Tasks where both this run and the baseline have a value (0 for the baseline).
    pub pairs: usize,
    /// Mean paired difference run − baseline; `None` for the baseline or without pairs.
    pub delta: Option<f64>,
    pub ci95: Option<(f64, f64)>,
    /// Sign-flip p-value before the Holm correction.
    pub p_raw: Option<f64>,
    /// Holm-adjusted over the group's metrics for this run.
    pub p_value: Option<f64>,
    pub p_method: Option<PMethod>,
}

impl Cell {
    /// Whether the adjusted p-value is below `alpha`.
    pub fn significant(&self, alpha: f64) -> bool {
        self.p_value.is_some_and(|p| p < alpha)
    }
}

/// One metric of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    pub metric: Metric,
    /// Baseline first, then the other runs in the order given.
    pub cells: Vec<Cell>,
}

/// One task group.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupComparison {
    pub group: String,
    /// Tasks of the group in the intersection.
    pub tasks: usize,
    pub metrics: Vec<MetricRow>,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub baseline: String,
    /// Run names, baseline first.
    pub runs: Vec<String>,
    /// Tasks selected by every run.
    pub common_tasks: usize,
    /// Per run (baseline first): selected tasks outside the intersection.
    pub dropped: Vec<(String, Vec<String>)>,
    pub groups: Vec<GroupComparison>,
    pub params: StatsParams,
}

/// Compare `runs`; the baseline is `baseline` (a run name) or the first run.
pub fn compare(runs: &[RunScores<'_>], baseline: Option<&str>, params: &StatsParams) -> Result<Comparison> {
    if runs.len() < 2 {
        return Err(Error::Param("compare needs at least two run directories".into()));
    }
    let mut names = HashSet::new();
    for r in runs {
        if !names.insert(r.name.as_str()) {
            return Err(Error::Param(format!(
                "two runs are named {:?}; compare runs whose directories have different names",
                r.name
            )));
        }
    }
    let base_index = match baseline {
        None => 0,
        Some(b) => runs.iter().position(|r| r.name == b).ok_or_else(|| {
            Error::Param(format!(
                "--baseline {b:?} is none of the compared runs ({})",
                runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")
            ))
        })?,
    };
    let mut order: Vec<&RunScores<'_>> = vec![&runs[base_index]];
    order.extend(runs.iter().enumerate().filter(|(i, _)| *i != base_index).map(|(_, r)| r));

    // The intersection of the selections, in the baseline's order.
    let sets: Vec<HashSet<&str>> = order.iter().map(|r| r.selection.iter().map(String::as_str).collect()).collect();
    let common: Vec<&str> =
        order[0].selection.iter().map(String::as_str).filter(|id| sets.iter().all(|s| s.contains(id))).collect();
    let common_set: HashSet<&str> = common.iter().copied().collect();
    let dropped = order
        .iter()
        .map(|r| (r.name.clone(), r.selection.iter().filter(|id| !common_set.contains(id.as_str())).cloned().collect()))
        .collect();

    // Group of each common task: the first run whose evaluation has it.
    let mut by_group: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for id in &common {
        if let Some(score) = order.iter().find_map(|r| r.scores.get(id)) {
            by_group.entry(score.group.clone()).or_default().push(id);
        }
    }

    let mut groups = Vec::with_capacity(by_group.len());
    for (group, ids) in by_group {
        let mut metrics: BTreeSet<(&'static str, Metric)> = BTreeSet::new();
        for r in &order {
            for id in &ids {
                if let Some(s) = r.scores.get(id) {
                    for (m, _) in &s.metrics {
                        if s.value(*m).is_some() {
                            metrics.insert((m.name(), *m));
                        }
                    }
                }
            }
        }
        let mut rows: Vec<MetricRow> = metrics
            .into_iter()
            .map(|(_, metric)| MetricRow { metric, cells: metric_cells(&group, metric, &ids, &order, params) })
            .collect();
        // Holm across the group's metrics, separately for each compared run.
        for run in 1..order.len() {
            let tested: Vec<(usize, f64)> =
                rows.iter().enumerate().filter_map(|(i, row)| row.cells[run].p_raw.map(|p| (i, p))).collect();
            let adjusted = holm(&tested.iter().map(|(_, p)| *p).collect::<Vec<_>>());
            for ((i, _), p) in tested.iter().zip(adjusted) {
                rows[*i].cells[run].p_value = Some(p);
            }
        }
        groups.push(GroupComparison { group, tasks: ids.len(), metrics: rows });
    }
    Ok(Comparison {
        baseline: order[0].name.clone(),
        runs: order.iter().map(|r| r.name.clone()).collect(),
        common_tasks: common.len(),
        dropped,
        groups,
        params: *params,
    })
}

fn metric_cells(
    group: &str,
    metric: Metric,
    ids: &[&str],
    order: &[&RunScores<'_>],
    params: &StatsParams,
) -> Vec<Cell> {
    let values = |r: &RunScores<'_>, id: &str| r.scores.get(id).and_then(|s| s.value(metric));
    let mut cells = Vec::with_capacity(order.len());
    for (i, r) in order.iter().enumerate() {
        let own: Vec<f64> = ids.iter().filter_map(|id| values(r, id)).collect();
        let mut cell = Cell {
            run: r.name.clone(),
            mean: mean(&own),
            n: own.len(),
            pairs: 0,
            delta: None,
            ci95: None,
            p_raw: None,
            p_value: None,
            p_method: None,
        };
        if i > 0 {
            let diffs: Vec<f64> = ids.iter().filter_map(|id| Some(values(r, id)? - values(order[0], id)?)).collect();
            if !diffs.is_empty() {
                let mut rng = params.rng(&[group, metric.name(), "paired-bootstrap"]);
                cell.pairs = diffs.len();
                cell.delta = mean(&diffs);
                cell.ci95 = bootstrap_ci(&diffs, params, &mut rng);
                let mut rng = params.rng(&[group, metric.name(), "sign-flip"]);
                let (p, method) = sign_flip_p_value(&diffs, params, &mut rng);
                cell.p_raw = Some(p);
                cell.p_method = Some(method);
            }
        }
        cells.push(cell);
    }
    cells
}

/// Better, worse or no significant difference, direction-aware (lower MAE/SMAPE is better).
pub fn verdict(metric: Metric, cell: &Cell, alpha: f64) -> &'static str {
    match (cell.significant(alpha), cell.delta) {
        (true, Some(d)) if (d > 0.0) == metric.higher_is_better() => "better",
        (true, Some(_)) => "worse",
        _ => "",
    }
}

impl Comparison {
    /// `{"groups": {GROUP: {METRIC: {RUN: {"mean", "n", "delta", "ci95", "p_value"}}}},
    /// "dropped_tasks": {RUN: count}}`; delta, ci95 and p_value are null for the baseline.
    pub fn to_json(&self) -> Value {
        let mut groups = serde_json::Map::new();
        for g in &self.groups {
            let mut metrics = serde_json::Map::new();
            for row in &g.metrics {
                let mut runs = serde_json::Map::new();
                for c in &row.cells {
                    runs.insert(
                        c.run.clone(),
                        json!({
                            "mean": c.mean,
                            "n": c.n,
                            "delta": c.delta,
                            "ci95": c.ci95.map(|(lo, hi)| json!([lo, hi])),
                            "p_value": c.p_value,
                        }),
                    );
                }
                metrics.insert(row.metric.name().to_string(), Value::Object(runs));
            }
            groups.insert(g.group.clone(), Value::Object(metrics));
        }
        let dropped: serde_json::Map<String, Value> =
            self.dropped.iter().map(|(k, v)| (k.clone(), json!(v.len()))).collect();
        json!({"groups": groups, "dropped_tasks": dropped})
    }

    /// The comparison as an aligned text table (`markdown = false`) or Markdown tables.
    pub fn render(&self, markdown: bool) -> String {
        let alpha = self.params.alpha();
        let mut out = String::new();
        let dropped: Vec<String> = self.dropped.iter().map(|(run, ids)| format!("{run} {}", ids.len())).collect();
        out.push_str(&format!(
            "baseline: {} · {} tasks selected by every run · dropped tasks: {}\n",
            self.baseline,
            self.common_tasks,
            dropped.join(", ")
        ));
        let header = ["metric", "run", "mean", "n", "delta", "95% CI", "p (Holm)", "", "verdict"];
        for g in &self.groups {
            out.push('\n');
            if markdown {
                out.push_str(&format!("### {} ({} tasks)\n\n", g.group, g.tasks));
            } else {
                out.push_str(&format!("{} ({} tasks)\n", g.group, g.tasks));
            }
            let mut rows: Vec<[String; 9]> = Vec::new();
            for row in &g.metrics {
                for (i, c) in row.cells.iter().enumerate() {
                    let metric = if i == 0 || markdown { row.metric.name().to_string() } else { String::new() };
                    let run = if i == 0 { format!("{} (baseline)", c.run) } else { c.run.clone() };
                    let p = c.p_value;
                    rows.push([
                        metric,
                        run,
                        c.mean.map_or("–".into(), |m| format!("{m:.4}")),
                        c.n.to_string(),
                        c.delta.map_or(String::new(), |d| format!("{d:+.4}")),
                        c.ci95.map_or(String::new(), |(lo, hi)| format!("[{lo:+.4}, {hi:+.4}]")),
                        p.map_or(String::new(), format_p),
                        p.map_or(String::new(), |p| stars(p, alpha).to_string()),
                        verdict(row.metric, c, alpha).to_string(),
                    ]);
                }
            }
            out.push_str(&if markdown { markdown_table(&header, &rows) } else { text_table(&header, &rows) });
        }
        out.push_str(&format!(
            "\ndelta = run − baseline on the tasks both have a value for; 95% CI: paired bootstrap ({} resamples, seed {}); \
             p: paired sign-flip test ({}), Holm-adjusted over each group's metrics; * p < {alpha}, ** p < 0.01, *** p < 0.001; \
             verdict is direction-aware (lower MAE/SMAPE is better).\n",
            self.params.resamples(),
            self.params.seed(),
            if self.uses_monte_carlo() {
                format!("exact up to {} non-zero pairs, else {} random sign vectors", self.params.exact_max_pairs(), self.params.permutations())
            } else {
                "exact".to_string()
            },
        ));
        out
    }

    fn uses_monte_carlo(&self) -> bool {
        self.groups
            .iter()
            .flat_map(|g| &g.metrics)
            .flat_map(|r| &r.cells)
            .any(|c| c.p_method == Some(PMethod::MonteCarlo))
    }
}

/// p with 4 decimals, or `<0.0001`.
pub fn format_p(p: f64) -> String {
    if p < 0.0001 { "<0.0001".into() } else { format!("{p:.4}") }
}

/// Left-aligned text columns (numbers right-aligned), two spaces apart, indented by two.
pub fn text_table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let numeric = |col: usize| {
        rows.iter().all(|r| {
            let c = r[col].trim_start_matches(['+', '-', '<']);
            c.is_empty() || c == "–" || c.parse::<f64>().is_ok()
        })
    };
    let right: Vec<bool> = (0..N).map(numeric).collect();
    let line = |cells: Vec<&str>| -> String {
        let mut s = String::from(" ");
        for (i, c) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(c.chars().count());
            s.push(' ');
            if right[i] {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            }
            s.push(' ');
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(header.to_vec());
    for r in rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    out
}

/// A Markdown table.
pub fn markdown_table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = format!("| {} |\n", header.iter().map(|h| esc(h)).collect::<Vec<_>>().join(" | "));
    out.push_str(&format!("|{}\n", "---|".repeat(N)));
    for r in rows {
        out.push_str(&format!("| {} |\n", r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")));
    }
    out
}
