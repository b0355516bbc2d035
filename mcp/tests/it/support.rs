//! The sample, a coordinator over it, and an `rmcp` client connected to a session.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::{Arc, OnceLock},
};

use anser_agent::{
    method::AgentParams,
    run::{RunConfig, TRACE_FILE},
};
use anser_gold::Benchmark;
use anser_manifest::PublicTask;
use anser_mcp::{Coordinator, McpSession};
use anser_runstore::RunName;
use anser_samples::{SampleOptions, generate};
use rmcp::{
    RoleClient, ServiceExt,
    model::{CallToolRequestParams, CallToolResult},
    service::RunningService,
};
use serde_json::{Value, json};
use tempfile::TempDir;

/// The small sample, generated once per test binary.
pub fn sample() -> &'static (TempDir, PathBuf, PathBuf) {
    static SAMPLE: OnceLock<(TempDir, PathBuf, PathBuf)> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let dir = TempDir::new().expect("tempdir");
        let out = dir.path().join("sample");
        let summary = generate(&SampleOptions::default(), &out).expect("sample generates");
        let corpus = summary.corpus_dir().to_path_buf();
        (dir, out.join("query"), corpus)
    })
}

pub fn bench() -> &'static Benchmark {
    static BENCH: OnceLock<Benchmark> = OnceLock::new();
    BENCH.get_or_init(|| Benchmark::load(&sample().1).expect("sample tasks load"))
}

/// The first `n` sample tasks whose scripts need no retriever (none is configured here).
pub fn sql_tasks(n: usize) -> Vec<PublicTask> {
    bench().tasks().iter().filter(|t| mcp_script(t).iter().all(|(name, _)| name != "search")).take(n).cloned().collect()
}

/// A coordinator serving `tasks` into `out/NAME`.
pub fn coordinator(out: &Path, name: &str, tasks: Vec<PublicTask>, resume: bool) -> Arc<Coordinator> {
    let config = RunConfig {
        resume,
        settings: BTreeMap::from([("method".to_string(), json!("mcp"))]),
        ..RunConfig::new(RunName::new(name).expect("run name"), out.to_path_buf(), tasks)
    };
    Coordinator::open(&config, sample().2.clone(), None, AgentParams::default()).expect("coordinator opens")
}

/// A fresh run `name` over the first `n` SQL tasks: (its output folder, the tasks, a coordinator
/// serving them there).
pub fn fresh_run(name: &str, n: usize) -> (TempDir, Vec<PublicTask>, Arc<Coordinator>) {
    let out = TempDir::new().expect("tempdir");
    let tasks = sql_tasks(n);
    let coord = coordinator(out.path(), name, tasks.clone(), false);
    (out, tasks, coord)
}

pub type Client = RunningService<RoleClient, ()>;

/// An `rmcp` client on a fresh session of `coordinator`, over an in-process pipe.
pub async fn connect(coordinator: &Arc<Coordinator>) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let session = McpSession::new(coordinator.clone());
    tokio::spawn(async move {
        if let Ok(running) = session.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("client connects")
}

/// A client configuration with sessions over HTTP: the `initialize` handshake of protocol
/// 2025-11-25 (the stateless 2026-07-28 revision has no session to hold a task in).
pub fn session_client() -> rmcp::model::ClientConfig {
    use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
    ClientConfig::new(ClientCapabilities::default(), Implementation::new("anser-mcp-tests", "0"))
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
}

/// A session client over Streamable HTTP.
pub async fn connect_http(url: &str) -> RunningService<RoleClient, rmcp::model::ClientConfig> {
    session_client()
        .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_string()))
        .await
        .expect("client connects")
}

/// Call a tool: (is_error, text).
pub async fn call<H: rmcp::ClientHandler>(
    client: &RunningService<RoleClient, H>,
    name: &str,
    args: Value,
) -> (bool, String) {
    let Value::Object(args) = args else { panic!("arguments must be an object") };
    let result: CallToolResult = client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{name}: protocol error {e}"));
    let text: String = result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    (result.is_error == Some(true), text)
}

/// The scripted tool calls of a task (gold answer and evidence), in MCP names.
pub fn mcp_script(task: &PublicTask) -> Vec<(String, Value)> {
    crate::scripted_from_gold::mcp_steps(task, bench().reference(&task.id).expect("reference"))
}

/// Take tasks until none is left, replaying each one's script; returns the ids solved.
pub async fn solve_all<H: rmcp::ClientHandler>(client: &RunningService<RoleClient, H>) -> Vec<String> {
    let mut done = Vec::new();
    loop {
        let (err, text) = call(client, "next_task", json!({})).await;
        assert!(!err, "next_task: {text}");
        let task: Value = serde_json::from_str(&text).expect("next_task JSON");
        let Some(id) = task["id"].as_str() else {
            assert_eq!(task, json!({}), "an empty result when none is left");
            return done;
        };
        let public = bench().tasks().iter().find(|t| t.id == id).expect("a selected task");
        for (name, args) in mcp_script(public) {
            let (err, text) = call(client, &name, args).await;
            assert!(!err, "{id}: {name}: {text}");
        }
        done.push(id.to_string());
    }
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .expect("json")
}

/// The trace lines of a run directory.
pub fn trace(run_dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(run_dir.join(TRACE_FILE))
        .expect("trace")
        .lines()
        .map(|l| serde_json::from_str(l).expect("trace line"))
        .collect()
}
