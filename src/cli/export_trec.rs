//! `anser export-trec`: a run's ranked evidence as a TREC run file and the gold evidence of its
//! tasks as qrels, with the evaluator's canonical ids, for trec_eval and ranx.

use std::{path::PathBuf, process::ExitCode};

use anser_evaluator::evidence::RuleIndex;
use anser_gold::Benchmark;
use anser_reports::{RunData, trec};
use clap::Args;

use super::{CliError, CliResult, report::reports_error};

/// File names written into the output directory.
pub const RUN_FILE: &str = "run.trec";
pub const QRELS_FILE: &str = "qrels.trec";

#[derive(Debug, Args)]
pub struct ExportTrecArgs {
    /// Run directory written by `anser run`.
    run: PathBuf,
    /// ANSER task folder with the gold evidence [default: the one the run recorded].
    #[arg(long)]
    benchmark_dir: Option<PathBuf>,
    /// Corpus root for the regulatory-rule id lookup [default: the one the run recorded].
    #[arg(long)]
    corpus_root: Option<PathBuf>,
    /// Where to write run.trec and qrels.trec [default: RUN_DIR].
    #[arg(long)]
    out_dir: Option<PathBuf>,
}

pub fn run(args: ExportTrecArgs) -> CliResult {
    let run = RunData::open(&args.run).map_err(reports_error)?;
    let bench_dir = match (&args.benchmark_dir, run.recorded_benchmark_dir()) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) if dir.is_dir() => dir,
        (None, Some(dir)) => {
            return Err(CliError::user(format!(
                "{}: the run recorded the task folder {}, which is not a directory from here; pass --benchmark-dir",
                run.dir.display(),
                dir.display()
            )));
        }
        (None, None) => {
            return Err(CliError::user(format!(
                "{}: the run does not record its task folder; pass --benchmark-dir",
                run.dir.display()
            )));
        }
    };
    let bench = Benchmark::load(&bench_dir)?;
    let rules = match args.corpus_root.clone().or_else(|| run.recorded_corpus_root()) {
        Some(root) => Some(RuleIndex::load(&root).map_err(|e| CliError::user(e.to_string()))?),
        None => None,
    };
    let export = trec::export(&run, &bench, rules.as_ref()).map_err(reports_error)?;
    let out = args.out_dir.clone().unwrap_or_else(|| run.dir.clone());
    fs_err::create_dir_all(&out).map_err(|e| CliError::user(e.to_string()))?;
    let (run_path, qrels_path) = (out.join(RUN_FILE), out.join(QRELS_FILE));
    anser_runstore::write_atomic(&run_path, export.run.as_bytes()).map_err(|e| CliError::user(e.to_string()))?;
    anser_runstore::write_atomic(&qrels_path, export.qrels.as_bytes()).map_err(|e| CliError::user(e.to_string()))?;
    println!(
        "run:   {} ({} tasks with ranked evidence, {} without)",
        run_path.display(),
        export.ranked_tasks,
        export.empty_tasks
    );
    println!("qrels: {} ({} tasks with gold evidence)", qrels_path.display(), export.judged_tasks);
    if !export.unknown_ids.is_empty() {
        eprintln!(
            "warning: {} result ids are not in {} and were left out (e.g. {})",
            export.unknown_ids.len(),
            bench.dir.display(),
            export.unknown_ids.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}
