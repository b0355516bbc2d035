//! What every task's tools are built from: the corpus root, the retriever, the agent's
//! parameters and the run's `schema` message cache. The built-in agent ([`super::AgentMethod`])
//! and the MCP server's coordinator (`anser-mcp`) each own one [`ToolEnv`] and ask it for a
//! [`ToolBox`] per task, so both open a task's tools the same way.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::Instant,
};

use anser_manifest::PublicTask;

use super::{AgentParams, Searcher, ToolBox};
use crate::{Result, trace::TaskTrace};

/// `schema` tool messages per (route, boundary), shared by the tool boxes of one run: the report
/// reads every table's sample values, which is most of the agent's non-LLM time, and it is the
/// same for every task that sees the same rows.
pub type SchemaCache = Mutex<HashMap<String, String>>;

/// The four things a task's [`ToolBox`] is built from, owned by one run (or one MCP server).
#[derive(Debug, Clone)]
pub struct ToolEnv {
    corpus_root: PathBuf,
    searcher: Option<Arc<dyn Searcher>>,
    params: AgentParams,
    schema_cache: Arc<SchemaCache>,
}

impl ToolEnv {
    /// An environment with an empty schema cache.
    pub fn new(corpus_root: PathBuf, searcher: Option<Arc<dyn Searcher>>, params: AgentParams) -> ToolEnv {
        ToolEnv { corpus_root, searcher, params, schema_cache: Arc::default() }
    }

    /// The tools of `task`, its statements bounded by the task's deadline counted from `started`
    /// (opening its database is recorded in `trace`).
    pub fn toolbox(&self, task: &PublicTask, started: Instant, trace: &mut TaskTrace) -> Result<ToolBox> {
        ToolBox::for_task(
            &self.corpus_root,
            task,
            self.searcher.clone(),
            &self.params,
            self.schema_cache.clone(),
            started,
            trace,
        )
    }

    pub fn params(&self) -> &AgentParams {
        &self.params
    }

    pub fn corpus_root(&self) -> &Path {
        &self.corpus_root
    }
}
