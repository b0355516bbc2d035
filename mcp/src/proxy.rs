//! `anser proxy`: an OpenAI-compatible pass-through that records every call's tokens and latency
//! for the task it was made for.
//!
//! The task is named by a path prefix (`/t/<task_id>/v1/...`) or, on plain `/v1/...`, by the
//! `x-anser-task` header. Requests go to `UPSTREAM/<path after v1>` unchanged except that
//! streaming chat requests ask for the final usage chunk (`stream_options.include_usage`), which
//! OpenAI-compatible clients skip (it carries no choices); responses come back unchanged,
//! streaming ones chunk by chunk. Headers (the key included) are forwarded and never written;
//! `Accept-Encoding` is dropped so the answer can be read for its usage. A call whose upstream
//! reports no usage is counted with estimated tokens (`estimated: true`).

use std::{sync::Arc, time::Instant};

use anser_agent::run::unix_now;
use anser_llm::Usage;
use axum::{
    body::{Body, Bytes},
    extract::{Path, State},
    http::{HeaderMap, Method, StatusCode, Uri, header},
    response::Response,
    routing::any,
};
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::{
    Error, Result,
    usage::{UsageLine, UsageLog},
};

/// Header naming the task on plain `/v1/...` paths.
pub const TASK_HEADER: &str = "x-anser-task";
/// Largest request body forwarded.
pub const DEFAULT_MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// The pass-through.
#[derive(Debug)]
pub struct Proxy {
    upstream: String,
    client: reqwest::Client,
    log: UsageLog,
}

impl Proxy {
    /// A proxy to `upstream` (an OpenAI-compatible base URL ending in `/v1` or the like) that
    /// logs into `log`.
    pub fn new(upstream: &str, log: UsageLog) -> Result<Proxy> {
        let upstream = upstream.trim_end_matches('/').to_string();
        if !(upstream.starts_with("http://") || upstream.starts_with("https://")) {
            return Err(Error::Param(format!(
                "--upstream {upstream:?} must be an http(s) URL such as http://127.0.0.1:8000/v1"
            )));
        }
        let client = reqwest::Client::builder().build().map_err(|e| Error::Internal(format!("HTTP client: {e}")))?;
        Ok(Proxy { upstream, client, log })
    }
}

/// The proxy's routes: `/t/{task}/v1/{*rest}` and `/v1/{*rest}`.
pub fn routes(proxy: Arc<Proxy>) -> axum::Router {
    axum::Router::new()
        .route("/t/{task}/v1/{*rest}", any(with_task))
        .route("/v1/{*rest}", any(with_header))
        .layer(axum::extract::DefaultBodyLimit::max(DEFAULT_MAX_BODY_BYTES))
        .with_state(proxy)
}

async fn with_task(
    State(proxy): State<Arc<Proxy>>,
    Path((task, rest)): Path<(String, String)>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    forward(proxy, task, rest, method, uri, headers, body).await
}

async fn with_header(
    State(proxy): State<Arc<Proxy>>,
    Path(rest): Path<String>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let task = headers.get(TASK_HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    forward(proxy, task, rest, method, uri, headers, body).await
}

/// What is known of a call before its answer.
struct Call {
    task_id: String,
    endpoint: String,
    model: Option<String>,
    stream: bool,
    prompt_text: String,
    started: Instant,
}

async fn forward(
    proxy: Arc<Proxy>,
    task_id: String,
    rest: String,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut request: Option<Value> = serde_json::from_slice(&body).ok().filter(Value::is_object);
    let stream = request.as_ref().and_then(|r| r["stream"].as_bool()).unwrap_or(false);
    let mut body = body;
    if stream
        && rest.ends_with("chat/completions")
        && let Some(r) = request.as_mut()
        && r.pointer("/stream_options/include_usage").is_none()
    {
        if !r["stream_options"].is_object() {
            r["stream_options"] = json!({});
        }
        r["stream_options"]["include_usage"] = Value::Bool(true);
        body = Bytes::from(r.to_string());
    }
    let call = Call {
        task_id,
        endpoint: rest.clone(),
        model: request.as_ref().and_then(|r| r["model"].as_str().map(String::from)),
        stream,
        prompt_text: request.as_ref().map(prompt_text).unwrap_or_default(),
        started: Instant::now(),
    };
    let mut url = format!("{}/{rest}", proxy.upstream);
    if let Some(q) = uri.query() {
        url.push('?');
        url.push_str(q);
    }
    let mut forwarded = headers;
    for h in
        [header::HOST, header::CONTENT_LENGTH, header::CONNECTION, header::ACCEPT_ENCODING, header::TRANSFER_ENCODING]
    {
        forwarded.remove(h);
    }
    forwarded.remove(TASK_HEADER);
    let sent = proxy.client.request(method, &url).headers(forwarded).body(body).send().await;
    let upstream = match sent {
        Ok(r) => r,
        Err(e) => {
            record(&proxy, &call, 0, None, "");
            let message = format!("anser proxy: upstream {} unreachable: {e}", proxy.upstream);
            let mut response = Response::new(Body::from(json!({"error": {"message": message}}).to_string()));
            *response.status_mut() = StatusCode::BAD_GATEWAY;
            response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
            return response;
        }
    };
    let status = upstream.status();
    let mut response_headers = upstream.headers().clone();
    for h in [header::CONTENT_LENGTH, header::CONNECTION, header::TRANSFER_ENCODING] {
        response_headers.remove(h);
    }
    let is_sse = response_headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_sse {
        let bytes = upstream.bytes().await.unwrap_or_default();
        let answer: Option<Value> = serde_json::from_slice(&bytes).ok();
        let reported = answer.as_ref().and_then(|a| Usage::from_reported(&a["usage"]));
        let completion = answer.as_ref().map(completion_text).unwrap_or_default();
        record(&proxy, &call, status.as_u16(), reported, &completion);
        let mut response = Response::new(Body::from(bytes));
        *response.status_mut() = status;
        *response.headers_mut() = response_headers;
        return response;
    }
    // Streaming: pass every chunk on as it arrives, read the SSE events on the side, record at
    // the end of the stream.
    let (tx, rx) = tokio::sync::mpsc::channel::<std::result::Result<Bytes, std::io::Error>>(16);
    let status_code = status.as_u16();
    tokio::spawn(async move {
        let mut events = SseUsage::default();
        let mut chunks = upstream.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            match chunk {
                Ok(bytes) => {
                    events.feed(&bytes);
                    if tx.send(Ok(bytes)).await.is_err() {
                        break;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Err(std::io::Error::other(e.to_string()))).await;
                    break;
                }
            }
        }
        events.finish();
        record(&proxy, &call, status_code, events.usage, &events.completion);
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|item| (item, rx)) });
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = status;
    *response.headers_mut() = response_headers;
    response
}

/// Append the call's line; a failing log is reported on stderr (the agent's call still goes
/// through, its tokens are missing from the run).
fn record(proxy: &Proxy, call: &Call, status: u16, reported: Option<Usage>, completion: &str) {
    let usage = reported.unwrap_or_else(|| {
        let completion = if call.endpoint.ends_with("embeddings") { "" } else { completion };
        Usage::estimate(&call.prompt_text, completion)
    });
    let line = UsageLine {
        ts: unix_now(),
        task_id: call.task_id.clone(),
        endpoint: call.endpoint.clone(),
        model: call.model.clone(),
        status,
        stream: call.stream,
        seconds: call.started.elapsed().as_secs_f64(),
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        total_tokens: usage.total_tokens,
        estimated: usage.estimated || reported.is_none(),
    };
    if let Err(e) = proxy.log.append(&line) {
        tracing::error!("anser proxy: usage of a call for task {:?} not recorded: {e}", call.task_id);
    }
}

/// The texts a request sends (message contents, embedding inputs), for estimating its tokens.
fn prompt_text(request: &Value) -> String {
    let mut out = String::new();
    let mut push = |s: &str| {
        out.push_str(s);
        out.push('\n');
    };
    if let Some(messages) = request["messages"].as_array() {
        for m in messages {
            match &m["content"] {
                Value::String(s) => push(s),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).for_each(&mut push),
                _ => {}
            }
        }
    }
    match &request["input"] {
        Value::String(s) => push(s),
        Value::Array(items) => items.iter().filter_map(Value::as_str).for_each(&mut push),
        _ => {}
    }
    out
}

/// The text a non-streaming chat answer carries.
fn completion_text(answer: &Value) -> String {
    answer["choices"]
        .as_array()
        .map(|cs| cs.iter().filter_map(|c| c["message"]["content"].as_str()).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

/// Reads an SSE stream's `data:` events for the usage chunk and the streamed text.
#[derive(Default)]
struct SseUsage {
    pending: Vec<u8>,
    usage: Option<Usage>,
    completion: String,
}

impl SseUsage {
    fn feed(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.line(&line);
        }
    }

    fn finish(&mut self) {
        let rest = std::mem::take(&mut self.pending);
        self.line(&rest);
    }

    fn line(&mut self, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else { return };
        let Some(data) = text.trim().strip_prefix("data:") else { return };
        let Ok(event) = serde_json::from_str::<Value>(data.trim()) else { return };
        if let Some(u) = Usage::from_reported(&event["usage"]) {
            self.usage = Some(u);
        }
        if let Some(choices) = event["choices"].as_array() {
            for c in choices {
                if let Some(s) = c["delta"]["content"].as_str() {
                    self.completion.push_str(s);
                }
            }
        }
    }
}
