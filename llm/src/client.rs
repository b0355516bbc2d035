//! The HTTP client: one [`Client`] per endpoint, shared by reference across concurrent calls.
//! Every call goes cache → (retrying) POST → parse → usage → cache, and returns the attempts
//! it made. [`BlockingClient`] wraps it for synchronous callers.

use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::cache::{CacheMode, ResponseCache};
use crate::chat::{ChatOutcome, ChatRequest, ChatResponse};
use crate::config::EndpointConfig;
use crate::embed::{EmbeddingOutcome, EmbeddingRequest, parse_embeddings};
use crate::error::{Error, Result, error_message};
use crate::retry::{Attempt, JitterRng, RetryPolicy, is_retryable_status, parse_retry_after};
use crate::usage::{Usage, estimate_tokens};

/// How a [`Client`] behaves beyond its endpoint.
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    pub retry: RetryPolicy,
    /// Response cache; `None` sends every request.
    pub cache: Option<ResponseCache>,
}

/// An OpenAI-compatible client for one endpoint (chat completions and embeddings).
///
/// `Debug` never shows the API key.
#[derive(Debug)]
pub struct Client {
    endpoint: EndpointConfig,
    options: ClientOptions,
    http: reqwest::Client,
    rng: Mutex<JitterRng>,
}

/// The body of a successful POST and the attempts it took.
struct Posted {
    body: Value,
    attempts: Vec<Attempt>,
}

impl Client {
    /// A client for `endpoint` (its retry policy is valid by construction). Loopback endpoints bypass any
    /// system proxy.
    pub fn new(endpoint: EndpointConfig, options: ClientOptions) -> Result<Self> {
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("anser-llm/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(options.retry.timeout().min(Duration::from_secs(30)))
            .timeout(options.retry.timeout());
        if is_loopback(&endpoint.base_url) {
            builder = builder.no_proxy();
        }
        let http =
            builder.build().map_err(|e| Error::Setup(format!("cannot build the HTTP client: {}", describe(&e))))?;
        let rng = Mutex::new(JitterRng::new(options.retry.seed()));
        Ok(Self { endpoint, options, http, rng })
    }

    pub fn endpoint(&self) -> &EndpointConfig {
        &self.endpoint
    }

    pub fn options(&self) -> &ClientOptions {
        &self.options
    }

    /// One chat completion (first choice), with retries, usage and the cache.
    pub async fn chat(&self, request: &ChatRequest) -> Result<ChatOutcome> {
        let started = Instant::now();
        let body = request.body(&self.endpoint.model)?;
        let key = ResponseCache::key("chat", &self.endpoint.base_url, &body);
        let model = body["model"].as_str().unwrap_or_default().to_string();
        let finish = |value: Value, attempts: Vec<Attempt>, cached: bool| -> Result<ChatOutcome> {
            let response = ChatResponse::parse(&value).map_err(|message| match (cached, &self.options.cache) {
                (true, Some(c)) => Error::CorruptCache { path: c.path(&key), message },
                _ => {
                    Error::Malformed { url: self.endpoint.url("chat/completions"), message, attempts: attempts.clone() }
                }
            })?;
            let usage = value
                .get("usage")
                .and_then(Usage::from_reported)
                .unwrap_or_else(|| Usage::estimate(&request.prompt_text(), &response.completion_text()));
            Ok(ChatOutcome {
                response,
                usage,
                attempts,
                cached,
                cache_key: key.clone(),
                latency_ms: started.elapsed().as_secs_f64() * 1e3,
            })
        };
        if let Some(hit) = self.cached("chat", &key, &model)? {
            match finish(hit, Vec::new(), true) {
                Err(e @ Error::CorruptCache { .. }) if self.reads_through() => self.warn_corrupt(&e),
                other => return other,
            }
        }
        let posted = self.post_json("chat/completions", &body).await?;
        let outcome = finish(posted.body.clone(), posted.attempts, false)?;
        self.store("chat", &key, &body, &posted.body);
        Ok(outcome)
    }

    /// Embeddings of every input, in input order, `batch_size` inputs per call.
    pub async fn embed(&self, request: &EmbeddingRequest) -> Result<EmbeddingOutcome> {
        request.validate()?;
        let started = Instant::now();
        let mut out = EmbeddingOutcome {
            vectors: Vec::with_capacity(request.inputs.len()),
            usage: Usage::default(),
            attempts: Vec::new(),
            batches: 0,
            cached_batches: 0,
            latency_ms: 0.0,
        };
        let url = self.endpoint.url("embeddings");
        for batch in request.inputs.chunks(request.batch_size) {
            let body = request.batch_body(&self.endpoint.model, batch)?;
            let key = ResponseCache::key("embeddings", &self.endpoint.base_url, &body);
            let model = body["model"].as_str().unwrap_or_default().to_string();
            let hit = match self.cached("embeddings", &key, &model)? {
                Some(hit) => match parse_embeddings(&hit, batch.len(), request.dimensions) {
                    Ok(vectors) => Some((hit, vectors)),
                    Err(message) => {
                        let path = self.options.cache.as_ref().map(|c| c.path(&key)).unwrap_or_default();
                        let e = Error::CorruptCache { path, message };
                        if !self.reads_through() {
                            return Err(e);
                        }
                        self.warn_corrupt(&e);
                        None
                    }
                },
                None => None,
            };
            let cached = hit.is_some();
            let (value, vectors) = match hit {
                Some(hit) => hit,
                None => {
                    let posted = self.post_json("embeddings", &body).await?;
                    out.attempts.extend(posted.attempts);
                    let vectors =
                        parse_embeddings(&posted.body, batch.len(), request.dimensions).map_err(|message| {
                            Error::Malformed { url: url.clone(), message, attempts: out.attempts.clone() }
                        })?;
                    self.store("embeddings", &key, &body, &posted.body);
                    (posted.body, vectors)
                }
            };
            let usage = value.get("usage").and_then(Usage::from_reported).unwrap_or_else(|| {
                let prompt: u64 = batch.iter().map(|s| estimate_tokens(s)).sum();
                Usage { prompt_tokens: prompt, total_tokens: prompt, estimated: true, ..Usage::default() }
            });
            out.usage.add(&usage);
            out.vectors.extend(vectors);
            out.batches += 1;
            out.cached_batches += usize::from(cached);
        }
        out.latency_ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(out)
    }

    /// Whether a bad cache entry can be skipped by asking the server (read-write mode).
    fn reads_through(&self) -> bool {
        self.options.cache.as_ref().is_some_and(|c| c.mode() == CacheMode::ReadWrite)
    }

    fn warn_corrupt(&self, error: &Error) {
        if let Some(cache) = &self.options.cache {
            cache.warn_corrupt(error);
        }
    }

    /// A cached response body, or `None` to go to the server; a replay miss is an error. In
    /// read-write mode an entry that cannot be read is a warning and a miss.
    fn cached(&self, kind: &'static str, key: &str, model: &str) -> Result<Option<Value>> {
        let Some(cache) = &self.options.cache else { return Ok(None) };
        let entry = match cache.get(key) {
            Ok(entry) => entry,
            Err(e) if cache.mode() == CacheMode::ReadWrite => {
                cache.warn_corrupt(&e);
                None
            }
            Err(e) => return Err(e),
        };
        match (entry, cache.mode()) {
            (Some(hit), _) => Ok(Some(hit)),
            (None, CacheMode::Replay) => Err(Error::ReplayMiss {
                kind,
                model: model.to_string(),
                key: key.to_string(),
                dir: cache.dir().to_path_buf(),
            }),
            (None, CacheMode::ReadWrite) => Ok(None),
        }
    }

    /// Record a response; a failed write is a warning (the answer is already in hand).
    fn store(&self, kind: &str, key: &str, request: &Value, response: &Value) {
        if let Some(cache) = self.options.cache.as_ref().filter(|c| c.mode() == CacheMode::ReadWrite)
            && let Err(e) = cache.put(key, kind, request, response)
        {
            cache.warn_write_failure(&e);
        }
    }

    /// POSTs `body` to `path` until a 2xx JSON answer, a non-retryable status, or the last
    /// allowed attempt.
    async fn post_json(&self, path: &str, body: &Value) -> Result<Posted> {
        let url = self.endpoint.url(path);
        let payload =
            serde_json::to_vec(body).map_err(|e| Error::InvalidRequest(format!("cannot encode the body: {e}")))?;
        let policy = &self.options.retry;
        let mut attempts: Vec<Attempt> = Vec::new();
        let mut last = String::new();
        for n in 1..=policy.max_attempts() {
            let t0 = Instant::now();
            let mut req =
                self.http.post(&url).header(reqwest::header::CONTENT_TYPE, "application/json").body(payload.clone());
            if let Some(key) = self.endpoint.api_key.expose_secret() {
                req = req.bearer_auth(key);
            }
            let mut attempt =
                Attempt { attempt: n, status: None, error: None, latency_ms: 0.0, retry_after_ms: None, wait_ms: None };
            let mut retry_after = None;
            match req.send().await {
                Err(e) => attempt.error = Some(self.describe_send(&e)),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    attempt.status = Some(status);
                    retry_after = resp
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| parse_retry_after(v, SystemTime::now()));
                    attempt.retry_after_ms = retry_after.map(|d| d.as_millis() as u64);
                    match resp.bytes().await {
                        Err(e) => attempt.error = Some(format!("response body cut off: {}", self.describe_send(&e))),
                        Ok(bytes) if (200..300).contains(&status) => match serde_json::from_slice::<Value>(&bytes) {
                            Ok(value) => {
                                attempt.latency_ms = ms(t0);
                                attempts.push(attempt);
                                return Ok(Posted { body: value, attempts });
                            }
                            Err(e) => {
                                attempt.error = Some(format!("response body is not JSON ({e}): {}", snippet(&bytes)))
                            }
                        },
                        Ok(bytes) => {
                            let message = server_message(&bytes);
                            attempt.error = Some(format!("HTTP {status}: {message}"));
                            if !is_retryable_status(status) {
                                attempt.latency_ms = ms(t0);
                                attempts.push(attempt);
                                return Err(Error::Status { url, status, message, attempts });
                            }
                        }
                    }
                }
            }
            attempt.latency_ms = ms(t0);
            last = attempt.error.clone().unwrap_or_default();
            if n < policy.max_attempts() {
                let wait = {
                    let mut rng = self.rng.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    policy.wait(n, retry_after, &mut rng)
                };
                attempt.wait_ms = Some(wait.as_millis() as u64);
                tracing::warn!(%url, attempt = n, error = %last, wait_ms = wait.as_millis() as u64, "LLM call failed; retrying");
                attempts.push(attempt);
                tokio::time::sleep(wait).await;
            } else {
                attempts.push(attempt);
            }
        }
        tracing::warn!(%url, attempts = attempts.len(), error = %last, "LLM call failed; giving up");
        Err(Error::Exhausted { url, last, attempts })
    }

    fn describe_send(&self, e: &reqwest::Error) -> String {
        if e.is_timeout() {
            format!("timed out after {:.1} s", self.options.retry.timeout().as_secs_f64())
        } else {
            describe(e)
        }
    }
}

/// A blocking wrapper around [`Client`] for synchronous code (it owns a small current-thread
/// tokio runtime).
///
/// It is safe to create, call and drop anywhere, including inside another tokio runtime: the
/// embedders that use it are called from solvers under `block_in_place` and end up dropped by
/// the run loop's async task. Inside a runtime context each call runs on a scoped helper thread
/// (so no runtime is entered from within another), and dropping shuts the runtime down in the
/// background instead of waiting for its blocking pool (which tokio forbids in async context).
#[derive(Debug)]
pub struct BlockingClient {
    inner: Client,
    /// Always `Some` until `drop` takes it.
    runtime: Option<tokio::runtime::Runtime>,
}

impl BlockingClient {
    pub fn new(endpoint: EndpointConfig, options: ClientOptions) -> Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Setup(format!("cannot start a tokio runtime: {e}")))?;
        Ok(Self { inner: Client::new(endpoint, options)?, runtime: Some(runtime) })
    }

    pub fn client(&self) -> &Client {
        &self.inner
    }

    pub fn chat(&self, request: &ChatRequest) -> Result<ChatOutcome> {
        self.block_on(self.inner.chat(request))
    }

    pub fn embed(&self, request: &EmbeddingRequest) -> Result<EmbeddingOutcome> {
        self.block_on(self.inner.embed(request))
    }

    /// Drive `future` on the owned runtime; on a helper thread when this thread is inside a
    /// runtime context, where `Runtime::block_on` would panic.
    fn block_on<T: Send>(&self, future: impl Future<Output = Result<T>> + Send) -> Result<T> {
        let runtime = self.runtime.as_ref().ok_or_else(|| Error::Setup("the blocking client was shut down".into()))?;
        if tokio::runtime::Handle::try_current().is_err() {
            return runtime.block_on(future);
        }
        std::thread::scope(|scope| {
            let helper = std::thread::Builder::new()
                .name("anser-llm-blocking".into())
                .spawn_scoped(scope, || runtime.block_on(future))
                .map_err(|e| Error::Setup(format!("cannot start a helper thread: {e}")))?;
            helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }
}

impl Drop for BlockingClient {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

fn ms(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}

fn is_loopback(base_url: &str) -> bool {
    let rest = base_url.split("://").nth(1).unwrap_or_default();
    let host = rest.split('/').next().unwrap_or_default();
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    matches!(host, "localhost" | "::1") || host.starts_with("127.")
}

/// A reqwest error with its causes ("error sending request: connection refused").
fn describe(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let c = cause.to_string();
        if !s.contains(&c) {
            s.push_str(": ");
            s.push_str(&c);
        }
        source = cause.source();
    }
    s
}

/// The server's error message from an OpenAI-style error body, else a snippet of the body.
fn server_message(bytes: &[u8]) -> String {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => v.get("error").map_or_else(|| snippet(bytes), error_message),
        Err(_) => snippet(bytes),
    }
}

/// The first 200 characters of a body, on one line.
fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let one_line: String = text.chars().take(200).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if one_line.trim().is_empty() { "(empty body)".into() } else { one_line }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_detection() {
        assert!(is_loopback("http://127.0.0.1:8000/v1"));
        assert!(is_loopback("http://localhost/v1"));
        assert!(is_loopback("http://[::1]:9/v1"));
        assert!(!is_loopback("https://api.openai.com/v1"));
        assert!(!is_loopback("http://10.0.0.1:8000/v1"));
    }

    #[test]
    fn server_messages_are_extracted() {
        assert_eq!(server_message(br#"{"error":{"message":"bad model","type":"x"}}"#), "bad model");
        assert_eq!(server_message(br#"{"error":"plain"}"#), "plain");
        assert_eq!(server_message(b"<html>\nBad Gateway</html>"), "<html> Bad Gateway</html>");
        assert_eq!(server_message(b""), "(empty body)");
    }
}
