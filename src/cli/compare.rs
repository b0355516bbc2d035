//! `anser compare`: paired comparison of run directories per task group and metric — means,
//! deltas against the baseline on the shared tasks, bootstrap CIs, sign-flip p-values with the
//! Holm correction — as a table, Markdown or JSON, optionally also as an HTML page.

use std::{path::PathBuf, process::ExitCode};

use anser_gold::Benchmark;
use anser_reports::{
    RunData, RunScores, StatsParamsBuilder, compare,
    html::compare_page,
    stats::{DEFAULT_RESAMPLES, DEFAULT_SEED},
};
use clap::Args;

use super::{
    CliError, CliResult,
    report::reports_error,
    workspace::{CORPUS_DIR, QUERY_DIR, recorded_dir},
};

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Run directories written by `anser run` (two or more); the first is the baseline unless
    /// --baseline names another.
    #[arg(required = true, num_args = 2..)]
    runs: Vec<PathBuf>,
    /// The baseline: a run directory's name or path.
    #[arg(long)]
    baseline: Option<String>,
    /// Output format on stdout.
    #[arg(long, default_value = "table", value_parser = ["table", "markdown", "json"])]
    format: String,
    /// Also write the comparison as one self-contained HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Score runs that have no evaluation.json against this task folder (LLM judge skipped)
    /// [default: the task folder each run recorded in its metadata.json].
    #[arg(long)]
    benchmark_dir: Option<PathBuf>,
    /// Corpus root for the regulatory-rule id lookup when scoring (default: as the run recorded).
    #[arg(long)]
    corpus_root: Option<PathBuf>,
    /// Bootstrap resamples per confidence interval (at least 10,000).
    #[arg(long, default_value_t = DEFAULT_RESAMPLES)]
    resamples: usize,
    /// Seed of the bootstrap and of the Monte Carlo sign-flip test.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
}

pub fn run(args: CompareArgs) -> CliResult {
    let params = StatsParamsBuilder { resamples: args.resamples, seed: args.seed, ..StatsParamsBuilder::default() }
        .build()
        .map_err(|e| CliError::user(format!("--resamples: {e}")))?;
    let mut runs = Vec::with_capacity(args.runs.len());
    for dir in &args.runs {
        runs.push(RunData::open(dir).map_err(reports_error)?);
    }
    // Runs without evaluation.json are scored now, against --benchmark-dir or else the task
    // folder each run recorded (loaded once per folder).
    let mut benches: Vec<(PathBuf, Benchmark)> = Vec::new();
    for run in runs.iter_mut().filter(|r| r.scores.is_none()) {
        let dir = args.benchmark_dir.clone().or_else(|| recorded_dir(&run.dir, "benchmark_dir", QUERY_DIR));
        let Some(dir) = dir else {
            return Err(CliError::user(format!(
                "{}: no evaluation.json and no task folder recorded in its metadata.json; run `anser eval {}` \
                 first or pass --benchmark-dir to score it now",
                run.dir.display(),
                run.dir.display()
            )));
        };
        let index = match benches.iter().position(|(d, _)| *d == dir) {
            Some(i) => i,
            None => {
                benches.push((dir.clone(), Benchmark::load(&dir)?));
                benches.len() - 1
            }
        };
        let corpus = args
            .corpus_root
            .clone()
            .or_else(|| recorded_dir(&run.dir, "corpus_root", CORPUS_DIR))
            .or_else(|| run.recorded_corpus_root());
        run.score(&benches[index].1, corpus).map_err(reports_error)?;
    }
    let baseline = args.baseline.as_deref().map(|b| baseline_name(b, &args.runs, &runs));
    let scores: Vec<RunScores<'_>> = runs.iter().map(RunScores::of).collect::<Result<_, _>>().map_err(reports_error)?;
    let comparison = compare(&scores, baseline.as_deref(), &params).map_err(reports_error)?;
    let html = args.html.as_ref().map(|_| compare_page(&comparison)).transpose().map_err(reports_error)?;
    match args.format.as_str() {
        "json" => {
            let text = serde_json::to_string_pretty(&comparison.to_json()).map_err(CliError::internal)?;
            println!("{text}");
        }
        "markdown" => print!("{}", comparison.render(true)),
        _ => print!("{}", comparison.render(false)),
    }
    if let (Some(path), Some(html)) = (&args.html, html) {
        anser_runstore::write_atomic(path, html.as_bytes()).map_err(|e| CliError::user(e.to_string()))?;
        eprintln!("html: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `--baseline` as a run name: a name is kept, a path given on the command line maps to its run.
fn baseline_name(given: &str, paths: &[PathBuf], runs: &[RunData]) -> String {
    let given_path = PathBuf::from(given);
    let canonical = given_path.canonicalize().ok();
    paths
        .iter()
        .zip(runs)
        .find(|(p, _)| **p == given_path || (canonical.is_some() && p.canonicalize().ok() == canonical))
        .map_or_else(|| given.to_string(), |(_, r)| r.name.clone())
}
