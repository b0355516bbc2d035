//! Methods: how a task is answered. Every method implements [`Solver`]; the run loop owns
//! scheduling, timing, journaling and tracing, so a method only turns one [`PublicTask`] into a
//! [`Solved`] and records its calls in the task's trace.
//!
//! A solver receives `PublicTask`s only — ground truth and gold evidence cannot reach it.

pub mod agent_loop;
mod offline;
pub mod output;
pub mod prompt;
pub mod rag;
pub mod record;
mod search;
mod tool_env;
mod vanilla;

pub use agent_loop::{AgentMethod, AgentParams, AgentParamsBuilder, ToolBox, ToolOutcome, tool_definitions};
use anser_llm::Usage;
pub use offline::Offline;
pub use rag::Rag;
pub use search::{RetrieverSearcher, SearchHit, Searcher, evidence_of};
pub use tool_env::{SchemaCache, ToolEnv};
pub use vanilla::Vanilla;

pub use crate::solver::{Solved, Solver};

/// Add two usages (estimated if either is): [`Usage::add`] on a total that may not exist yet.
pub fn add_usage(a: Option<Usage>, b: &Usage) -> Option<Usage> {
    let mut sum = a.unwrap_or_default();
    sum.add(b);
    Some(sum)
}
