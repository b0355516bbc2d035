//! `anser demo`: the whole pipeline on the embedded sample, offline, in one command —
//! generate the small sample, index every route (BM25), answer every task with the offline
//! planner, evaluate, print the per-group table. Re-running reuses what is already built.

use std::{collections::BTreeMap, path::PathBuf, process::ExitCode, sync::Arc, time::Instant};

use anser_agent::{
    method::{Offline, RetrieverSearcher},
    run::{RESULTS_FILE, RunConfig, run},
};
use anser_evaluator::{EvalOptions, JudgeMode, Profile, ResultsInput, evaluate, table};
use anser_gold::Benchmark;
use anser_indexer::{BuildOptions, build_route};
use anser_manifest::Route;
use anser_runstore::RunName;
use anser_samples::{SampleOptions, generate};
use clap::Args;
use serde_json::json;

use super::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Folder for the sample, indexes and the run.
    #[arg(long, default_value = "anser-demo")]
    out: PathBuf,
    /// Tasks answered at once.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// Hide progress bars.
    #[arg(long)]
    quiet: bool,
}

pub fn run_demo(args: DemoArgs) -> CliResult {
    let started = Instant::now();
    let sample_dir = args.out.join("sample");
    let index_dir = args.out.join("indices");
    let runs_dir = args.out.join("runs");

    let summary = generate(&SampleOptions::default(), &sample_dir).map_err(CliError::user)?;
    let corpus = sample_dir.join("corpus");
    let query = sample_dir.join("query");
    println!(
        "1/4 sample   {} ({} tasks, seed {}){}",
        sample_dir.display(),
        summary.tasks.values().sum::<usize>(),
        summary.seed,
        if summary.reused { ", reused" } else { "" }
    );

    let opts = BuildOptions { quiet: args.quiet, threads: 2, ..BuildOptions::default() };
    let mut built = 0;
    for route in Route::ALL {
        let report = build_route(&index_dir, &corpus, route, &opts, None).map_err(CliError::user)?;
        if report.action != "up_to_date" {
            built += 1;
        }
    }
    println!("2/4 indexes  {} (BM25, 10 routes, {} built, {} reused)", index_dir.display(), built, 10 - built);

    let tasks = anser_manifest::TaskSet::load(&query)?;
    let engine = Arc::new(anser_retriever::Engine::new(&index_dir, Some(&corpus)));
    let searcher = Arc::new(
        RetrieverSearcher::new(anser_retriever::SpecRetriever::new(
            engine,
            "bm25".parse().map_err(CliError::internal)?,
        ))
        .with_boundaries(corpus.clone()),
    );
    let run_name = RunName::new("offline").map_err(CliError::internal)?;
    let run_dir = runs_dir.join("offline");
    let mut settings = BTreeMap::new();
    settings.insert("method".to_string(), json!("offline"));
    settings.insert("retriever".to_string(), json!("bm25"));
    let config = RunConfig {
        run_name,
        output_dir: runs_dir.clone(),
        tasks: tasks.into_tasks(),
        concurrency: args.concurrency.max(1),
        resume: run_dir.join("metadata.json").is_file(),
        deadline: None,
        quiet: args.quiet,
        settings,
        inputs: Vec::new(),
        extra_metadata: BTreeMap::from([("demo".to_string(), json!(true))]),
    };
    let outcome = run(&config, Arc::new(Offline::new(corpus.clone(), searcher))).map_err(CliError::user)?;
    println!(
        "3/4 run      {} (offline planner: {} tasks answered now, {} reused)",
        outcome.run_dir.display(),
        outcome.finished_now,
        outcome.finished_before
    );
    if outcome.interrupted {
        eprintln!("interrupted; run `anser demo` again to continue");
        return Ok(ExitCode::from(130));
    }

    let bench = Benchmark::load(&query)?;
    let output = run_dir.join("evaluation.json");
    let options =
        EvalOptions { profile: Profile::Card, corpus_root: Some(corpus), judge: JudgeMode::Skip, bertscore: None };
    let evaluation = evaluate(
        &ResultsInput::Path { input: run_dir.join(RESULTS_FILE), output: Some(output.clone()) },
        &bench,
        &options,
    )
    .map_err(CliError::user)?;
    evaluation.write_json(&output).map_err(CliError::internal)?;
    println!("4/4 evaluate {}", output.display());
    println!();
    print!("{}", table::render(&evaluation, table::Format::Table));
    println!();
    println!(
        "done in {:.1} s. The offline planner's scores on the generated sample are a pipeline health figure, \
         not a result on ANSER-Bench.",
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
