//! Single-stage retrieval methods: `sparse` (bm25), `dense`, `hybrid` — retrieve from the
//! task's route, pack the passages into the context budget, generate once — and `retrieval`
//! (also `--dry-run`): the same retrieval with no generation, answer empty.
//!
//! As the official baseline: query = task query + newline + instruction; top 50 units for
//! counting/statistic tasks (legal descriptive, finance descriptive `statistic`), 10 otherwise;
//! evidence = the retrieved records' ids in rank order, de-duplicated, in the scorer's kind.

use std::{sync::Arc, time::Instant};

use anser_llm::Client;
use anser_manifest::{Domain, PublicTask, Split};
use futures_util::{FutureExt, future::BoxFuture};
use serde_json::json;

use super::{
    Solved, Solver,
    prompt::{Passage, pack, user_prompt},
    search::{Searcher, evidence_of},
    vanilla::generate,
};
use crate::{
    tools::boundary::Boundary,
    trace::{GenerationStatus, Stage, TaskTrace},
};

/// Retrieval depth of counting/statistic tasks.
pub const AGGREGATE_K: usize = 50;
/// Retrieval depth of every other task.
pub const DEFAULT_K: usize = 10;
/// Default context budget in estimated tokens (the official baseline's).
pub const DEFAULT_CONTEXT_TOKEN_BUDGET: u64 = 32_768;

/// The official baseline's retrieval depth for a task.
pub fn retrieval_depth(task: &PublicTask) -> usize {
    let g = task.group;
    let aggregate = (g.domain == Domain::Legal && g.split == Split::Descriptive)
        || (g.domain == Domain::Finance
            && g.split == Split::Descriptive
            && task.task_type.as_deref() == Some("statistic"));
    if aggregate { AGGREGATE_K } else { DEFAULT_K }
}

/// A single-stage retrieval method.
#[derive(Debug)]
pub struct Rag {
    name: String,
    searcher: Arc<dyn Searcher>,
    /// `None`: retrieval only (no generation).
    client: Option<Client>,
    context_token_budget: u64,
    max_tokens: u32,
    temperature: f64,
}

impl Rag {
    /// A generating method named `name` (sparse, dense, hybrid).
    pub fn generating(
        name: &str,
        searcher: Arc<dyn Searcher>,
        client: Client,
        context_token_budget: u64,
        max_tokens: u32,
        temperature: f64,
    ) -> Rag {
        Rag { name: name.into(), searcher, client: Some(client), context_token_budget, max_tokens, temperature }
    }

    /// Retrieval only: evidence, empty answer.
    pub fn retrieval_only(name: &str, searcher: Arc<dyn Searcher>) -> Rag {
        Rag { name: name.into(), searcher, client: None, context_token_budget: 0, max_tokens: 0, temperature: 0.0 }
    }

    async fn solve_task(&self, task: &PublicTask, trace: &mut TaskTrace) -> Solved {
        let query = format!("{}\n{}", task.query, task.instruction);
        let k = retrieval_depth(task);
        let started = Instant::now();
        // The searcher applies the task's information boundary inside its ranking; the trace
        // records which one.
        let boundary = Boundary::from_task(task).ok().flatten().map(|b| b.cutoff);
        let hits = match tokio::task::block_in_place(|| self.searcher.search(task, &query, k)) {
            Ok(h) => h,
            Err(e) => {
                trace.record(
                    "retrieval",
                    Stage::Retrieval,
                    started,
                    0,
                    json!({"retriever": self.searcher.spec(), "k": k, "boundary": boundary}),
                    Some(e.clone()),
                );
                return Solved::failed(GenerationStatus::ToolError, Vec::new(), format!("retrieval failed: {e}"), None);
            }
        };
        trace.record(
            "retrieval",
            Stage::Retrieval,
            started,
            0,
            json!({"retriever": self.searcher.spec(), "k": k, "hits": hits.len(), "boundary": boundary,
                   "units": hits.iter().take(10).map(|h| h.unit.clone()).collect::<Vec<_>>()}),
            None,
        );
        let evidence = evidence_of(&hits);
        let Some(client) = &self.client else {
            return Solved::evidence_only(evidence);
        };
        let passages: Vec<Passage<'_>> =
            hits.iter().map(|h| Passage { label: h.unit.clone(), text: &h.text }).collect();
        let (packed, used) = pack(passages, self.context_token_budget);
        trace.note(
            "context",
            json!({"passages": packed.len(), "estimated_tokens": used, "budget": self.context_token_budget}),
        );
        let prompt = user_prompt(task, Some(&packed));
        generate(client, task, prompt, self.max_tokens, self.temperature, evidence, trace).await
    }
}

impl Solver for Rag {
    fn name(&self) -> &str {
        &self.name
    }

    fn solve<'a>(&'a self, task: &'a PublicTask, trace: &'a mut TaskTrace) -> BoxFuture<'a, Solved> {
        self.solve_task(task, trace).boxed()
    }
}
