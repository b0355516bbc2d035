//! `anser demo`: the whole pipeline on the embedded sample, offline, in one command —
//! generate the small sample, index every route (BM25), answer every task with the offline
//! planner, evaluate, print a compact per-group summary and the next command. Re-running reuses
//! what is already built. The demo folder is a workspace (see [`super::workspace`]):
//! `query/`, `corpus/`, `indices/`, `runs/offline/`, so every later command run inside it needs
//! no path flags.

use std::{
    collections::BTreeMap, fmt::Write as _, path::Path, path::PathBuf, process::ExitCode, sync::Arc, time::Instant,
};

use anser_agent::{
    method::{Offline, RetrieverSearcher},
    run::{RESULTS_FILE, RunConfig, run},
};
use anser_evaluator::{EvalOptions, Evaluation, JudgeMode, Metric, MetricSummary, Profile, ResultsInput, evaluate};
use anser_gold::Benchmark;
use anser_indexer::{BuildOptions, build_route};
use anser_manifest::{Route, Selection};
use anser_runstore::RunName;
use anser_samples::{SampleOptions, generate};
use clap::Args;
use serde_json::json;

use super::{
    CliError, CliResult,
    run::{corpus_inputs, index_inputs},
    workspace::{CORPUS_DIR, INDEX_DIR, QUERY_DIR, RUNS_DIR},
};

/// Name of the demo's run directory under `runs/`.
pub const DEMO_RUN: &str = "offline";

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Workspace folder for the sample (query/, corpus/), indexes (indices/) and the run (runs/).
    #[arg(long, default_value = "anser-demo")]
    pub(super) out: PathBuf,
    /// Tasks answered at once.
    #[arg(long, default_value_t = 2)]
    concurrency: usize,
    /// Hide progress bars.
    #[arg(long)]
    quiet: bool,
}

pub fn run_demo(args: DemoArgs) -> CliResult {
    let started = Instant::now();
    // The sample's marker file and its query/ and corpus/ sit at the workspace root; the
    // sample generator reuses a folder holding the same sample, whatever else it holds.
    let workspace = std::path::absolute(&args.out).unwrap_or_else(|_| args.out.clone());
    let index_dir = workspace.join(INDEX_DIR);
    let runs_dir = workspace.join(RUNS_DIR);

    let summary = generate(&SampleOptions::default(), &workspace).map_err(CliError::user)?;
    let corpus = workspace.join(CORPUS_DIR);
    let query = workspace.join(QUERY_DIR);
    println!(
        "1/4 sample   {} ({} tasks, seed {}){}",
        args.out.display(),
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
    println!(
        "2/4 indexes  {} (BM25, 10 routes, {} built, {} reused)",
        args.out.join(INDEX_DIR).display(),
        built,
        10 - built
    );

    // The run sees public fields only; the reference is loaded after it, for the evaluation.
    let task_set = anser_manifest::TaskSet::load(&query)?;
    let task_dir = task_set.dir.clone();
    let tasks = task_set.into_tasks();
    let engine = Arc::new(anser_retriever::Engine::new(&index_dir, Some(&corpus)));
    let searcher = Arc::new(RetrieverSearcher::new(anser_retriever::SpecRetriever::new(
        engine,
        "bm25".parse().map_err(CliError::internal)?,
    )));
    let run_name = RunName::new(DEMO_RUN).map_err(CliError::internal)?;
    let run_dir = runs_dir.join(DEMO_RUN);
    let mut settings = BTreeMap::new();
    settings.insert("method".to_string(), json!("offline"));
    settings.insert("retriever".to_string(), json!("bm25"));
    // The same inputs `anser run` fingerprints: indexes, corpus files and task files.
    let mut inputs = index_inputs(&index_dir, &tasks, true);
    inputs.extend(corpus_inputs(&corpus, &tasks));
    let mut files: Vec<&str> = tasks.iter().map(|t| t.source_file.as_str()).collect();
    files.sort_unstable();
    files.dedup();
    inputs.extend(files.into_iter().map(|f| (format!("task file {f}"), task_dir.join(f))));
    let extra = BTreeMap::from([
        ("demo".to_string(), json!(true)),
        ("selection".to_string(), serde_json::to_value(Selection::default()).map_err(CliError::internal)?),
        ("benchmark_dir".to_string(), json!(task_dir.display().to_string())),
        ("corpus_root".to_string(), json!(corpus.display().to_string())),
        ("concurrency".to_string(), json!(args.concurrency.max(1))),
    ]);
    let config = RunConfig {
        run_name,
        output_dir: runs_dir.clone(),
        tasks,
        concurrency: args.concurrency.max(1),
        resume: run_dir.join("metadata.json").is_file(),
        retry_failed: true,
        deadline: None,
        quiet: args.quiet,
        settings,
        inputs,
        extra_metadata: extra,
    };
    let outcome = run(&config, Arc::new(Offline::new(corpus.clone(), searcher))).map_err(CliError::user)?;
    let shown_run = args.out.join(RUNS_DIR).join(DEMO_RUN);
    println!(
        "3/4 run      {} (offline planner: {} tasks answered now, {} reused)",
        shown_run.display(),
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
    println!("4/4 evaluate {}", shown_run.join("evaluation.json").display());
    println!();
    print!("{}", render_summary(&group_summary(&evaluation)));
    println!();
    if let Some(line) = unavailable_line(&evaluation, &Path::new(RUNS_DIR).join(DEMO_RUN)) {
        println!("{line}");
    }
    println!(
        "done in {:.1} s. The offline planner's scores on the generated sample are a pipeline health figure, \
         not a result on ANSER-Bench.",
        started.elapsed().as_secs_f64()
    );
    println!("next: {}", next_command(&args.out));
    Ok(ExitCode::SUCCESS)
}

/// Answer metrics in order of preference: the first one a group has is its main answer metric
/// (the LLM judge only where no structured answer is scored).
const ANSWER_METRICS: [Metric; 6] = [
    Metric::Accuracy,
    Metric::Accuracy10,
    Metric::RelationAccuracy,
    Metric::RuleAccuracy,
    Metric::LlmJudge,
    Metric::TokenF1,
];

/// Evidence metrics in order of preference.
const EVIDENCE_METRICS: [Metric; 2] = [Metric::RecallAt5, Metric::SetF1];

/// The compact line of one task group: its main answer and evidence metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupLine {
    pub group: String,
    pub tasks: usize,
    pub answer: Option<MetricSummary>,
    pub evidence: Option<MetricSummary>,
}

fn pick(metrics: &[MetricSummary], preference: &[Metric]) -> Option<MetricSummary> {
    preference.iter().find_map(|p| metrics.iter().find(|m| m.metric == *p && m.count + m.unavailable > 0)).copied()
}

/// The per-group summary of an evaluation (groups sorted by name).
pub fn group_summary(evaluation: &Evaluation) -> Vec<GroupLine> {
    evaluation
        .group_reports()
        .into_iter()
        .map(|g| GroupLine {
            answer: pick(&g.metrics, &ANSWER_METRICS),
            evidence: pick(&g.metrics, &EVIDENCE_METRICS),
            group: g.name,
            tasks: g.count,
        })
        .collect()
}

fn cell(m: Option<&MetricSummary>) -> String {
    match m {
        None => "—".into(),
        Some(MetricSummary { metric, mean: Some(v), count, .. }) => format!("{} {v:.3} (n={count})", metric.name()),
        Some(MetricSummary { metric, mean: None, .. }) => format!("{} n/a", metric.name()),
    }
}

/// The summary as an aligned table: one line per group.
pub fn render_summary(lines: &[GroupLine]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<24} {:>5}  {:<32} main evidence metric", "group", "tasks", "main answer metric");
    for l in lines {
        let _ = writeln!(
            out,
            "{:<24} {:>5}  {:<32} {}",
            l.group,
            l.tasks,
            cell(l.answer.as_ref()),
            cell(l.evidence.as_ref())
        );
    }
    out
}

/// One line naming the metrics that could not be computed offline, why, and how to get them;
/// `None` when everything was computed.
pub fn unavailable_line(evaluation: &Evaluation, run: &Path) -> Option<String> {
    let unavailable = |metric: Metric| evaluation.metric(metric).map_or(0, |m| m.unavailable);
    let mut parts = Vec::new();
    let judged = unavailable(Metric::LlmJudge);
    if judged > 0 {
        parts.push(format!(
            "LLM Judge ({judged} tasks: the demo skips the judge, no network; set OPENAI_API_KEY and run `anser eval {}`)",
            run.display()
        ));
    }
    let bertscore = unavailable(Metric::BertScoreF1);
    if bertscore > 0 {
        parts.push(format!("BERTScore-F1 ({bertscore} tasks: add `--bertscore-model DIR` to `anser eval`)"));
    }
    let tokens = evaluation.efficiency.token_usage.unavailable;
    if tokens > 0 {
        parts.push(format!("Token Usage ({tokens} tasks: the offline planner calls no LLM, so there are no tokens)"));
    }
    (!parts.is_empty()).then(|| format!("n/a: {}.", parts.join("; ")))
}

/// What to run next, from where the user is: the report of the demo's run.
fn next_command(out: &Path) -> String {
    let run = Path::new(RUNS_DIR).join(DEMO_RUN);
    if out == Path::new(".") {
        format!("anser report {}", run.display())
    } else {
        format!("cd {} && anser report {}", out.display(), run.display())
    }
}
