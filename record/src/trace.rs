//! One line of `trace.jsonl`, the reproducibility log: task start and end, every LLM call
//! (model, tokens, attempts, latency), every retrieval and tool call (stage, latency, size,
//! error). The agent's `TraceWriter` appends them; reports read them for per-stage cost.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which cost bucket an event belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Retrieval,
    Sql,
    Compute,
    Llm,
    /// Task bookkeeping (start, end, answer validation).
    Task,
}

/// One trace line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// Unix time in seconds when the event finished.
    pub ts: f64,
    pub task_id: String,
    /// `task_start`, `task_end`, `llm_call`, `retrieval`, `tool_call`, `budget`, ...
    pub event: String,
    pub stage: Stage,
    /// Wall time of the event in seconds (0 for instantaneous events).
    pub seconds: f64,
    /// Tokens the event consumed (LLM calls only).
    #[serde(default)]
    pub tokens: u64,
    /// Event-specific details (model, tool name, arguments, result size, attempts, ...).
    #[serde(default)]
    pub detail: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Just the task id of a trace line (to filter lines without parsing their details).
#[derive(Debug, Deserialize)]
pub struct TraceLineId {
    pub task_id: String,
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}
