//! Per-tool-call overhead of the MCP path against the built-in agent's.
//!
//! The same tool calls — SCRIPTED FROM GOLD (`agent/benches/support/scripted_from_gold.rs`:
//! schema, sql, compute; the answers mean nothing here) for every sample task with a SQL plan —
//! are made three ways, and each call's wall time is taken where the caller sees it:
//!
//! - built-in: [`ToolBox::execute`] called directly, which is what the agent loop does between a
//!   model's tool call and the tool message it sends back;
//! - MCP over a pipe: an `rmcp` client and server in process on a duplex pipe (JSON-RPC framing,
//!   serialisation, the session's task lock; what stdio adds beyond it is the OS pipe);
//! - MCP over Streamable HTTP: an `rmcp` client to `anser_mcp::http` on loopback.
//!
//! The three runs use separate schema caches, each cold at its first call per route, so call i
//! of a path is comparable to call i of another. Overhead = MCP time − built-in time of the same
//! call (paired). `submit_answer` is reported apart: over MCP it also commits the task (trace and
//! journal fsynced, results.json rewritten), which `anser run` does once per task too.
//!
//! Run: `cargo bench -p anser-mcp --bench overhead` (prints p50/p95 per path and of the paired
//! overhead; the machine's load average is printed with them).

#[allow(dead_code)]
#[path = "../../agent/benches/support/scripted_from_gold.rs"]
mod scripted_from_gold;

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use anser_agent::{
    method::{AgentParams, ToolEnv},
    run::{RunConfig, TaskTrace},
};
use anser_gold::Benchmark;
use anser_llm::{ToolCall, mock::Reply};
use anser_manifest::PublicTask;
use anser_mcp::{Coordinator, McpSession};
use anser_pycompat::numeric::percentile_nearest;
use anser_runstore::RunName;
use anser_samples::{SampleOptions, generate};
use rmcp::{
    RoleClient, ServiceExt, model::CallToolRequestParams, service::RunningService,
    transport::StreamableHttpClientTransport,
};
use serde_json::Value;

use self::scripted_from_gold::{Plan, plan_of, script_from_gold};

/// The scripted calls of a task: (tool name as the agent names it, arguments).
fn steps(task: &PublicTask, bench: &Benchmark) -> Vec<(String, Value)> {
    let reference = bench.reference(&task.id).expect("reference");
    script_from_gold(task, reference)
        .into_iter()
        .filter_map(|r| match r {
            Reply::ToolCalls(calls) => Some(calls),
            _ => None,
        })
        .flatten()
        .map(|c| (c.name.clone(), serde_json::from_str(&c.arguments).expect("arguments")))
        .collect()
}

fn mcp_name_and_args(name: &str, args: &Value) -> (String, Value) {
    if name != "answer" {
        return (name.to_string(), args.clone());
    }
    let mut args = args.clone();
    if let Some(e) = args.as_object_mut().and_then(|m| m.remove("evidence")) {
        args["retrieved_evidence"] = e;
    }
    ("submit_answer".into(), args)
}

/// Per-call times of the built-in path, in script order.
fn builtin(tasks: &[PublicTask], bench: &Benchmark, corpus: &std::path::Path) -> Vec<(String, Duration)> {
    let env = ToolEnv::new(corpus.to_path_buf(), None, AgentParams::default());
    let mut out = Vec::new();
    for task in tasks {
        let mut trace = TaskTrace::new(&task.id);
        let mut tools = env.toolbox(task, Instant::now(), &mut trace).expect("tools open");
        for (i, (name, args)) in steps(task, bench).into_iter().enumerate() {
            let call = ToolCall::new(format!("c{i}"), name.clone(), args.to_string());
            let t = Instant::now();
            let outcome = tools.execute(&call, &mut trace);
            out.push((name, t.elapsed()));
            if let anser_agent::method::ToolOutcome::Message(m) = outcome {
                assert!(!m.starts_with("{\"ok\":false"), "{}: {m}", task.id);
            }
        }
    }
    out
}

/// Per-call times over an MCP client, in script order (`next_task` not counted).
async fn over_mcp<H: rmcp::ClientHandler>(
    client: &RunningService<RoleClient, H>,
    tasks: &[PublicTask],
    bench: &Benchmark,
) -> Vec<(String, Duration)> {
    let mut out = Vec::new();
    for task in tasks {
        let next = client.call_tool(CallToolRequestParams::new("next_task")).await.expect("next_task");
        let text: String = next.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
        assert!(text.contains(&task.id), "tasks are handed out in order: {text}");
        for (name, args) in steps(task, bench) {
            let (mcp_name, args) = mcp_name_and_args(&name, &args);
            let Value::Object(args) = args else { panic!("object arguments") };
            let t = Instant::now();
            let result =
                client.call_tool(CallToolRequestParams::new(mcp_name).with_arguments(args)).await.expect("call");
            out.push((name, t.elapsed()));
            assert!(result.is_error != Some(true), "{}: {:?}", task.id, result.content);
        }
    }
    out
}

fn coordinator(out: &std::path::Path, name: &str, tasks: &[PublicTask], corpus: &std::path::Path) -> Arc<Coordinator> {
    let config = RunConfig::new(RunName::new(name).expect("name"), out.to_path_buf(), tasks.to_vec());
    Coordinator::open(&config, corpus.to_path_buf(), None, AgentParams::default()).expect("coordinator")
}

/// The nearest-sample percentile shared by the benches (`p` in percent).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    percentile_nearest(sorted, p / 100.0).unwrap_or(f64::NAN)
}

fn summary(label: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    println!(
        "{label:<34} n={:<4} p50={:>8.3} ms  p95={:>8.3} ms  max={:>8.3} ms",
        ms.len(),
        percentile(&ms, 50.0),
        percentile(&ms, 95.0),
        ms.last().copied().unwrap_or(f64::NAN)
    );
}

fn report(name: &str, builtin: &[(String, Duration)], mcp: &[(String, Duration)]) {
    assert_eq!(builtin.len(), mcp.len(), "same calls");
    let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
    let (mut tool_b, mut tool_m, mut overhead, mut submit) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for ((n, b), (_, m)) in builtin.iter().zip(mcp) {
        if n == "answer" {
            submit.push(ms(m) - ms(b));
        } else {
            tool_b.push(ms(b));
            tool_m.push(ms(m));
            overhead.push(ms(m) - ms(b));
        }
    }
    println!("-- {name}");
    summary("built-in tool call", tool_b);
    summary("MCP tool call", tool_m);
    summary("overhead per tool call (paired)", overhead);
    summary("submit_answer overhead (commit)", submit);
}

fn main() {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let dir = tempfile::tempdir().expect("tempdir");
    let summary_ = generate(&SampleOptions::default(), &dir.path().join("sample")).expect("sample");
    let corpus = summary_.corpus_dir().to_path_buf();
    let bench = Benchmark::load(&dir.path().join("sample/query")).expect("tasks");
    // Tasks whose scripts need no retriever (none is configured: the figure is the transport's).
    let tasks: Vec<PublicTask> = bench
        .tasks()
        .iter()
        .filter(|t| plan_of(t) != Plan::Retrieve && steps(t, &bench).iter().all(|(n, _)| n != "search"))
        .cloned()
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");

    let base = builtin(&tasks, &bench, &corpus);
    let pipe = runtime.block_on(async {
        let coord = coordinator(dir.path(), "pipe", &tasks, &corpus);
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let session = McpSession::new(coord);
        tokio::spawn(async move {
            if let Ok(s) = session.serve(server_io).await {
                let _ = s.waiting().await;
            }
        });
        let client = ().serve(client_io).await.expect("client");
        over_mcp(&client, &tasks, &bench).await
    });
    let http = runtime.block_on(async {
        let coord = coordinator(dir.path(), "http", &tasks, &corpus);
        let cancel = tokio_util::sync::CancellationToken::new();
        let router = anser_mcp::http::router(Some(coord), None, &cancel);
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(anser_mcp::http::serve("127.0.0.1:0".parse().expect("addr"), router, cancel.clone(), |a| {
            let _ = tx.send(a);
        }));
        let addr = rx.await.expect("bound");
        let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}{}", anser_mcp::http::MCP_PATH));
        // A session (the `initialize` handshake of 2025-11-25): a session holds the task.
        let config = rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::default(),
            rmcp::model::Implementation::new("anser-mcp-bench", "0"),
        )
        .with_protocol_version(rmcp::model::ProtocolVersion::V_2025_11_25);
        let client = config.serve(transport).await.expect("client");
        let times = over_mcp(&client, &tasks, &bench).await;
        cancel.cancel();
        times
    });
    println!(
        "anser-mcp overhead: {} tasks, {} tool calls each path; load average at start: {}",
        tasks.len(),
        base.len(),
        load.trim()
    );
    report("MCP over an in-process pipe (JSON-RPC framing, no OS pipe)", &base, &pipe);
    report("MCP over Streamable HTTP (loopback)", &base, &http);
    println!("load average at end: {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
