//! `anser eval`: score a results file, run directory or directory of result files with the
//! official ANSER metrics (`--profile official`, byte-identical to the official evaluator) or
//! with the card's superset (`--profile card`, the default), write evaluation.json and print a
//! summary per task group.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use anser_evaluator::{
    EvalOptions, JudgeMode, JudgeSettingsBuilder, Profile, ResultsInput, evaluate,
    judge::{DEFAULT_CONCURRENCY, DEFAULT_RETRIES},
    records::{InputKind, default_output, input_kind, result_files},
    table::{self, Format},
};
use anser_gold::Benchmark;
use anser_llm::{JUDGE, Overrides, Settings};
use clap::Args;

use super::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Results: a JSON array, {"results": [...]}, {"predictions": [...]}, one record, JSONL, a run
    /// directory (with results.json) or a directory of result files.
    pub(super) results: PathBuf,
    /// official = exactly the official evaluator's output; card = official plus MAE(log OR),
    /// MAE(median difference), finance-predictive SMAPE and Precision@5, BERTScore-F1, Latency.
    #[arg(long, default_value = "card", value_parser = ["official", "card"])]
    profile: String,
    /// ANSER task folder (query/; a release checkout or the older benchmark/ layout also work)
    /// [default: the one a run directory recorded, else the workspace's query/].
    #[arg(long, default_value = "query")]
    pub(super) benchmark_dir: PathBuf,
    /// Corpus root for the regulatory-rule id lookup (finance/zh/regulatory_rules.jsonl).
    /// [default: the one a run directory recorded, else the workspace's corpus/ if present]
    #[arg(long, env = "ANSER_CORPUS_ROOT")]
    pub(super) corpus_root: Option<PathBuf>,
    /// Output file [default: <dir>/<stem>.evaluation.json for a file, <run>/evaluation.json for a
    /// run directory, <dir>/evaluation_results.json for a directory of result files].
    #[arg(long)]
    output: Option<PathBuf>,
    /// Replace an existing --output file (never an input file: that is always refused).
    #[arg(long)]
    force: bool,
    /// Do not call the LLM judge: judged tasks get {"status": "skipped"} and a null LLM Judge.
    #[arg(long)]
    skip_llm_judge: bool,
    /// Concurrent judge calls.
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY)]
    judge_concurrency: usize,
    /// Judge model [env ANSER_JUDGE_MODEL; default gpt-5.6-sol]; endpoint and key come from
    /// OPENAI_BASE_URL and OPENAI_API_KEY (environment or .env).
    #[arg(long)]
    judge_model: Option<String>,
    /// Judge base URL (overrides OPENAI_BASE_URL).
    #[arg(long)]
    judge_base_url: Option<String>,
    /// Retries after the first judge attempt (408/409/425/429/5xx, timeouts).
    #[arg(long, default_value_t = DEFAULT_RETRIES)]
    llm_retries: u32,
    /// Per-call judge timeout in seconds.
    #[arg(long, default_value_t = 120)]
    llm_timeout: u64,
    /// Judge cache (JSONL, keyed by result signature + judge model + prompt hash)
    /// [default: anser_judge_cache.jsonl next to the output].
    #[arg(long)]
    judge_cache: Option<PathBuf>,
    /// Do not read or write the judge cache.
    #[arg(long)]
    no_judge_cache: bool,
    /// ONNX encoder directory (model.onnx + tokenizer.json) for BERTScore-F1 (card profile);
    /// the ONNX Runtime library comes from ORT_DYLIB_PATH.
    #[arg(long)]
    bertscore_model: Option<PathBuf>,
    /// Summary format on stdout.
    #[arg(long, default_value = "table", value_parser = ["table", "markdown", "csv", "json"])]
    format: String,
}

pub fn run(args: EvalArgs) -> CliResult {
    let profile = if args.profile == "official" { Profile::Official } else { Profile::Card };
    let format: Format = args.format.parse().map_err(CliError::user)?;
    let kind = input_kind(&args.results).map_err(map_err)?;
    let output = args.output.clone().unwrap_or_else(|| default_output(&args.results, &kind));
    check_output(&args.results, &kind, &output, args.output.is_some() && !args.force)?;
    let judge = if args.skip_llm_judge {
        JudgeMode::Skip
    } else {
        let settings = Settings::load().map_err(CliError::user)?;
        let overrides =
            Overrides { base_url: args.judge_base_url.clone(), api_key: None, model: args.judge_model.clone() };
        let endpoint = settings.endpoint(&JUDGE, &overrides).map_err(CliError::user)?;
        let model = endpoint.model.clone();
        let endpoint = endpoint.api_key.is_set().then_some(endpoint);
        let cache = if args.no_judge_cache {
            None
        } else {
            Some(args.judge_cache.clone().unwrap_or_else(|| output.with_file_name("anser_judge_cache.jsonl")))
        };
        let settings = JudgeSettingsBuilder {
            endpoint,
            model,
            concurrency: args.judge_concurrency,
            retries: args.llm_retries,
            timeout: Duration::from_secs(args.llm_timeout),
            cache,
        };
        JudgeMode::Call(settings.build().map_err(CliError::user)?)
    };
    if profile == Profile::Official && args.bertscore_model.is_some() {
        return Err(CliError::user(
            "--bertscore-model only applies to --profile card (the official evaluator has no BERTScore)",
        ));
    }
    let options =
        EvalOptions { profile, corpus_root: args.corpus_root.clone(), judge, bertscore: args.bertscore_model.clone() };
    let bench = Benchmark::load(&args.benchmark_dir)?;
    let input = ResultsInput::Path { input: args.results.clone(), output: Some(output.clone()) };
    let evaluation = evaluate(&input, &bench, &options).map_err(map_err)?;
    evaluation.write_json(&output).map_err(map_err)?;

    let warnings: Vec<&str> = evaluation.warnings().collect();
    // One line per kind with its count (100k bad records are 1 line, not 100k); the file lists all.
    for g in evaluation.warning_groups() {
        let examples =
            if g.examples.is_empty() { String::new() } else { format!(" (first: {})", g.examples.join(", ")) };
        eprintln!("warning: {} × {}{examples}; each one is listed in {}", g.count, g.kind, output.display());
    }
    let mut out = std::io::stdout().lock();
    let printed = print_summary(&mut out, &evaluation, format, warnings.len(), &output);
    match printed {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(CliError::internal(format!("cannot print the summary: {e}"))),
        Ok(()) => Ok(ExitCode::SUCCESS),
    }
}

/// The summary on stdout (a closed pipe, as with `| head`, is not an error).
fn print_summary(
    out: &mut impl std::io::Write,
    evaluation: &anser_evaluator::Evaluation,
    format: Format,
    warnings: usize,
    output: &Path,
) -> std::io::Result<()> {
    write!(out, "{}", table::render(evaluation, format))?;
    if format == Format::Table {
        let j = &evaluation.judge_overhead;
        writeln!(
            out,
            "{} records evaluated, {warnings} warning(s); LLM judge: {} task(s), {} cached, {} call(s), {} failed, {} tokens, {:.1} s (evaluation overhead)",
            evaluation.evaluated_records(),
            j.requests,
            j.cached,
            j.calls,
            j.failed,
            j.total_tokens,
            j.wall_seconds
        )?;
        writeln!(out, "wrote {}", output.display())?;
    } else {
        eprintln!("wrote {}", output.display());
    }
    Ok(())
}

/// Refuse an output that is one of the input files (the same file under any path: compared
/// canonically and, on Unix, by device and inode), and an existing explicit `--output` unless
/// `--force` (`refuse_existing`). The default output is the evaluation's own derived file and is
/// regenerated.
fn check_output(results: &Path, kind: &InputKind, output: &Path, refuse_existing: bool) -> Result<(), CliError> {
    let Ok(out_meta) = std::fs::metadata(output) else { return Ok(()) };
    let out_path = std::fs::canonicalize(output).ok();
    for input in result_files(results, kind, None).unwrap_or_default() {
        let same_path = out_path.is_some() && std::fs::canonicalize(&input).ok() == out_path;
        if same_path || std::fs::metadata(&input).is_ok_and(|m| same_file(&m, &out_meta)) {
            return Err(CliError::user(format!(
                "{}: --output is the input results file {}; writing the evaluation there would destroy it, choose another --output",
                output.display(),
                input.display()
            )));
        }
    }
    if refuse_existing {
        return Err(CliError::user(format!(
            "{}: output file exists; pass --force to overwrite it or choose another --output",
            output.display()
        )));
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

fn map_err(e: anser_evaluator::Error) -> CliError {
    if e.is_user_error() { CliError::user(e) } else { CliError::internal(e) }
}
