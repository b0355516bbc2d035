//! `trace.jsonl`: the reproducibility log. One line per event — task start and end, every LLM
//! call (model, tokens, attempts, latency), every retrieval and tool call (stage, latency, size,
//! error) — so a run can be audited and per-stage cost can be reported without re-running it.
//!
//! Events of a task are buffered in a [`TaskTrace`] and written together when the task ends (a
//! task's lines are contiguous even with concurrency). The writer fsyncs after every task, and
//! the run loop writes a task's trace *before* its journal line: a journaled task always has its
//! trace, and trace lines without a journal line (a crash in between) are dropped on resume.

use std::{
    io::Write,
    path::Path,
    sync::Mutex,
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::record::{StageCost, Stages};
use crate::{Error, Result};

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

/// Seconds since the Unix epoch.
pub fn unix_now() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// Just the task id of a trace line (to filter lines without parsing their details).
#[derive(Deserialize)]
pub(crate) struct TraceLineId {
    pub task_id: String,
}

/// The events of one task, in order.
#[derive(Debug)]
pub struct TaskTrace {
    task_id: String,
    events: Vec<TraceEvent>,
}

impl TaskTrace {
    pub fn new(task_id: &str) -> TaskTrace {
        TaskTrace { task_id: task_id.to_string(), events: Vec::new() }
    }

    /// Record an event that took `started.elapsed()`.
    pub fn record(
        &mut self,
        event: &str,
        stage: Stage,
        started: Instant,
        tokens: u64,
        detail: Value,
        error: Option<String>,
    ) {
        self.events.push(TraceEvent {
            ts: unix_now(),
            task_id: self.task_id.clone(),
            event: event.to_string(),
            stage,
            seconds: started.elapsed().as_secs_f64(),
            tokens,
            detail,
            error,
        });
    }

    /// Record an instantaneous event.
    pub fn note(&mut self, event: &str, detail: Value) {
        self.record(event, Stage::Task, Instant::now(), 0, detail, None);
    }

    /// Per-stage sums of this task's events.
    pub fn stages(&self) -> Stages {
        let mut s = Stages::default();
        for e in &self.events {
            let bucket: &mut StageCost = match e.stage {
                Stage::Retrieval => &mut s.retrieval,
                Stage::Sql => &mut s.sql,
                Stage::Compute => &mut s.compute,
                Stage::Llm => &mut s.llm,
                Stage::Task => continue,
            };
            bucket.calls += 1;
            bucket.seconds += e.seconds;
            bucket.tokens += e.tokens;
        }
        s
    }

    pub fn events(&self) -> &[TraceEvent] {
        &self.events
    }
}

/// Appends task traces to `trace.jsonl`.
#[derive(Debug)]
pub struct TraceWriter {
    path: std::path::PathBuf,
    file: Mutex<fs_err::File>,
}

impl TraceWriter {
    /// Open (append) the trace file.
    pub fn open(path: &Path) -> Result<TraceWriter> {
        let file = fs_err::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(TraceWriter { path: path.to_path_buf(), file: Mutex::new(file) })
    }

    /// Write all events of a task in one `write_all` and fsync them.
    pub fn write(&self, trace: &TaskTrace) -> Result<()> {
        let mut buf = Vec::new();
        for e in &trace.events {
            serde_json::to_writer(&mut buf, e).map_err(|e| Error::Internal(format!("trace event: {e}")))?;
            buf.push(b'\n');
        }
        let mut file = self.file.lock().map_err(|_| Error::Internal("trace writer poisoned".into()))?;
        file.write_all(&buf)?;
        file.sync_data()?;
        Ok(())
    }

    /// Append complete trace lines as they are (moving them to another file) and fsync them.
    pub fn write_raw(&self, lines: &[u8]) -> Result<()> {
        let mut file = self.file.lock().map_err(|_| Error::Internal("trace writer poisoned".into()))?;
        file.write_all(lines)?;
        file.sync_data()?;
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}
