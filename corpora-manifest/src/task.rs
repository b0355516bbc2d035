//! Task loading for the run path: public fields only, by construction.
//!
//! A task record of the release carries both the public input (`id`, `type`, `query`,
//! `instruction`) and the scorer's reference (`ground_truth`, `evidence`). This crate parses the
//! public fields only: every other key of a record (the reference fields included) is skipped
//! with [`serde::de::IgnoredAny`], so it is never even built into a value. The reference lives in
//! the `anser-gold` crate, which reads the same files for the evaluator and which no crate of the
//! run path (agent, retriever, indexer, llm) links (`scripts/check-deps.sh` enforces that).
//!
//! Loading is strict: a file that is not a JSON array, a record without a usable id or query, a
//! field of the wrong type (an `id` must be a JSON string) or an id seen twice stops with one
//! error naming the file, the record index and the field. Unknown extra fields are tolerated, and
//! so is a leading UTF-8 byte-order mark (editors on Windows write one).

use std::{
    collections::{BTreeMap, HashMap},
    fmt,
    path::{Path, PathBuf},
};

use serde::{
    Deserialize, Deserializer, Serialize,
    de::{IgnoredAny, MapAccess, SeqAccess, Visitor},
};
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

/// One task file of a benchmark directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFile {
    pub path: PathBuf,
    /// Relative to the benchmark directory, `/`-separated (`finance/zh/descriptive.json`).
    pub rel: String,
    pub group: TaskGroup,
}

/// The public tasks of a benchmark directory, in file order (what `anser run`, `retrieve` and
/// `tasks` load).
#[derive(Debug, Clone)]
pub struct TaskSet {
    /// The directory the task files were read from (after resolving `query/`/`benchmark/`).
    pub dir: PathBuf,
    tasks: Vec<PublicTask>,
}

impl TaskSet {
    /// Load every task file below `dir` (or below `dir/query`, `dir/benchmark`), public fields
    /// only.
    pub fn load(dir: &Path) -> Result<TaskSet> {
        load_task_files(dir, |_, _, _| Ok(()))
    }

    /// Public tasks in file order.
    pub fn tasks(&self) -> &[PublicTask] {
        &self.tasks
    }

    pub fn into_tasks(self) -> Vec<PublicTask> {
        self.tasks
    }
}

/// Load only the public tasks (the reference fields are never parsed).
pub fn load_public_tasks(dir: &Path) -> Result<Vec<PublicTask>> {
    TaskSet::load(dir).map(TaskSet::into_tasks)
}

/// Load every task file below `dir` strictly (public fields, unique ids), calling `per_file` with
/// each file, its text and its tasks once they are validated. The gold crate reads the reference
/// fields of the same text this way, so both sides agree on files, order and ids.
pub fn load_task_files(
    dir: &Path,
    mut per_file: impl FnMut(&TaskFile, &str, &[PublicTask]) -> Result<()>,
) -> Result<TaskSet> {
    let dir = resolve_benchmark_dir(dir)?;
    let files = task_files(&dir)?;
    let manifest = Manifest::get();
    let mut tasks = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    for file in files {
        let text = read_task_text(&file.path)?;
        let parsed = parse_public_records(&file, &text, manifest)?;
        for (index, task) in parsed.iter().enumerate() {
            if let Some(first) = seen.insert(task.id.clone(), file.rel.clone()) {
                return Err(Error::task_file(
                    &file.path,
                    format!("record {index}: field `id`: duplicate task id {:?} (first seen in {first})", task.id),
                ));
            }
        }
        per_file(&file, &text, &parsed)?;
        tasks.extend(parsed);
    }
    Ok(TaskSet { dir, tasks })
}

/// A task file's text without a leading UTF-8 byte-order mark; an empty file is an error.
fn read_task_text(path: &Path) -> Result<String> {
    let bytes = fs_err::read(path)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::task_file(path, format!("not UTF-8 text ({e}); save the file as UTF-8")))?;
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    };
    if text.trim().is_empty() {
        return Err(Error::task_file(path, "file is empty; expected a JSON array of task objects"));
    }
    Ok(text)
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
pub fn task_files(dir: &Path) -> Result<Vec<TaskFile>> {
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
        out.push(TaskFile { path, rel, group });
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

/// The public fields of one record; everything else was skipped unparsed.
#[derive(Debug, Default)]
struct PublicFields {
    id: Option<Value>,
    query: Option<Value>,
    instruction: Option<Value>,
    task_type: Option<Value>,
}

/// One element of a task file's array: an object's public fields, or what it was instead.
#[derive(Debug)]
enum PublicRecord {
    Object(Box<PublicFields>),
    Other(&'static str),
}

/// A task file's top level: an array of records, or what it was instead.
#[derive(Debug)]
enum PublicFile {
    Array(Vec<PublicRecord>),
    Other(&'static str),
}

/// `Deserialize` for `$out` through a visitor `$visitor` that reads the expected container with
/// the given `visit_seq`/`visit_map` and answers "this was not the expected container" for the
/// rest: every scalar names its kind; a container of the wrong kind is consumed with
/// `IgnoredAny` (never built) by the given method.
macro_rules! deserialize_or_kind {
    ($visitor:ident, $out:ident, $expecting:literal, { $($container_methods:tt)* }) => {
        struct $visitor;

        impl<'de> Visitor<'de> for $visitor {
            type Value = $out;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($expecting)
            }

            other_kinds!($out);

            $($container_methods)*
        }

        impl<'de> Deserialize<'de> for $out {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                d.deserialize_any($visitor)
            }
        }
    };
}

/// The scalar visitor methods of [`deserialize_or_kind!`]: each names its kind.
macro_rules! other_kinds {
    ($out:ident) => {
        other_kinds!($out;
            visit_bool(bool) "a boolean", visit_i64(i64) "a number", visit_u64(u64) "a number",
            visit_f64(f64) "a number", visit_str(&str) "a string";
            visit_unit "null", visit_none "null");
    };
    ($out:ident; $($with:ident($arg:ty) $kind:literal),*; $($without:ident $nothing:literal),*) => {
        $(
            fn $with<E>(self, _: $arg) -> std::result::Result<$out, E>
            where
                E: serde::de::Error,
            {
                Ok($out::Other($kind))
            }
        )*
        $(
            fn $without<E>(self) -> std::result::Result<$out, E>
            where
                E: serde::de::Error,
            {
                Ok($out::Other($nothing))
            }
        )*
    };
}

deserialize_or_kind!(RecordVisitor, PublicRecord, "a task object", {
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<PublicRecord, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(PublicRecord::Other("an array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<PublicRecord, A::Error> {
        let mut fields = PublicFields::default();
        // A repeated key keeps its last value, as Python's json module does.
        while let Some(key) = map.next_key::<String>()? {
            let slot = match key.as_str() {
                "id" => &mut fields.id,
                "query" => &mut fields.query,
                "instruction" => &mut fields.instruction,
                "type" => &mut fields.task_type,
                // `ground_truth`, `evidence` and any other key: skipped without building a value.
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value::<Value>()?);
        }
        Ok(PublicRecord::Object(Box::new(fields)))
    }
});

deserialize_or_kind!(FileVisitor, PublicFile, "a JSON array of task objects", {
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<PublicFile, A::Error> {
        let mut rows = Vec::new();
        while let Some(row) = seq.next_element::<PublicRecord>()? {
            rows.push(row);
        }
        Ok(PublicFile::Array(rows))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<PublicFile, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(PublicFile::Other("an object"))
    }
});

/// Parse and validate the public fields of every record of one task file.
fn parse_public_records(file: &TaskFile, text: &str, manifest: &Manifest) -> Result<Vec<PublicTask>> {
    let path = &file.path;
    let parsed: PublicFile = serde_json::from_str(text)
        .map_err(|e| Error::task_file(path, format!("invalid JSON at line {} column {}: {e}", e.line(), e.column())))?;
    let rows = match parsed {
        PublicFile::Array(rows) => rows,
        PublicFile::Other(kind) => {
            return Err(Error::task_file(path, format!("expected a JSON array of task objects, found {kind}")));
        }
    };
    rows.into_iter().enumerate().map(|(index, row)| public_task(file, index, row, manifest)).collect()
}

fn public_task(file: &TaskFile, index: usize, row: PublicRecord, manifest: &Manifest) -> Result<PublicTask> {
    let path = &file.path;
    let err = |field: &str, msg: String| Error::task_file(path, format!("record {index}: field `{field}`: {msg}"));
    let fields = match row {
        PublicRecord::Object(fields) => *fields,
        PublicRecord::Other(kind) => {
            return Err(Error::task_file(path, format!("record {index}: expected a task object, found {kind}")));
        }
    };
    let id = match fields.id {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(Value::String(_)) => return Err(err("id", "is empty; every task needs a unique id".into())),
        None | Some(Value::Null) => return Err(err("id", "is missing; every task needs a unique id".into())),
        Some(Value::Number(n)) => {
            return Err(err("id", format!("must be a string, found the number {n}; write it in quotes (\"{n}\")")));
        }
        Some(v) => return Err(err("id", format!("must be a string, found {}", kind_of(&v)))),
    };
    let at = |field: &str, msg: String| err(field, format!("(id {id}) {msg}"));
    let query = match fields.query {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(Value::String(_)) => return Err(at("query", "is empty".into())),
        None | Some(Value::Null) => return Err(at("query", "is missing".into())),
        Some(v) => return Err(at("query", format!("must be a string, found {}", kind_of(&v)))),
    };
    let instruction = match fields.instruction {
        Some(Value::String(s)) => s,
        None | Some(Value::Null) => String::new(),
        Some(v) => return Err(at("instruction", format!("must be a string, found {}", kind_of(&v)))),
    };
    let task_type = match fields.task_type {
        Some(Value::String(s)) => Some(s),
        None | Some(Value::Null) => None,
        Some(v) => return Err(at("type", format!("must be a string or null, found {}", kind_of(&v)))),
    };
    let route = manifest.resolve(&id, file.group, task_type.as_deref())?.route;
    Ok(PublicTask { id, group: file.group, task_type, query, instruction, route, source_file: file.rel.clone() })
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
