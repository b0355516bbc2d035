//! The run loop: select tasks, answer them with a [`Solver`] under a bounded pool, and keep
//! everything a researcher needs to trust and reproduce the numbers.
//!
//! Run directory `OUTPUT_DIR/NAME/`:
//! - `selection.json` — the public task inputs only;
//! - `metadata.json` — method settings, endpoints without keys, budgets, fingerprints of the
//!   task files, corpus files, indexes and prompts, the tool version;
//! - `results.journal.jsonl` — one line per finished task, fsynced (the source of truth);
//! - `results.json` — the official results format, rewritten atomically from the journal;
//! - `trace.jsonl` — every task's events (LLM calls, retrievals, tool calls) with timings;
//! - `results.retried.jsonl` / `trace.retried.jsonl` — the records and trace lines of failed
//!   attempts that a resume retried (kept, never scored).
//!
//! Crash safety: a `kill -9` loses at most the tasks in flight. A finished task's trace lines
//! are written and fsynced before its journal line, so every journaled task has its trace;
//! trace lines of a task without a journal line (killed in between) are dropped when the run is
//! resumed. `--resume` continues only when the settings and fingerprints match (it names what
//! changed otherwise), skips finished tasks, retries the ones that ended in `request_error` or
//! `timeout` (unless [`RunConfig::retry_failed`] is off) and never records a task twice.
//! Ctrl-C stops scheduling, cancels the tasks in flight and waits for them to unwind while the
//! async runtime is still alive (a task inside `block_in_place` must not wake up in a runtime
//! that is shutting down), journals those that finished anyway, writes `results.json` and
//! reports.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use anser_manifest::{PublicTask, SelectionEntry};
use anser_pycompat::round6_scaled;
pub use anser_record::{
    GenerationStatus, JOURNAL_FILE, METADATA_FILE, RESULTS_FILE, RETRIED_RESULTS_FILE, RETRIED_TRACE_FILE,
    ResultRecord, SELECTION_FILE, Stage, StageCost, Stages, TRACE_FILE, TraceEvent, unix_now,
};
use anser_runstore::{
    FingerprintSet, Journal, OpenMode, RunDir, RunName, read_journal_by_key, retain_lines, rewrite_journal,
    write_json_atomic,
};
use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use crate::trace::{TaskTrace, TraceWriter};
use crate::{
    Error, Result,
    solver::{Solved, Solver},
};

/// How often `results.json` is rewritten from the journal while a run is going.
pub const RESULTS_REWRITE_INTERVAL: Duration = Duration::from_secs(2);

/// Everything the run loop needs besides the solver.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub run_name: RunName,
    /// Parent of run directories (the CLI defaults to the workspace's `runs/`).
    pub output_dir: PathBuf,
    /// Selected tasks, in file order (public inputs only).
    pub tasks: Vec<PublicTask>,
    /// Task-pool size (≥ 1).
    pub concurrency: usize,
    pub resume: bool,
    /// On resume, run again the tasks whose record ended in `request_error` or `timeout`
    /// (`--no-retry-failed` turns this off). Successful tasks are never re-run.
    pub retry_failed: bool,
    /// Per-task wall-clock limit.
    pub deadline: Option<Duration>,
    pub quiet: bool,
    /// Settings that must not change across `--resume` (method, retriever, model, endpoint,
    /// budgets, prompt hashes). Keys and worker counts do not belong here.
    pub settings: BTreeMap<String, Value>,
    /// Inputs whose content must not change across `--resume`: labelled files (task files,
    /// corpus files, index fingerprints).
    pub inputs: Vec<(String, PathBuf)>,
    /// Free-form run description recorded in metadata (filters, command line).
    pub extra_metadata: BTreeMap<String, Value>,
}

impl RunConfig {
    /// A fresh run of `tasks` into `output_dir/<run_name>`: one task at a time, no deadline,
    /// no progress bar, nothing recorded for `--resume` to compare. Change fields with struct
    /// update syntax (`RunConfig { concurrency: 4, ..RunConfig::new(..) }`).
    pub fn new(run_name: RunName, output_dir: PathBuf, tasks: Vec<PublicTask>) -> Self {
        Self {
            run_name,
            output_dir,
            tasks,
            concurrency: 1,
            resume: false,
            retry_failed: true,
            deadline: None,
            quiet: true,
            settings: BTreeMap::new(),
            inputs: Vec::new(),
            extra_metadata: BTreeMap::new(),
        }
    }
}

/// `metadata.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Metadata {
    pub tool: String,
    pub tool_version: String,
    pub run_name: String,
    pub created_at: String,
    pub tasks: usize,
    pub by_group: BTreeMap<String, usize>,
    pub settings: BTreeMap<String, Value>,
    pub fingerprints: FingerprintSet,
    #[serde(default)]
    pub extra: BTreeMap<String, Value>,
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub run_dir: PathBuf,
    pub selected: usize,
    /// Finished in an earlier session of this run (resume).
    pub finished_before: usize,
    /// Tasks that ended in `request_error`/`timeout` in an earlier session and were run again.
    pub retried: usize,
    /// Failed tasks an earlier session left that were kept because retrying was off.
    pub failed_kept: usize,
    /// Trace lines dropped on resume because their task had no journal line (or were torn).
    pub orphan_trace_lines: usize,
    pub finished_now: usize,
    pub by_status: BTreeMap<String, usize>,
    /// Ctrl-C stopped the run before every task finished.
    pub interrupted: bool,
    pub wall_seconds: f64,
}

/// Run (or resume) a benchmark run.
pub fn run(config: &RunConfig, solver: Arc<dyn Solver>) -> Result<RunSummary> {
    if config.concurrency == 0 {
        return Err(Error::Param("--concurrency must be at least 1".into()));
    }
    let mut writer = RunWriter::open(config)?;
    writer.progress = progress_bar(config, writer.opened.finished_before);
    let pending = writer.pending();
    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.concurrency.clamp(2, 64))
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("cannot start the async runtime: {e}")))?;
    let interrupted = runtime.block_on(drive(config, solver, pending, &mut writer))?;
    writer.write_results()?;
    writer.progress.finish_and_clear();
    let opened = writer.opened;
    Ok(RunSummary {
        run_dir: writer.dir.path().to_path_buf(),
        selected: config.tasks.len(),
        finished_before: opened.finished_before,
        retried: opened.retried,
        failed_kept: opened.failed_kept,
        orphan_trace_lines: opened.orphan_trace_lines,
        finished_now: writer.done.len() - opened.finished_before,
        by_status: writer.by_status,
        interrupted,
        wall_seconds: started.elapsed().as_secs_f64(),
    })
}

/// What opening a run directory found (resume bookkeeping; all zero for a new run).
#[derive(Debug, Clone, Copy, Default)]
pub struct Opened {
    pub finished_before: usize,
    pub retried: usize,
    pub failed_kept: usize,
    pub orphan_trace_lines: usize,
}

/// An open run directory that takes finished tasks: `anser run`'s loop and the MCP server
/// (`anser-mcp`) both write through it, so their run directories are the same files with the
/// same crash safety. Opening writes `selection.json` and `metadata.json` (new run) or checks
/// them (resume), sets failed records aside for a retry and drops orphan trace lines.
#[derive(Debug)]
pub struct RunWriter {
    dir: RunDir,
    /// Selected task ids in selection order (the order of `results.json`).
    order: Vec<String>,
    tasks: Vec<PublicTask>,
    journal: Journal,
    tracer: TraceWriter,
    done: HashMap<String, ResultRecord>,
    last_write: Instant,
    by_status: BTreeMap<String, usize>,
    progress: ProgressBar,
    pub opened: Opened,
}

impl RunWriter {
    /// Create (or, with `config.resume`, reopen) the run directory.
    pub fn open(config: &RunConfig) -> Result<RunWriter> {
        if config.tasks.is_empty() {
            return Err(Error::Param("no task selected".into()));
        }
        let mode = if config.resume { OpenMode::Resume } else { OpenMode::New };
        let fingerprints = FingerprintSet::of_files(config.inputs.iter().map(|(l, p)| (l.as_str(), p.as_path())))?;
        let selection: Vec<SelectionEntry<'_>> = config.tasks.iter().map(Into::into).collect();
        let selection_value =
            serde_json::to_value(&selection).map_err(|e| Error::Internal(format!("selection: {e}")))?;
        let dir = RunDir::create(&config.output_dir, &config.run_name, mode)?;
        if config.resume {
            check_resume(&dir, &selection_value, config, &fingerprints)?;
        } else {
            write_json_atomic(&dir.file(SELECTION_FILE), &selection_value)?;
            let mut by_group = BTreeMap::new();
            for t in &config.tasks {
                *by_group.entry(t.group.name()).or_insert(0) += 1;
            }
            let metadata = Metadata {
                tool: "anser".into(),
                tool_version: env!("CARGO_PKG_VERSION").into(),
                run_name: config.run_name.to_string(),
                created_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
                tasks: config.tasks.len(),
                by_group,
                settings: config.settings.clone(),
                fingerprints,
                extra: config.extra_metadata.clone(),
            };
            write_json_atomic(&dir.file(METADATA_FILE), &metadata)?;
        }

        let previous = read_journal_by_key(&dir.file(JOURNAL_FILE), |r: &ResultRecord| r.id.clone())?;
        let selected_ids: HashSet<&str> = config.tasks.iter().map(|t| t.id.as_str()).collect();
        let (failed, kept): (Vec<ResultRecord>, Vec<ResultRecord>) = previous
            .records
            .into_iter()
            .partition(|r| retryable(r.generation_status) && selected_ids.contains(r.id.as_str()));
        let (retried, failed_kept) = if failed.is_empty() || !config.retry_failed {
            (0, failed.len())
        } else {
            set_aside(&dir, &failed, &kept)?;
            (failed.len(), 0)
        };
        let journal_records = if config.retry_failed { kept } else { kept.into_iter().chain(failed).collect() };
        let orphan_trace_lines = drop_orphan_trace_lines(&dir, &journal_records)?;
        let mut done: HashMap<String, ResultRecord> = HashMap::new();
        for r in journal_records {
            if selected_ids.contains(r.id.as_str()) {
                done.insert(r.id.clone(), r);
            }
        }
        let opened = Opened { finished_before: done.len(), retried, failed_kept, orphan_trace_lines };
        let journal = Journal::open(&dir.file(JOURNAL_FILE))?;
        let tracer = TraceWriter::open(&dir.file(TRACE_FILE))?;
        Ok(RunWriter {
            order: config.tasks.iter().map(|t| t.id.clone()).collect(),
            tasks: config.tasks.clone(),
            dir,
            journal,
            tracer,
            done,
            last_write: Instant::now(),
            by_status: BTreeMap::new(),
            progress: ProgressBar::hidden(),
            opened,
        })
    }

    /// The selected tasks without a record, in selection order.
    pub fn pending(&self) -> Vec<PublicTask> {
        self.tasks.iter().filter(|t| !self.done.contains_key(&t.id)).cloned().collect()
    }

    /// Whether `task_id` has a record.
    pub fn is_done(&self, task_id: &str) -> bool {
        self.done.contains_key(task_id)
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Record one finished task: its trace first (fsynced), then its journal line (fsynced), so
    /// a crash between the two leaves trace lines without a record (dropped on resume), never a
    /// record without its trace. `results.json` is rewritten at most every
    /// [`RESULTS_REWRITE_INTERVAL`].
    pub fn commit(&mut self, record: ResultRecord, trace: &TaskTrace) -> Result<()> {
        self.tracer.write(trace)?;
        self.journal.append(&record)?;
        let status = serde_json::to_value(record.generation_status)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        *self.by_status.entry(status).or_insert(0) += 1;
        self.done.insert(record.id.clone(), record);
        self.progress.inc(1);
        self.progress.set_message(status_line(&self.by_status));
        if self.last_write.elapsed() >= RESULTS_REWRITE_INTERVAL {
            self.write_results()?;
            self.last_write = Instant::now();
        }
        Ok(())
    }

    /// Rewrite `results.json` from the finished records, in selection order.
    pub fn write_results(&self) -> Result<()> {
        let ordered: Vec<&ResultRecord> = self.order.iter().filter_map(|id| self.done.get(id)).collect();
        write_json_atomic(&self.dir.file(RESULTS_FILE), &ordered)?;
        Ok(())
    }
}

/// Whether a record's task failed in a way a later attempt may fix (the endpoint, not the task).
fn retryable(status: GenerationStatus) -> bool {
    matches!(status, GenerationStatus::RequestError | GenerationStatus::Timeout)
}

/// Move the failed records (and their trace lines) to the `*.retried.jsonl` history and leave
/// `kept` as the journal. The history is appended and fsynced first, then the journal is
/// rewritten atomically: a crash in between repeats history lines, it never loses a record.
fn set_aside(dir: &RunDir, failed: &[ResultRecord], kept: &[ResultRecord]) -> Result<()> {
    let ids: HashSet<&str> = failed.iter().map(|r| r.id.as_str()).collect();
    let mut history = Journal::open(&dir.file(RETRIED_RESULTS_FILE))?;
    for r in failed {
        history.append(r)?;
    }
    let trace = match fs_err::read(dir.file(TRACE_FILE)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let lines: Vec<&[u8]> = trace
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| l.ends_with(b"\n") && task_of_line(l).is_some_and(|id| ids.contains(id.as_str())))
        .collect();
    if !lines.is_empty() {
        let tracer = TraceWriter::open(&dir.file(RETRIED_TRACE_FILE))?;
        tracer.write_raw(&lines.concat())?;
    }
    rewrite_journal(&dir.file(JOURNAL_FILE), kept)?;
    Ok(())
}

/// The task id of one trace line, if it parses.
fn task_of_line(line: &[u8]) -> Option<String> {
    serde_json::from_slice::<anser_record::trace::TraceLineId>(line).ok().map(|t| t.task_id)
}

/// Drop trace lines whose task has no journal record (written before a crash that came before
/// the journal line, or set aside for a retry) and a torn last line; returns how many went.
fn drop_orphan_trace_lines(dir: &RunDir, journal: &[ResultRecord]) -> Result<usize> {
    let ids: HashSet<&str> = journal.iter().map(|r| r.id.as_str()).collect();
    // A complete line that does not parse has no known task: keep it rather than guess.
    let kept =
        retain_lines(&dir.file(TRACE_FILE), |line| task_of_line(line).is_none_or(|id| ids.contains(id.as_str())))?;
    Ok(kept.dropped + usize::from(kept.torn_bytes > 0))
}

/// Schedule tasks on a bounded pool until all finish or Ctrl-C; returns whether interrupted.
async fn drive(
    config: &RunConfig,
    solver: Arc<dyn Solver>,
    pending: Vec<PublicTask>,
    state: &mut RunWriter,
) -> Result<bool> {
    let mut queue = pending.into_iter();
    let mut in_flight = tokio::task::JoinSet::new();
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        while in_flight.len() < config.concurrency {
            let Some(task) = queue.next() else { break };
            in_flight.spawn(answer_task(solver.clone(), task, config.deadline));
        }
        if in_flight.is_empty() {
            return Ok(false);
        }
        tokio::select! {
            joined = in_flight.join_next() => {
                let Some(joined) = joined else { continue };
                let (record, trace) = joined.map_err(|e| Error::Internal(format!("a task panicked or was cancelled: {e}")))?;
                state.commit(record, &trace)?;
            }
            _ = &mut ctrl_c => {
                // Cancel, then wait for every task to unwind while the runtime still runs: a
                // task inside `block_in_place` (retrieval, SQL) resumes polling when its blocking
                // call returns, and would panic in a runtime that is being shut down.
                in_flight.abort_all();
                while let Some(joined) = in_flight.join_next().await {
                    match joined {
                        Ok((record, trace)) => state.commit(record, &trace)?,
                        Err(e) if e.is_cancelled() => {}
                        Err(e) => return Err(Error::Internal(format!("a task panicked: {e}"))),
                    }
                }
                return Ok(true);
            }
        }
    }
}

/// Answer one task: time it, enforce the deadline, build its record and trace.
async fn answer_task(
    solver: Arc<dyn Solver>,
    task: PublicTask,
    deadline: Option<Duration>,
) -> (ResultRecord, TaskTrace) {
    let started = Instant::now();
    let mut trace = start_trace(&task, solver.name());
    let solved = match deadline {
        Some(limit) => match tokio::time::timeout(limit, solver.solve(&task, &mut trace)).await {
            Ok(s) => s,
            Err(_) => Solved::failed(
                GenerationStatus::Timeout,
                Vec::new(),
                format!("deadline of {:.1} s exceeded", limit.as_secs_f64()),
                None,
            ),
        },
        None => solver.solve(&task, &mut trace).await,
    };
    let record = finish_task(&task, solver.name(), solved, started.elapsed().as_secs_f64(), &mut trace);
    (record, trace)
}

/// A task's trace with its `task_start` event.
pub fn start_trace(task: &PublicTask, method: &str) -> TaskTrace {
    let mut trace = TaskTrace::new(&task.id);
    trace.note(
        "task_start",
        json!({"group": task.group.name(), "type": task.task_type, "route": task.route.as_str(), "method": method}),
    );
    trace
}

/// A finished task's record (latency in seconds), after its `task_end` event.
pub fn finish_task(
    task: &PublicTask,
    method: &str,
    solved: Solved,
    latency: f64,
    trace: &mut TaskTrace,
) -> ResultRecord {
    trace.note(
        "task_end",
        json!({"status": solved.status, "latency": round6_scaled(latency), "evidence": solved.evidence.len(), "errors": solved.errors}),
    );
    let usage = solved.usage;
    ResultRecord {
        id: task.id.clone(),
        answer: solved.answer,
        retrieved_evidence: solved.evidence,
        latency: round6_scaled(latency),
        prompt_tokens: usage.map(|u| u.prompt_tokens),
        completion_tokens: usage.map(|u| u.completion_tokens),
        total_tokens: usage.map(|u| u.total_tokens),
        generation_status: solved.status,
        errors: solved.errors,
        group: task.group.name(),
        route: task.route.as_str().to_string(),
        method: method.to_string(),
        tokens_estimated: usage.is_some_and(|u| u.estimated),
        stages: trace.stages(),
        flags: solved.flags,
    }
}

fn check_resume(dir: &RunDir, selection: &Value, config: &RunConfig, fingerprints: &FingerprintSet) -> Result<()> {
    let read = |name: &str| -> Result<Value> {
        let path = dir.file(name);
        let text = fs_err::read_to_string(&path)
            .map_err(|e| Error::Run(format!("{e}; this run cannot be resumed, choose a new --run-name")))?;
        serde_json::from_str(&text).map_err(|e| Error::Run(format!("{}: {e}", path.display())))
    };
    if &read(SELECTION_FILE)? != selection {
        return Err(Error::Run(
            "the task selection differs from the saved run (filters or task files changed); use a new --run-name"
                .into(),
        ));
    }
    let saved: Metadata = serde_json::from_value(read(METADATA_FILE)?)
        .map_err(|e| Error::Run(format!("{}: {e}", dir.file(METADATA_FILE).display())))?;
    let mut changes = Vec::new();
    for key in saved.settings.keys().chain(config.settings.keys()) {
        let (a, b) = (saved.settings.get(key), config.settings.get(key));
        if a != b && !changes.iter().any(|c: &String| c.starts_with(&format!("{key}:"))) {
            changes.push(format!(
                "{key}: {} -> {}",
                a.map_or("(absent)".into(), Value::to_string),
                b.map_or("(absent)".into(), Value::to_string)
            ));
        }
    }
    changes.extend(saved.fingerprints.content_changes(fingerprints).iter().map(ToString::to_string));
    if !changes.is_empty() {
        return Err(Error::Run(format!(
            "cannot resume {}: {} changed since the run started: {}; use a new --run-name",
            dir.path().display(),
            if changes.len() == 1 { "this" } else { "these" },
            changes.join("; ")
        )));
    }
    Ok(())
}

fn progress_bar(config: &RunConfig, finished_before: usize) -> ProgressBar {
    if config.quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(config.tasks.len() as u64);
    // Rate and ETA count only this session's tasks and stay blank until they mean something.
    if let Some(style) = anser_indexer::progress::style(
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {rate} ETA {left} {msg}",
        finished_before as u64,
    ) {
        bar.set_style(style);
    }
    bar.set_position(finished_before as u64);
    bar
}

fn status_line(by_status: &BTreeMap<String, usize>) -> String {
    by_status.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(" · ")
}

/// Read the finished records of a run directory (journal order, one per task).
pub fn read_records(run_dir: &Path) -> Result<Vec<ResultRecord>> {
    Ok(read_journal_by_key(&run_dir.join(JOURNAL_FILE), |r: &ResultRecord| r.id.clone())?.records)
}
