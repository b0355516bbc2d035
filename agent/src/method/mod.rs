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
mod vanilla;

pub use agent_loop::{AgentMethod, AgentParams, SchemaCache, ToolBox, ToolOutcome, tool_definitions};
use anser_llm::Usage;
use anser_manifest::PublicTask;
use futures_util::future::BoxFuture;
pub use offline::Offline;
pub use rag::Rag;
pub use search::{RetrieverSearcher, SearchHit, Searcher, evidence_of};
use serde_json::Value;
pub use vanilla::Vanilla;

use crate::run::{GenerationStatus, TaskTrace};

/// What a method produced for one task.
#[derive(Debug, Clone)]
pub struct Solved {
    pub answer: Value,
    pub evidence: Vec<Value>,
    pub status: GenerationStatus,
    pub errors: Vec<String>,
    /// Summed usage of the task's LLM calls; `None` when the method made none.
    pub usage: Option<Usage>,
    pub flags: Vec<String>,
}

impl Solved {
    /// An answered task (status ok) with its evidence and flags.
    pub fn answered(answer: Value, evidence: Vec<Value>, flags: Vec<String>) -> Solved {
        Solved { answer, evidence, status: GenerationStatus::Ok, errors: Vec::new(), usage: None, flags }
    }

    /// A result without generation (dry run / retrieval only).
    pub fn evidence_only(evidence: Vec<Value>) -> Solved {
        Solved {
            answer: Value::String(String::new()),
            evidence,
            status: GenerationStatus::DryRun,
            errors: Vec::new(),
            usage: None,
            flags: Vec::new(),
        }
    }

    /// A failed task: empty answer, the evidence gathered so far, the error recorded.
    pub fn failed(status: GenerationStatus, evidence: Vec<Value>, error: String, usage: Option<Usage>) -> Solved {
        Solved { answer: Value::String(String::new()), evidence, status, errors: vec![error], usage, flags: Vec::new() }
    }
}

/// One way of answering tasks.
pub trait Solver: Send + Sync {
    /// The method's name as recorded in results and metadata.
    fn name(&self) -> &str;

    /// Answer one task, recording every call in `trace`.
    fn solve<'a>(&'a self, task: &'a PublicTask, trace: &'a mut TaskTrace) -> BoxFuture<'a, Solved>;
}

/// Add two usages (estimated if either is).
pub fn add_usage(a: Option<Usage>, b: &Usage) -> Option<Usage> {
    let mut sum = a.unwrap_or_default();
    sum.prompt_tokens += b.prompt_tokens;
    sum.completion_tokens += b.completion_tokens;
    sum.total_tokens += b.total_tokens;
    sum.reasoning_tokens = match (sum.reasoning_tokens, b.reasoning_tokens) {
        (None, None) => None,
        (x, y) => Some(x.unwrap_or(0) + y.unwrap_or(0)),
    };
    sum.estimated |= b.estimated;
    Some(sum)
}
