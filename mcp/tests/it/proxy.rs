//! The proxy: pass-through of chat (plain and streaming) and embeddings to a loopback upstream,
//! usage recorded per task (path prefix or header) under concurrent load, keys never written,
//! and the usage folded into the task's record and trace when it is submitted.

use std::sync::Arc;

use anser_agent::run::read_records;
use anser_llm::mock::{MockConfig, MockServer};
use anser_mcp::{
    proxy::{Proxy, TASK_HEADER},
    usage::{USAGE_FILE, UsageLine, UsageLog},
};
use axum::{body::Body, response::Response, routing::post};
use futures_util::future::join_all;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::support::{call, connect, coordinator, mcp_script, sql_tasks, trace};

/// Calls at once through the proxy.
const CONCURRENT: usize = 8;
const KEY: &str = "sk-test-secret-key-0123456789";

async fn start(router: axum::Router) -> (std::net::SocketAddr, CancellationToken) {
    let cancel = CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(anser_mcp::http::serve("127.0.0.1:0".parse().expect("addr"), router, cancel.clone(), |a| {
        let _ = tx.send(a);
    }));
    (rx.await.expect("bound"), cancel)
}

/// A streaming upstream: three content chunks, then the usage chunk when it was asked for.
async fn sse_upstream() -> (std::net::SocketAddr, CancellationToken) {
    async fn chat(body: axum::body::Bytes) -> Response {
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let mut events = String::new();
        for word in ["Hello", " streamed", " world"] {
            let chunk = json!({"id": "c", "object": "chat.completion.chunk", "model": "sse", "choices": [{"index": 0, "delta": {"content": word}}]});
            events.push_str(&format!("data: {chunk}\n\n"));
        }
        if request.pointer("/stream_options/include_usage") == Some(&Value::Bool(true)) {
            let usage = json!({"id": "c", "object": "chat.completion.chunk", "model": "sse", "choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}});
            events.push_str(&format!("data: {usage}\n\n"));
        }
        events.push_str("data: [DONE]\n\n");
        let mut r = Response::new(Body::from(events));
        r.headers_mut().insert("content-type", "text/event-stream".parse().expect("header"));
        r
    }
    start(axum::Router::new().route("/v1/chat/completions", post(chat))).await
}

fn usage_lines(run_dir: &std::path::Path) -> Vec<UsageLine> {
    std::fs::read_to_string(run_dir.join(USAGE_FILE))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("usage line"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn proxy_passes_calls_through_and_records_usage_per_task_under_load() {
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    let run_dir = tempfile::tempdir().expect("tempdir");
    let proxy = Arc::new(Proxy::new(&mock.base_url(), UsageLog::open(run_dir.path()).expect("log")).expect("proxy"));
    let (addr, cancel) = start(anser_mcp::proxy::routes(proxy)).await;
    let http = reqwest::Client::new();
    let calls = (0..CONCURRENT).map(|i| {
        let http = http.clone();
        async move {
            let body = json!({"model": "m", "messages": [{"role": "user", "content": format!("question {i}")}]});
            // Half name the task in the path, half in the header.
            let request = if i % 2 == 0 {
                http.post(format!("http://{addr}/t/task-{i}/v1/chat/completions"))
            } else {
                http.post(format!("http://{addr}/v1/chat/completions")).header(TASK_HEADER, format!("task-{i}"))
            };
            let response = request.bearer_auth(KEY).json(&body).send().await.expect("proxied");
            assert!(response.status().is_success());
            let answer: Value = response.json().await.expect("JSON answer");
            assert!(answer["choices"][0]["message"].is_object(), "{answer}");
            answer["usage"]["total_tokens"].as_u64().expect("upstream usage")
        }
    });
    let totals = join_all(calls).await;
    let embed = http
        .post(format!("http://{addr}/t/task-0/v1/embeddings"))
        .bearer_auth(KEY)
        .json(&json!({"model": "e", "input": ["one", "two"]}))
        .send()
        .await
        .expect("embeddings proxied");
    assert!(embed.status().is_success());
    let lines = usage_lines(run_dir.path());
    assert_eq!(lines.len(), CONCURRENT + 1);
    for (i, total) in totals.iter().enumerate() {
        let line = lines
            .iter()
            .find(|l| l.task_id == format!("task-{i}") && l.endpoint == "chat/completions")
            .unwrap_or_else(|| panic!("task-{i} recorded: {lines:?}"));
        assert_eq!(line.total_tokens, *total, "the upstream's count");
        assert_eq!(line.status, 200);
    }
    assert!(lines.iter().any(|l| l.endpoint == "embeddings" && l.task_id == "task-0"));
    // The key reached the upstream and is nowhere in the run directory.
    let requests = mock.requests();
    assert!(requests.iter().all(|r| r.authorization.as_deref() == Some(&format!("Bearer {KEY}"))));
    let written = std::fs::read_to_string(run_dir.path().join(USAGE_FILE)).expect("log");
    assert!(!written.contains(KEY));
    cancel.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn streaming_chat_is_passed_through_and_its_usage_chunk_recorded() {
    let (upstream, upstream_cancel) = sse_upstream().await;
    let run_dir = tempfile::tempdir().expect("tempdir");
    let proxy = Arc::new(
        Proxy::new(&format!("http://{upstream}/v1"), UsageLog::open(run_dir.path()).expect("log")).expect("proxy"),
    );
    let (addr, cancel) = start(anser_mcp::proxy::routes(proxy)).await;
    let body = json!({"model": "sse", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let text = reqwest::Client::new()
        .post(format!("http://{addr}/t/streamed/v1/chat/completions"))
        .json(&body)
        .send()
        .await
        .expect("proxied")
        .text()
        .await
        .expect("body");
    assert!(text.contains("\" streamed\"") && text.trim_end().ends_with("data: [DONE]"), "{text}");
    // The line is written when the stream ends, just after the client read it.
    let mut lines = Vec::new();
    for _ in 0..50 {
        lines = usage_lines(run_dir.path());
        if !lines.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(lines.len(), 1);
    assert_eq!((lines[0].prompt_tokens, lines[0].completion_tokens, lines[0].total_tokens), (11, 3, 14));
    assert!(lines[0].stream && !lines[0].estimated && lines[0].task_id == "streamed");
    cancel.cancel();
    upstream_cancel.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn proxied_usage_lands_in_the_submitted_tasks_record_and_trace() {
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    let out = tempfile::tempdir().expect("tempdir");
    let tasks = sql_tasks(1);
    let coord = coordinator(out.path(), "with-proxy", tasks.clone(), false);
    let proxy = Arc::new(Proxy::new(&mock.base_url(), UsageLog::open(coord.run_dir()).expect("log")).expect("proxy"));
    let cancel = CancellationToken::new();
    let router = anser_mcp::http::router(Some(coord.clone()), Some(proxy), &cancel);
    let (addr, server_cancel) = start(router).await;
    let client = connect(&coord).await;
    call(&client, "next_task", json!({})).await;
    let mut proxied = 0;
    for i in 0..3 {
        let answer: Value = reqwest::Client::new()
            .post(format!("http://{addr}/t/{}/v1/chat/completions", tasks[0].id))
            .json(&json!({"model": "m", "messages": [{"role": "user", "content": format!("step {i}")}]}))
            .send()
            .await
            .expect("proxied")
            .json()
            .await
            .expect("JSON");
        proxied += answer["usage"]["total_tokens"].as_u64().expect("usage");
    }
    for (name, args) in mcp_script(&tasks[0]) {
        let (err, text) = call(&client, &name, args).await;
        assert!(!err, "{text}");
    }
    let record = read_records(coord.run_dir()).expect("journal").pop().expect("record");
    assert_eq!(record.total_tokens, Some(proxied));
    assert_eq!(record.stages.llm.calls, 3);
    assert_eq!(record.stages.llm.tokens, proxied);
    let llm_events = trace(coord.run_dir()).into_iter().filter(|e| e["event"] == "llm_call").count();
    assert_eq!(llm_events, 3);
    cancel.cancel();
    server_cancel.cancel();
}
