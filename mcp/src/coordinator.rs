//! One server's run: the selected tasks, which of them a session holds, and the run directory.
//!
//! Tasks are handed out in selection order, each to one session at a time; a task whose session
//! ends without `submit_answer` goes back to the queue (nothing of it is written), so the run
//! directory holds exactly the submitted tasks — and `--resume` continues from there like
//! `anser run --resume`. Records and traces go through [`RunWriter`], the writer of `anser run`:
//! the task's trace (fsynced) before its journal line (fsynced), then `results.json` rewritten.

use std::{
    collections::HashSet,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, MutexGuard},
    time::Instant,
};

use anser_agent::{
    method::{AgentParams, Searcher, ToolBox, ToolEnv},
    run::{ResultRecord, RunConfig, RunWriter, TaskTrace},
};
use anser_manifest::PublicTask;
use serde_json::{Value, json};

use crate::{Error, Result};

/// The method name recorded in results and metadata for tasks answered over MCP.
pub const METHOD: &str = "mcp";

/// Shared state of all sessions of one server.
#[derive(Debug)]
pub struct Coordinator {
    /// What every session's tool boxes are built from.
    env: ToolEnv,
    tasks: Vec<PublicTask>,
    run_dir: PathBuf,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    writer: RunWriter,
    claimed: HashSet<String>,
}

impl Coordinator {
    /// Open (or resume) the run directory of `config` and serve its selection.
    pub fn open(
        config: &RunConfig,
        corpus_root: PathBuf,
        searcher: Option<Arc<dyn Searcher>>,
        params: AgentParams,
    ) -> Result<Arc<Coordinator>> {
        let writer = RunWriter::open(config)?;
        let run_dir = writer.dir().to_path_buf();
        Ok(Arc::new(Coordinator {
            env: ToolEnv::new(corpus_root, searcher, params),
            tasks: config.tasks.clone(),
            run_dir,
            state: Mutex::new(State { writer, claimed: HashSet::new() }),
        }))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// Tasks finished so far (this session and earlier ones of a resumed run).
    pub fn finished(&self) -> usize {
        let state = self.state();
        self.tasks.iter().filter(|t| state.writer.is_done(&t.id)).count()
    }

    /// Every selected task's id, type and state (`done`, `in_progress`, `pending`).
    pub fn list(&self) -> Value {
        let state = self.state();
        let tasks: Vec<Value> = self
            .tasks
            .iter()
            .map(|t| {
                let s = if state.writer.is_done(&t.id) {
                    "done"
                } else if state.claimed.contains(&t.id) {
                    "in_progress"
                } else {
                    "pending"
                };
                json!({"id": t.id, "type": t.task_type, "state": s})
            })
            .collect();
        json!({"tasks": tasks})
    }

    /// The next task nobody finished or holds, now held by the caller until the [`Claim`] is
    /// committed or dropped.
    pub(crate) fn claim_next(self: &Arc<Self>) -> Option<Claim> {
        let mut state = self.state();
        let task = self.tasks.iter().find(|t| !state.writer.is_done(&t.id) && !state.claimed.contains(&t.id))?;
        state.claimed.insert(task.id.clone());
        Some(Claim { coordinator: self.clone(), task: task.clone(), committed: false })
    }

    /// The task's tools, bound to it (its route, boundary and contract).
    pub(crate) fn toolbox(&self, task: &PublicTask, started: Instant, trace: &mut TaskTrace) -> Result<ToolBox> {
        Ok(self.env.toolbox(task, started, trace)?)
    }

    pub(crate) fn params(&self) -> &AgentParams {
        self.env.params()
    }

    /// Rewrite `results.json` from the journal.
    pub fn flush(&self) -> Result<()> {
        Ok(self.state().writer.write_results()?)
    }
}

/// A task held by one session.
#[derive(Debug)]
pub(crate) struct Claim {
    coordinator: Arc<Coordinator>,
    pub task: PublicTask,
    committed: bool,
}

impl Claim {
    /// Write the task's trace and record, then `results.json`; the task is finished.
    pub fn commit(mut self, record: ResultRecord, trace: &TaskTrace) -> Result<()> {
        if record.id != self.task.id {
            return Err(Error::Internal(format!("record {} committed for task {}", record.id, self.task.id)));
        }
        let mut state = self.coordinator.state();
        state.writer.commit(record, trace)?;
        state.writer.write_results()?;
        state.claimed.remove(&self.task.id);
        self.committed = true;
        Ok(())
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if !self.committed {
            self.coordinator.state().claimed.remove(&self.task.id);
        }
    }
}
