//! Task loading, leakage-safe by type.
//!
//! A task record of the release carries both the public input (`id`, `type`, `query`,
//! `instruction`) and the scorer's reference (`ground_truth`, `evidence`). Loading splits every
//! record into a [`PublicTask`] and a [`Reference`] at once, so nothing downstream ever holds a
//! record with both. The retrieval and agent path only accepts `PublicTask`s
//! ([`load_public_tasks`]); only the evaluator asks for [`Benchmark::load`] and the references.
//!
//! Loading is strict: a file that is not a JSON array, a record without a usable id or query, a
//! field of the wrong type or an id seen twice stops with one error naming the file, the record
//! index and the field. Unknown extra fields are tolerated.

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
};

use serde::Serialize;
use serde_json::Value;

use crate::{Domain, Error, Language, Manifest, Result, Route, Split, TaskGroup};

/// The public part of a task: everything a system under test may see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublicTask {
    pub id: String,
    pub group: TaskGroup,
    /// The task's `type`; `None` where the release has JSON null.
    #[serde(rename = "type")]
    pub task_type: Option<String>,
    pub query: String,
    pub instruction: String,
    /// The one corpus route this task reads.
    pub route: Route,
    /// Task file relative to the benchmark directory (`finance/zh/descriptive.json`).
    pub source_file: String,
}

impl PublicTask {
    /// The task's type as the manifest and `--task-type` spell it (`"null"` for JSON null).
    pub fn type_key(&self) -> &str {
        crate::manifest::type_key(self.task_type.as_deref())
    }
}

/// The scorer's part of a task. Only the evaluator takes these.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub id: String,
    pub group: TaskGroup,
    pub task_type: Option<String>,
    /// `ground_truth` exactly as in the task file (absent becomes null).
    pub ground_truth: Value,
    /// `evidence` exactly as in the task file (absent becomes null).
    pub evidence: Value,
    pub source_file: String,
}

/// A loaded benchmark directory: public tasks in file order and their references by id.
#[derive(Debug)]
pub struct Benchmark {
    /// The directory the task files were read from (after resolving `query/`/`benchmark/`).
    pub dir: PathBuf,
    tasks: Vec<PublicTask>,
    references: HashMap<String, Reference>,
}

impl Benchmark {
    /// Load every task file below `dir` (or below `dir/query`, `dir/benchmark`).
    pub fn load(dir: &Path) -> Result<Benchmark> {
        let dir = resolve_benchmark_dir(dir)?;
        let files = task_files(&dir)?;
        let manifest = Manifest::get();
        let mut tasks = Vec::new();
        let mut references = HashMap::new();
        let mut seen: HashMap<String, String> = HashMap::new();
        for (path, rel, group) in files {
            let text = fs_err::read_to_string(&path)?;
            if text.trim().is_empty() {
                return Err(Error::task_file(&path, "file is empty; expected a JSON array of task objects"));
            }
            let value: Value = serde_json::from_str(&text).map_err(|e| {
                Error::task_file(&path, format!("invalid JSON at line {} column {}: {e}", e.line(), e.column()))
            })?;
            let Value::Array(rows) = value else {
                return Err(Error::task_file(
                    &path,
                    format!("expected a JSON array of task objects, found {}", kind_of(&value)),
                ));
            };
            for (index, row) in rows.into_iter().enumerate() {
                let (task, reference) = split_record(&path, index, row, group, &rel, manifest)?;
                if let Some(first) = seen.insert(task.id.clone(), rel.clone()) {
                    return Err(Error::task_file(
                        &path,
                        format!("record {index}: field `id`: duplicate task id {:?} (first seen in {first})", task.id),
                    ));
                }
                references.insert(task.id.clone(), reference);
                tasks.push(task);
            }
        }
        Ok(Benchmark { dir, tasks, references })
    }

    /// Public tasks in file order.
    pub fn tasks(&self) -> &[PublicTask] {
        &self.tasks
    }

    /// The reference of one task (evaluator only).
    pub fn reference(&self, id: &str) -> Option<&Reference> {
        self.references.get(id)
    }

    /// Split into public tasks and references (evaluator only).
    pub fn into_parts(self) -> (Vec<PublicTask>, HashMap<String, Reference>) {
        (self.tasks, self.references)
    }
}

/// Load only the public tasks. This is what the retrieval/agent path calls: the references are
/// dropped before this function returns.
pub fn load_public_tasks(dir: &Path) -> Result<Vec<PublicTask>> {
    Benchmark::load(dir).map(|b| b.tasks)
}

/// Accept a task directory itself, or a release checkout holding `query/` (or the older
/// `benchmark/`).
pub fn resolve_benchmark_dir(dir: &Path) -> Result<PathBuf> {
    if !dir.is_dir() {
        return Err(Error::BenchmarkDir {
            path: dir.to_path_buf(),
            message: "not a directory; pass the ANSER task folder (query/) with --benchmark-dir".into(),
        });
    }
    let has_layout = |d: &Path| ["legal", "finance", "science"].iter().any(|s| d.join(s).is_dir());
    if has_layout(dir) {
        return Ok(dir.to_path_buf());
    }
    for sub in ["query", "benchmark"] {
        let candidate = dir.join(sub);
        if has_layout(&candidate) {
            return Ok(candidate);
        }
    }
    Err(Error::BenchmarkDir {
        path: dir.to_path_buf(),
        message: "no task files: expected <domain>/<lang>/<split>.json or science/<split>.json below it (or below query/ or benchmark/)".into(),
    })
}

/// Every `*.json` below `dir` in sorted path order (the official runner's order), with its
/// relative path and group. A JSON file outside the release layout is an error.
fn task_files(dir: &Path) -> Result<Vec<(PathBuf, String, TaskGroup)>> {
    let mut files = Vec::new();
    collect_json(dir, &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let rel_path = path.strip_prefix(dir).unwrap_or(&path);
        let parts: Vec<String> = rel_path.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let rel = parts.join("/");
        let stem = |name: &str| name.strip_suffix(".json").unwrap_or(name).to_string();
        let group = match parts.as_slice() {
            [d, file] if d == "science" => Some((Domain::Science, Language::En, stem(file))),
            [d, l, file] => match (d.parse::<Domain>(), l.parse::<Language>()) {
                (Ok(d), Ok(l)) if d != Domain::Science => Some((d, l, stem(file))),
                _ => None,
            },
            _ => None,
        };
        let group = group.and_then(|(domain, language, split)| {
            let split: Split = split.parse().ok()?;
            let g = TaskGroup { domain, language, split };
            g.exists().then_some(g)
        });
        let Some(group) = group else {
            return Err(Error::task_file(
                &path,
                format!(
                    "{rel} is not an ANSER task file path (<legal|finance>/<zh|en>/<split>.json or science/<split>.json); move it out of the task folder"
                ),
            ));
        };
        out.push((path, rel, group));
    }
    if out.is_empty() {
        return Err(Error::BenchmarkDir { path: dir.to_path_buf(), message: "no *.json task files found".into() });
    }
    Ok(out)
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs_err::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_json(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn split_record(
    path: &Path,
    index: usize,
    row: Value,
    group: TaskGroup,
    rel: &str,
    manifest: &Manifest,
) -> Result<(PublicTask, Reference)> {
    let err = |field: &str, msg: String| Error::task_file(path, format!("record {index}: field `{field}`: {msg}"));
    let Value::Object(mut obj) = row else {
        return Err(Error::task_file(path, format!("record {index}: expected a task object, found {}", kind_of(&row))));
    };
    let id = match obj.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        // The official tools use str(id), so numeric ids are accepted as their text.
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(_)) => return Err(err("id", "is empty; every task needs a unique id".into())),
        None | Some(Value::Null) => return Err(err("id", "is missing; every task needs a unique id".into())),
        Some(v) => return Err(err("id", format!("must be a string, found {}", kind_of(v)))),
    };
    let at = |field: &str, msg: String| err(field, format!("(id {id}) {msg}"));
    let query = match obj.get("query") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err(at("query", "is empty".into())),
        None | Some(Value::Null) => return Err(at("query", "is missing".into())),
        Some(v) => return Err(at("query", format!("must be a string, found {}", kind_of(v)))),
    };
    let instruction = match obj.get("instruction") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(v) => return Err(at("instruction", format!("must be a string, found {}", kind_of(v)))),
    };
    let task_type = match obj.get("type") {
        Some(Value::String(s)) => Some(s.clone()),
        None | Some(Value::Null) => None,
        Some(v) => return Err(at("type", format!("must be a string or null, found {}", kind_of(v)))),
    };
    let route = manifest.resolve(&id, group, task_type.as_deref())?.route;
    let ground_truth = obj.remove("ground_truth").unwrap_or(Value::Null);
    let evidence = obj.remove("evidence").unwrap_or(Value::Null);
    let task = PublicTask {
        id: id.clone(),
        group,
        task_type: task_type.clone(),
        query,
        instruction,
        route,
        source_file: rel.to_string(),
    };
    let reference = Reference { id, group, task_type, ground_truth, evidence, source_file: rel.to_string() };
    Ok((task, reference))
}

/// Counts per group and type (the official runner's `--list`), as `anser tasks --json` prints.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct TaskCounts {
    pub total: usize,
    pub groups: BTreeMap<String, GroupCounts>,
}

/// Counts of one group.
#[derive(Debug, Serialize, PartialEq, Eq, Default)]
pub struct GroupCounts {
    pub count: usize,
    pub types: BTreeMap<String, usize>,
}

impl TaskCounts {
    /// Count tasks per group and per type (`"null"` for JSON null).
    pub fn of(tasks: &[PublicTask]) -> TaskCounts {
        let mut groups: BTreeMap<String, GroupCounts> = BTreeMap::new();
        for t in tasks {
            let g = groups.entry(t.group.name()).or_default();
            g.count += 1;
            *g.types.entry(t.type_key().to_string()).or_default() += 1;
        }
        TaskCounts { total: tasks.len(), groups }
    }
}
