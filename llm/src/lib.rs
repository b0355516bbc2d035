//! `anser-llm`: an OpenAI-compatible client for chat completions and embeddings (vLLM,
//! Ollama, OpenAI), with retries, usage accounting, a content-addressed response cache with
//! strict replay, and a loopback mock server for tests.
//!
//! # Configuration
//!
//! [`Settings`] snapshots the process environment and a `.env` file; [`Settings::endpoint`]
//! resolves an endpoint with precedence command line ([`Overrides`]) > environment > `.env` >
//! defaults, for any set of variable names ([`EndpointVars`]): [`GENERATION`]
//! (`GENERATION_BASE_URL`/`_API_KEY`/`_MODEL`), [`JUDGE`] (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
//! `ANSER_JUDGE_MODEL`) and [`EMBEDDING`] (`EMBEDDING_*`). [`Settings::lookup`] resolves any
//! other variable the same way. Keys are held in [`ApiKey`], which never prints its value and
//! cannot be serialised; write [`EndpointConfig::public`] to metadata.
//!
//! ```no_run
//! use anser_llm::{ChatRequest, Client, ClientOptions, GENERATION, Message, Overrides, Settings};
//! # async fn demo() -> anser_llm::Result<()> {
//! let endpoint = Settings::load()?.endpoint(&GENERATION, &Overrides::default())?;
//! let client = Client::new(endpoint, ClientOptions::default())?;
//! let request = ChatRequest::new(vec![Message::system("Be brief."), Message::user("2+2?")]).with_temperature(0.0);
//! let outcome = client.chat(&request).await?;
//! println!("{} ({} tokens, {} attempt(s))", outcome.response.text(), outcome.usage.total_tokens, outcome.attempts.len());
//! # Ok(()) }
//! ```
//!
//! # Calls
//!
//! [`Client::chat`] sends a [`ChatRequest`] (messages of every [`Role`], [`Tool`]s and
//! [`ToolChoice`], [`ResponseFormat`], temperature, `max_tokens`, extra body fields such as
//! `reasoning_effort`) and returns a [`ChatOutcome`]: the first choice ([`ChatResponse`] with
//! text, reasoning, [`ToolCall`]s), its [`Usage`], every [`Attempt`], whether it came from the
//! cache, and the wall time. [`Client::embed`] sends an [`EmbeddingRequest`] in batches and
//! returns an [`EmbeddingOutcome`]. Synchronous code uses [`BlockingClient`]. A `Client` is
//! `Send + Sync`: share one by reference across concurrent tasks.
//!
//! # Usage accounting
//!
//! Provider counts (prompt, completion, total, reasoning) when the server reports them;
//! otherwise estimates with [`estimate_tokens`] (CJK character = 1 token, other characters =
//! 1/4, rounded up) marked [`Usage::estimated`].
//!
//! # Retries
//!
//! [`RetryPolicy`] (valid by construction from a [`RetryPolicyBuilder`]; `DEFAULT_*` consts in [`retry`]): statuses 408/409/425/429/5xx,
//! transport errors, timeouts, cut-off and non-JSON bodies are retried up to `max_attempts`
//! in total with capped exponential backoff and seeded jitter, or after `Retry-After` (seconds
//! or HTTP date, capped); other statuses fail at once. Every attempt (status, error, latency,
//! wait) is returned, in the outcome or in the error ([`Error::attempts`]).
//!
//! # Cache and replay
//!
//! [`ResponseCache`] keys each request by the SHA-256 of its canonical JSON with the base URL
//! (never the key). [`CacheMode::ReadWrite`] records; [`CacheMode::Replay`] answers only from
//! disk and fails on the first miss with [`Error::ReplayMiss`]. Writes are atomic.
//!
//! # Mock server (feature `mock`)
//!
//! `mock::MockServer` serves `/v1/chat/completions` and `/v1/embeddings` on 127.0.0.1 with
//! deterministic default answers, scripted `mock::Rule`s, injected `mock::Fault`s and a
//! record of every request; `anser mock-llm --port P --delay-ms D` runs it by hand. It is test
//! tooling behind the `mock` feature (enabled by the `anser` binary and by the dev-dependencies
//! of the crates whose tests use it), so a default build of this library links no axum.

mod attempt;
mod cache;
mod chat;
mod client;
mod config;
mod embed;
mod error;
#[cfg(feature = "mock")]
pub mod mock;
pub mod retry;
mod usage;

pub use cache::{CACHE_FORMAT_VERSION, CacheMode, ResponseCache};
pub use chat::{ChatOutcome, ChatRequest, ChatResponse, Message, ResponseFormat, Role, Tool, ToolCall, ToolChoice};
pub use client::{BlockingClient, Client, ClientOptions};
pub use config::{
    ApiKey, DEFAULT_EMBEDDING_MODEL, DEFAULT_JUDGE_BASE_URL, DEFAULT_JUDGE_MODEL, EMBEDDING, EndpointConfig,
    EndpointVars, GENERATION, JUDGE, Overrides, PublicEndpoint, Resolved, Settings, Source,
};
pub use embed::{DEFAULT_EMBED_BATCH_SIZE, EmbeddingOutcome, EmbeddingRequest};
pub use error::{Error, Result};
pub use retry::{Attempt, RetryPolicy, RetryPolicyBuilder};
pub use usage::{Usage, estimate_tokens, is_cjk};
