//! Command-line front end. Each subcommand lives in its own module and returns a
//! [`CliError`]; this module maps errors to exit codes (2 for bad input, 1 for internal
//! failures) and prints them as one line.

mod compare;
mod corpus;
mod demo;
mod eval;
mod export_trec;
mod index;
mod mcp;
mod mock_llm;
mod mock_script;
mod omb;
mod preflight;
mod report;
mod retrieve;
mod run;
mod sample;
mod search;
mod tasks;
mod workspace;

use std::{io::IsTerminal, path::PathBuf, process::ExitCode};

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

/// Error of a subcommand: a message for the user and the exit code it deserves.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    /// Bad input (files, flags): exit code 2.
    pub fn user(message: impl std::fmt::Display) -> Self {
        Self { code: 2, message: message.to_string() }
    }

    /// Something broke that is not the user's fault: exit code 1.
    pub fn internal(message: impl std::fmt::Display) -> Self {
        Self { code: 1, message: message.to_string() }
    }
}

impl From<anser_manifest::Error> for CliError {
    fn from(e: anser_manifest::Error) -> Self {
        if e.is_user_error() { Self::user(e) } else { Self::internal(e) }
    }
}

impl From<anser_gold::Error> for CliError {
    fn from(e: anser_gold::Error) -> Self {
        if e.is_user_error() { Self::user(e) } else { Self::internal(e) }
    }
}

/// Result of a subcommand; `Ok(code)` lets a command report "checked, found problems" (2)
/// without an error message of its own.
pub type CliResult = Result<ExitCode, CliError>;

#[derive(Debug, Parser)]
#[command(
    name = "anser",
    version,
    about = "Analytical search benchmarking: ANSER-Bench runs, ablations, evaluation and 1M-Bench judging"
)]
struct Cli {
    /// Log level for diagnostics on stderr (error, warn, info, debug, trace); RUST_LOG overrides it.
    #[arg(long, global = true, default_value = "warn")]
    log: String,
    /// Workspace folder holding query/, corpus/, indices/ and runs/ (the layout `anser demo`
    /// writes); path flags left at their defaults are looked up there.
    #[arg(long, global = true, env = "ANSER_WORKSPACE", value_name = "DIR")]
    workspace: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count and select ANSER tasks (per group and type).
    Tasks(tasks::TasksArgs),
    /// Inspect a corpus root.
    #[command(subcommand)]
    Corpus(corpus::CorpusCommand),
    /// Score results with the ANSER metrics (official evaluator parity, or the card superset).
    Eval(Box<eval::EvalArgs>),
    /// Answer a task selection with one method into a run directory, then evaluate it.
    Run(Box<run::RunArgs>),
    /// The whole pipeline on the embedded sample, offline: sample → index → run → evaluate.
    Demo(demo::DemoArgs),
    /// Generate the embedded sample: the ten corpora and tasks for all 14 groups.
    Sample(sample::SampleArgs),
    /// $OneMillion-Bench: one-turn generation and rubric judging as EvalScope does.
    #[command(subcommand)]
    Omb(omb::OmbCommand),
    /// Serve a loopback OpenAI-compatible mock LLM (chat completions and embeddings) for manual
    /// runs; prose answers without tool calls (plumbing only) unless --script plays a session.
    MockLlm(mock_llm::MockLlmArgs),
    /// Build per-route retrieval indexes (BM25 per analyzer, optional embeddings + HNSW).
    Index(Box<index::IndexArgs>),
    /// Search one route's index and print ranked hits.
    Search(search::SearchArgs),
    /// Retrieval-only results for a task selection (official results format, answer "").
    Retrieve(Box<retrieve::RetrieveArgs>),
    /// Compare runs per task group: deltas with paired bootstrap CIs and Holm-corrected p-values.
    Compare(Box<compare::CompareArgs>),
    /// One run's report: metrics with CIs, failure taxonomy, per-stage cost; text and an HTML page.
    Report(Box<report::ReportArgs>),
    /// Write a run's ranked evidence as a TREC run file and the gold evidence as qrels.
    ExportTrec(export_trec::ExportTrecArgs),
    /// Serve the ANSER tools to an external agent over MCP on stdin/stdout; the run directory
    /// is written as `anser run` writes it (method `mcp`).
    Mcp(Box<mcp::McpArgs>),
    /// Serve the ANSER tools over MCP Streamable HTTP (`--mcp`), optionally with the
    /// token-accounting proxy on the same port.
    Serve(Box<mcp::ServeArgs>),
    /// OpenAI-compatible pass-through that records each call's tokens and latency per task into
    /// an MCP run's directory.
    Proxy(mcp::ProxyArgs),
}

/// The generation endpoint flags of the commands that call the generation model (`run`,
/// `omb generate`); each left out falls back to its `GENERATION_*` variable.
#[derive(Debug, Clone, Args)]
pub struct GenerationArgs {
    /// Generation model (else GENERATION_MODEL from the environment or .env).
    #[arg(long)]
    model: Option<String>,
    /// OpenAI-compatible base URL (else GENERATION_BASE_URL).
    #[arg(long)]
    base_url: Option<String>,
    /// API key (else GENERATION_API_KEY); never written to disk.
    #[arg(long)]
    api_key: Option<String>,
}

impl GenerationArgs {
    /// The flags as overrides of the environment's generation settings.
    pub fn overrides(&self) -> anser_llm::Overrides {
        anser_llm::Overrides {
            base_url: self.base_url.clone(),
            api_key: self.api_key.clone(),
            model: self.model.clone(),
        }
    }
}

/// Task selection flags shared by every command that selects tasks (same meaning as the
/// official runner's).
#[derive(Debug, Clone, Args)]
pub struct SelectionArgs {
    /// Domain filter.
    #[arg(long, default_value = "all", value_parser = ["all", "legal", "finance", "science"])]
    pub domain: String,
    /// Language filter (science is English-only).
    #[arg(long, default_value = "all", value_parser = ["all", "zh", "en"])]
    pub language: String,
    /// Split (analytical need) filter.
    #[arg(long, default_value = "all", value_parser = ["all", "descriptive", "predictive", "prescriptive"])]
    pub split: String,
    /// Exact task `type` to include; repeat for several; `null` selects tasks without a type.
    #[arg(long = "task-type")]
    pub task_types: Vec<String>,
    /// Keep at most N tasks after filtering (0 = all), in file order.
    #[arg(long, default_value_t = 0)]
    pub limit: usize,
    /// Only these task ids (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub ids: Vec<String>,
}

impl SelectionArgs {
    /// The validated selection.
    pub fn selection(&self) -> Result<anser_manifest::Selection, CliError> {
        fn opt<T: std::str::FromStr<Err = String>>(s: &str) -> Result<Option<T>, CliError> {
            if s == "all" { Ok(None) } else { s.parse().map(Some).map_err(CliError::user) }
        }
        Ok(anser_manifest::Selection {
            domain: opt(&self.domain)?,
            language: opt(&self.language)?,
            split: opt(&self.split)?,
            task_types: self.task_types.clone(),
            ids: self.ids.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
            limit: self.limit,
        })
    }
}

/// Diagnostics on stderr; colour codes only when stderr is a terminal, so log files and CI
/// logs stay plain text.
fn init_tracing(level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// Parse the command line, run the subcommand, map the outcome to an exit code.
pub fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    init_tracing(&cli.log);
    let ws = workspace::Workspace::new(cli.workspace.clone());
    // The subcommand's own matches tell which path flags were left at their defaults.
    let sub: Option<&ArgMatches> = matches.subcommand().map(|(_, m)| m);
    let outcome = match cli.command {
        Command::Tasks(mut args) => {
            ws.apply_path(sub, "benchmark_dir", &mut args.benchmark_dir, workspace::QUERY_DIR);
            tasks::run(args)
        }
        Command::Corpus(mut cmd) => {
            let corpus::CorpusCommand::Check(args) = &mut cmd;
            let check = sub.and_then(|m| m.subcommand()).map(|(_, m)| m);
            ws.apply_path(check, "corpus_root", &mut args.corpus_root, workspace::CORPUS_DIR);
            corpus::run(cmd)
        }
        Command::Eval(mut args) => {
            ws.apply_eval(&mut args, sub);
            eval::run(*args)
        }
        Command::Run(mut args) => {
            ws.apply_run(&mut args, sub);
            run::run_command(*args)
        }
        Command::Demo(mut args) => {
            ws.apply_demo(&mut args, sub);
            demo::run_demo(args)
        }
        Command::Sample(args) => sample::run(args),
        Command::Omb(cmd) => omb::run(cmd),
        Command::MockLlm(args) => mock_llm::run(args),
        Command::Index(mut args) => {
            ws.apply_index(&mut args, sub);
            index::run(*args)
        }
        Command::Search(args) => search::run(args),
        Command::Retrieve(args) => retrieve::run(*args),
        Command::Compare(args) => compare::run(*args),
        Command::Report(mut args) => {
            ws.apply_report(&mut args);
            report::run(*args)
        }
        Command::ExportTrec(args) => export_trec::run(args),
        Command::Mcp(mut args) => {
            ws.apply_run_target(&mut args.target, sub);
            mcp::run_stdio(*args)
        }
        Command::Serve(mut args) => {
            ws.apply_run_target(&mut args.target, sub);
            mcp::run_serve(*args)
        }
        Command::Proxy(args) => mcp::run_proxy(args),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}
