//! One-turn generation (`anser omb generate`): for each valid record, the stripped
//! `system_prompt` as a system message when non-empty, then the question verbatim, at
//! temperature 0 and without `max_tokens` (EvalScope's request, measured). Crash-safe: each
//! answer is journaled (fsynced) in `generations.jsonl` the moment it arrives; `--resume` skips
//! the records already answered and refuses a dataset that changed since the run started.

use std::{
    path::Path,
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use anser_runstore::{FingerprintSet, OpenMode, RunDir, RunName, SharedJournal, read_journal, write_json_atomic};
use serde::{Deserialize, Serialize};

use crate::{
    Error, Result,
    backend::{ChatBackend, ChatCall, Delivery, Role, TokenUsage},
    prompt::GENERATION_TEMPERATURE,
    record::{Dataset, Record},
};

/// Journal of generated answers inside the run directory.
pub const GENERATIONS_FILE: &str = "generations.jsonl";
/// Run metadata (model, endpoint, dataset fingerprint).
pub const RUN_FILE: &str = "run.json";
/// Totals of the last `generate` invocation.
pub const GENERATION_SUMMARY_FILE: &str = "generation_summary.json";
/// Concurrent generation requests.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// Generation settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateSettings {
    pub model: String,
    pub concurrency: usize,
    pub resume: bool,
}

/// `run.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    pub kind: String,
    pub model: String,
    /// Where requests went (never the key).
    pub endpoint: serde_json::Value,
    pub dataset: String,
    pub inputs: FingerprintSet,
    pub temperature: f64,
}

/// One journaled generation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    pub id: String,
    pub ok: bool,
    pub response: Option<String>,
    pub error: Option<String>,
    /// The reply's usage, latency, attempts, plain flag and stop reason (defaults on failure).
    #[serde(flatten)]
    pub delivery: Delivery,
}

impl Generation {
    /// What is pasted into the judge prompt: in `--mode evalscope` the completion with its
    /// first think block cut (EvalScope's prediction), in `--mode official` the text as is.
    pub fn prediction(&self, mode: crate::verdict::Mode) -> String {
        let text = self.response.clone().unwrap_or_default();
        match mode {
            crate::verdict::Mode::Evalscope if self.delivery.plain => crate::transport::cleave_think(&text),
            _ => text,
        }
    }
}

/// Totals of one `generate` invocation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GenerateSummary {
    pub run_dir: String,
    pub records: usize,
    pub invalid_records: usize,
    /// Answered in an earlier invocation (resume).
    pub already_done: usize,
    pub generated: usize,
    /// Of the generated, answers that are an HTTP client error's message (context length,
    /// content filter), judged like any answer as EvalScope does.
    pub error_answers: usize,
    pub failed: usize,
    pub usage: TokenUsage,
    pub latency_ms_mean: Option<f64>,
    pub latency_ms_max: Option<f64>,
}

/// The messages EvalScope sends for a record.
pub fn generation_call(record: &Record, model: &str) -> ChatCall {
    let mut messages = Vec::with_capacity(2);
    if let Some(system) = &record.system_prompt {
        messages.push((Role::System, system.clone()));
    }
    messages.push((Role::User, record.question.clone()));
    ChatCall { model: model.to_string(), messages, temperature: GENERATION_TEMPERATURE, max_tokens: None }
}

/// The successful answers journaled in a run directory, first per id.
pub fn load_generations(run_dir: &Path) -> Result<Vec<Generation>> {
    let all = read_journal::<Generation>(&run_dir.join(GENERATIONS_FILE))?;
    let mut seen = std::collections::HashSet::new();
    Ok(all.records.into_iter().filter(|g| g.ok && seen.insert(g.id.clone())).collect())
}

/// Run (or resume) generation for every valid record of `dataset`.
pub fn generate(
    dataset_path: &Path,
    dataset: &Dataset,
    runs_root: &Path,
    run_name: &RunName,
    endpoint: serde_json::Value,
    settings: &GenerateSettings,
    backend: &dyn ChatBackend,
) -> Result<GenerateSummary> {
    if settings.concurrency == 0 {
        return Err(Error::Setting("--concurrency must be at least 1".into()));
    }
    let inputs = FingerprintSet::of_files([("dataset", dataset_path)])?;
    let mode = if settings.resume { OpenMode::Resume } else { OpenMode::New };
    let run = RunDir::create(runs_root, run_name, mode)?;
    let meta_path = run.file(RUN_FILE);
    if settings.resume && meta_path.exists() {
        let text = fs_err::read_to_string(&meta_path)?;
        let recorded: RunMeta = serde_json::from_str(&text)
            .map_err(|e| Error::Input { path: meta_path.clone(), message: format!("unreadable run metadata: {e}") })?;
        let changes = recorded.inputs.content_changes(&inputs);
        if !changes.is_empty() {
            let changes = changes.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
            return Err(Error::InputsChanged { run: run.path().to_path_buf(), changes });
        }
        if recorded.model != settings.model {
            return Err(Error::Setting(format!(
                "run {} was generated with model {:?}, not {:?}; resume with the same --model",
                run.path().display(),
                recorded.model,
                settings.model
            )));
        }
    } else {
        let meta = RunMeta {
            kind: "omb-generate".into(),
            model: settings.model.clone(),
            endpoint,
            dataset: dataset_path.display().to_string(),
            inputs,
            temperature: GENERATION_TEMPERATURE,
        };
        write_json_atomic(&meta_path, &meta)?;
    }

    let done: std::collections::HashSet<String> = load_generations(run.path())?.into_iter().map(|g| g.id).collect();
    let todo: Vec<&Record> = dataset.records.iter().filter(|r| !done.contains(&r.id)).collect();
    // Group commit: workers whose answers arrive together share one fsync.
    let journal = SharedJournal::open(&run.file(GENERATIONS_FILE))?;
    let finished: Mutex<Vec<Generation>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..settings.concurrency.min(todo.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(record) = todo.get(i) else { break };
                    if failure.lock().map_or(true, |f| f.is_some()) {
                        break;
                    }
                    let generation = match backend.chat(&generation_call(record, &settings.model)) {
                        Ok(reply) => Generation {
                            id: record.id.clone(),
                            ok: true,
                            response: Some(reply.text),
                            error: None,
                            delivery: reply.delivery,
                        },
                        Err(e) => Generation {
                            id: record.id.clone(),
                            ok: false,
                            response: None,
                            error: Some(e),
                            delivery: Delivery {
                                usage: TokenUsage::default(),
                                latency_ms: 0.0,
                                attempts: 0,
                                plain: true,
                                stop_reason: None,
                            },
                        },
                    };
                    match journal.append(&generation).map_err(Error::from) {
                        Ok(()) => {
                            if let Ok(mut f) = finished.lock() {
                                f.push(generation);
                            }
                        }
                        Err(e) => {
                            if let Ok(mut f) = failure.lock() {
                                f.get_or_insert(e);
                            }
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let finished = finished.into_inner().unwrap_or_default();
    let ok: Vec<&Generation> = finished.iter().filter(|g| g.ok).collect();
    let mut usage = TokenUsage::default();
    for g in &ok {
        usage.add(&g.delivery.usage);
    }
    let latencies: Vec<f64> = ok.iter().map(|g| g.delivery.latency_ms).collect();
    let summary = GenerateSummary {
        run_dir: run.path().display().to_string(),
        records: dataset.records.len(),
        invalid_records: dataset.invalid.len(),
        already_done: done.len(),
        generated: ok.len(),
        error_answers: ok.iter().filter(|g| g.delivery.stop_reason.is_some()).count(),
        failed: finished.len() - ok.len(),
        usage,
        latency_ms_mean: crate::pycompat::py_mean(&latencies),
        latency_ms_max: latencies.iter().copied().reduce(f64::max),
    };
    write_json_atomic(&run.file(GENERATION_SUMMARY_FILE), &summary)?;
    Ok(summary)
}
