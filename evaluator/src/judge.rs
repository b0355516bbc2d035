//! The LLM judge (spec §10): one chat call per judge-scored task through `anser-llm`, the
//! official request body, `score_0_100` parsing and clamping, the `llm_judge` record, bounded
//! concurrency, and a cache keyed by result signature + judge model + prompt hash so that
//! re-scoring unchanged predictions makes no call. Judge tokens and latency are counted as
//! evaluation overhead ([`JudgeOverhead`]), never as the system's Token Usage.

use std::{
    collections::HashMap,
    io::Write as _,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use anser_llm::{
    ChatRequest, Client, ClientOptions, EndpointConfig, Message, ResponseFormat, RetryPolicy, RetryPolicyBuilder,
};
use futures_util::{StreamExt, stream};
use sha2::{Digest, Sha256};

use crate::{
    Error, Result,
    answer::json_object,
    pyjson::{DecodeError, Dict, DumpStyle, Py, dumps, loads},
};

/// The system message of every judge call.
pub const SYSTEM_MESSAGE: &str =
    "Return only the requested JSON object. Do not use information outside the user message.";
/// Concurrent judge calls (`--judge-concurrency`).
pub const DEFAULT_CONCURRENCY: usize = 8;
/// Retries after the first attempt (`--llm-retries` of the official evaluator).
pub const DEFAULT_RETRIES: u32 = 4;
/// Per-call timeout (`--llm-timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Backoff before retry n is min(30 s, 2^(n-1) s) unless the server sends Retry-After.
pub const DEFAULT_MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How the judge runs, valid by construction: built from a [`JudgeSettingsBuilder`] (ranges on
/// its fields' docs); read through the getters.
#[derive(Debug, Clone)]
pub struct JudgeSettings(JudgeSettingsBuilder);

/// The unchecked judge settings; [`JudgeSettingsBuilder::build`] checks them.
#[derive(Debug, Clone)]
pub struct JudgeSettingsBuilder {
    /// Endpoint (base URL, key, model); `None` when no key is configured — every judged task
    /// is then `unavailable`, as in the official evaluator.
    pub endpoint: Option<EndpointConfig>,
    /// The model name written to `model_for_llm_judge` (also when `endpoint` is `None`).
    pub model: String,
    /// Concurrent judge calls, ≥ 1 (`--judge-concurrency`).
    pub concurrency: usize,
    /// Retries after the first attempt (`--llm-retries`).
    pub retries: u32,
    /// Per-call timeout, > 0 (`--llm-timeout`).
    pub timeout: Duration,
    /// JSONL cache file; `None` disables the cache.
    pub cache: Option<PathBuf>,
}

impl JudgeSettingsBuilder {
    /// The official defaults for `endpoint`, no cache.
    pub fn new(endpoint: Option<EndpointConfig>, model: impl Into<String>) -> Self {
        JudgeSettingsBuilder {
            endpoint,
            model: model.into(),
            concurrency: DEFAULT_CONCURRENCY,
            retries: DEFAULT_RETRIES,
            timeout: DEFAULT_TIMEOUT,
            cache: None,
        }
    }

    /// The settings, when every field is in its range (the error names the flag).
    pub fn build(self) -> Result<JudgeSettings> {
        if self.concurrency == 0 {
            return Err(Error::Options("--judge-concurrency must be at least 1".into()));
        }
        if self.timeout.is_zero() {
            return Err(Error::Options("--llm-timeout (the judge timeout) must be greater than zero".into()));
        }
        let settings = JudgeSettings(self);
        settings.retry_policy()?;
        Ok(settings)
    }
}

impl JudgeSettings {
    /// A builder holding these settings, to change some of them.
    pub fn to_builder(&self) -> JudgeSettingsBuilder {
        self.0.clone()
    }

    /// The endpoint; `None`: every judged task is `unavailable`.
    pub fn endpoint(&self) -> Option<&EndpointConfig> {
        self.0.endpoint.as_ref()
    }

    /// The model name written to `model_for_llm_judge`.
    pub fn model(&self) -> &str {
        &self.0.model
    }

    /// Concurrent judge calls.
    pub fn concurrency(&self) -> usize {
        self.0.concurrency
    }

    /// Retries after the first attempt.
    pub fn retries(&self) -> u32 {
        self.0.retries
    }

    /// Per-call timeout.
    pub fn timeout(&self) -> Duration {
        self.0.timeout
    }

    /// The JSONL cache file, if any.
    pub fn cache(&self) -> Option<&Path> {
        self.0.cache.as_deref()
    }

    /// The client's retry policy: `retries + 1` attempts, backoff `min(30 s, 2^(n-1) s)`, no
    /// jitter, the per-call timeout (checked by [`JudgeSettingsBuilder::build`], so it builds).
    pub fn retry_policy(&self) -> Result<RetryPolicy> {
        RetryPolicyBuilder {
            max_attempts: self.0.retries.saturating_add(1),
            initial_backoff: Duration::from_secs(1),
            multiplier: 2.0,
            max_backoff: DEFAULT_MAX_BACKOFF,
            jitter: 0.0,
            timeout: self.0.timeout,
            ..RetryPolicyBuilder::default()
        }
        .build()
        .map_err(|e| Error::Options(format!("judge retries: {e}")))
    }
}

/// One judge call to make.
#[derive(Debug, Clone)]
pub struct JudgeRequest {
    pub result_signature: String,
    pub prompt: String,
}

/// The outcome for one task: the metric value and the `llm_judge` record.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeResult {
    pub score: Option<f64>,
    pub record: Dict,
}

/// Judge calls, tokens and time spent on them (evaluation overhead).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JudgeOverhead {
    /// Tasks that needed a judge score.
    pub requests: usize,
    /// Answered from the judge cache (no call).
    pub cached: usize,
    /// Calls made (tasks sent to the endpoint).
    pub calls: usize,
    /// Calls that ended without a score.
    pub failed: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    /// Whether any token count above is an estimate (the server reported no usage).
    pub tokens_estimated: bool,
    /// Sum of per-call wall times, seconds.
    pub call_seconds: f64,
    /// Wall time of the whole judge pass, seconds.
    pub wall_seconds: f64,
}

/// `{"status": "skipped"}` — what every judged task gets with `--skip-llm-judge`.
pub fn skipped() -> JudgeResult {
    JudgeResult { score: None, record: status_record("skipped", []) }
}

fn status_record<const N: usize>(status: &str, extra: [(&str, Py); N]) -> Dict {
    let mut d = Dict::new();
    d.insert("status", Py::Str(status.into()));
    for (k, v) in extra {
        d.insert(k, v);
    }
    d
}

/// `min(100, max(0, score))` with Python's argument order (`max(0.0, min(100.0, x))`).
pub fn clamp_score(x: f64) -> f64 {
    let capped = if x < 100.0 { x } else { 100.0 };
    if capped > 0.0 { capped } else { 0.0 }
}

/// Parse a judge reply's content: a JSON object with a numeric (or boolean) `score_0_100`.
/// Returns the clamped score and the object with `score_0_100` replaced by it.
pub fn parse_reply(content: &str, attempts: u32) -> JudgeResult {
    let parsed = json_object(&Py::Str(content.to_string())).map(|d| d.into_owned());
    let error = |message: String| JudgeResult {
        score: None,
        record: status_record(
            "error",
            [("error", Py::Str(message)), ("attempts", Py::Int(i64::from(attempts).into()))],
        ),
    };
    let mut record = match parsed {
        Ok(d) => d,
        Err(e) => return error(e.to_string()),
    };
    let score = match record.get("score_0_100") {
        Some(Py::Bool(b)) => f64::from(u8::from(*b)),
        Some(Py::Int(i)) => i.to_f64(),
        Some(Py::Float(f)) => *f,
        _ => return error("missing numeric score_0_100".into()),
    };
    let score = clamp_score(score);
    record.insert("score_0_100", Py::Float(score));
    record.insert("status", Py::Str("ok".into()));
    record.insert("attempts", Py::Int(i64::from(attempts).into()));
    JudgeResult { score: Some(score), record }
}

/// The cache key: result signature + judge model + hash of the rendered prompt.
pub fn cache_key(result_signature: &str, model: &str, prompt: &str) -> String {
    let prompt_hash = Sha256::digest(prompt.as_bytes());
    let mut h = Sha256::new();
    h.update(result_signature.as_bytes());
    h.update([0]);
    h.update(model.as_bytes());
    h.update([0]);
    h.update(prompt_hash);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Successful judge records from earlier runs, one JSON object per line.
#[derive(Debug, Default)]
pub struct JudgeCache {
    path: Option<PathBuf>,
    entries: HashMap<String, JudgeResult>,
}

impl JudgeCache {
    /// Open (or start) the cache file; unreadable lines are skipped with a warning.
    pub fn open(path: Option<&Path>) -> Result<JudgeCache> {
        let Some(path) = path else { return Ok(JudgeCache::default()) };
        let mut entries = HashMap::new();
        if path.is_file() {
            let text = fs_err::read_to_string(path)?;
            // One warning for all unreadable lines (a damaged cache must not print a line per entry).
            let mut skipped: Option<(usize, usize, String)> = None;
            for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                match Self::parse_line(line) {
                    Ok((key, result)) => {
                        entries.insert(key, result);
                    }
                    Err(e) => match &mut skipped {
                        Some((count, _, _)) => *count += 1,
                        None => skipped = Some((1, n + 1, e)),
                    },
                }
            }
            if let Some((count, first, e)) = skipped {
                tracing::warn!("{}: {count} judge cache line(s) skipped (first: line {first}: {e})", path.display());
            }
        }
        Ok(JudgeCache { path: Some(path.to_path_buf()), entries })
    }

    fn parse_line(line: &str) -> std::result::Result<(String, JudgeResult), String> {
        let v = loads(line).map_err(|e: DecodeError| e.to_string())?;
        let key = v.get("key").and_then(Py::as_str).ok_or("no key")?.to_string();
        let score = v.get("score").and_then(Py::as_f64).ok_or("no score")?;
        let record = v.get("record").and_then(Py::as_dict).ok_or("no record")?.clone();
        Ok((key, JudgeResult { score: Some(score), record }))
    }

    pub fn get(&self, key: &str) -> Option<&JudgeResult> {
        self.entries.get(key)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Append successful results to the file.
    fn append(&mut self, fresh: &[(String, JudgeResult)]) -> Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        if fresh.is_empty() {
            return Ok(());
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs_err::create_dir_all(dir)?;
        }
        let mut file = fs_err::OpenOptions::new().create(true).append(true).open(path)?;
        let mut buf = String::new();
        for (key, result) in fresh {
            let Some(score) = result.score else { continue };
            let mut line = Dict::new();
            line.insert("key", Py::Str(key.clone()));
            line.insert("score", Py::Float(score));
            line.insert("record", Py::Dict(result.record.clone()));
            buf.push_str(&dumps(&Py::Dict(line), DumpStyle::COMPACT));
            buf.push('\n');
            self.entries.insert(key.clone(), result.clone());
        }
        file.write_all(buf.as_bytes())?;
        Ok(())
    }
}

/// Score every request: cache first, then concurrent calls. Results are in request order.
pub fn judge_all(settings: &JudgeSettings, requests: &[JudgeRequest]) -> Result<(Vec<JudgeResult>, JudgeOverhead)> {
    let started = Instant::now();
    let mut overhead = JudgeOverhead { requests: requests.len(), ..JudgeOverhead::default() };
    let Some(endpoint) = settings.endpoint() else {
        if !requests.is_empty() {
            tracing::warn!("OPENAI_API_KEY is not set; LLM Judge is unavailable.");
        }
        let unavailable = JudgeResult {
            score: None,
            record: status_record("unavailable", [("reason", Py::Str("OPENAI_API_KEY is not set".into()))]),
        };
        overhead.failed = requests.len();
        return Ok((vec![unavailable; requests.len()], overhead));
    };
    let mut cache = JudgeCache::open(settings.cache())?;
    let keys: Vec<String> =
        requests.iter().map(|r| cache_key(&r.result_signature, settings.model(), &r.prompt)).collect();
    let mut results: Vec<Option<JudgeResult>> = keys.iter().map(|k| cache.get(k).cloned()).collect();
    overhead.cached = results.iter().filter(|r| r.is_some()).count();
    let todo: Vec<usize> = (0..requests.len()).filter(|&i| results[i].is_none()).collect();
    if !todo.is_empty() {
        let client = Client::new(endpoint.clone(), ClientOptions { retry: settings.retry_policy()?, cache: None })
            .map_err(|e| Error::Judge(e.to_string()))?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Judge(format!("cannot start the async runtime: {e}")))?;
        let calls = runtime.block_on(async {
            stream::iter(todo.iter().map(|&i| {
                let client = &client;
                let prompt = requests[i].prompt.clone();
                async move { (i, call(client, &prompt).await) }
            }))
            .buffer_unordered(settings.concurrency())
            .collect::<Vec<_>>()
            .await
        });
        let mut fresh = Vec::new();
        for (i, call) in calls {
            overhead.calls += 1;
            overhead.prompt_tokens += call.prompt_tokens;
            overhead.completion_tokens += call.completion_tokens;
            overhead.total_tokens += call.total_tokens;
            overhead.tokens_estimated |= call.estimated;
            overhead.call_seconds += call.seconds;
            if call.result.score.is_none() {
                overhead.failed += 1;
            } else {
                fresh.push((keys[i].clone(), call.result.clone()));
            }
            results[i] = Some(call.result);
        }
        fresh.sort_by(|a, b| a.0.cmp(&b.0));
        cache.append(&fresh)?;
    }
    overhead.wall_seconds = started.elapsed().as_secs_f64();
    let results = results.into_iter().map(|r| r.unwrap_or_else(skipped)).collect();
    Ok((results, overhead))
}

struct Call {
    result: JudgeResult,
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
    estimated: bool,
    seconds: f64,
}

/// The official request body: model, `reasoning_effort: high`, `temperature: 0`, JSON-object
/// response format, the system message and the rendered prompt.
pub fn request(prompt: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::system(SYSTEM_MESSAGE), Message::user(prompt)])
        .with_temperature(0.0)
        .with_response_format(ResponseFormat::JsonObject)
        .with_extra("reasoning_effort", serde_json::Value::String("high".into()))
}

async fn call(client: &Client, prompt: &str) -> Call {
    let started = Instant::now();
    match client.chat(&request(prompt)).await {
        Ok(outcome) => {
            let attempts = u32::try_from(outcome.attempts.len().max(1)).unwrap_or(u32::MAX);
            Call {
                result: parse_reply(outcome.response.text(), attempts),
                prompt_tokens: outcome.usage.prompt_tokens,
                completion_tokens: outcome.usage.completion_tokens,
                total_tokens: outcome.usage.total_tokens,
                estimated: outcome.usage.estimated,
                seconds: started.elapsed().as_secs_f64(),
            }
        }
        Err(e) => {
            let attempts = u32::try_from(e.attempts().len().max(1)).unwrap_or(u32::MAX);
            let message = match &e {
                anser_llm::Error::Status { status, message, .. } => format!("HTTP {status}: {message}"),
                other => other.to_string(),
            };
            Call {
                result: JudgeResult {
                    score: None,
                    record: status_record(
                        "error",
                        [("error", Py::Str(message)), ("attempts", Py::Int(i64::from(attempts).into()))],
                    ),
                },
                prompt_tokens: 0,
                completion_tokens: 0,
                total_tokens: 0,
                estimated: false,
                seconds: started.elapsed().as_secs_f64(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_settings_are_valid_by_construction() {
        let s = JudgeSettingsBuilder::new(None, "judge").build().expect("defaults are valid");
        assert_eq!((s.model(), s.concurrency(), s.retries(), s.timeout()), ("judge", 8, 4, Duration::from_secs(120)));
        assert!(s.endpoint().is_none() && s.cache().is_none());
        // 4 retries: 5 attempts; waits 1, 2, 4, 8, 16 s, then capped at 30 s; no jitter.
        let p = s.retry_policy().expect("policy");
        assert_eq!((p.max_attempts(), p.jitter(), p.timeout()), (5, 0.0, Duration::from_secs(120)));
        let waits: Vec<f64> = (1..=6).map(|r| p.backoff(r).as_secs_f64()).collect();
        assert_eq!(waits, [1.0, 2.0, 4.0, 8.0, 16.0, 30.0]);
        let b = || JudgeSettingsBuilder::new(None, "judge");
        let edge = JudgeSettingsBuilder { concurrency: 1, retries: 0, timeout: Duration::from_millis(1), ..b() };
        let edge = edge.build().expect("bounds are valid");
        assert_eq!(
            (edge.concurrency(), edge.retries(), edge.retry_policy().expect("policy").max_attempts()),
            (1, 0, 1)
        );
        assert_eq!(edge.to_builder().build().expect("round trip").timeout(), Duration::from_millis(1));
        let most = JudgeSettingsBuilder { retries: u32::MAX, ..b() }.build().expect("saturates");
        assert_eq!(most.retry_policy().expect("policy").max_attempts(), u32::MAX);
        for (bad, says) in [
            (JudgeSettingsBuilder { concurrency: 0, ..b() }, "--judge-concurrency must be at least 1"),
            (JudgeSettingsBuilder { timeout: Duration::ZERO, ..b() }, "--llm-timeout"),
        ] {
            let msg = bad.build().expect_err("out of range").to_string();
            assert!(msg.contains(says), "{msg}");
        }
    }

    #[test]
    fn replies_parse_and_clamp_like_python() {
        let r = parse_reply("```json\n{\"score_0_100\": 140, \"reason\": \"x\"}\n```", 2);
        assert_eq!(r.score, Some(100.0));
        assert_eq!(
            dumps(&Py::Dict(r.record), DumpStyle::TEXT),
            r#"{"attempts": 2, "reason": "x", "score_0_100": 100.0, "status": "ok"}"#
        );
        assert_eq!(parse_reply("{\"score_0_100\": -3}", 1).score, Some(0.0));
        assert_eq!(parse_reply("{\"score_0_100\": true}", 1).score, Some(1.0));
        assert_eq!(parse_reply("{\"score_0_100\": 87.5}", 1).score, Some(87.5));
        let missing = parse_reply("{\"score\": 50}", 1);
        assert_eq!(missing.score, None);
        assert_eq!(missing.record.get("error"), Some(&Py::Str("missing numeric score_0_100".into())));
        let prose = parse_reply("no json here", 3);
        assert_eq!(prose.record.get("error"), Some(&Py::Str("answer is not a JSON object".into())));
        assert_eq!(prose.record.get("attempts"), Some(&Py::Int(3i64.into())));
        assert_eq!(clamp_score(f64::NAN), 100.0);
        assert_eq!(clamp_score(-0.0).to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn cache_key_depends_on_all_three_parts() {
        let k = cache_key("sig", "m", "p");
        assert_eq!(k.len(), 64);
        assert_ne!(k, cache_key("sig2", "m", "p"));
        assert_ne!(k, cache_key("sig", "m2", "p"));
        assert_ne!(k, cache_key("sig", "m", "p2"));
        assert_eq!(k, cache_key("sig", "m", "p"));
    }
}
