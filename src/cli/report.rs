//! `anser report`: one run's report — metadata, metric means per group with bootstrap CIs, the
//! failure taxonomy, per-stage latency and tokens — printed as text (or JSON) and written as
//! one self-contained HTML page with inline SVG charts.

use std::{path::PathBuf, process::ExitCode};

use anser_gold::Benchmark;
use anser_reports::{
    RunData, StatsParamsBuilder, TextOptions,
    html::run_page,
    report::build,
    stats::{DEFAULT_RESAMPLES, DEFAULT_SEED},
};
use clap::Args;

use super::{CliError, CliResult};

/// The HTML file written inside the run directory when --html is not given.
pub const DEFAULT_HTML: &str = "report.html";

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run directory written by `anser run`.
    pub(super) run: PathBuf,
    /// Where to write the HTML page [default: RUN_DIR/report.html].
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Do not write the HTML page.
    #[arg(long, conflicts_with = "html")]
    no_html: bool,
    /// Output format on stdout.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
    /// Score the run against this task folder when it has no evaluation.json (LLM judge skipped).
    /// [default: the one the run recorded in metadata.json]
    #[arg(long)]
    pub(super) benchmark_dir: Option<PathBuf>,
    /// Corpus root for the regulatory-rule id lookup when scoring (default: as the run recorded).
    #[arg(long)]
    pub(super) corpus_root: Option<PathBuf>,
    /// Print `<t>` for time values and leave out creation time and paths (reproducible text).
    #[arg(long)]
    redact_timings: bool,
    /// Bootstrap resamples per confidence interval (at least 10,000).
    #[arg(long, default_value_t = DEFAULT_RESAMPLES)]
    resamples: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
}

/// Map a reports error to the CLI's exit codes.
pub fn reports_error(e: anser_reports::Error) -> CliError {
    if e.is_user_error() { CliError::user(e) } else { CliError::internal(e) }
}

pub fn run(args: ReportArgs) -> CliResult {
    let params = StatsParamsBuilder { resamples: args.resamples, seed: args.seed, ..StatsParamsBuilder::default() }
        .build()
        .map_err(|e| CliError::user(format!("--resamples: {e}")))?;
    let mut run = RunData::open(&args.run).map_err(reports_error)?;
    if run.scores.is_none() {
        if let Some(dir) = &args.benchmark_dir {
            let bench = Benchmark::load(dir)?;
            let corpus = args.corpus_root.clone().or_else(|| run.recorded_corpus_root());
            run.score(&bench, corpus).map_err(reports_error)?;
        }
    }
    let report = build(&run, &params).map_err(reports_error)?;
    let html_path =
        if args.no_html { None } else { Some(args.html.clone().unwrap_or_else(|| run.dir.join(DEFAULT_HTML))) };
    let html = html_path.as_ref().map(|_| run_page(&report)).transpose().map_err(reports_error)?;
    if args.format == "json" {
        let text = serde_json::to_string_pretty(&report.to_json()).map_err(CliError::internal)?;
        println!("{text}");
    } else {
        print!("{}", report.render_text(TextOptions { redact_timings: args.redact_timings }));
    }
    if let (Some(path), Some(html)) = (html_path, html) {
        anser_runstore::write_atomic(&path, html.as_bytes()).map_err(|e| CliError::user(e.to_string()))?;
        eprintln!("html: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
