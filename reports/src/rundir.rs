//! Reading a run directory written by `anser run`: the selection, the result records, the
//! per-task scores of `evaluation.json` (or recomputed by the evaluator), the metadata and the
//! trace. Each reader names the file and, for records, the position that is wrong.

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
};

use anser_evaluator::{Evaluation, Metric};
use anser_record::{
    METADATA_FILE, PublicTask, RESULTS_FILE, ResultRecord, Route, SELECTION_FILE, TRACE_FILE, TaskGroup, TraceEvent,
};
use serde_json::Value;

use crate::{Error, Result};

/// The evaluation file inside a run directory.
pub const EVALUATION_FILE: &str = "evaluation.json";

/// One selected task, as `selection.json` records it.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectedTask {
    pub id: String,
    pub group: String,
    pub task_type: Option<String>,
    pub route: String,
    /// The public task, when the entry has every public field (for evidence-kind checks).
    pub public: Option<PublicTask>,
}

/// One task's scores from the evaluator.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskScore {
    pub id: String,
    pub group: String,
    pub task_type: Option<String>,
    /// In the evaluator's order; `None` = attempted but unavailable.
    pub metrics: Vec<(Metric, Option<f64>)>,
    pub errors: Vec<String>,
}

impl TaskScore {
    /// The value that enters the group's mean: the evaluator's aggregation counts a null
    /// Accuracy@10% of a finance task as 0 (spec §6), so it is 0 here too.
    pub fn value(&self, metric: Metric) -> Option<f64> {
        let (_, v) = self.metrics.iter().find(|(m, _)| *m == metric)?;
        match v {
            Some(v) => Some(*v),
            None if metric == Metric::Accuracy10 && self.group.starts_with("finance_") => Some(0.0),
            None => None,
        }
    }

    /// Whether the task has the metric at all (with or without a value).
    pub fn has(&self, metric: Metric) -> bool {
        self.metrics.iter().any(|(m, _)| *m == metric)
    }
}

/// Per-task scores of one run, by id (first occurrence kept).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskScores {
    /// Where they came from (`evaluation.json` path or "recomputed").
    pub source: String,
    pub tasks: Vec<TaskScore>,
    index: HashMap<String, usize>,
}

impl TaskScores {
    /// Scores from task rows (the first row of an id wins).
    pub fn new(source: String, tasks: Vec<TaskScore>) -> TaskScores {
        let mut kept = Vec::with_capacity(tasks.len());
        let mut index = HashMap::new();
        for t in tasks {
            if !index.contains_key(&t.id) {
                index.insert(t.id.clone(), kept.len());
                kept.push(t);
            }
        }
        TaskScores { source, tasks: kept, index }
    }

    pub fn get(&self, id: &str) -> Option<&TaskScore> {
        self.index.get(id).map(|&i| &self.tasks[i])
    }

    /// Scores of an evaluation computed in this process.
    pub fn from_evaluation(source: &str, evaluation: &Evaluation) -> TaskScores {
        let tasks = evaluation
            .details()
            .map(|d| TaskScore {
                id: d.id.clone(),
                group: d.task_group.clone(),
                task_type: d.task_type.clone(),
                metrics: d.metrics.clone(),
                errors: d.errors.clone(),
            })
            .collect();
        TaskScores::new(source.to_string(), tasks)
    }

    /// Parse `evaluation.json` (the official schema: `files[].details[]`).
    pub fn read(path: &Path) -> Result<TaskScores> {
        let value = read_json(path)?;
        let bad =
            |m: String| Error::run_file(path, format!("{m}; this is not an evaluation.json written by `anser eval`"));
        let files = value.get("files").and_then(Value::as_array).ok_or_else(|| bad("no `files` array".into()))?;
        let mut tasks = Vec::new();
        for (fi, file) in files.iter().enumerate() {
            let details = file
                .get("details")
                .and_then(Value::as_array)
                .ok_or_else(|| bad(format!("files[{fi}] has no `details` array")))?;
            for (di, d) in details.iter().enumerate() {
                let at = |field: &str| format!("files[{fi}].details[{di}].{field}");
                let text = |field: &str| -> Result<String> {
                    d.get(field)
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| bad(format!("{} is not a string", at(field))))
                };
                let metrics_obj = d
                    .get("metrics")
                    .and_then(Value::as_object)
                    .ok_or_else(|| bad(format!("{} is not an object", at("metrics"))))?;
                let mut metrics = Vec::with_capacity(metrics_obj.len());
                for (name, v) in metrics_obj {
                    let Some(metric) = Metric::from_name(name) else {
                        return Err(bad(format!("{}: unknown metric {name:?}", at("metrics"))));
                    };
                    let v = match v {
                        Value::Null => None,
                        Value::Number(n) => n.as_f64(),
                        other => return Err(bad(format!("{}.{name} is {other}, not a number or null", at("metrics")))),
                    };
                    metrics.push((metric, v));
                }
                let errors = d
                    .get("errors")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                    .unwrap_or_default();
                tasks.push(TaskScore {
                    id: text("id")?,
                    group: text("task_group")?,
                    task_type: d.get("task_type").and_then(Value::as_str).map(str::to_string),
                    metrics,
                    errors,
                });
            }
        }
        Ok(TaskScores::new(path.display().to_string(), tasks))
    }
}

/// A run directory, read.
#[derive(Debug, Clone)]
pub struct RunData {
    pub dir: PathBuf,
    /// The directory's name (what tables and JSON call the run).
    pub name: String,
    /// `metadata.json`, when present.
    pub metadata: Option<Value>,
    /// The selected tasks in order (from `selection.json`, else from the results).
    pub selection: Vec<SelectedTask>,
    /// `results.json`, in file order.
    pub results: Vec<ResultRecord>,
    /// `results.json` as raw objects (keys this system does not model, e.g. `selected_population`).
    pub raw_results: Vec<Value>,
    /// Per-task scores, when `evaluation.json` exists (or after [`RunData::set_scores`]).
    pub scores: Option<TaskScores>,
}

impl RunData {
    /// Read `dir`: `results.json` is required, the other files are optional.
    pub fn open(dir: &Path) -> Result<RunData> {
        if !dir.is_dir() {
            return Err(Error::run_file(dir, "not a directory; pass a run directory written by `anser run`"));
        }
        let results_path = dir.join(RESULTS_FILE);
        if !results_path.is_file() {
            return Err(Error::run_file(
                &results_path,
                "missing; this is not a run directory (run `anser run` first, or pass outputs/runs/NAME)",
            ));
        }
        let raw = read_json(&results_path)?;
        let Value::Array(raw_results) = raw else {
            return Err(Error::run_file(&results_path, "not a JSON array of result records"));
        };
        let mut results = Vec::with_capacity(raw_results.len());
        for (i, r) in raw_results.iter().enumerate() {
            let record: ResultRecord = serde_json::from_value(r.clone()).map_err(|e| {
                Error::run_file(
                    &results_path,
                    format!("record {}: {e}; this file was not written by `anser run`", i + 1),
                )
            })?;
            results.push(record);
        }
        let selection_path = dir.join(SELECTION_FILE);
        let selection = if selection_path.is_file() {
            read_selection(&selection_path)?
        } else {
            results
                .iter()
                .map(|r| SelectedTask {
                    id: r.id.clone(),
                    group: r.group.clone(),
                    task_type: None,
                    route: r.route.clone(),
                    public: None,
                })
                .collect()
        };
        let metadata_path = dir.join(METADATA_FILE);
        let metadata = if metadata_path.is_file() { Some(read_json(&metadata_path)?) } else { None };
        let evaluation_path = dir.join(EVALUATION_FILE);
        let scores = if evaluation_path.is_file() { Some(TaskScores::read(&evaluation_path)?) } else { None };
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| dir.display().to_string());
        Ok(RunData { dir: dir.to_path_buf(), name, metadata, selection, results, raw_results, scores })
    }

    /// Replace the scores (after recomputing them with the evaluator).
    pub fn set_scores(&mut self, scores: TaskScores) {
        self.scores = Some(scores);
    }

    /// The task type of a selected task (selection first, then the evaluation).
    pub fn task_type(&self, id: &str) -> Option<String> {
        self.selection
            .iter()
            .find(|t| t.id == id)
            .and_then(|t| t.task_type.clone())
            .or_else(|| self.scores.as_ref().and_then(|s| s.get(id)).and_then(|s| s.task_type.clone()))
    }

    /// A metadata value by path (`["settings", "method"]`).
    pub fn meta(&self, path: &[&str]) -> Option<&Value> {
        let mut v = self.metadata.as_ref()?;
        for key in path {
            v = v.get(key)?;
        }
        Some(v)
    }

    /// The method that produced the run (metadata, else the first record).
    pub fn method(&self) -> Option<String> {
        self.meta(&["settings", "method"])
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| self.results.first().map(|r| r.method.clone()))
    }

    /// `trace.jsonl` events, in file order; `None` when the run has no trace.
    pub fn trace(&self) -> Result<Option<Vec<TraceEvent>>> {
        let path = self.dir.join(TRACE_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let text = fs_err::read_to_string(&path)?;
        let mut events = Vec::new();
        let complete = text.ends_with('\n');
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<TraceEvent>(line) {
                Ok(e) => events.push(e),
                // A crash can cut the last line short; everything before it is intact.
                Err(_) if i + 1 == lines.len() && !complete => break,
                Err(e) => {
                    return Err(Error::run_file(
                        &path,
                        format!("line {}: {e}; this file was not written by `anser run`", i + 1),
                    ));
                }
            }
        }
        Ok(Some(events))
    }

    /// Group name of every selected or answered task.
    pub fn groups_by_id(&self) -> HashMap<&str, &str> {
        let mut out: HashMap<&str, &str> = self.results.iter().map(|r| (r.id.as_str(), r.group.as_str())).collect();
        for t in &self.selection {
            out.entry(t.id.as_str()).or_insert(t.group.as_str());
        }
        out
    }

    /// Number of selected tasks per group.
    pub fn tasks_per_group(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for t in &self.selection {
            *out.entry(t.group.clone()).or_insert(0) += 1;
        }
        out
    }
}

fn read_json(path: &Path) -> Result<Value> {
    let text = fs_err::read_to_string(path)?;
    serde_json::from_str(&text).map_err(|e| Error::run_file(path, format!("invalid JSON: {e}")))
}

fn read_selection(path: &Path) -> Result<Vec<SelectedTask>> {
    let Value::Array(entries) = read_json(path)? else {
        return Err(Error::run_file(path, "not a JSON array of selected tasks"));
    };
    let mut out = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let field = |k: &str| e.get(k).and_then(Value::as_str);
        let (Some(id), Some(group)) = (field("id"), field("group")) else {
            return Err(Error::run_file(path, format!("entry {}: needs string `id` and `group`", i + 1)));
        };
        let task_type = field("type").map(str::to_string);
        let route = field("route").unwrap_or_default().to_string();
        let public = public_task(e, id, group, task_type.clone(), &route);
        out.push(SelectedTask { id: id.to_string(), group: group.to_string(), task_type, route, public });
    }
    Ok(out)
}

/// The public task of a selection entry, when its group and route parse.
fn public_task(entry: &Value, id: &str, group: &str, task_type: Option<String>, route: &str) -> Option<PublicTask> {
    let group: TaskGroup = group.parse().ok()?;
    let route = Route::ALL.into_iter().find(|r| r.as_str() == route)?;
    let text = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let path = text("_benchmark_path");
    Some(PublicTask {
        id: id.to_string(),
        group,
        task_type,
        query: text("query"),
        instruction: text("instruction"),
        route,
        source_file: path.strip_prefix("query/").unwrap_or(&path).to_string(),
    })
}

/// Where a run's task files and corpus were, as `anser run` recorded them in `metadata.json`.
impl RunData {
    pub fn recorded_benchmark_dir(&self) -> Option<PathBuf> {
        self.meta(&["extra", "benchmark_dir"]).and_then(Value::as_str).map(PathBuf::from)
    }

    pub fn recorded_corpus_root(&self) -> Option<PathBuf> {
        self.meta(&["extra", "corpus_root"]).and_then(Value::as_str).map(PathBuf::from)
    }

    /// Score `results.json` with the evaluator (card profile, judge skipped, no BERTScore) and
    /// keep the per-task scores; `corpus_root` enables the regulatory-rule id lookup.
    pub fn score(&mut self, bench: &anser_evaluator::Benchmark, corpus_root: Option<PathBuf>) -> Result<()> {
        use anser_evaluator::{EvalOptions, JudgeMode, Profile, ResultsInput, evaluate};
        let input = ResultsInput::Path { input: self.dir.join(RESULTS_FILE), output: None };
        let options = EvalOptions { profile: Profile::Card, corpus_root, judge: JudgeMode::Skip, bertscore: None };
        let evaluation = evaluate(&input, bench, &options)?;
        self.scores = Some(TaskScores::from_evaluation("recomputed (judge skipped)", &evaluation));
        Ok(())
    }
}
