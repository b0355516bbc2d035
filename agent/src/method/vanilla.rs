//! `vanilla`: one LLM call with the task's query and instruction, no retrieval, no evidence.
//! The lower bound every retrieval method is compared with.

use std::time::Instant;

use anser_llm::{ChatRequest, Client, Message};
use anser_manifest::PublicTask;
use futures_util::{FutureExt, future::BoxFuture};
use serde_json::json;

use super::{
    Solved, Solver, add_usage,
    output::{AnswerContract, extract_answer},
    prompt::{SYSTEM_PROMPT, user_prompt},
};
use crate::trace::{GenerationStatus, Stage, TaskTrace};

/// The vanilla method.
#[derive(Debug)]
pub struct Vanilla {
    client: Client,
    max_tokens: u32,
    temperature: f64,
}

impl Vanilla {
    pub fn new(client: Client, max_tokens: u32, temperature: f64) -> Vanilla {
        Vanilla { client, max_tokens, temperature }
    }
}

/// One generation call shared by the single-stage methods: send, trace, extract.
pub(crate) async fn generate(
    client: &Client,
    task: &PublicTask,
    prompt: String,
    max_tokens: u32,
    temperature: f64,
    evidence: Vec<serde_json::Value>,
    trace: &mut TaskTrace,
) -> Solved {
    let contract = AnswerContract::of(task);
    let request = ChatRequest::new(vec![Message::system(SYSTEM_PROMPT), Message::user(prompt)])
        .with_temperature(temperature)
        .with_max_tokens(max_tokens);
    let started = Instant::now();
    match client.chat(&request).await {
        Ok(outcome) => {
            let usage = outcome.usage;
            trace.record(
                "llm_call",
                Stage::Llm,
                started,
                usage.total_tokens,
                json!({
                    "model": outcome.response.model,
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "reasoning_tokens": usage.reasoning_tokens,
                    "estimated": usage.estimated,
                    "attempts": outcome.attempts.len(),
                    "cached": outcome.cached,
                    "finish_reason": outcome.response.finish_reason,
                }),
                None,
            );
            let reply = outcome.response.text().to_string();
            let usage = add_usage(None, &usage);
            if reply.trim().is_empty() {
                return Solved::failed(GenerationStatus::EmptyResponse, evidence, "empty model reply".into(), usage);
            }
            let extracted = extract_answer(contract, &reply);
            let (status, errors) = if extracted.parsed {
                (GenerationStatus::Ok, Vec::new())
            } else {
                (GenerationStatus::Unparseable, vec![format!("reply does not match the {contract:?} contract")])
            };
            Solved { answer: extracted.answer, evidence, status, errors, usage, flags: Vec::new() }
        }
        Err(e) => {
            let message = e.to_string();
            trace.record(
                "llm_call",
                Stage::Llm,
                started,
                0,
                json!({"attempts": e.attempts().len()}),
                Some(message.clone()),
            );
            Solved::failed(GenerationStatus::RequestError, evidence, message, None)
        }
    }
}

impl Solver for Vanilla {
    fn name(&self) -> &str {
        "vanilla"
    }

    fn solve<'a>(&'a self, task: &'a PublicTask, trace: &'a mut TaskTrace) -> BoxFuture<'a, Solved> {
        async move {
            let prompt = user_prompt(task, None);
            generate(&self.client, task, prompt, self.max_tokens, self.temperature, Vec::new(), trace).await
        }
        .boxed()
    }
}
