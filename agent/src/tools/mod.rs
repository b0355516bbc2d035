//! The agent's analytical tools, shared by the LLM tool loop and the offline planner.
//!
//! Every tool takes a [`anser_manifest::PublicTask`] (never a `Reference`) or values derived
//! from one, and answers with a value that serialises to JSON: it becomes the tool message an
//! LLM reads and the trace entry of the step. [`timed`] wraps a call into a [`ToolReport`] with
//! its latency, so each step's cost is visible.
//!
//! - [`boundary`]: the information cutoff a predictive task states, parsed strictly.
//! - [`sql`]: read-only SQL on the task's route, ground-truth rows and post-cutoff rows hidden.
//! - [`compute`]: dataframe operations (polars) and association statistics.
//! - [`answer`]: final-answer and evidence validation with consistency flags.
//! - [`answer_shape`]: the answer-shape taxonomy the prompts, the reply parsing and the checks share.

pub mod answer;
pub mod answer_shape;
pub mod boundary;
pub mod compute;
pub mod sql;

use std::time::Instant;

use serde::Serialize;

use crate::Result;

/// One tool call's outcome with its wall-clock latency: the JSON a tool message and a trace
/// entry carry.
#[derive(Debug, Clone, Serialize)]
pub struct ToolReport<T> {
    pub tool: &'static str,
    pub latency_ms: f64,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<T>,
    /// The error message, written for the caller to act on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the caller can fix the error by changing its request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller_error: Option<bool>,
}

/// Run one tool call and time it.
pub fn timed<T>(tool: &'static str, call: impl FnOnce() -> Result<T>) -> ToolReport<T> {
    let start = Instant::now();
    let outcome = call();
    let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
    match outcome {
        Ok(v) => ToolReport { tool, latency_ms, ok: true, result: Some(v), error: None, caller_error: None },
        Err(e) => ToolReport {
            tool,
            latency_ms,
            ok: false,
            result: None,
            caller_error: Some(e.is_caller_error()),
            error: Some(e.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    #[test]
    fn timed_reports_errors_and_latency() {
        let ok = timed("t", || Ok(3));
        assert!(ok.ok && ok.result == Some(3) && ok.latency_ms >= 0.0);
        let err: ToolReport<i32> = timed("t", || Err(Error::SqlRefused("no".into())));
        let json = serde_json::to_value(&err).expect("serialises");
        assert_eq!(json["ok"], false);
        assert_eq!(json["error"], "SQL refused: no");
        assert_eq!(json["caller_error"], true);
        assert!(json.get("result").is_none());
    }
}
