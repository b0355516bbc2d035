//! `anser mcp` (stdio), `anser serve --mcp` (Streamable HTTP) and `anser proxy`: external agents
//! on the ANSER tools, written to a run directory exactly as `anser run` writes one.
//!
//! The selection, path and output flags are `anser run`'s ([`RunTargetArgs`]); the run's
//! method is `mcp`. Over stdio, stdout carries the protocol only: the summary goes to stderr.

use std::{
    collections::BTreeMap,
    net::{IpAddr, SocketAddr},
    path::PathBuf,
    process::ExitCode,
    sync::Arc,
};

use anser_agent::{method::AgentParamsBuilder, run::RunConfig};
use anser_manifest::TaskSet;
use anser_mcp::{Coordinator, SERVER_NAME, SERVER_VERSION, proxy::Proxy, usage::UsageLog};
use anser_runstore::RunName;
use clap::Args;
use serde_json::{Value, json};

use super::{
    CliError, CliResult,
    run::{RunTargetArgs, agent_error, corpus_inputs, index_inputs, searcher},
};

/// The retriever the tools' `search` uses unless `--retriever` says otherwise.
pub const DEFAULT_RETRIEVER: &str = "bm25";
/// Address `anser serve` and `anser proxy` bind unless `--host` says otherwise.
pub const DEFAULT_HOST: &str = "127.0.0.1";

#[derive(Debug, Args)]
pub struct McpArgs {
    #[command(flatten)]
    pub(super) target: RunTargetArgs,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve the ANSER tools over MCP (Streamable HTTP) at http://HOST:PORT/mcp.
    #[arg(long)]
    mcp: bool,
    /// Port to listen on (0 picks a free one; the address is printed on stderr).
    #[arg(long)]
    port: u16,
    /// Address to bind.
    #[arg(long, default_value = DEFAULT_HOST)]
    host: IpAddr,
    /// Also host the token-accounting proxy to this OpenAI-compatible base URL on the same port
    /// (`/t/<task_id>/v1/...`), its usage folded into this run.
    #[arg(long, value_name = "URL")]
    proxy_upstream: Option<String>,
    #[command(flatten)]
    pub(super) target: RunTargetArgs,
}

#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Port to listen on (0 picks a free one; the address is printed on stderr).
    #[arg(long)]
    port: u16,
    /// Address to bind.
    #[arg(long, default_value = DEFAULT_HOST)]
    host: IpAddr,
    /// OpenAI-compatible base URL the calls go to (e.g. https://api.openai.com/v1).
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// Run directory of the MCP run whose tasks the calls belong to; usage lines go to
    /// RUN_DIR/proxy-usage.jsonl and are folded into each task when it is submitted.
    #[arg(long)]
    run_dir: PathBuf,
}

/// The run and its tools, from `anser run`'s flags.
fn coordinator(target: &RunTargetArgs, transport: &str) -> Result<Arc<Coordinator>, CliError> {
    anser_indexer::fingerprint::set_full_verification(target.verify);
    let run_name = RunName::new(&target.run_name).map_err(CliError::user)?;
    let deadline = target.deadline()?;
    let bench = TaskSet::load(&target.benchmark_dir)?;
    let tasks = target.selection.selection()?.apply(bench.tasks())?;
    let spec = target.retriever.as_deref().unwrap_or(DEFAULT_RETRIEVER);
    let searcher = (spec != "none").then(|| searcher(target, spec, &tasks)).transpose()?;
    let params = AgentParamsBuilder { deadline, ..AgentParamsBuilder::default() }.build().map_err(agent_error)?;
    let mut settings: BTreeMap<String, Value> = BTreeMap::new();
    settings.insert("method".into(), json!(anser_mcp::METHOD));
    settings.insert("retriever".into(), json!(searcher.as_ref().map(|s| s.spec())));
    settings.insert("deadline_seconds".into(), json!(target.deadline));
    settings.insert("rows_shown".into(), json!(params.rows_shown()));
    settings.insert("tool_message_chars".into(), json!(params.tool_message_chars()));
    let mut inputs = index_inputs(&target.index_dir, &tasks, searcher.is_some());
    inputs.extend(corpus_inputs(&target.corpus_root, &tasks));
    let mut files: Vec<&str> = tasks.iter().map(|t| t.source_file.as_str()).collect();
    files.dedup();
    for f in files {
        inputs.push((format!("task file {f}"), bench.dir.join(f)));
    }
    let mut extra = BTreeMap::new();
    extra.insert("selection".into(), serde_json::to_value(target.selection.selection()?).unwrap_or(Value::Null));
    extra.insert("benchmark_dir".into(), json!(bench.dir.display().to_string()));
    extra.insert("corpus_root".into(), json!(target.corpus_root.display().to_string()));
    // Not a setting: the same run may be continued over another transport or server build.
    extra.insert(
        "tool_server".into(),
        json!({"name": SERVER_NAME, "version": SERVER_VERSION, "protocol": "mcp", "transport": transport}),
    );
    let config = RunConfig {
        run_name,
        output_dir: target.output_dir.clone(),
        tasks,
        concurrency: 1,
        resume: target.resume,
        retry_failed: !target.no_retry_failed,
        deadline,
        quiet: true,
        settings,
        inputs,
        extra_metadata: extra,
    };
    Coordinator::open(&config, target.corpus_root.clone(), searcher, params).map_err(mcp_error)
}

fn mcp_error(e: anser_mcp::Error) -> CliError {
    match e {
        anser_mcp::Error::Agent(e) => agent_error(e),
        other if other.is_user_error() => CliError::user(other),
        other => CliError::internal(other),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::internal(format!("cannot start the async runtime: {e}")))
}

/// `anser mcp`: one session over stdin/stdout until the client closes it.
pub fn run_stdio(args: McpArgs) -> CliResult {
    let coordinator = coordinator(&args.target, "stdio")?;
    runtime()?.block_on(anser_mcp::server::serve_stdio(coordinator.clone())).map_err(mcp_error)?;
    finish(&coordinator)
}

/// `anser serve --mcp`: Streamable HTTP sessions (and the proxy) until Ctrl-C.
pub fn run_serve(args: ServeArgs) -> CliResult {
    if !args.mcp {
        return Err(CliError::user("anser serve needs --mcp (the only protocol it serves)"));
    }
    let coordinator = coordinator(&args.target, "streamable-http")?;
    let proxy = match &args.proxy_upstream {
        Some(url) => {
            let log = UsageLog::open(coordinator.run_dir()).map_err(mcp_error)?;
            Some(Arc::new(Proxy::new(url, log).map_err(mcp_error)?))
        }
        None => None,
    };
    let with_proxy = proxy.is_some();
    serve_until_ctrl_c(SocketAddr::new(args.host, args.port), Some(coordinator.clone()), proxy, move |addr| {
        eprintln!("anser serve: MCP at http://{addr}{}", anser_mcp::http::MCP_PATH);
        if with_proxy {
            eprintln!("anser serve: proxy at http://{addr}/t/<task_id>/v1");
        }
    })?;
    finish(&coordinator)
}

/// `anser proxy`: the token-accounting pass-through alone, until Ctrl-C.
pub fn run_proxy(args: ProxyArgs) -> CliResult {
    if !args.run_dir.join(anser_agent::run::METADATA_FILE).is_file() {
        return Err(CliError::user(format!(
            "--run-dir {}: not a run directory (no metadata.json); start `anser mcp`/`anser serve --mcp` first and name its RUN_DIR",
            args.run_dir.display()
        )));
    }
    let log = UsageLog::open(&args.run_dir).map_err(mcp_error)?;
    let proxy = Arc::new(Proxy::new(&args.upstream, log).map_err(mcp_error)?);
    serve_until_ctrl_c(SocketAddr::new(args.host, args.port), None, Some(proxy), |addr| {
        eprintln!("anser proxy: http://{addr}/t/<task_id>/v1 (or /v1 with header {})", anser_mcp::proxy::TASK_HEADER);
    })?;
    Ok(ExitCode::SUCCESS)
}

fn serve_until_ctrl_c(
    addr: SocketAddr,
    coordinator: Option<Arc<Coordinator>>,
    proxy: Option<Arc<Proxy>>,
    on_bound: impl FnOnce(SocketAddr),
) -> Result<(), CliError> {
    runtime()?.block_on(anser_mcp::http::serve_until_ctrl_c(addr, coordinator, proxy, on_bound)).map_err(|e| match e {
        anser_mcp::Error::Io(io) if io.kind() == std::io::ErrorKind::AddrInUse => {
            CliError::user(format!("{addr} is in use; choose another --port"))
        }
        other => CliError::internal(other),
    })
}

/// Rewrite `results.json` and say where the run is.
fn finish(coordinator: &Coordinator) -> CliResult {
    coordinator.flush().map_err(mcp_error)?;
    eprintln!(
        "run {}: {} task(s) finished; score it with `anser eval {}`",
        coordinator.run_dir().display(),
        coordinator.finished(),
        coordinator.run_dir().display()
    );
    Ok(ExitCode::SUCCESS)
}
