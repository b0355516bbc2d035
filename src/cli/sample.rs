//! `anser sample`: write the embedded sample (ten corpora in the release layout, tasks for all
//! 14 groups with ground truth computed from the generated data) into a folder.

use std::{io::Write, path::PathBuf, process::ExitCode, time::Instant};

use anser_samples::{DEFAULT_FRACTION, DEFAULT_SEED, SampleOptions, Size, generate};
use clap::Args;

use super::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct SampleArgs {
    /// Output folder; created if missing, must be empty or hold the same sample (then nothing is written).
    #[arg(long)]
    out: PathBuf,
    /// Seed of the generator; the same seed and size give byte-identical files.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// small (tests and the demo), medium (benchmarks) or release (the real release's row and
    /// task counts; several GB, benchmarks only).
    #[arg(long, default_value = "small", value_parser = ["small", "medium", "release"])]
    size: String,
    /// Fraction in (0, 1] of every release-size count (`--size release` only).
    #[arg(long, default_value_t = DEFAULT_FRACTION)]
    scale: f64,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SampleArgs) -> CliResult {
    let size: Size = args.size.parse().map_err(CliError::user)?;
    let options = SampleOptions { seed: args.seed, size, fraction: args.scale, progress: !args.json };
    let started = Instant::now();
    let summary = generate(&options, &args.out)
        .map_err(|e| if e.is_user_error() { CliError::user(e) } else { CliError::internal(e) })?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let s = serde_json::to_string_pretty(&summary).map_err(CliError::internal)?;
        writeln!(out, "{s}").map_err(CliError::internal)?;
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if summary.reused { "already holds" } else { "wrote" };
    writeln!(
        out,
        "{} {verb} the {}{} sample (seed {}): {} files, {:.1} MiB, {} tasks in {} groups{}",
        summary.out_dir.display(),
        summary.size,
        if summary.fraction < 1.0 { format!(" (scale {})", summary.fraction) } else { String::new() },
        summary.seed,
        summary.files.len(),
        summary.total_bytes() as f64 / (1024.0 * 1024.0),
        summary.task_count(),
        summary.tasks.len(),
        if summary.reused { String::new() } else { format!(" in {:.1} s", started.elapsed().as_secs_f64()) }
    )
    .map_err(CliError::internal)?;
    for (route, rows) in &summary.corpus_rows {
        writeln!(out, "  {route:<26} {rows} rows").map_err(CliError::internal)?;
    }
    writeln!(out, "corpus: {}\nquery:  {}", summary.corpus_dir().display(), summary.query_dir().display())
        .map_err(CliError::internal)?;
    Ok(ExitCode::SUCCESS)
}
