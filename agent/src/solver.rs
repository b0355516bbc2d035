//! The contract between the run loop and the methods: a [`Solver`] turns one public task into
//! a [`Solved`], recording its calls in the task's trace. A leaf module of its own so that the
//! run loop (which schedules solvers) and the methods (which implement them) do not depend on
//! each other; `method` re-exports both names.

use anser_llm::Usage;
use anser_manifest::PublicTask;
use anser_record::GenerationStatus;
use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::trace::TaskTrace;

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
