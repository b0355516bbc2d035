//! anser-gold: the scorer's reference (ground truth and gold evidence), kept out of reach of the
//! system under test by the crate graph.
//!
//! `anser-manifest` parses task files into [`PublicTask`]s and never builds the reference fields.
//! This crate reads the same files through [`anser_manifest::load_task_files`] (so files, order,
//! validation and ids are the same) and adds each record's `ground_truth` and `evidence` as a
//! [`Reference`]. Only the evaluator, the reports crate and the binary's scoring commands (`eval`,
//! `compare`, `report`, `export-trec`, and the evaluation after `run`/`demo`) link it; the agent,
//! retriever, indexer and llm crates cannot reach it, which `scripts/check-deps.sh` checks in CI
//! (tests and benchmarks that script a mock from gold take it as a dev-dependency and say so).

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
};

pub use anser_manifest::PublicTask;
use anser_manifest::{TaskGroup, load_task_files};
use serde_json::{Map, Value};

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong while loading references.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The task files themselves are unusable (the same errors the run path reports).
    #[error(transparent)]
    Tasks(#[from] anser_manifest::Error),

    /// The task file parsed for its public fields but not as whole records (a bug in this crate
    /// if it ever happens, since both reads see the same text).
    #[error("{path}: {message}")]
    Reference { path: PathBuf, message: String },
}

impl Error {
    /// True when the error comes from user input (exit code 2) rather than from a bug.
    pub fn is_user_error(&self) -> bool {
        match self {
            Self::Tasks(e) => e.is_user_error(),
            Self::Reference { .. } => true,
        }
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
    /// Load every task file below `dir` (or below `dir/query`, `dir/benchmark`) with references.
    pub fn load(dir: &Path) -> Result<Benchmark> {
        let mut references = HashMap::new();
        let mut failure: Option<Error> = None;
        let set = load_task_files(dir, |file, text, tasks| {
            match references_of(&file.path, text, tasks) {
                Ok(refs) => references.extend(refs.into_iter().map(|r| (r.id.clone(), r))),
                // Kept aside so the manifest's error type does not need a variant for it.
                Err(e) => failure = Some(e),
            }
            Ok(())
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        Ok(Benchmark { dir: set.dir.clone(), tasks: set.into_tasks(), references })
    }

    /// Public tasks in file order.
    pub fn tasks(&self) -> &[PublicTask] {
        &self.tasks
    }

    /// The reference of one task.
    pub fn reference(&self, id: &str) -> Option<&Reference> {
        self.references.get(id)
    }

    /// Split into public tasks and references.
    pub fn into_parts(self) -> (Vec<PublicTask>, HashMap<String, Reference>) {
        (self.tasks, self.references)
    }
}

/// The references of one file whose public fields were already validated into `tasks`.
fn references_of(path: &Path, text: &str, tasks: &[PublicTask]) -> Result<Vec<Reference>> {
    let broken = |message: String| Error::Reference { path: path.to_path_buf(), message };
    let rows: Vec<Map<String, Value>> =
        serde_json::from_str(text).map_err(|e| broken(format!("reference fields unreadable: {e}")))?;
    if rows.len() != tasks.len() {
        return Err(broken(format!("{} records but {} public tasks", rows.len(), tasks.len())));
    }
    Ok(rows
        .into_iter()
        .zip(tasks)
        .map(|(mut row, task)| Reference {
            id: task.id.clone(),
            group: task.group,
            task_type: task.task_type.clone(),
            ground_truth: row.remove("ground_truth").unwrap_or(Value::Null),
            evidence: row.remove("evidence").unwrap_or(Value::Null),
            source_file: task.source_file.clone(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// References come from the same records as the public tasks, in the same order, with absent
    /// fields as null and repeated keys resolved to the last value (as Python's json does).
    #[test]
    fn references_match_the_public_tasks() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(
            dir.path(),
            "legal/zh/descriptive.json",
            "\u{feff}[{\"id\": \"a\", \"type\": \"sql\", \"query\": \"q\", \"ground_truth\": 1, \"ground_truth\": 2, \"evidence\": [\"x\"]},\n {\"id\": \"b\", \"type\": \"semantic\", \"query\": \"q2\"}]",
        );
        let bench = Benchmark::load(dir.path()).expect("loads");
        let ids: Vec<&str> = bench.tasks().iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        let a = bench.reference("a").expect("a");
        assert_eq!((&a.ground_truth, &a.evidence), (&Value::from(2), &serde_json::json!(["x"])));
        assert_eq!(a.source_file, "legal/zh/descriptive.json");
        let b = bench.reference("b").expect("b");
        assert_eq!((&b.ground_truth, &b.evidence), (&Value::Null, &Value::Null));
        // The public loader sees the same tasks.
        let public = anser_manifest::load_public_tasks(dir.path()).expect("public");
        assert_eq!(public, bench.tasks());
    }
}
