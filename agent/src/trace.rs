//! `trace.jsonl`: the reproducibility log. One line per event — task start and end, every LLM
//! call (model, tokens, attempts, latency), every retrieval and tool call (stage, latency, size,
//! error) — so a run can be audited and per-stage cost can be reported without re-running it.
//!
//! Events of a task are buffered in a [`TaskTrace`] and written together when the task ends (a
//! task's lines are contiguous even with concurrency). The writer fsyncs after every task, and
//! the run loop writes a task's trace *before* its journal line: a journaled task always has its
//! trace, and trace lines without a journal line (a crash in between) are dropped on resume.

use std::{io::Write, path::Path, sync::Mutex, time::Instant};

/// The record types a method needs next to its trace.
pub use anser_record::{GenerationStatus, Stage};
use anser_record::{Stages, TraceEvent, unix_now};
use serde_json::Value;

use crate::{Error, Result};

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
        Stages::of_events(&self.events)
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
