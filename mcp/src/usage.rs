//! The proxy's usage log, `RUN_DIR/proxy-usage.jsonl`: one line per proxied LLM call with the
//! task it was made for, its latency and its tokens (as the server reported them, or estimated
//! from the texts when it reported none). The proxy appends (fsynced); the MCP server reads a
//! task's lines when the task is submitted and folds them into the task's trace (`llm_call`
//! events, stage `llm`) and its record's token counts — so the proxy and the MCP server share a
//! run through this file whether they run in one process (`anser serve --mcp --proxy-upstream`)
//! or in two (`anser proxy --run-dir`). Keys are never written.

use std::{io::Write, path::Path, sync::Mutex};

use anser_llm::Usage;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// File name of the usage log inside a run directory.
pub const USAGE_FILE: &str = "proxy-usage.jsonl";

/// One proxied call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageLine {
    /// Unix time (seconds) when the call finished.
    pub ts: f64,
    /// The task named by the path prefix or header; empty when none was named.
    pub task_id: String,
    /// `chat/completions`, `embeddings`, ...
    pub endpoint: String,
    pub model: Option<String>,
    /// HTTP status of the upstream's answer (0 when it could not be reached).
    pub status: u16,
    pub stream: bool,
    pub seconds: f64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    /// True when the counts are estimates (the upstream reported no usage).
    pub estimated: bool,
}

impl UsageLine {
    /// The line's tokens as a [`Usage`].
    pub fn usage(&self) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            total_tokens: self.total_tokens,
            reasoning_tokens: None,
            estimated: self.estimated,
        }
    }
}

/// Appends usage lines (one `write_all` + fsync each, so concurrent calls never interleave).
#[derive(Debug)]
pub struct UsageLog {
    file: Mutex<fs_err::File>,
}

impl UsageLog {
    /// Open (append) `RUN_DIR/proxy-usage.jsonl`, creating the run directory if needed.
    pub fn open(run_dir: &Path) -> Result<UsageLog> {
        fs_err::create_dir_all(run_dir)?;
        let file = fs_err::OpenOptions::new().create(true).append(true).open(run_dir.join(USAGE_FILE))?;
        Ok(UsageLog { file: Mutex::new(file) })
    }

    pub fn append(&self, line: &UsageLine) -> Result<()> {
        let mut buf = serde_json::to_vec(line).map_err(|e| Error::Internal(format!("usage line: {e}")))?;
        buf.push(b'\n');
        let mut file = self.file.lock().map_err(|_| Error::Internal("usage log poisoned".into()))?;
        file.write_all(&buf)?;
        file.sync_data()?;
        Ok(())
    }
}

/// The usage lines of `task_id` in `RUN_DIR/proxy-usage.jsonl` (none when the file is absent);
/// a torn last line (a proxy killed mid-write) is skipped.
pub fn read_task(run_dir: &Path, task_id: &str) -> Result<Vec<UsageLine>> {
    let text = match fs_err::read_to_string(run_dir.join(USAGE_FILE)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str::<UsageLine>(l).ok())
        .filter(|l| l.task_id == task_id)
        .collect())
}
