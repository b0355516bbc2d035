//! EvalScope 1.14.1's model transport, reproduced for `--mode evalscope` (spec §9 items 1, 3,
//! 4, 5), as read from `evalscope/models/openai_compatible.py`, `models/utils/openai.py`,
//! `api/messages/` and the OpenAI SDK it drives:
//!
//! - **Retries** ([`RetrySchedule`]): `retries = 5` is 5 *attempts* in all, 10 s apart
//!   (`retry_call`); each attempt is one SDK call with `max_retries = 2`, which retries 408,
//!   409, 429, 5xx and connection errors after 0.5 s then 1 s (`0.5 · 2ⁿ`, capped at 8 s; the
//!   SDK's 0–25 % jitter is left out so schedules are exact), or after `retry-after-ms` /
//!   `Retry-After` when it is in (0, 120] s; a longer `Retry-After` stops the SDK's retries,
//!   and `x-should-retry: true|false` overrides the status rule. 400, 401, 403, 404 and 422 are
//!   never retried at either level. So one transient 500 costs one extra request and 0.5 s.
//! - **A client error can be an answer**: on those five statuses, when the error's `code` is
//!   `context_length_exceeded` (or the message says `input length`, `maximum context length`,
//!   `context window`, `too many tokens`) the completion is the error message with stop
//!   reason `model_length`; `invalid_prompt` / `content_policy_violation` / `content_filter`
//!   give it with `content_filter`. Anything else fails the call.
//! - **The completion text**: choices sorted by `index`, the first used; its text is the
//!   `refusal` when non-empty, else `content`, else empty. When the message carries neither a
//!   reasoning field nor a refusal, the content is a plain string and EvalScope's message
//!   validator cuts the first `<think …>…</think>` block and strips the rest ([`cleave_think`]);
//!   otherwise the text is kept as is. `reasoning_content` never enters the text.
//!
//! Sleeping goes through [`Sleeper`], so tests assert the schedule without waiting.

use std::{
    sync::{Mutex, OnceLock},
    time::{Duration, Instant, SystemTime},
};

use anser_llm::EndpointConfig;
use regex::Regex;
use serde_json::{Value, json};

use crate::{
    Error, Result,
    backend::{ChatBackend, ChatCall, ChatReply, Delivery, Role, TokenUsage},
};

/// EvalScope's `GenerateConfig.retries`: attempts in all.
pub const DEFAULT_ATTEMPTS: u32 = 5;
/// EvalScope's `GenerateConfig.retry_interval`.
pub const DEFAULT_ATTEMPT_DELAY: Duration = Duration::from_secs(10);
/// The OpenAI SDK's `DEFAULT_MAX_RETRIES`.
pub const DEFAULT_SDK_RETRIES: u32 = 2;
/// The OpenAI SDK's `INITIAL_RETRY_DELAY`.
pub const DEFAULT_SDK_INITIAL_DELAY: Duration = Duration::from_millis(500);
/// The OpenAI SDK's `MAX_RETRY_DELAY`.
pub const DEFAULT_SDK_MAX_DELAY: Duration = Duration::from_secs(8);
/// The OpenAI SDK's `MAX_RETRY_AFTER_DELAY`: a longer `Retry-After` is not waited for.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);
/// The OpenAI SDK's default request timeout.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);

/// Statuses EvalScope hands to `handle_bad_request` instead of retrying.
const NON_RETRYABLE: [u16; 5] = [400, 401, 403, 404, 422];
/// Gateway error codes that make a choice-less 200 body non-retryable.
const NON_RETRYABLE_GATEWAY_CODES: [&str; 6] = ["400", "401", "402", "403", "404", "422"];

/// When and how long to retry, valid by construction: built from a [`RetryScheduleBuilder`]
/// (bounds on its fields' docs); read through the getters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RetrySchedule(RetryScheduleBuilder);

/// The unchecked retry schedule; [`RetryScheduleBuilder::build`] checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryScheduleBuilder {
    /// Attempts in all (EvalScope's `retries`), ≥ 1 (`--retries`).
    pub attempts: u32,
    /// Wait between attempts.
    pub attempt_delay: Duration,
    /// SDK retries inside each attempt.
    pub sdk_retries: u32,
    /// First SDK wait; doubles per SDK retry up to `sdk_max_delay`.
    pub sdk_initial_delay: Duration,
    /// Longest SDK wait, ≥ `sdk_initial_delay`.
    pub sdk_max_delay: Duration,
    /// Per-request timeout, > 0 (`--timeout-secs`).
    pub timeout: Duration,
}

impl Default for RetryScheduleBuilder {
    fn default() -> Self {
        Self {
            attempts: DEFAULT_ATTEMPTS,
            attempt_delay: DEFAULT_ATTEMPT_DELAY,
            sdk_retries: DEFAULT_SDK_RETRIES,
            sdk_initial_delay: DEFAULT_SDK_INITIAL_DELAY,
            sdk_max_delay: DEFAULT_SDK_MAX_DELAY,
            timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

impl RetryScheduleBuilder {
    /// The schedule, when `attempts ≥ 1`, `timeout > 0` and `sdk_max_delay ≥ sdk_initial_delay`.
    pub fn build(self) -> Result<RetrySchedule> {
        if self.attempts == 0 {
            return Err(Error::Setting("--retries (attempts in all) must be at least 1".into()));
        }
        if self.timeout.is_zero() {
            return Err(Error::Setting("--timeout-secs must be at least 1".into()));
        }
        if self.sdk_max_delay < self.sdk_initial_delay {
            return Err(Error::Setting(format!(
                "the SDK's maximum retry delay {:?} is below its initial delay {:?} (--sdk-retry-delay-ms)",
                self.sdk_max_delay, self.sdk_initial_delay
            )));
        }
        Ok(RetrySchedule(self))
    }
}

impl RetrySchedule {
    /// Attempts in all.
    pub fn attempts(&self) -> u32 {
        self.0.attempts
    }

    /// Wait between attempts.
    pub fn attempt_delay(&self) -> Duration {
        self.0.attempt_delay
    }

    /// SDK retries inside each attempt.
    pub fn sdk_retries(&self) -> u32 {
        self.0.sdk_retries
    }

    /// First SDK wait.
    pub fn sdk_initial_delay(&self) -> Duration {
        self.0.sdk_initial_delay
    }

    /// Longest SDK wait.
    pub fn sdk_max_delay(&self) -> Duration {
        self.0.sdk_max_delay
    }

    /// Per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.0.timeout
    }

    /// The SDK's wait before its retry number `n` (0-based): the server's delay when it is in
    /// (0, 120] s, else `initial · 2ⁿ` capped at the maximum.
    pub fn sdk_delay(&self, n: u32, retry_after: Option<f64>) -> Duration {
        if let Some(ra) = retry_after.filter(|ra| ra.is_finite() && *ra > 0.0 && *ra <= MAX_RETRY_AFTER.as_secs_f64()) {
            return Duration::from_secs_f64(ra);
        }
        let secs = self.0.sdk_initial_delay.as_secs_f64() * 2f64.powi(n.min(1000) as i32);
        Duration::from_secs_f64(secs.min(self.0.sdk_max_delay.as_secs_f64()))
    }
}

/// How the transport waits; tests record instead of sleeping.
pub trait Sleeper: Sync + std::fmt::Debug {
    fn sleep(&self, d: Duration);
}

/// Real waiting.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadSleeper;

impl Sleeper for ThreadSleeper {
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}

impl<S: Sleeper + Send> Sleeper for std::sync::Arc<S> {
    fn sleep(&self, d: Duration) {
        (**self).sleep(d);
    }
}

/// Records every wait and returns at once.
#[derive(Debug, Default)]
pub struct RecordingSleeper {
    waits: Mutex<Vec<Duration>>,
}

impl RecordingSleeper {
    /// The waits asked for so far, in order.
    pub fn waits(&self) -> Vec<Duration> {
        self.waits.lock().map(|w| w.clone()).unwrap_or_default()
    }
}

impl Sleeper for RecordingSleeper {
    fn sleep(&self, d: Duration) {
        if let Ok(mut w) = self.waits.lock() {
            w.push(d);
        }
    }
}

/// What one HTTP request gave.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpOutcome {
    /// 2xx with a JSON body.
    Body(Value),
    /// A non-2xx status (or a 2xx whose body is not JSON, with `status` 2xx).
    Status {
        status: u16,
        body: String,
        /// Seconds from `retry-after-ms` / `Retry-After`.
        retry_after: Option<f64>,
        /// `x-should-retry`.
        should_retry: Option<bool>,
    },
    /// No response: connection refused, reset, timeout.
    Connection(String),
}

/// A completion as EvalScope builds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The message text (before [`cleave_think`]).
    pub text: String,
    /// True when the content was a plain string (no reasoning field, no refusal): the think
    /// block is cut from it.
    pub plain: bool,
    /// `model_length` / `content_filter` when a client error became the answer.
    pub stop_reason: Option<String>,
    pub usage: Option<TokenUsage>,
}

/// The outcome of a call with its retries.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub result: std::result::Result<Completion, String>,
    /// HTTP requests made.
    pub requests: u32,
}

/// Why an attempt failed.
enum AttemptError {
    /// Retried by the outer loop.
    Retryable(String),
    /// Reaches the caller at once.
    Fatal(String),
}

/// Run one call with EvalScope's two retry levels; `send` makes one HTTP request.
pub fn call_with_retries(
    schedule: &RetrySchedule,
    sleeper: &dyn Sleeper,
    send: &mut dyn FnMut() -> HttpOutcome,
) -> CallResult {
    let mut requests = 0;
    let mut last = String::new();
    for attempt in 1..=schedule.attempts().max(1) {
        let mut sdk_retry = 0;
        let failure = loop {
            requests += 1;
            match send() {
                HttpOutcome::Body(body) => match completion_from_body(&body) {
                    Ok(c) => return CallResult { result: Ok(c), requests },
                    Err(e) => break e,
                },
                HttpOutcome::Status { status, body, retry_after, should_retry } => {
                    let too_long = retry_after.is_some_and(|ra| ra.is_finite() && ra > MAX_RETRY_AFTER.as_secs_f64());
                    let sdk_retryable = !too_long
                        && should_retry.unwrap_or(matches!(status, 408 | 409 | 429) || status >= 500)
                        && !(200..300).contains(&status);
                    if sdk_retryable && sdk_retry < schedule.sdk_retries() {
                        sleeper.sleep(schedule.sdk_delay(sdk_retry, retry_after));
                        sdk_retry += 1;
                        continue;
                    }
                    if (200..300).contains(&status) {
                        break AttemptError::Retryable(format!("HTTP {status}: response body is not JSON"));
                    }
                    if NON_RETRYABLE.contains(&status) {
                        return CallResult { result: bad_request(status, &body), requests };
                    }
                    break AttemptError::Retryable(status_error(status, &body).0);
                }
                HttpOutcome::Connection(e) => {
                    if sdk_retry < schedule.sdk_retries() {
                        sleeper.sleep(schedule.sdk_delay(sdk_retry, None));
                        sdk_retry += 1;
                        continue;
                    }
                    break AttemptError::Retryable(format!("connection error: {e}"));
                }
            }
        };
        match failure {
            AttemptError::Fatal(e) => return CallResult { result: Err(e), requests },
            AttemptError::Retryable(e) => last = e,
        }
        if attempt < schedule.attempts() {
            sleeper.sleep(schedule.attempt_delay());
        }
    }
    CallResult { result: Err(format!("failed after {} attempt(s): {last}", schedule.attempts())), requests }
}

/// `(err_msg, body)` as the SDK's `_make_status_error_from_response` builds them: the message
/// is `Error code: N` plus ` - {error.message}` when that is a non-empty string; the body is
/// the JSON's `error` member when it has one, else the JSON, else the text.
fn status_error(status: u16, text: &str) -> (String, Value) {
    let text = text.trim();
    let mut message = format!("Error code: {status}");
    let body = match serde_json::from_str::<Value>(text) {
        Ok(parsed) => {
            let error = match &parsed {
                Value::Object(o) => Some(o.get("error").cloned().unwrap_or_else(|| parsed.clone())),
                _ => None,
            };
            if let Some(Value::String(m)) = error.as_ref().and_then(|e| e.get("message"))
                && !m.is_empty()
            {
                message.push_str(" - ");
                message.push_str(m);
            }
            match parsed {
                Value::Object(mut o) if o.contains_key("error") => o.remove("error").unwrap_or(Value::Null),
                other => other,
            }
        }
        Err(_) => Value::String(text.to_string()),
    };
    (message, body)
}

/// `openai_handle_bad_request`: the error message as the completion, or the error.
fn bad_request(status: u16, text: &str) -> std::result::Result<Completion, String> {
    let (message, body) = status_error(status, text);
    let content = match body.get("message") {
        Some(v) if body.is_object() => crate::pycompat::py_str(v).unwrap_or_else(|| v.to_string()),
        _ => message.clone(),
    };
    let code = body.get("code").filter(|c| !c.is_null()).map(|c| crate::pycompat::py_str(c).unwrap_or_default());
    let mut stop_reason = match code.as_deref() {
        Some("context_length_exceeded") => Some("model_length"),
        Some("invalid_prompt" | "content_policy_violation" | "content_filter") => Some("content_filter"),
        _ => None,
    };
    if stop_reason.is_none() {
        let lower = content.to_lowercase();
        if ["input length", "maximum context length", "context window", "too many tokens"]
            .iter()
            .any(|p| lower.contains(p))
        {
            stop_reason = Some("model_length");
        }
    }
    match stop_reason {
        Some(reason) => Ok(Completion { text: content, plain: true, stop_reason: Some(reason.into()), usage: None }),
        None => Err(message),
    }
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// The completion of a 2xx body: choices sorted by `index`, the first one's text.
fn completion_from_body(body: &Value) -> std::result::Result<Completion, AttemptError> {
    let choices = match body.get("choices") {
        Some(Value::Array(c)) => c,
        _ => {
            // `raise_if_error_payload`: a gateway error without choices.
            let error = body.get("error").filter(|e| !e.is_null());
            let code = error.and_then(|e| e.get("code")).and_then(crate::pycompat::py_str);
            let message = format!(
                "gateway returned a response with no choices{}",
                error.map_or_else(|| " (no error detail in body)".to_string(), |e| format!(": {e}"))
            );
            return Err(if code.is_some_and(|c| NON_RETRYABLE_GATEWAY_CODES.contains(&c.as_str())) {
                AttemptError::Fatal(message)
            } else {
                AttemptError::Retryable(message)
            });
        }
    };
    let usage = body.get("usage").filter(|u| u.is_object()).map(|u| {
        let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        TokenUsage {
            prompt_tokens: n("prompt_tokens"),
            completion_tokens: n("completion_tokens"),
            total_tokens: n("total_tokens"),
            estimated: false,
        }
    });
    let mut sorted: Vec<&Value> = choices.iter().collect();
    // Python's sort is stable; a missing index sorts as 0 here (the SDK requires one).
    sorted.sort_by_key(|c| c.get("index").and_then(Value::as_i64).unwrap_or(0));
    let Some(choice) = sorted.first() else {
        return Ok(Completion { text: String::new(), plain: true, stop_reason: None, usage });
    };
    let message = choice.get("message").unwrap_or(&Value::Null);
    let refusal = message.get("refusal").filter(|r| !r.is_null());
    let reasoning = if truthy(message.get("reasoning_content")) {
        message.get("reasoning_content")
    } else {
        message.get("reasoning").filter(|r| !r.is_null())
    };
    let as_text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    let text = if truthy(refusal) { as_text(refusal) } else { as_text(message.get("content")) };
    Ok(Completion { text, plain: refusal.is_none() && reasoning.is_none(), stop_reason: None, usage })
}

fn think_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?s)<think(?:\s+signature="[^"]*")?(?:\s+redacted="true")?\s*>.*?</think>"#)
            .unwrap_or_else(|e| unreachable!("constant regex: {e}"))
    })
}

/// EvalScope's `parse_content_with_reasoning`: the first `<think>…</think>` block anywhere
/// (attributes `signature="…"` and `redacted="true"` allowed) is cut and the rest stripped;
/// without a closed block the text is returned unchanged (not stripped).
pub fn cleave_think(text: &str) -> String {
    match think_re().find(text) {
        Some(m) => {
            let joined = format!("{}{}", &text[..m.start()], &text[m.end()..]);
            crate::pycompat::py_strip(&joined).to_string()
        }
        None => text.to_string(),
    }
}

/// The text EvalScope uses from a reply: [`cleave_think`] for plain content.
pub fn completion_text(reply: &ChatReply) -> String {
    if reply.delivery.plain { cleave_think(&reply.text) } else { reply.text.clone() }
}

/// Seconds from `retry-after-ms`, then `Retry-After` (a number or an HTTP date).
fn retry_after_of(headers: &reqwest::header::HeaderMap) -> Option<f64> {
    for (name, divisor) in [("retry-after-ms", 1000.0), ("retry-after", 1.0)] {
        if let Some(v) = headers.get(name).and_then(|v| v.to_str().ok())
            && let Ok(x) = v.trim().parse::<f64>()
        {
            return Some(x / divisor);
        }
    }
    let value = headers.get("retry-after")?.to_str().ok()?;
    anser_llm::retry::parse_retry_after(value, SystemTime::now()).map(|d| d.as_secs_f64())
}

/// [`ChatBackend`] with EvalScope's transport over HTTP.
#[derive(Debug)]
pub struct EvalscopeBackend {
    endpoint: EndpointConfig,
    schedule: RetrySchedule,
    sleeper: Box<dyn Sleeper + Send>,
    http: reqwest::Client,
    /// Always `Some` until dropped (taken to shut it down without blocking).
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for EvalscopeBackend {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl EvalscopeBackend {
    /// A backend for `endpoint` that really sleeps between retries.
    pub fn new(endpoint: EndpointConfig, schedule: RetrySchedule) -> Result<Self> {
        Self::with_sleeper(endpoint, schedule, Box::new(ThreadSleeper))
    }

    /// The same with an injected [`Sleeper`] (tests).
    pub fn with_sleeper(
        endpoint: EndpointConfig,
        schedule: RetrySchedule,
        sleeper: Box<dyn Sleeper + Send>,
    ) -> Result<Self> {
        let http = reqwest::Client::builder()
            .timeout(schedule.timeout())
            .connect_timeout(Duration::from_secs(5).min(schedule.timeout()))
            .build()
            .map_err(|e| Error::Setting(format!("cannot build the HTTP client: {e}")))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| Error::Setting(format!("cannot start the HTTP runtime: {e}")))?;
        Ok(Self { endpoint, schedule, sleeper, http, runtime: Some(runtime) })
    }

    fn send_once(&self, body: &Value) -> HttpOutcome {
        let url = self.endpoint.url("chat/completions");
        let mut request = self.http.post(&url).json(body);
        if let Some(key) = self.endpoint.api_key.expose_secret() {
            request = request.bearer_auth(key);
        }
        let Some(runtime) = self.runtime.as_ref() else {
            return HttpOutcome::Connection("the HTTP runtime was shut down".into());
        };
        runtime.block_on(async move {
            let response = match request.send().await {
                Ok(r) => r,
                Err(e) => return HttpOutcome::Connection(e.to_string()),
            };
            let status = response.status().as_u16();
            let retry_after = retry_after_of(response.headers());
            let should_retry = match response.headers().get("x-should-retry").and_then(|v| v.to_str().ok()) {
                Some("true") => Some(true),
                Some("false") => Some(false),
                _ => None,
            };
            let bytes = match response.bytes().await {
                Ok(b) => b,
                Err(e) => return HttpOutcome::Connection(format!("response body cut off: {e}")),
            };
            if (200..300).contains(&status)
                && let Ok(v) = serde_json::from_slice::<Value>(&bytes)
            {
                return HttpOutcome::Body(v);
            }
            HttpOutcome::Status {
                status,
                body: String::from_utf8_lossy(&bytes).into_owned(),
                retry_after,
                should_retry,
            }
        })
    }
}

/// The request body EvalScope sends (`temperature`, and `max_tokens` only when set).
pub fn request_body(call: &ChatCall) -> Value {
    let messages: Vec<Value> = call
        .messages
        .iter()
        .map(|(role, text)| {
            let role = match role {
                Role::System => "system",
                Role::User => "user",
            };
            json!({"role": role, "content": text})
        })
        .collect();
    let mut body = json!({"model": call.model, "messages": messages, "temperature": call.temperature});
    if let Some(n) = call.max_tokens {
        body["max_tokens"] = json!(n);
    }
    body
}

impl ChatBackend for EvalscopeBackend {
    fn chat(&self, call: &ChatCall) -> std::result::Result<ChatReply, String> {
        let body = request_body(call);
        let started = Instant::now();
        let outcome = call_with_retries(&self.schedule, self.sleeper.as_ref(), &mut || self.send_once(&body));
        let completion = outcome.result?;
        let usage = completion.usage.unwrap_or_else(|| {
            let prompt: u64 = call.messages.iter().map(|(_, t)| anser_llm::estimate_tokens(t)).sum();
            let completion_tokens = anser_llm::estimate_tokens(&completion.text);
            TokenUsage {
                prompt_tokens: prompt,
                completion_tokens,
                total_tokens: prompt + completion_tokens,
                estimated: true,
            }
        });
        Ok(ChatReply {
            text: completion.text,
            delivery: Delivery {
                usage,
                latency_ms: started.elapsed().as_secs_f64() * 1e3,
                attempts: outcome.requests,
                plain: completion.plain,
                stop_reason: completion.stop_reason,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_blocks_are_cut_as_evalscope_does() {
        assert_eq!(cleave_think("<think>a {x}</think>\n{\"r\": 1}"), "{\"r\": 1}");
        assert_eq!(cleave_think("pre <think>a</think> post <think>b</think>"), "pre  post <think>b</think>");
        assert_eq!(cleave_think("<think signature=\"s\" redacted=\"true\">a</think> x "), "x");
        assert_eq!(cleave_think("<think foo=\"s\">a</think> x "), "<think foo=\"s\">a</think> x ");
        assert_eq!(cleave_think("<think>never closed {x} "), "<think>never closed {x} ");
        assert_eq!(cleave_think("  no block  "), "  no block  ");
        assert_eq!(cleave_think("<thinking>a</think>"), "<thinking>a</think>");
    }

    fn status(status: u16, retry_after: Option<f64>, should_retry: Option<bool>) -> HttpOutcome {
        HttpOutcome::Status { status, body: String::new(), retry_after, should_retry }
    }

    fn run(outcomes: Vec<HttpOutcome>) -> (CallResult, Vec<Duration>) {
        let sleeper = RecordingSleeper::default();
        let mut queue = outcomes.into_iter();
        let ok = json!({"choices": [{"index": 0, "message": {"content": "ok"}}]});
        let result = call_with_retries(&RetrySchedule::default(), &sleeper, &mut || {
            queue.next().unwrap_or_else(|| HttpOutcome::Body(ok.clone()))
        });
        (result, sleeper.waits())
    }

    #[test]
    fn retry_schedules_are_valid_by_construction() {
        let d = RetrySchedule::default();
        assert_eq!(RetryScheduleBuilder::default().build().expect("defaults are valid"), d);
        assert_eq!((d.attempts(), d.attempt_delay(), d.sdk_retries()), (5, Duration::from_secs(10), 2));
        assert_eq!((d.sdk_initial_delay(), d.sdk_max_delay()), (Duration::from_millis(500), Duration::from_secs(8)));
        assert_eq!(d.timeout(), Duration::from_secs(600));
        // 0.5 s · 2ⁿ capped at 8 s: 0.5, 1, 2, 4, 8, 8; a Retry-After in (0, 120] s wins.
        let waits: Vec<f64> = (0..6).map(|n| d.sdk_delay(n, None).as_secs_f64()).collect();
        assert_eq!(waits, [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]);
        assert_eq!(d.sdk_delay(0, Some(3.0)), Duration::from_secs(3));
        assert_eq!(d.sdk_delay(1, Some(121.0)), Duration::from_secs(1));
        let b = RetryScheduleBuilder::default();
        let edge = RetryScheduleBuilder { attempts: 1, sdk_max_delay: b.sdk_initial_delay, ..b };
        assert_eq!(edge.build().expect("bounds are valid").attempts(), 1);
        for (bad, says) in [
            (RetryScheduleBuilder { attempts: 0, ..b }, "--retries"),
            (RetryScheduleBuilder { timeout: Duration::ZERO, ..b }, "--timeout-secs"),
            (RetryScheduleBuilder { sdk_max_delay: Duration::from_millis(499), ..b }, "maximum retry delay"),
        ] {
            let msg = bad.build().expect_err("out of bounds").to_string();
            assert!(msg.contains(says), "{msg}");
        }
    }

    #[test]
    fn retry_schedule_edges() {
        let ms = Duration::from_millis;
        // Retry-After above 120 s: the SDK does not retry; the attempt fails and the next one
        // comes 10 s later.
        let (r, waits) = run(vec![status(503, Some(300.0), None)]);
        assert_eq!((r.requests, waits), (2, vec![Duration::from_secs(10)]));
        // x-should-retry overrides the status rule both ways.
        let (r, waits) = run(vec![status(400, None, Some(true))]);
        assert_eq!((r.requests, waits, r.result.is_ok()), (2, vec![ms(500)], true));
        let (r, waits) = run(vec![status(500, None, Some(false))]);
        assert_eq!((r.requests, waits), (2, vec![Duration::from_secs(10)]));
        // 413 is not retried by the SDK but is by EvalScope's attempts; 401 by neither.
        let (r, waits) = run(vec![status(413, None, None)]);
        assert_eq!((r.requests, waits), (2, vec![Duration::from_secs(10)]));
        let (r, waits) = run(vec![status(401, None, None)]);
        assert_eq!((r.requests, waits.len(), r.result.is_err()), (1, 0, true));
        // Connection errors and retry-after-ms.
        let (r, waits) = run(vec![
            HttpOutcome::Connection("refused".into()),
            status(429, Some(0.25), None),
            status(502, None, None),
        ]);
        assert_eq!((r.requests, waits), (4, vec![ms(500), ms(250), Duration::from_secs(10)]));
    }

    #[test]
    fn choices_by_index_refusal_and_reasoning() {
        let body = json!({"choices": [
            {"index": 1, "message": {"content": "second"}},
            {"index": 0, "message": {"content": "first"}},
        ]});
        let c = completion_from_body(&body).ok().expect("completion");
        assert_eq!((c.text.as_str(), c.plain), ("first", true));
        let body =
            json!({"choices": [{"index": 0, "message": {"content": "<think>x</think>a", "reasoning_content": "r"}}]});
        let c = completion_from_body(&body).ok().expect("completion");
        assert_eq!((c.text.as_str(), c.plain), ("<think>x</think>a", false));
        let body = json!({"choices": [{"index": 0, "message": {"content": "c", "refusal": "no"}}]});
        assert_eq!(completion_from_body(&body).ok().map(|c| c.text), Some("no".into()));
    }
}
