//! `anser run`: answer a task selection with one method into a run directory, then evaluate it.

use std::{collections::BTreeMap, path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use anser_agent::{
    method::{AgentMethod, AgentParamsBuilder, Offline, Rag, RetrieverSearcher, Searcher, Solver, Vanilla},
    run::{RESULTS_FILE, RunConfig, RunSummary, run},
};
use anser_evaluator::{EvalOptions, JudgeMode, Profile, ResultsInput, evaluate, table};
use anser_llm::{CacheMode, Client, ClientOptions, GENERATION, ResponseCache, Settings, retry::RetryPolicyBuilder};
use anser_manifest::TaskSet;
use anser_runstore::RunName;
use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::{CliError, CliResult, GenerationArgs, SelectionArgs};

/// Folder of a run's own LLM response cache, inside its run directory.
pub const RUN_CACHE_DIR: &str = "llm-cache";

/// How tasks are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodName {
    /// One LLM call with query + instruction; no retrieval, no evidence.
    Vanilla,
    /// Single-stage RAG with BM25 (`--retriever` overrides): retrieve, pack, generate once.
    Sparse,
    /// Single-stage RAG with dense retrieval.
    Dense,
    /// Single-stage RAG with hybrid (RRF) retrieval.
    Hybrid,
    /// Retrieval only (no generation): evidence in rank order, empty answer.
    Retrieval,
    /// An LLM tool loop over guarded SQL, compute, search/open and answer validation.
    Agent,
    /// The deterministic planner (no LLM): dictionary-mapped SQL counts, retrieval evidence,
    /// extractive answers.
    Offline,
}

impl MethodName {
    fn as_str(self) -> &'static str {
        match self {
            MethodName::Vanilla => "vanilla",
            MethodName::Sparse => "sparse",
            MethodName::Dense => "dense",
            MethodName::Hybrid => "hybrid",
            MethodName::Retrieval => "retrieval",
            MethodName::Agent => "agent",
            MethodName::Offline => "offline",
        }
    }

    /// The retriever a method uses unless `--retriever` says otherwise.
    fn default_retriever(self) -> Option<&'static str> {
        match self {
            MethodName::Vanilla => None,
            MethodName::Sparse | MethodName::Retrieval | MethodName::Agent | MethodName::Offline => Some("bm25"),
            MethodName::Dense => Some("dense"),
            MethodName::Hybrid => Some("hybrid:bm25+dense"),
        }
    }
}

/// What a run answers and where it writes: the task selection, the input folders, the run
/// directory and the retriever. Shared by `anser run`, `anser mcp` and `anser serve --mcp`.
#[derive(Debug, Args)]
pub struct RunTargetArgs {
    /// Name of the run directory (letters, digits, '-', '_', '.').
    #[arg(long)]
    pub(super) run_name: String,
    /// ANSER task folder.
    #[arg(long, default_value = "query")]
    pub(super) benchmark_dir: PathBuf,
    /// Corpus root.
    #[arg(long, env = "ANSER_CORPUS_ROOT", default_value = "corpus")]
    pub(super) corpus_root: PathBuf,
    /// Parent folder of run directories.
    #[arg(long, default_value = "runs")]
    pub(super) output_dir: PathBuf,
    /// Index folder built by `anser index`.
    #[arg(long, default_value = "indices")]
    pub(super) index_dir: PathBuf,
    /// Retriever spec (`bm25`, `bm25:zh_jieba`, `dense`, `hybrid:bm25+dense@rrf60`, `none`,
    /// any of them + `/in_force`, ...); defaults to the method's own.
    #[arg(long)]
    pub(super) retriever: Option<String>,
    #[command(flatten)]
    pub(super) selection: SelectionArgs,
    /// Continue an interrupted run with the same settings: finished tasks are kept, tasks that
    /// ended in request_error or timeout are run again (see --no-retry-failed).
    #[arg(long)]
    pub(super) resume: bool,
    /// With --resume: keep the request_error/timeout results instead of retrying those tasks.
    #[arg(long, requires = "resume")]
    pub(super) no_retry_failed: bool,
    /// Per-task wall-clock limit in seconds.
    #[arg(long)]
    pub(super) deadline: Option<f64>,
    /// Check corpus files against the index fingerprints by full SHA-256 (default: size, and
    /// sampled blocks when the modification time is unchanged).
    #[arg(long)]
    pub(super) verify: bool,
}

impl RunTargetArgs {
    /// The validated per-task deadline.
    pub(super) fn deadline(&self) -> Result<Option<Duration>, CliError> {
        match self.deadline {
            Some(s) if !(s.is_finite() && s > 0.0) => {
                Err(CliError::user("--deadline must be a positive number of seconds"))
            }
            Some(s) => Ok(Some(Duration::from_secs_f64(s))),
            None => Ok(None),
        }
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Method that answers the tasks.
    #[arg(long, value_enum)]
    method: MethodName,
    #[command(flatten)]
    pub(super) target: RunTargetArgs,
    /// Retrieve only: no generation, empty answers (for sparse/dense/hybrid).
    #[arg(long)]
    dry_run: bool,
    /// Estimated-token budget of the retrieved context (CJK char = 1 token, other chars 1/4).
    #[arg(long, default_value_t = anser_agent::method::rag::DEFAULT_CONTEXT_TOKEN_BUDGET)]
    context_token_budget: u64,
    /// Number of tasks answered at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    #[command(flatten)]
    generation: GenerationArgs,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.0)]
    temperature: f64,
    /// Output-token cap per LLM call.
    #[arg(long, default_value_t = 8192)]
    max_tokens: u32,
    /// Agent: model turns per task before the final answer is forced.
    #[arg(long, default_value_t = anser_agent::method::agent_loop::DEFAULT_MAX_STEPS)]
    max_steps: usize,
    /// Agent: token budget of one task (all its calls) before the final answer is forced.
    #[arg(long, default_value_t = anser_agent::method::agent_loop::DEFAULT_MAX_TASK_TOKENS)]
    max_task_tokens: u64,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 300.0)]
    timeout: f64,
    /// Attempts per LLM request (first try included).
    #[arg(long, default_value_t = anser_llm::retry::DEFAULT_MAX_ATTEMPTS)]
    max_attempts: u32,
    /// Response cache directory (content-addressed) shared with other runs; default: the run's
    /// own RUN_DIR/llm-cache, so no run answers from another run's cache.
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Answer strictly from the response cache; fail on the first miss.
    #[arg(long)]
    replay: bool,
    /// Do not evaluate after the run.
    #[arg(long)]
    no_evaluate: bool,
    /// Hide the progress bar.
    #[arg(long)]
    quiet: bool,
}

pub fn run_command(args: RunArgs) -> CliResult {
    anser_indexer::fingerprint::set_full_verification(args.target.verify);
    let run_name = RunName::new(&args.target.run_name).map_err(CliError::user)?;
    if args.concurrency == 0 {
        return Err(CliError::user("--concurrency must be at least 1"));
    }
    let deadline = args.target.deadline()?;
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(CliError::user("--timeout must be a positive number of seconds"));
    }
    // The run sees public fields only; the references are loaded after it, for the evaluation.
    let bench = TaskSet::load(&args.target.benchmark_dir)?;
    let tasks = args.target.selection.selection()?.apply(bench.tasks())?;

    let mut settings: BTreeMap<String, Value> = BTreeMap::new();
    settings.insert("method".into(), json!(args.method.as_str()));
    settings.insert("dry_run".into(), json!(args.dry_run));
    if args.dry_run && matches!(args.method, MethodName::Vanilla | MethodName::Agent | MethodName::Offline) {
        return Err(CliError::user("--dry-run applies to sparse, dense and hybrid (use --method retrieval otherwise)"));
    }
    let searcher = match (args.target.retriever.as_deref(), args.method.default_retriever()) {
        (Some(spec), _) | (None, Some(spec)) => {
            let searcher = searcher(&args.target, spec, &tasks)?;
            settings.insert("retriever".into(), json!(searcher.spec()));
            Some(searcher)
        }
        (None, None) => None,
    };
    let mut inputs = index_inputs(&args.target.index_dir, &tasks, searcher.is_some());
    let (solver, method_inputs): (Arc<dyn Solver>, Vec<(String, PathBuf)>) = match args.method {
        MethodName::Vanilla => {
            let client = llm_client(&args, &mut settings)?;
            record_system_prompt(&mut settings);
            (Arc::new(Vanilla::new(client, args.max_tokens, args.temperature)), Vec::new())
        }
        MethodName::Agent => {
            let client = llm_client(&args, &mut settings)?;
            let params = AgentParamsBuilder {
                max_steps: args.max_steps,
                max_task_tokens: args.max_task_tokens,
                max_tokens_per_call: args.max_tokens,
                temperature: args.temperature,
                deadline,
                ..AgentParamsBuilder::default()
            }
            .build()
            .map_err(agent_error)?;
            settings.insert("max_steps".into(), json!(args.max_steps));
            settings.insert("max_task_tokens".into(), json!(args.max_task_tokens));
            let method =
                AgentMethod::new(client, args.target.corpus_root.clone(), searcher, params).map_err(agent_error)?;
            (Arc::new(method), corpus_inputs(&args.target.corpus_root, &tasks))
        }
        MethodName::Offline => {
            let searcher = searcher.ok_or_else(|| CliError::user("--method offline needs a retriever"))?;
            (
                Arc::new(Offline::new(args.target.corpus_root.clone(), searcher)),
                corpus_inputs(&args.target.corpus_root, &tasks),
            )
        }
        MethodName::Retrieval => {
            let searcher = searcher.ok_or_else(|| CliError::user("--method retrieval needs a retriever"))?;
            (Arc::new(Rag::retrieval_only("retrieval", searcher)), Vec::new())
        }
        MethodName::Sparse | MethodName::Dense | MethodName::Hybrid => {
            let searcher = searcher.ok_or_else(|| CliError::user("this method needs a retriever"))?;
            settings.insert("context_token_budget".into(), json!(args.context_token_budget));
            if args.dry_run {
                (Arc::new(Rag::retrieval_only(args.method.as_str(), searcher)), Vec::new())
            } else {
                let client = llm_client(&args, &mut settings)?;
                record_system_prompt(&mut settings);
                let rag = Rag::generating(
                    args.method.as_str(),
                    searcher,
                    client,
                    args.context_token_budget,
                    args.max_tokens,
                    args.temperature,
                );
                (Arc::new(rag), Vec::new())
            }
        }
    };
    inputs.extend(method_inputs);
    settings.insert("deadline_seconds".into(), json!(args.target.deadline));
    let mut files: Vec<&str> = tasks.iter().map(|t| t.source_file.as_str()).collect();
    files.dedup();
    for f in files {
        inputs.push((format!("task file {f}"), bench.dir.join(f)));
    }
    let mut extra = BTreeMap::new();
    extra.insert("selection".into(), serde_json::to_value(args.target.selection.selection()?).unwrap_or(Value::Null));
    extra.insert("benchmark_dir".into(), json!(bench.dir.display().to_string()));
    extra.insert("corpus_root".into(), json!(args.target.corpus_root.display().to_string()));
    extra.insert("concurrency".into(), json!(args.concurrency));
    let config = RunConfig {
        run_name,
        output_dir: args.target.output_dir.clone(),
        tasks,
        concurrency: args.concurrency,
        resume: args.target.resume,
        retry_failed: !args.target.no_retry_failed,
        deadline,
        quiet: args.quiet,
        settings,
        inputs,
        extra_metadata: extra,
    };
    let summary = run(&config, solver).map_err(agent_error)?;
    report(&summary);
    if summary.interrupted {
        eprintln!(
            "interrupted: {} of {} tasks finished; resume with the same command plus --resume",
            summary.finished_before + summary.finished_now,
            summary.selected
        );
        return Ok(ExitCode::from(130));
    }
    if !args.no_evaluate {
        let results = summary.run_dir.join(RESULTS_FILE);
        let output = summary.run_dir.join("evaluation.json");
        let options = EvalOptions {
            profile: Profile::Card,
            corpus_root: Some(args.target.corpus_root.clone()),
            judge: JudgeMode::Skip,
            bertscore: None,
        };
        let gold = anser_gold::Benchmark::load(&args.target.benchmark_dir)?;
        let evaluation =
            evaluate(&ResultsInput::Path { input: results, output: Some(output.clone()) }, &gold, &options)
                .map_err(CliError::user)?;
        evaluation.write_json(&output).map_err(CliError::internal)?;
        print!("{}", table::render(&evaluation, table::Format::Table));
        println!("evaluation: {}", output.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// A searcher for `spec` over the index folder; every selected route must be indexed and hold
/// what the spec needs (checked before the first task).
pub(super) fn searcher(
    args: &RunTargetArgs,
    spec: &str,
    tasks: &[anser_manifest::PublicTask],
) -> Result<Arc<dyn Searcher>, CliError> {
    let spec: anser_retriever::RetrieverSpec = spec.parse().map_err(CliError::user)?;
    let engine = Arc::new(anser_retriever::Engine::new(&args.index_dir, Some(&args.corpus_root)));
    super::preflight::check_retriever(&engine, &spec, &routes_of(tasks), &args.index_dir, &args.corpus_root)?;
    Ok(Arc::new(RetrieverSearcher::new(anser_retriever::SpecRetriever::new(engine, spec))))
}

fn routes_of(tasks: &[anser_manifest::PublicTask]) -> Vec<anser_manifest::Route> {
    let mut routes: Vec<anser_manifest::Route> = tasks.iter().map(|t| t.route).collect();
    routes.sort();
    routes.dedup();
    routes
}

/// The index fingerprints of the selected routes, as resume inputs.
pub(super) fn index_inputs(
    index_dir: &std::path::Path,
    tasks: &[anser_manifest::PublicTask],
    used: bool,
) -> Vec<(String, PathBuf)> {
    if !used {
        return Vec::new();
    }
    routes_of(tasks)
        .into_iter()
        .map(|r| (format!("index {r}"), anser_indexer::route_dir(index_dir, r).join("fingerprint.json")))
        .filter(|(_, p)| p.is_file())
        .collect()
}

/// The corpus files of the selected tasks' routes, as resume fingerprints.
pub(super) fn corpus_inputs(
    corpus_root: &std::path::Path,
    tasks: &[anser_manifest::PublicTask],
) -> Vec<(String, PathBuf)> {
    let manifest = anser_manifest::Manifest::get();
    routes_of(tasks)
        .into_iter()
        .map(|r| (format!("corpus {r}"), corpus_root.join(&manifest.route(r).file)))
        .filter(|(_, p)| p.is_file())
        .collect()
}

/// The generation client of the run; records the endpoint (without key) and the sampling
/// settings every generating method shares.
fn llm_client(args: &RunArgs, settings: &mut BTreeMap<String, Value>) -> Result<Client, CliError> {
    settings.insert("temperature".into(), json!(args.temperature));
    settings.insert("max_tokens".into(), json!(args.max_tokens));
    let overrides = args.generation.overrides();
    let endpoint = Settings::load().and_then(|s| s.endpoint(&GENERATION, &overrides)).map_err(CliError::user)?;
    settings.insert("generation".into(), serde_json::to_value(endpoint.public()).unwrap_or(Value::Null));
    let retry = RetryPolicyBuilder {
        max_attempts: args.max_attempts,
        timeout: Duration::from_secs_f64(args.timeout),
        ..RetryPolicyBuilder::default()
    }
    .build()
    .map_err(CliError::user)?;
    // The run's own cache lives in its directory, which `run` creates later: the cache creates
    // its folder on the first write.
    let cache_dir = args
        .cache_dir
        .clone()
        .unwrap_or_else(|| args.target.output_dir.join(&args.target.run_name).join(RUN_CACHE_DIR));
    if args.replay && args.cache_dir.is_none() && !args.target.resume {
        return Err(CliError::user(
            "--replay answers from a recorded cache: name it with --cache-dir (a run's own is RUN_DIR/llm-cache)",
        ));
    }
    let mode = if args.replay { CacheMode::Replay } else { CacheMode::ReadWrite };
    let cache = ResponseCache::open(cache_dir, mode).map_err(CliError::user)?;
    Client::new(endpoint, ClientOptions { retry, cache: Some(cache) }).map_err(CliError::user)
}

/// Fingerprint of the shared system prompt of the single-call methods (vanilla, RAG).
fn record_system_prompt(settings: &mut BTreeMap<String, Value>) {
    settings.insert(
        "prompt_sha256".into(),
        json!(anser_runstore::sha256_hex(anser_agent::method::prompt::SYSTEM_PROMPT.as_bytes())),
    );
}

pub(super) fn agent_error(e: anser_agent::Error) -> CliError {
    let user = match &e {
        anser_agent::Error::Store(s) => s.is_user_error(),
        anser_agent::Error::Run(_) => true,
        other => other.is_caller_error(),
    };
    if user { CliError::user(e) } else { CliError::internal(e) }
}

fn report(summary: &RunSummary) {
    if summary.retried > 0 {
        println!(
            "resume: {} task(s) that ended in request_error or timeout retried (earlier attempts kept in {}; --no-retry-failed keeps their results)",
            summary.retried,
            anser_agent::run::RETRIED_RESULTS_FILE
        );
    }
    if summary.failed_kept > 0 {
        println!("resume: {} request_error/timeout result(s) kept (--no-retry-failed)", summary.failed_kept);
    }
    if summary.orphan_trace_lines > 0 {
        println!(
            "resume: {} trace line(s) of tasks without a journal record dropped (interrupted before their result was recorded)",
            summary.orphan_trace_lines
        );
    }
    let statuses: Vec<String> = summary.by_status.iter().map(|(s, n)| format!("{s}: {n}")).collect();
    println!(
        "run {}: {} selected, {} finished earlier, {} finished now ({}) in {:.1} s",
        summary.run_dir.display(),
        summary.selected,
        summary.finished_before,
        summary.finished_now,
        if statuses.is_empty() { "nothing to do".into() } else { statuses.join(", ") },
        summary.wall_seconds
    );
}
