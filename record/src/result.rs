//! One line of `results.json`: the official results format (`id`, `answer`,
//! `retrieved_evidence`, `latency`, token counts, `generation_status`) plus what this system
//! records on top (errors, group, route, method, per-stage cost, flags). The official evaluator
//! reads only the official keys and ignores the rest, so these files stay scorable by it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::trace::{Stage, TraceEvent};

/// How a task's generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerationStatus {
    /// A parseable answer was produced.
    Ok,
    /// No generation by design (`--dry-run`, `--method retrieval`).
    DryRun,
    /// The model answered with nothing usable.
    EmptyResponse,
    /// The model's reply did not have the answer's required shape (kept raw in `answer`).
    Unparseable,
    /// The LLM endpoint failed after its bounded retries.
    RequestError,
    /// The per-task deadline ran out before an answer.
    Timeout,
    /// A tool or the retriever failed and no answer could be formed.
    ToolError,
    /// The offline planner could not map the task to the corpus's dictionaries, so it gives
    /// evidence only rather than a guessed answer.
    NoPlan,
}

/// Wall time and tokens of one stage of a task, summed over its calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StageCost {
    pub calls: u32,
    pub seconds: f64,
    pub tokens: u64,
}

/// Per-stage cost of one task (from its trace).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stages {
    pub retrieval: StageCost,
    pub sql: StageCost,
    pub compute: StageCost,
    pub llm: StageCost,
}

impl Stages {
    /// The bucket of `stage` (`None` for task bookkeeping, which costs nothing).
    pub fn stage_mut(&mut self, stage: Stage) -> Option<&mut StageCost> {
        match stage {
            Stage::Retrieval => Some(&mut self.retrieval),
            Stage::Sql => Some(&mut self.sql),
            Stage::Compute => Some(&mut self.compute),
            Stage::Llm => Some(&mut self.llm),
            Stage::Task => None,
        }
    }

    /// Per-stage sums of a task's trace events.
    pub fn of_events<'a>(events: impl IntoIterator<Item = &'a TraceEvent>) -> Stages {
        let mut s = Stages::default();
        for e in events {
            if let Some(bucket) = s.stage_mut(e.stage) {
                bucket.calls += 1;
                bucket.seconds += e.seconds;
                bucket.tokens += e.tokens;
            }
        }
        s
    }
}

/// One task's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultRecord {
    pub id: String,
    /// A string, or a JSON object for the structured contracts.
    pub answer: Value,
    pub retrieved_evidence: Vec<Value>,
    /// Seconds from receiving the task to a parseable answer and evidence (6 decimals).
    pub latency: f64,
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
    pub generation_status: GenerationStatus,
    #[serde(default)]
    pub errors: Vec<String>,
    // What this system adds; the official evaluator ignores these keys.
    pub group: String,
    pub route: String,
    pub method: String,
    /// True when any token count of this task is an estimate (the server reported none).
    #[serde(default)]
    pub tokens_estimated: bool,
    #[serde(default)]
    pub stages: Stages,
    /// Answer–evidence consistency findings (e.g. a count that differs from |evidence|).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}
