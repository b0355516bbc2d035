//! `anser omb generate|judge`: the $OneMillion-Bench path (crate `anser-omb`). `generate`
//! answers each record once into a crash-safe run directory; `judge` rubric-judges a run's
//! answers (or external `{id, response}` JSONL) exactly as EvalScope 1.14.1 does and writes
//! `samples.jsonl`, `report.json` and a table.

use std::{collections::BTreeMap, path::PathBuf, process::ExitCode, time::Duration};

use anser_llm::{GENERATION, JUDGE, Overrides, Settings};
use anser_omb::{
    ChatBackend, Dataset, EvalscopeBackend, GenerateSettings, JudgeCache, JudgeSettingsBuilder, LlmBackend, Loading,
    Mode, Report, RetrySchedule, RetryScheduleBuilder, Transport, ValueTable, generate, judge_all, load_generations,
    load_responses, transport::cleave_think, write_outputs, write_table,
};
use anser_runstore::{RunDir, RunName};
use clap::{Args, Subcommand};

use super::{CliError, CliResult, GenerationArgs};

#[derive(Debug, Subcommand)]
pub enum OmbCommand {
    /// One-turn generation for every record into runs/<name>/ (resumable).
    Generate(GenerateArgs),
    /// Rubric-judge a run's answers or a responses file; writes samples.jsonl and report.json.
    Judge(JudgeArgs),
}

/// Transport retry flags shared by both subcommands (EvalScope's schedule by default).
#[derive(Debug, Clone, Args)]
pub struct TransportArgs {
    /// Attempts in all (EvalScope's `retries = 5`); each attempt also makes the SDK's retries.
    #[arg(long, default_value_t = anser_omb::transport::DEFAULT_ATTEMPTS)]
    retries: u32,
    /// Wait between attempts, milliseconds (EvalScope: 10 s).
    #[arg(long, default_value_t = anser_omb::transport::DEFAULT_ATTEMPT_DELAY.as_millis() as u64)]
    retry_delay_ms: u64,
    /// SDK retries inside each attempt on 408/409/429/5xx and connection errors (OpenAI SDK: 2).
    #[arg(long, default_value_t = anser_omb::transport::DEFAULT_SDK_RETRIES)]
    sdk_retries: u32,
    /// First SDK retry wait, milliseconds; doubles per retry, at most 8 s; Retry-After wins.
    #[arg(long, default_value_t = anser_omb::transport::DEFAULT_SDK_INITIAL_DELAY.as_millis() as u64)]
    sdk_retry_delay_ms: u64,
    /// Per-request timeout, seconds.
    #[arg(long, default_value_t = anser_omb::transport::DEFAULT_REQUEST_TIMEOUT.as_secs())]
    timeout_secs: u64,
}

impl TransportArgs {
    fn schedule(&self) -> Result<RetrySchedule, CliError> {
        let sdk_initial_delay = Duration::from_millis(self.sdk_retry_delay_ms);
        RetryScheduleBuilder {
            attempts: self.retries,
            attempt_delay: Duration::from_millis(self.retry_delay_ms),
            sdk_retries: self.sdk_retries,
            sdk_initial_delay,
            sdk_max_delay: anser_omb::transport::DEFAULT_SDK_MAX_DELAY.max(sdk_initial_delay),
            timeout: Duration::from_secs(self.timeout_secs),
        }
        .build()
        .map_err(omb_error)
    }

    /// The official harness's path keeps the generic client: `retries - 1` retries, fixed delay.
    fn transport(&self) -> Result<Transport, CliError> {
        let schedule = self.schedule()?;
        Ok(Transport {
            retries: schedule.attempts() - 1,
            retry_delay: schedule.attempt_delay(),
            timeout: schedule.timeout(),
        })
    }
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Dataset JSONL (the HF/ModelScope $OneMillion-Bench layout).
    #[arg(long)]
    dataset: PathBuf,
    /// Run name: the directory <output-dir>/<run-name>.
    #[arg(long)]
    run_name: String,
    /// Folder holding run directories.
    #[arg(long, default_value = "runs")]
    output_dir: PathBuf,
    #[command(flatten)]
    generation: GenerationArgs,
    /// Concurrent requests.
    #[arg(long, default_value_t = anser_omb::generate::DEFAULT_CONCURRENCY)]
    concurrency: usize,
    /// Continue an existing run: answered records are skipped; a changed dataset is refused.
    #[arg(long)]
    resume: bool,
    #[command(flatten)]
    transport: TransportArgs,
}

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// Dataset JSONL the responses answer.
    #[arg(long)]
    dataset: PathBuf,
    /// Judge the answers of this `anser omb generate` run.
    #[arg(long, conflicts_with = "responses", required_unless_present = "responses")]
    run_name: Option<String>,
    /// Judge external responses: JSONL {"id", "response"} (e.g. a tool-using agent's answers).
    #[arg(long)]
    responses: Option<PathBuf>,
    /// Folder holding run directories (with --run-name).
    #[arg(long, default_value = "runs")]
    runs_dir: PathBuf,
    /// Judge model(s), comma-separated or repeated; several judges are averaged equally
    /// (else ANSER_JUDGE_MODEL).
    #[arg(long, value_delimiter = ',')]
    judge_model: Vec<String>,
    /// Judge base URL (else OPENAI_BASE_URL).
    #[arg(long)]
    judge_base_url: Option<String>,
    /// Judge API key (else OPENAI_API_KEY); never written to disk.
    #[arg(long)]
    judge_api_key: Option<String>,
    /// Judge requests per response and judge model (mean and spread are reported).
    #[arg(long, default_value_t = anser_omb::judge::DEFAULT_REPEATS)]
    repeats: u32,
    /// evalscope: EvalScope's strict reply contract; official: the humanlaya harness's leniencies.
    #[arg(long, default_value = "evalscope", value_parser = ["evalscope", "official"])]
    mode: String,
    /// Output folder (default: the run directory; required with --responses).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Concurrent judge requests.
    #[arg(long, default_value_t = anser_omb::judge::DEFAULT_JUDGE_CONCURRENCY)]
    judge_concurrency: usize,
    /// Official mode: wait before re-asking a judge whose reply had nothing parsable, ms.
    #[arg(long, default_value_t = anser_omb::judge::DEFAULT_REASK_DELAY.as_millis() as u64)]
    reask_delay_ms: u64,
    /// Value table (the release's economic_value.md): adds Economic Value (¥ / $ of passed
    /// tasks, questions passed/total) to the report and the time-sensitivity breakdown.
    #[arg(long)]
    values: Option<PathBuf>,
    /// Print report.json to stdout instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    transport: TransportArgs,
}

pub fn run(cmd: OmbCommand) -> CliResult {
    match cmd {
        OmbCommand::Generate(args) => run_generate(args),
        OmbCommand::Judge(args) => run_judge(args),
    }
}

fn omb_error(e: anser_omb::Error) -> CliError {
    if e.is_user_error() { CliError::user(e) } else { CliError::internal(e) }
}

fn load_dataset(path: &std::path::Path, loading: Loading) -> Result<Dataset, CliError> {
    let dataset = Dataset::load_with(path, loading).map_err(omb_error)?;
    // One line per kind of problem with its count (a damaged file must not print a line per
    // record); the kind is the reason up to its first detail (`not valid JSON: …`, `duplicate id "…"`).
    let mut kinds: Vec<(&str, usize, &anser_omb::InvalidRecord)> = Vec::new();
    for invalid in &dataset.invalid {
        let kind = invalid.reason.split([':', '"']).next().unwrap_or_default().trim();
        match kinds.iter_mut().find(|(k, _, _)| *k == kind) {
            Some((_, count, _)) => *count += 1,
            None => kinds.push((kind, 1, invalid)),
        }
    }
    for (kind, count, first) in kinds {
        eprintln!(
            "warning: {}: {count} record(s) skipped: {kind} (first: record {} at line {}: {})",
            path.display(),
            first.id,
            first.line,
            first.reason
        );
    }
    Ok(dataset)
}

fn run_generate(args: GenerateArgs) -> CliResult {
    let name = RunName::new(&args.run_name).map_err(CliError::user)?;
    let dataset = load_dataset(&args.dataset, Loading::Evalscope)?;
    let overrides = args.generation.overrides();
    let endpoint = Settings::load().and_then(|s| s.endpoint(&GENERATION, &overrides)).map_err(CliError::user)?;
    let public = serde_json::to_value(endpoint.public()).map_err(CliError::internal)?;
    let settings =
        GenerateSettings { model: endpoint.model.clone(), concurrency: args.concurrency, resume: args.resume };
    let backend = EvalscopeBackend::new(endpoint, args.transport.schedule()?).map_err(omb_error)?;
    let summary =
        generate(&args.dataset, &dataset, &args.output_dir, &name, public, &settings, &backend).map_err(omb_error)?;
    println!(
        "{}: {} generated, {} failed, {} already done, {} invalid record(s) skipped; {} tokens; mean latency {}",
        summary.run_dir,
        summary.generated,
        summary.failed,
        summary.already_done,
        summary.invalid_records,
        summary.usage.total_tokens,
        summary.latency_ms_mean.map_or_else(|| "-".into(), |ms| format!("{ms:.0} ms"))
    );
    if summary.error_answers > 0 {
        eprintln!(
            "warning: {} answer(s) are the endpoint's error message (context length or content filter); they are \
             judged as answers, as EvalScope does",
            summary.error_answers
        );
    }
    if summary.failed > 0 {
        eprintln!("warning: {} record(s) failed; rerun with --resume to retry them", summary.failed);
    }
    Ok(ExitCode::SUCCESS)
}

fn run_judge(args: JudgeArgs) -> CliResult {
    let mode = args.mode.parse::<Mode>().map_err(CliError::user)?;
    let loading = if mode == Mode::Evalscope { Loading::Evalscope } else { Loading::Plain };
    let dataset = load_dataset(&args.dataset, loading)?;
    let values = match &args.values {
        Some(path) => Some(ValueTable::load(path).map_err(omb_error)?),
        None => None,
    };
    let (responses, output, generation): (BTreeMap<String, String>, PathBuf, Option<serde_json::Value>) =
        match (&args.run_name, &args.responses) {
            (Some(name), _) => {
                let name = RunName::new(name).map_err(CliError::user)?;
                let run = RunDir::open(&args.runs_dir, &name).map_err(CliError::user)?;
                let generations = load_generations(run.path()).map_err(omb_error)?;
                if generations.is_empty() {
                    return Err(CliError::user(format!(
                        "{}: no generated answers; run `anser omb generate` first",
                        run.path().display()
                    )));
                }
                let mut usage = anser_omb::TokenUsage::default();
                for g in &generations {
                    usage.add(&g.delivery.usage);
                }
                let latencies: Vec<f64> = generations.iter().map(|g| g.delivery.latency_ms).collect();
                let generation = serde_json::json!({
                    "answers": generations.len(),
                    "tokens": usage,
                    "latency_ms_mean": anser_omb::pycompat::py_mean(&latencies),
                });
                let responses = generations.iter().map(|g| (g.id.clone(), g.prediction(mode))).collect();
                (responses, args.output.clone().unwrap_or_else(|| run.path().to_path_buf()), Some(generation))
            }
            (None, Some(path)) => {
                let output = args.output.clone().ok_or_else(|| CliError::user("--responses needs --output DIR"))?;
                let mut responses = load_responses(path).map_err(omb_error)?;
                if mode == Mode::Evalscope {
                    // A response is judged as EvalScope's prediction: first think block cut.
                    for text in responses.values_mut() {
                        *text = cleave_think(text);
                    }
                }
                (responses, output, None)
            }
            (None, None) => return Err(CliError::user("pass --run-name NAME or --responses FILE")),
        };

    let first_model = args.judge_model.first().cloned();
    let overrides =
        Overrides { base_url: args.judge_base_url.clone(), api_key: args.judge_api_key.clone(), model: first_model };
    let endpoint = Settings::load().and_then(|s| s.endpoint(&JUDGE, &overrides)).map_err(CliError::user)?;
    let judges = if args.judge_model.is_empty() { vec![endpoint.model.clone()] } else { args.judge_model.clone() };
    let settings = JudgeSettingsBuilder {
        judges,
        repeats: args.repeats,
        mode,
        concurrency: args.judge_concurrency,
        official_reasks: anser_omb::judge::DEFAULT_OFFICIAL_REASKS,
        reask_delay: Duration::from_millis(args.reask_delay_ms),
    }
    .build()
    .map_err(omb_error)?;
    let backend: Box<dyn ChatBackend> = match mode {
        Mode::Evalscope => Box::new(EvalscopeBackend::new(endpoint, args.transport.schedule()?).map_err(omb_error)?),
        Mode::Official => Box::new(LlmBackend::new(endpoint, args.transport.transport()?).map_err(omb_error)?),
    };
    fs_err::create_dir_all(&output).map_err(CliError::internal)?;
    let cache = JudgeCache::open(&output).map_err(omb_error)?;
    let run = judge_all(&dataset, &responses, &settings, backend.as_ref(), &cache).map_err(omb_error)?;
    let mut report = Report::new(&dataset, &run, &settings);
    if let Some(table) = &values {
        report = report.with_values(&dataset, &run, table);
    }
    report.generation = generation;
    write_outputs(&output, &run, &report).map_err(omb_error)?;
    if !run.unknown_response_ids.is_empty() {
        eprintln!(
            "warning: {} response id(s) match no record: {:?}",
            run.unknown_response_ids.len(),
            run.unknown_response_ids
        );
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let text = serde_json::to_string_pretty(&report).map_err(CliError::internal)?;
        std::io::Write::write_all(&mut out, format!("{text}\n").as_bytes()).map_err(CliError::internal)?;
    } else {
        write_table(&mut out, &report).map_err(CliError::internal)?;
        println!("wrote {} and {}", output.join("samples.jsonl").display(), output.join("report.json").display());
    }
    Ok(ExitCode::SUCCESS)
}
