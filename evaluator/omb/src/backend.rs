//! The chat calls `omb` makes, behind a small trait so the judging and generation loops are
//! tested with scripted replies and run for real through `anser-llm`'s OpenAI-compatible client
//! ([`LlmBackend`]). Transport retries are the client's (EvalScope: 5 retries, 10 s apart).

use std::{sync::Mutex, time::Duration};

use anser_llm::{BlockingClient, ChatRequest, ClientOptions, EndpointConfig, Message, RetryPolicyBuilder};
use serde::{Deserialize, Serialize};

use crate::Result;

/// Transport retries after the first attempt (EvalScope's GenerateConfig default).
pub const DEFAULT_RETRIES: u32 = 5;
/// Wait between transport retries (EvalScope's GenerateConfig default).
pub const DEFAULT_RETRY_DELAY: Duration = Duration::from_secs(10);
/// Per-attempt HTTP timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Role of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
}

/// One chat completion request.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatCall {
    pub model: String,
    pub messages: Vec<(Role, String)>,
    pub temperature: f64,
    pub max_tokens: Option<u32>,
}

/// Token counts of a call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    /// True when the server reported no usage and the counts are estimates.
    pub estimated: bool,
}

impl TokenUsage {
    pub fn add(&mut self, other: &TokenUsage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
        self.estimated |= other.estimated;
    }
}

/// A completed call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatReply {
    pub text: String,
    #[serde(flatten)]
    pub delivery: Delivery,
}

/// What a completed call delivered besides its text; a generation journals it as it came.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    pub usage: TokenUsage,
    /// Wall time including retries, milliseconds.
    pub latency_ms: f64,
    /// HTTP attempts made.
    pub attempts: u32,
    /// The content was a plain string (no reasoning field, no refusal), so EvalScope cuts its
    /// first `<think>` block ([`crate::transport::completion_text`]).
    #[serde(default = "yes")]
    pub plain: bool,
    /// `model_length` / `content_filter` when an HTTP client error became the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

fn yes() -> bool {
    true
}

/// Something that answers chat calls. Implementations must be shareable across worker threads.
pub trait ChatBackend: Sync {
    /// One completion; `Err` is a transport failure after the backend's own retries.
    fn chat(&self, call: &ChatCall) -> std::result::Result<ChatReply, String>;
}

/// Transport retry settings for [`LlmBackend`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transport {
    /// Retries after the first attempt.
    pub retries: u32,
    /// Fixed wait between attempts.
    pub retry_delay: Duration,
    /// Per-attempt timeout.
    pub timeout: Duration,
}

impl Default for Transport {
    fn default() -> Self {
        Self { retries: DEFAULT_RETRIES, retry_delay: DEFAULT_RETRY_DELAY, timeout: DEFAULT_TIMEOUT }
    }
}

/// [`ChatBackend`] over `anser-llm`: a pool of blocking clients, one per concurrent worker.
#[derive(Debug)]
pub struct LlmBackend {
    endpoint: EndpointConfig,
    options: ClientOptions,
    pool: Mutex<Vec<BlockingClient>>,
}

impl LlmBackend {
    /// A backend for `endpoint` with fixed-delay retries (no jitter, no response cache: `omb`
    /// keeps its own judge cache and generation journal).
    pub fn new(endpoint: EndpointConfig, transport: Transport) -> Result<Self> {
        let retry = RetryPolicyBuilder {
            max_attempts: transport.retries.saturating_add(1),
            initial_backoff: transport.retry_delay,
            multiplier: 1.0,
            max_backoff: transport.retry_delay,
            jitter: 0.0,
            timeout: transport.timeout,
            ..RetryPolicyBuilder::default()
        }
        .build()?;
        let options = ClientOptions { retry, cache: None };
        // Build one client now so a bad setting fails before any work starts.
        let first = BlockingClient::new(endpoint.clone(), options.clone())?;
        Ok(Self { endpoint, options, pool: Mutex::new(vec![first]) })
    }

    fn with_client<T>(&self, f: impl FnOnce(&BlockingClient) -> T) -> std::result::Result<T, String> {
        let taken = self.pool.lock().map_err(|_| "client pool poisoned".to_string())?.pop();
        let client = match taken {
            Some(c) => c,
            None => BlockingClient::new(self.endpoint.clone(), self.options.clone()).map_err(|e| e.to_string())?,
        };
        let out = f(&client);
        if let Ok(mut pool) = self.pool.lock() {
            pool.push(client);
        }
        Ok(out)
    }
}

impl ChatBackend for LlmBackend {
    fn chat(&self, call: &ChatCall) -> std::result::Result<ChatReply, String> {
        let messages = call
            .messages
            .iter()
            .map(|(role, text)| match role {
                Role::System => Message::system(text.clone()),
                Role::User => Message::user(text.clone()),
            })
            .collect();
        let mut request = ChatRequest::new(messages).with_model(call.model.clone()).with_temperature(call.temperature);
        if let Some(n) = call.max_tokens {
            request = request.with_max_tokens(n);
        }
        let outcome = self.with_client(|c| c.chat(&request))?.map_err(|e| e.to_string())?;
        Ok(ChatReply {
            text: outcome.response.text().to_string(),
            delivery: Delivery {
                usage: TokenUsage {
                    prompt_tokens: outcome.usage.prompt_tokens,
                    completion_tokens: outcome.usage.completion_tokens,
                    total_tokens: outcome.usage.total_tokens,
                    estimated: outcome.usage.estimated,
                },
                latency_ms: outcome.latency_ms,
                attempts: outcome.attempts.len() as u32,
                plain: outcome.response.reasoning.is_none(),
                stop_reason: None,
            },
        })
    }
}
