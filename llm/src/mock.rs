//! A loopback OpenAI-compatible server for tests and manual runs (`anser mock-llm`).
//!
//! It serves `POST /v1/chat/completions`, `POST /v1/embeddings` and `GET /v1/models` on
//! 127.0.0.1 (port 0 picks a free port) from its own thread, so it works from synchronous and
//! asynchronous code alike and stops when the [`MockServer`] is dropped. Unscripted, it answers
//! each chat request with a short deterministic reply after [`MockConfig::delay`] and each
//! embeddings request with deterministic unit vectors. Tests add [`Rule`]s: the first rule whose
//! [`Matcher`] matches the request and still has replies answers with its next [`Reply`]: a
//! text, tool calls, a raw body or a [`Fault`]. [`FaultInjection`] adds seeded random faults
//! (switchable while the server runs: [`MockServer::set_faults`]).
//!
//! The test library records every request ([`MockServer::requests`]) so tests can assert on
//! outgoing traffic (for example that no gold answer leaves the run). That record grows with
//! every request, so it is opt-out: a long-running server (`anser mock-llm`, built with
//! [`MockConfig::server`]) keeps no record, only the counters [`MockServer::served`] and
//! [`MockServer::faults_injected`], and its memory stays flat however long it serves.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::Response;
use axum::routing::{get, post};
use regex::Regex;
use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::chat::ToolCall;
use crate::error::{Error, Result};
use crate::retry::JitterRng;
use crate::usage::estimate_tokens;

mod verdicts;

/// Delay before each unscripted or scripted answer (`anser mock-llm --delay-ms` default).
pub const DEFAULT_MOCK_DELAY: Duration = Duration::from_millis(20);
/// Length of mock embedding vectors when a request does not ask for `dimensions`.
pub const DEFAULT_MOCK_EMBEDDING_DIM: usize = 16;
/// Model name reported by `GET /v1/models`.
pub const DEFAULT_MOCK_MODEL: &str = "mock-llm";

/// Behaviour of a mock server, valid by construction: start from [`MockConfig::default`],
/// [`MockConfig::instant`] or [`MockConfig::server`] and change it with the `with_*` methods
/// (the ones whose value has a bound check it).
#[derive(Debug, Clone)]
pub struct MockConfig {
    /// Wait before answering any request (faults included).
    delay: Duration,
    /// Vector length for embeddings requests without `dimensions`, ≥ 1.
    embedding_dim: usize,
    /// Whether responses carry a `usage` object (computed with [`estimate_tokens`]).
    report_usage: bool,
    /// Random faults, applied before any script.
    faults: Option<FaultInjection>,
    model: String,
    /// Keep every request for [`MockServer::requests`].
    record_requests: bool,
}

impl Default for MockConfig {
    fn default() -> Self {
        Self {
            delay: DEFAULT_MOCK_DELAY,
            embedding_dim: DEFAULT_MOCK_EMBEDDING_DIM,
            report_usage: true,
            faults: None,
            model: DEFAULT_MOCK_MODEL.into(),
            record_requests: true,
        }
    }
}

impl MockConfig {
    /// No delay: what most tests want.
    pub fn instant() -> Self {
        Self { delay: Duration::ZERO, ..Self::default() }
    }

    /// A long-running server (`anser mock-llm`): no request record, only counters.
    pub fn server() -> Self {
        Self { record_requests: false, ..Self::default() }
    }

    /// Wait `delay` before answering any request (faults included).
    pub fn with_delay(self, delay: Duration) -> Self {
        Self { delay, ..self }
    }

    /// Vector length for embeddings requests without `dimensions`; at least 1.
    pub fn with_embedding_dim(self, embedding_dim: usize) -> Result<Self> {
        if embedding_dim == 0 {
            return Err(Error::InvalidSetting {
                field: "mock embedding_dim".into(),
                message: "must be at least 1".into(),
            });
        }
        Ok(Self { embedding_dim, ..self })
    }

    /// Whether responses carry a `usage` object; turn it off to exercise the client's estimation.
    pub fn with_report_usage(self, report_usage: bool) -> Self {
        Self { report_usage, ..self }
    }

    /// Random faults, applied before any script (checked as [`FaultInjection::validate`]).
    pub fn with_faults(self, faults: Option<FaultInjection>) -> Result<Self> {
        if let Some(f) = &faults {
            f.validate()?;
        }
        Ok(Self { faults, ..self })
    }

    /// The model name reported by `GET /v1/models` and used when a request names none.
    pub fn with_model(self, model: impl Into<String>) -> Self {
        Self { model: model.into(), ..self }
    }

    /// Keep every request for [`MockServer::requests`] (tests). Off for a long-running server,
    /// whose record would grow without bound.
    pub fn with_record_requests(self, record_requests: bool) -> Self {
        Self { record_requests, ..self }
    }

    pub fn delay(&self) -> Duration {
        self.delay
    }

    pub fn embedding_dim(&self) -> usize {
        self.embedding_dim
    }

    pub fn report_usage(&self) -> bool {
        self.report_usage
    }

    pub fn faults(&self) -> Option<&FaultInjection> {
        self.faults.as_ref()
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn record_requests(&self) -> bool {
        self.record_requests
    }
}

/// Random faults: each request fails with probability `rate`, with a fault drawn uniformly
/// from `kinds`, from a generator seeded with `seed` (the sequence of outcomes is fixed; which
/// request gets which outcome depends on arrival order).
#[derive(Debug, Clone)]
pub struct FaultInjection {
    pub rate: f64,
    pub seed: u64,
    pub kinds: Vec<Fault>,
}

impl FaultInjection {
    /// `rate` in [0, 1]; at least one fault kind when `rate` > 0.
    pub fn validate(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(Error::InvalidSetting {
                field: "mock fault rate".into(),
                message: format!("must be in [0, 1], got {}", self.rate),
            });
        }
        if self.kinds.is_empty() && self.rate > 0.0 {
            return Err(Error::InvalidSetting {
                field: "mock fault kinds".into(),
                message: "list at least one fault".into(),
            });
        }
        Ok(())
    }

    /// The usual mix of transient faults: 500, 503, 429 (Retry-After 0), a cut-off body and a
    /// non-JSON body.
    pub fn transient(rate: f64, seed: u64) -> Self {
        Self {
            rate,
            seed,
            kinds: vec![
                Fault::Status(500),
                Fault::Status(503),
                Fault::RateLimited { retry_after: "0".into() },
                Fault::Truncated,
                Fault::NotJson,
            ],
        }
    }
}

/// A failure the mock can produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// This HTTP status with an OpenAI-style error body.
    Status(u16),
    /// 429 with this `Retry-After` header value (seconds or an HTTP date).
    RateLimited { retry_after: String },
    /// No answer for this long, then 504 (a client with a shorter timeout times out).
    Hang(Duration),
    /// 200 with half of a valid body, then the connection is cut.
    Truncated,
    /// 200 with an HTML body.
    NotJson,
}

impl Fault {
    fn label(&self) -> String {
        match self {
            Fault::Status(s) => format!("status {s}"),
            Fault::RateLimited { retry_after } => format!("429 retry-after {retry_after}"),
            Fault::Hang(d) => format!("hang {} ms", d.as_millis()),
            Fault::Truncated => "truncated body".into(),
            Fault::NotJson => "non-JSON body".into(),
        }
    }
}

/// Which chat requests a rule answers.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Every chat request.
    Any,
    /// The last user message contains this text.
    UserContains(String),
    /// The last user message matches this regex.
    UserRegex(Regex),
    /// One of the tool results at the end of the conversation (the `tool` messages after the
    /// last assistant turn) contains this text.
    ToolResultContains(String),
    /// One of those tool results matches this regex.
    ToolResultRegex(Regex),
}

impl Matcher {
    /// [`Matcher::UserRegex`] from a pattern (an invalid pattern is a setting error).
    pub fn user_regex(pattern: &str) -> Result<Self> {
        Ok(Self::UserRegex(compile(pattern)?))
    }

    /// [`Matcher::ToolResultRegex`] from a pattern.
    pub fn tool_result_regex(pattern: &str) -> Result<Self> {
        Ok(Self::ToolResultRegex(compile(pattern)?))
    }

    fn matches(&self, body: &Value) -> bool {
        let messages = body.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let content = |m: &Value| m.get("content").and_then(Value::as_str).unwrap_or_default().to_string();
        let role = |m: &Value| m.get("role").and_then(Value::as_str).unwrap_or_default().to_string();
        let last_user = || messages.iter().rev().find(|m| role(m) == "user").map(content);
        let tool_results = || messages.iter().rev().take_while(|m| role(m) == "tool").map(content).collect::<Vec<_>>();
        match self {
            Matcher::Any => true,
            Matcher::UserContains(s) => last_user().is_some_and(|u| u.contains(s.as_str())),
            Matcher::UserRegex(r) => last_user().is_some_and(|u| r.is_match(&u)),
            Matcher::ToolResultContains(s) => tool_results().iter().any(|t| t.contains(s.as_str())),
            Matcher::ToolResultRegex(r) => tool_results().iter().any(|t| r.is_match(t)),
        }
    }
}

fn compile(pattern: &str) -> Result<Regex> {
    Regex::new(pattern)
        .map_err(|e| Error::InvalidSetting { field: "mock matcher regex".into(), message: e.to_string() })
}

/// A scripted answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// An assistant message with this text.
    Text(String),
    /// An assistant message calling these tools (`finish_reason: "tool_calls"`).
    ToolCalls(Vec<ToolCall>),
    /// This status and raw body, verbatim.
    Raw { status: u16, body: String },
    /// A fault.
    Fault(Fault),
}

impl Reply {
    pub fn text(s: impl Into<String>) -> Self {
        Reply::Text(s.into())
    }

    /// One tool call with JSON arguments.
    pub fn tool_call(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Reply::ToolCalls(vec![ToolCall::new(id, name, arguments.to_string())])
    }
}

/// A matcher and the queue of replies it gives, in order.
#[derive(Debug, Clone)]
pub struct Rule {
    matcher: Matcher,
    replies: VecDeque<Reply>,
    repeat_last: bool,
}

impl Rule {
    pub fn new(matcher: Matcher) -> Self {
        Self { matcher, replies: VecDeque::new(), repeat_last: false }
    }

    /// Appends a reply to the queue.
    pub fn reply(mut self, reply: Reply) -> Self {
        self.replies.push_back(reply);
        self
    }

    /// Keep giving the last reply once the others are used (otherwise the rule is spent).
    pub fn repeat_last(mut self) -> Self {
        self.repeat_last = true;
        self
    }

    fn take(&mut self, body: &Value) -> Option<Reply> {
        if self.replies.is_empty() || !self.matcher.matches(body) {
            return None;
        }
        if self.replies.len() == 1 && self.repeat_last {
            self.replies.front().cloned()
        } else {
            self.replies.pop_front()
        }
    }
}

/// One request the mock received.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedRequest {
    /// Sequence number, from 0.
    pub seq: u64,
    pub method: String,
    pub path: String,
    /// The body as JSON (`null` when it is not JSON; see `raw`).
    pub body: Value,
    pub raw: String,
    /// The `Authorization` header as received (tests only: it holds the key).
    #[serde(skip)]
    pub authorization: Option<String>,
    /// The fault injected into the answer, if any.
    pub fault: Option<String>,
    /// Whether a script rule answered.
    pub scripted: bool,
}

impl RecordedRequest {
    /// The content of the last user message of a chat request.
    pub fn last_user_message(&self) -> Option<&str> {
        self.body
            .get("messages")?
            .as_array()?
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?
            .get("content")?
            .as_str()
    }
}

#[derive(Debug)]
struct Shared {
    config: MockConfig,
    rules: Mutex<Vec<Rule>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// The fault injection in force (starts as `config.faults`).
    faults: Mutex<Option<FaultInjection>>,
    rng: Mutex<JitterRng>,
    seq: AtomicU64,
    faults_injected: AtomicU64,
    /// Seed of the rubric verdicts for unscripted judge requests (`None`: prose as for any
    /// other request).
    rubric_verdicts: Mutex<Option<u64>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running mock server; stops when dropped.
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MockServer {
    /// Starts on an ephemeral port of 127.0.0.1.
    pub fn start(config: MockConfig) -> Result<Self> {
        Self::start_on(0, config)
    }

    /// Starts on `port` of 127.0.0.1 (0 = ephemeral).
    pub fn start_on(port: u16, config: MockConfig) -> Result<Self> {
        let seed = config.faults.as_ref().map_or(0, |f| f.seed);
        let shared = Arc::new(Shared {
            faults: Mutex::new(config.faults.clone()),
            config,
            rules: Mutex::new(Vec::new()),
            requests: Mutex::new(Vec::new()),
            rng: Mutex::new(JitterRng::new(seed)),
            seq: AtomicU64::new(0),
            faults_injected: AtomicU64::new(0),
            rubric_verdicts: Mutex::new(None),
        });
        let (addr_tx, addr_rx) = std::sync::mpsc::channel::<Result<SocketAddr>>();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let app = router(shared.clone());
        let thread = std::thread::Builder::new()
            .name("mock-llm".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = addr_tx.send(Err(Error::Setup(format!("mock server: cannot start a runtime: {e}"))));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = addr_tx.send(Err(Error::InvalidSetting {
                                field: "mock server port".into(),
                                message: format!("cannot listen on 127.0.0.1:{port}: {e} (pick another --port)"),
                            }));
                            return;
                        }
                    };
                    let _ = addr_tx.send(listener.local_addr().map_err(Error::from));
                    tokio::select! {
                        served = axum::serve(listener, app) => {
                            if let Err(e) = served {
                                tracing::error!("mock server stopped: {e}");
                            }
                        }
                        _ = stop_rx => {}
                    }
                });
            })
            .map_err(|e| Error::Setup(format!("mock server: cannot spawn its thread: {e}")))?;
        let addr = addr_rx.recv().map_err(|_| Error::Setup("mock server thread ended before listening".into()))??;
        Ok(Self { addr, shared, stop: Some(stop_tx), thread: Some(thread) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT/v1`, the value for `GENERATION_BASE_URL` / `--base-url`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Adds a rule after the existing ones.
    pub fn add_rule(&self, rule: Rule) {
        lock(&self.shared.rules).push(rule);
    }

    /// Shorthand: `matcher` answers with `replies` in order, then is spent.
    pub fn script(&self, matcher: Matcher, replies: impl IntoIterator<Item = Reply>) {
        let mut rule = Rule::new(matcher);
        rule.replies.extend(replies);
        self.add_rule(rule);
    }

    /// Removes every rule.
    pub fn clear_rules(&self) {
        lock(&self.shared.rules).clear();
    }

    /// Every request received so far, in arrival order (empty when
    /// [`MockConfig::record_requests`] is off).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// Number of requests received so far (counted whether or not they are recorded).
    pub fn served(&self) -> u64 {
        self.shared.seq.load(Ordering::SeqCst)
    }

    /// Number of requests answered with a fault so far (random or scripted).
    pub fn faults_injected(&self) -> u64 {
        self.shared.faults_injected.load(Ordering::SeqCst)
    }

    /// Replace the random fault injection from now on (`None` stops it); the generator restarts
    /// from the new seed. An invalid injection is a setting error and changes nothing.
    pub fn set_faults(&self, faults: Option<FaultInjection>) -> Result<()> {
        if let Some(f) = &faults {
            f.validate()?;
        }
        *lock(&self.shared.rng) = JitterRng::new(faults.as_ref().map_or(0, |f| f.seed));
        *lock(&self.shared.faults) = faults;
        Ok(())
    }

    /// From now on, answer an unscripted chat request whose last user message lists rubrics
    /// (`**Rubric N**` lines, the rubric-judging prompt) with a valid verdict for every rubric
    /// id, hit or miss drawn from `seed` and the prompt; other requests keep the prose reply.
    /// `None` turns it off. Lets a throughput run exercise the whole judging path.
    pub fn set_rubric_verdicts(&self, seed: Option<u64>) {
        *lock(&self.shared.rubric_verdicts) = seed;
    }

    /// Forgets the recorded requests.
    pub fn clear_requests(&self) {
        lock(&self.shared.requests).clear();
    }

    /// Blocks until Ctrl-C (for `anser mock-llm`).
    pub fn wait_for_ctrl_c(&self) -> Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Setup(format!("cannot start a runtime: {e}")))?;
        runtime.block_on(tokio::signal::ctrl_c()).map_err(|e| Error::Setup(format!("cannot wait for Ctrl-C: {e}")))
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings))
        .route("/embeddings", post(embeddings))
        .route("/v1/models", get(models))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(64 << 20))
        .with_state(shared)
}

/// Records the request and decides whether a random fault answers it.
fn record(
    shared: &Shared,
    method: &str,
    path: &str,
    headers: &HeaderMap,
    raw: &Bytes,
    fault: Option<&Fault>,
    scripted: bool,
) {
    let seq = shared.seq.fetch_add(1, Ordering::SeqCst);
    if fault.is_some() {
        shared.faults_injected.fetch_add(1, Ordering::SeqCst);
    }
    if !shared.config.record_requests {
        return;
    }
    let raw = String::from_utf8_lossy(raw).into_owned();
    let body = serde_json::from_str(&raw).unwrap_or(Value::Null);
    let authorization = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_string);
    lock(&shared.requests).push(RecordedRequest {
        seq,
        method: method.into(),
        path: path.into(),
        body,
        raw,
        authorization,
        fault: fault.map(Fault::label),
        scripted,
    });
}

fn random_fault(shared: &Shared) -> Option<Fault> {
    let faults = lock(&shared.faults);
    let f = faults.as_ref()?;
    if f.kinds.is_empty() {
        return None;
    }
    let mut rng = lock(&shared.rng);
    let hit = rng.next_f64() < f.rate;
    let pick = rng.next_u64() as usize % f.kinds.len();
    hit.then(|| f.kinds[pick].clone())
}

async fn chat(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, raw: Bytes) -> Response {
    let body: Option<Value> = serde_json::from_slice(&raw).ok();
    let mut reply = random_fault(&shared).map(Reply::Fault);
    let fault_injected = reply.is_some();
    if reply.is_none() {
        if let Some(b) = &body {
            reply = lock(&shared.rules).iter_mut().find_map(|r| r.take(b));
        }
    }
    let scripted = reply.is_some() && !fault_injected;
    let fault = match &reply {
        Some(Reply::Fault(f)) => Some(f),
        _ => None,
    };
    record(&shared, "POST", uri.path(), &headers, &raw, fault, scripted);
    tokio::time::sleep(shared.config.delay).await;
    let Some(body) = body else {
        return error_response(StatusCode::BAD_REQUEST, "request body is not JSON");
    };
    if body.get("messages").and_then(Value::as_array).is_none_or(Vec::is_empty) {
        return error_response(StatusCode::BAD_REQUEST, "`messages` must be a non-empty array");
    }
    let completion =
        |content: Option<String>, tool_calls: Vec<ToolCall>| completion_body(&shared, &body, content, tool_calls);
    match reply {
        None => {
            let seed = *lock(&shared.rubric_verdicts);
            let verdict = seed.and_then(|seed| verdicts::verdict_reply(seed, last_user_message(&body)));
            completion(Some(verdict.unwrap_or_else(|| default_reply(&body))), Vec::new())
        }
        Some(Reply::Text(t)) => completion(Some(t), Vec::new()),
        Some(Reply::ToolCalls(calls)) => completion(None, calls),
        Some(Reply::Raw { status, body }) => raw_response(status, "application/json", body),
        Some(Reply::Fault(f)) => {
            let valid = completion(Some(default_reply(&body)), Vec::new());
            fault_response(&f, valid).await
        }
    }
}

async fn embeddings(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, raw: Bytes) -> Response {
    let fault = random_fault(&shared);
    record(&shared, "POST", uri.path(), &headers, &raw, fault.as_ref(), false);
    tokio::time::sleep(shared.config.delay).await;
    let Ok(body) = serde_json::from_slice::<Value>(&raw) else {
        return error_response(StatusCode::BAD_REQUEST, "request body is not JSON");
    };
    let inputs: Vec<String> = match body.get("input") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
            items.iter().filter_map(Value::as_str).map(str::to_string).collect()
        }
        _ => return error_response(StatusCode::BAD_REQUEST, "`input` must be a string or an array of strings"),
    };
    let model = body.get("model").and_then(Value::as_str).unwrap_or(&shared.config.model).to_string();
    let dim = body.get("dimensions").and_then(Value::as_u64).map_or(shared.config.embedding_dim, |d| d as usize);
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": mock_embedding(&model, text, dim)}))
        .collect();
    let tokens: u64 = inputs.iter().map(|s| estimate_tokens(s)).sum();
    let mut out = json!({"object": "list", "model": model, "data": data});
    if shared.config.report_usage {
        out["usage"] = json!({"prompt_tokens": tokens, "total_tokens": tokens});
    }
    let valid = raw_response(200, "application/json", out.to_string());
    match fault {
        Some(f) => fault_response(&f, valid).await,
        None => valid,
    }
}

async fn models(State(shared): State<Arc<Shared>>) -> Response {
    let body = json!({"object": "list", "data": [{"id": shared.config.model, "object": "model", "owned_by": "anser"}]});
    raw_response(200, "application/json", body.to_string())
}

async fn not_found(State(shared): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, raw: Bytes) -> Response {
    record(&shared, "?", uri.path(), &headers, &raw, None, false);
    error_response(
        StatusCode::NOT_FOUND,
        &format!("no route {}: the mock serves /v1/chat/completions and /v1/embeddings", uri.path()),
    )
}

fn completion_body(shared: &Shared, req: &Value, content: Option<String>, tool_calls: Vec<ToolCall>) -> Response {
    let seq = shared.seq.load(Ordering::SeqCst);
    let model = req.get("model").and_then(Value::as_str).unwrap_or(&shared.config.model);
    let finish = if tool_calls.is_empty() { "stop" } else { "tool_calls" };
    let mut message = json!({"role": "assistant", "content": content});
    if !tool_calls.is_empty() {
        message["tool_calls"] = json!(tool_calls);
    }
    let mut body = json!({
        "id": format!("chatcmpl-mock-{seq}"),
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    });
    if shared.config.report_usage {
        let prompt: u64 = req
            .get("messages")
            .and_then(Value::as_array)
            .map(|ms| {
                ms.iter().map(|m| estimate_tokens(m.get("content").and_then(Value::as_str).unwrap_or_default())).sum()
            })
            .unwrap_or(0);
        let mut completion_text = content.unwrap_or_default();
        for c in &tool_calls {
            completion_text.push_str(&c.name);
            completion_text.push_str(&c.arguments);
        }
        let completion = estimate_tokens(&completion_text);
        body["usage"] =
            json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion});
    }
    raw_response(200, "application/json", body.to_string())
}

/// A short deterministic reply: a bare number when the last user message asks for an
/// integer or number, a JSON object when `response_format` asks for JSON, else a sentence
/// quoting the start of the question.
fn default_reply(req: &Value) -> String {
    let last_user = last_user_message(req);
    let digest = Sha256::digest(last_user.as_bytes());
    let n = u64::from_be_bytes(digest[..8].try_into().unwrap_or_default()) % 100;
    let wants_json = req
        .get("response_format")
        .and_then(|f| f.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| t.starts_with("json"));
    let lower = last_user.to_lowercase();
    if wants_json {
        json!({"answer": n.to_string()}).to_string()
    } else if ["integer", "number", "整数", "数字"].iter().any(|w| lower.contains(w)) {
        n.to_string()
    } else {
        let head: String = last_user.chars().take(60).collect();
        format!("Mock answer {n}: based on the context, the answer to \"{head}\" is {n}.")
    }
}

/// Text of the last user message of a chat request ("" when there is none).
fn last_user_message(req: &Value) -> &str {
    req.get("messages")
        .and_then(Value::as_array)
        .and_then(|ms| ms.iter().rev().find(|m| m.get("role").and_then(Value::as_str) == Some("user")))
        .and_then(|m| m.get("content").and_then(Value::as_str))
        .unwrap_or_default()
}

/// Deterministic unit vector for `text`: SplitMix64 seeded by SHA-256 of model and text.
pub fn mock_embedding(model: &str, text: &str, dim: usize) -> Vec<f32> {
    let digest = Sha256::digest(format!("{model}\u{0}{text}").as_bytes());
    let mut rng = JitterRng::new(u64::from_be_bytes(digest[..8].try_into().unwrap_or_default()));
    let v: Vec<f64> = (0..dim).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt().max(f64::MIN_POSITIVE);
    v.into_iter().map(|x| (x / norm) as f32).collect()
}

async fn fault_response(fault: &Fault, valid: Response) -> Response {
    match fault {
        Fault::Status(s) => {
            let code = StatusCode::from_u16(*s).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            error_response(code, &format!("mock fault: HTTP {s}"))
        }
        Fault::RateLimited { retry_after } => {
            let mut r = error_response(StatusCode::TOO_MANY_REQUESTS, "mock fault: rate limited");
            if let Ok(v) = retry_after.parse() {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            r
        }
        Fault::Hang(d) => {
            tokio::time::sleep(*d).await;
            error_response(StatusCode::GATEWAY_TIMEOUT, "mock fault: hung")
        }
        Fault::Truncated => {
            let bytes = axum::body::to_bytes(valid.into_body(), usize::MAX).await.unwrap_or_default();
            let half = Bytes::copy_from_slice(&bytes[..bytes.len() / 2]);
            // Send the headers and half of the body, give hyper time to flush them, then fail
            // the body stream so that hyper cuts the connection mid-body.
            let stream = futures_util::stream::unfold(Some(half), |half| async move {
                match half {
                    Some(bytes) => Some((Ok(bytes), None)),
                    None => {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        let cut = std::io::Error::new(std::io::ErrorKind::ConnectionAborted, "mock fault: truncated");
                        Some((Err::<Bytes, _>(cut), None))
                    }
                }
            });
            let mut r = Response::new(Body::from_stream(stream));
            r.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
            r
        }
        Fault::NotJson => raw_response(200, "text/html", "<html><body>502 Bad Gateway (mock)</body></html>".into()),
    }
}

fn error_response(status: StatusCode, message: &str) -> Response {
    let body = json!({"error": {"message": message, "type": "mock_error", "code": status.as_u16()}});
    raw_response(status.as_u16(), "application/json", body.to_string())
}

fn raw_response(status: u16, content_type: &'static str, body: String) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static(content_type));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_look_at_the_right_messages() {
        let conv = json!({"messages": [
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": null, "tool_calls": []},
            {"role": "tool", "tool_call_id": "a", "content": "rows: 3"},
            {"role": "tool", "tool_call_id": "b", "content": "no match"}]});
        assert!(Matcher::UserContains("first".into()).matches(&conv));
        assert!(Matcher::user_regex(r"^first\s+q").expect("regex").matches(&conv));
        assert!(Matcher::ToolResultContains("rows: 3".into()).matches(&conv));
        assert!(!Matcher::ToolResultContains("first".into()).matches(&conv));
        assert!(Matcher::tool_result_regex(r"rows: \d").expect("regex").matches(&conv));
        assert!(Matcher::user_regex("(").is_err());
    }

    #[test]
    fn rule_queues_are_consumed_and_can_repeat() {
        let body = json!({"messages": [{"role": "user", "content": "q"}]});
        let mut once = Rule::new(Matcher::Any).reply(Reply::text("a")).reply(Reply::text("b"));
        assert_eq!(once.take(&body), Some(Reply::text("a")));
        assert_eq!(once.take(&body), Some(Reply::text("b")));
        assert_eq!(once.take(&body), None);
        let mut rep = Rule::new(Matcher::Any).reply(Reply::text("a")).repeat_last();
        assert_eq!(rep.take(&body), Some(Reply::text("a")));
        assert_eq!(rep.take(&body), Some(Reply::text("a")));
    }

    #[test]
    fn mock_embeddings_are_deterministic_unit_vectors() {
        let a = mock_embedding("m", "hello", 8);
        assert_eq!(a, mock_embedding("m", "hello", 8));
        assert_ne!(a, mock_embedding("m", "hello!", 8));
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
    }

    #[test]
    fn default_replies_follow_the_request() {
        let ask = |content: &str, format: Option<&str>| {
            let mut r = json!({"messages": [{"role": "user", "content": content}]});
            if let Some(f) = format {
                r["response_format"] = json!({"type": f});
            }
            default_reply(&r)
        };
        assert!(ask("Answer with an integer only.", None).parse::<u64>().is_ok());
        let j: Value = serde_json::from_str(&ask("x", Some("json_object"))).expect("json reply");
        assert!(j["answer"].is_string());
        assert!(ask("What happened?", None).contains("What happened?"));
        assert_eq!(ask("What happened?", None), ask("What happened?", None));
    }
}
