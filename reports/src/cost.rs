//! Per-stage cost from `trace.jsonl`: wall time and tokens of each task split into retrieval,
//! SQL, compute and LLM, summarised per task group as mean, p50 and p95 over the group's tasks
//! (a task without calls in a stage counts as 0 for that stage), plus the task latency recorded
//! in `results.json`.

use std::collections::{BTreeMap, HashMap};

use anser_evaluator::report::percentile;
use anser_record::{Stage, StageCost, TraceEvent};

use crate::{rundir::RunData, stats::mean};

/// The cost stages, in report order.
pub const STAGES: [Stage; 4] = [Stage::Retrieval, Stage::Sql, Stage::Compute, Stage::Llm];

/// The name of a stage in tables and JSON.
pub fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Retrieval => "retrieval",
        Stage::Sql => "sql",
        Stage::Compute => "compute",
        Stage::Llm => "llm",
        Stage::Task => "task",
    }
}

/// Mean, median and 95th percentile of a per-task quantity.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
}

impl Summary {
    /// Summary of `values` (`None` when empty); percentiles as numpy's default.
    pub fn of(values: &[f64]) -> Option<Summary> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Summary { mean: mean(&sorted)?, p50: percentile(&sorted, 0.5)?, p95: percentile(&sorted, 0.95)? })
    }
}

/// Per-task sums of one stage.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TaskStage {
    pub calls: u32,
    pub seconds: f64,
    pub tokens: u64,
}

/// One task's cost.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TaskCost {
    pub id: String,
    pub group: String,
    /// In [`STAGES`] order.
    pub stages: [TaskStage; 4],
    /// `latency` from results.json (receiving the task to a parseable answer).
    pub latency: Option<f64>,
    /// `total_tokens` from results.json.
    pub total_tokens: Option<u64>,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
}

/// One stage summarised over a group.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StageSummary {
    pub stage: Option<Stage>,
    /// Mean calls per task.
    pub calls: f64,
    pub seconds: Summary,
    pub tokens: Summary,
}

/// A group's cost.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupCost {
    pub group: String,
    pub tasks: usize,
    /// In [`STAGES`] order.
    pub stages: Vec<StageSummary>,
    pub latency: Option<Summary>,
    pub total_tokens: Option<Summary>,
    pub prompt_tokens: Option<Summary>,
    pub completion_tokens: Option<Summary>,
}

/// The cost report of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct CostReport {
    /// Per task, in results order.
    pub tasks: Vec<TaskCost>,
    /// Sorted by group name.
    pub groups: Vec<GroupCost>,
    pub total: GroupCost,
    /// Whether the stage split came from trace.jsonl (else from results.json `stages`).
    pub from_trace: bool,
}

impl CostReport {
    /// Latencies of a group's tasks (for distributions), in results order.
    pub fn latencies(&self, group: &str) -> Vec<f64> {
        self.tasks.iter().filter(|t| t.group == group).filter_map(|t| t.latency).collect()
    }
}

fn stage_index(stage: Stage) -> Option<usize> {
    STAGES.iter().position(|s| *s == stage)
}

/// The cost report of `run`, from its trace (`events`) or, without a trace, from the per-stage
/// sums `anser run` copied into results.json.
pub fn cost(run: &RunData, events: Option<&[TraceEvent]>) -> CostReport {
    let mut tasks: Vec<TaskCost> = run
        .results
        .iter()
        .map(|r| {
            let from = |c: StageCost| TaskStage { calls: c.calls, seconds: c.seconds, tokens: c.tokens };
            TaskCost {
                id: r.id.clone(),
                group: r.group.clone(),
                stages: if events.is_some() {
                    [TaskStage::default(); 4]
                } else {
                    [from(r.stages.retrieval), from(r.stages.sql), from(r.stages.compute), from(r.stages.llm)]
                },
                latency: Some(r.latency),
                total_tokens: r.total_tokens,
                prompt_tokens: r.prompt_tokens,
                completion_tokens: r.completion_tokens,
            }
        })
        .collect();
    if let Some(events) = events {
        let index: HashMap<&str, usize> = run.results.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
        for e in events {
            let (Some(&t), Some(s)) = (index.get(e.task_id.as_str()), stage_index(e.stage)) else { continue };
            let slot = &mut tasks[t].stages[s];
            slot.calls += 1;
            slot.seconds += e.seconds;
            slot.tokens += e.tokens;
        }
    }
    let mut by_group: BTreeMap<&str, Vec<&TaskCost>> = BTreeMap::new();
    for t in &tasks {
        by_group.entry(t.group.as_str()).or_default().push(t);
    }
    let groups = by_group.iter().map(|(g, ts)| summarise(g, ts)).collect();
    let total = summarise("all", &tasks.iter().collect::<Vec<_>>());
    CostReport { tasks, groups, total, from_trace: events.is_some() }
}

fn summarise(group: &str, tasks: &[&TaskCost]) -> GroupCost {
    let stages = STAGES
        .iter()
        .enumerate()
        .map(|(i, stage)| {
            let seconds: Vec<f64> = tasks.iter().map(|t| t.stages[i].seconds).collect();
            let tokens: Vec<f64> = tasks.iter().map(|t| t.stages[i].tokens as f64).collect();
            let calls: Vec<f64> = tasks.iter().map(|t| f64::from(t.stages[i].calls)).collect();
            StageSummary {
                stage: Some(*stage),
                calls: mean(&calls).unwrap_or(0.0),
                seconds: Summary::of(&seconds).unwrap_or_default(),
                tokens: Summary::of(&tokens).unwrap_or_default(),
            }
        })
        .collect();
    let of = |f: &dyn Fn(&TaskCost) -> Option<f64>| Summary::of(&tasks.iter().filter_map(|t| f(t)).collect::<Vec<_>>());
    GroupCost {
        group: group.to_string(),
        tasks: tasks.len(),
        stages,
        latency: of(&|t| t.latency),
        total_tokens: of(&|t| t.total_tokens.map(|v| v as f64)),
        prompt_tokens: of(&|t| t.prompt_tokens.map(|v| v as f64)),
        completion_tokens: of(&|t| t.completion_tokens.map(|v| v as f64)),
    }
}
