//! `anser retrieve`: retrieval-only results for a task selection, in the official results
//! format, so `anser eval` scores evidence. Query = query + "\n" + instruction (as the official
//! sparse baseline; `--query-text query` drops the instruction, which is the same boilerplate for
//! every task of a group and so only adds noise terms); evidence = the retrieved records' identifiers of the kind the scorer
//! expects for the task, in rank order, de-duplicated; answer "".

use std::{io::Write, path::PathBuf, process::ExitCode, sync::Arc, time::Instant};

use anser_manifest::{Domain, Manifest, PublicTask, Split, load_public_tasks};
use anser_retriever::{Engine, Retriever, RetrieverSpec, SpecRetriever, evidence_list};
use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::{CliError, CliResult, SelectionArgs, search::retrieval_err};

#[derive(Debug, Args)]
pub struct RetrieveArgs {
    /// ANSER task folder (query/).
    #[arg(long)]
    benchmark_dir: PathBuf,
    /// Corpus root the indexes were built from (checked against their fingerprints).
    #[arg(long)]
    corpus_root: PathBuf,
    /// Folder of indexes built by `anser index`.
    #[arg(long)]
    index_dir: PathBuf,
    #[command(flatten)]
    selection: SelectionArgs,
    /// Retriever spec (bm25, bm25:zh_bigram, dense, hybrid:bm25+dense@rrf60, none, any + /in_force, ...).
    #[arg(long, default_value = "bm25")]
    retriever: String,
    /// Hits per task.
    #[arg(short, default_value_t = 10)]
    k: usize,
    /// Hits for legal descriptive and finance descriptive `statistic` tasks (the official
    /// baseline retrieves 50 there).
    #[arg(long, default_value_t = 50)]
    k_wide: usize,
    /// Results file to write (JSON array, official format).
    #[arg(long)]
    output: PathBuf,
    /// Overwrite an existing output file.
    #[arg(long)]
    force: bool,
    /// ONNX Runtime threads for query embeddings (0 = its default).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Text sent to the retriever.
    #[arg(long, value_enum, default_value_t = QueryText::QueryInstruction)]
    query_text: QueryText,
    /// Check corpus files against the index fingerprints by full SHA-256 (default: size, and
    /// sampled blocks when the modification time is unchanged).
    #[arg(long)]
    verify: bool,
}

/// What a task's retrieval query is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueryText {
    /// query + newline + instruction, as the official sparse baseline.
    QueryInstruction,
    /// The query alone.
    Query,
}

impl QueryText {
    fn of(self, task: &PublicTask) -> String {
        match self {
            QueryText::QueryInstruction => format!("{}\n{}", task.query, task.instruction),
            QueryText::Query => task.query.clone(),
        }
    }
}

/// k for one task, as the official sparse baseline picks it.
fn k_for(task: &PublicTask, k: usize, k_wide: usize) -> usize {
    let g = task.group;
    let wide =
        g.split == Split::Descriptive && (g.domain == Domain::Legal || task.task_type.as_deref() == Some("statistic"));
    if wide { k_wide } else { k }
}

pub fn run(args: RetrieveArgs) -> CliResult {
    anser_indexer::fingerprint::set_full_verification(args.verify);
    if args.output.exists() && !args.force {
        return Err(CliError::user(format!(
            "{}: output file exists; pass --force to overwrite it or choose another --output",
            args.output.display()
        )));
    }
    let spec: RetrieverSpec = args.retriever.parse().map_err(retrieval_err)?;
    let selection = args.selection.selection()?;
    let tasks = selection.apply(&load_public_tasks(&args.benchmark_dir)?)?;
    let engine = Arc::new(Engine::new(&args.index_dir, Some(&args.corpus_root)).with_threads(args.threads));
    let retriever = SpecRetriever::new(engine, spec);
    let manifest = Manifest::get();
    let t0 = Instant::now();
    let mut records = Vec::with_capacity(tasks.len());
    for task in &tasks {
        let start = Instant::now();
        let resolution = manifest.resolve(&task.id, task.group, task.task_type.as_deref())?;
        let query = args.query_text.of(task);
        // Binding applies the task's information boundary inside every search.
        let bound = retriever.bind(task).map_err(retrieval_err)?;
        let hits = bound.search(&query, k_for(task, args.k, args.k_wide)).map_err(retrieval_err)?;
        let evidence = evidence_list(&hits, resolution.evidence);
        let latency = (start.elapsed().as_secs_f64() * 1e6).round() / 1e6;
        records.push(json!({
            "id": task.id,
            "answer": "",
            "retrieved_evidence": evidence,
            "latency": latency,
            "prompt_tokens": Value::Null,
            "completion_tokens": Value::Null,
            "total_tokens": Value::Null,
            "generation_status": "dry_run",
        }));
    }
    let text = serde_json::to_string_pretty(&records).map_err(CliError::internal)? + "\n";
    if let Some(dir) = args.output.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs_err::create_dir_all(dir).map_err(CliError::user)?;
    }
    anser_runstore::write_atomic(&args.output, text.as_bytes()).map_err(CliError::internal)?;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{} tasks retrieved with {} in {:.2} s → {}",
        records.len(),
        retriever.spec(),
        t0.elapsed().as_secs_f64(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
