//! One workspace layout for every command, so a newcomer never has to repeat where things are:
//!
//! ```text
//! WORKSPACE/            (--workspace DIR or ANSER_WORKSPACE; default: the current folder)
//!   query/              task files              (--benchmark-dir)
//!   corpus/             the ten corpus files    (--corpus-root)
//!   indices/            `anser index` output    (--index-dir)
//!   runs/NAME/          `anser run` output      (--output-dir)
//! ```
//!
//! `anser demo` writes exactly this layout, and the ANSER-Bench release unpacks into it. A path
//! flag the user gives (or its environment variable) is used as given; only a flag left at its
//! default is looked up in the workspace. Commands that read a run directory (`eval RUN_DIR`,
//! `compare`, `report`) take the task folder and corpus root the run recorded in its
//! `metadata.json`, or else the run's own workspace (`RUN_DIR/../..`), so they need no flags.

use std::path::{Path, PathBuf};

use clap::{ArgMatches, parser::ValueSource};
use serde_json::Value;

use super::{
    demo::DemoArgs,
    eval::EvalArgs,
    index::IndexArgs,
    report::ReportArgs,
    run::{RunArgs, RunTargetArgs},
};

/// Task files inside a workspace.
pub const QUERY_DIR: &str = "query";
/// Corpus files inside a workspace.
pub const CORPUS_DIR: &str = "corpus";
/// Indexes inside a workspace.
pub const INDEX_DIR: &str = "indices";
/// Run directories inside a workspace.
pub const RUNS_DIR: &str = "runs";

/// The workspace folder of this invocation.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    /// Whether --workspace (or ANSER_WORKSPACE) named it.
    given: bool,
}

/// Whether argument `id` of `matches` was left at its default value.
fn defaulted(matches: Option<&ArgMatches>, id: &str) -> bool {
    matches.and_then(|m| m.value_source(id)) == Some(ValueSource::DefaultValue)
}

/// `path` made absolute against the current folder (left alone if that fails), so what a run
/// records in its metadata stays valid from any other folder.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Workspace {
    /// `root`, or the current folder.
    pub fn new(root: Option<PathBuf>) -> Self {
        Self { given: root.is_some(), root: root.unwrap_or_else(|| PathBuf::from(".")) }
    }

    /// `name` inside the workspace (relative when the workspace is the current folder).
    pub fn join(&self, name: &str) -> PathBuf {
        if self.root == Path::new(".") { PathBuf::from(name) } else { self.root.join(name) }
    }

    /// Replace `value` by the workspace's `name` when the flag `id` was not given.
    fn place(&self, matches: Option<&ArgMatches>, id: &str, value: &mut PathBuf, name: &str) {
        if defaulted(matches, id) {
            *value = self.join(name);
        }
    }

    /// `anser run`: task folder, corpus, indexes and runs from the workspace unless given;
    /// all made absolute so the run's metadata names folders that work from anywhere.
    pub fn apply_run(&self, args: &mut RunArgs, matches: Option<&ArgMatches>) {
        self.apply_run_target(&mut args.target, matches);
    }

    /// The input folders and run parent of `anser run`, `anser mcp` and `anser serve --mcp`.
    pub fn apply_run_target(&self, args: &mut RunTargetArgs, matches: Option<&ArgMatches>) {
        self.place(matches, "benchmark_dir", &mut args.benchmark_dir, QUERY_DIR);
        self.place(matches, "corpus_root", &mut args.corpus_root, CORPUS_DIR);
        self.place(matches, "index_dir", &mut args.index_dir, INDEX_DIR);
        self.place(matches, "output_dir", &mut args.output_dir, RUNS_DIR);
        for path in [&mut args.benchmark_dir, &mut args.corpus_root, &mut args.index_dir, &mut args.output_dir] {
            *path = absolute(path);
        }
    }

    /// `anser demo`: a named workspace is where the demo writes, unless --out says otherwise.
    pub fn apply_demo(&self, args: &mut DemoArgs, matches: Option<&ArgMatches>) {
        if self.given && defaulted(matches, "out") {
            args.out = self.root.clone();
        }
    }

    /// `anser index`: corpus and index folder from the workspace unless given.
    pub fn apply_index(&self, args: &mut IndexArgs, matches: Option<&ArgMatches>) {
        self.place(matches, "corpus_root", &mut args.corpus_root, CORPUS_DIR);
        self.place(matches, "index_dir", &mut args.index_dir, INDEX_DIR);
    }

    /// `anser eval`: for a run directory, the task folder and corpus the run recorded; else the
    /// workspace's (the corpus only when the workspace has one).
    pub fn apply_eval(&self, args: &mut EvalArgs, matches: Option<&ArgMatches>) {
        let run_dir = is_run_dir(&args.results).then_some(args.results.as_path());
        if defaulted(matches, "benchmark_dir") {
            args.benchmark_dir = run_dir
                .and_then(|d| recorded_dir(d, "benchmark_dir", QUERY_DIR))
                .unwrap_or_else(|| self.join(QUERY_DIR));
        }
        if args.corpus_root.is_none() {
            args.corpus_root = run_dir
                .and_then(|d| recorded_dir(d, "corpus_root", CORPUS_DIR))
                .or_else(|| Some(self.join(CORPUS_DIR)).filter(|c| c.is_dir()));
        }
    }

    /// `anser report`: task folder and corpus as the run recorded them (used only when the run
    /// has no evaluation.json yet).
    pub fn apply_report(&self, args: &mut ReportArgs) {
        if args.benchmark_dir.is_none() {
            args.benchmark_dir = recorded_dir(&args.run, "benchmark_dir", QUERY_DIR);
        }
        if args.corpus_root.is_none() {
            args.corpus_root = recorded_dir(&args.run, "corpus_root", CORPUS_DIR);
        }
    }

    /// `anser tasks` / `anser corpus check`: the workspace's task folder or corpus unless given.
    pub fn apply_path(&self, matches: Option<&ArgMatches>, id: &str, value: &mut PathBuf, name: &str) {
        self.place(matches, id, value, name);
    }
}

/// Whether `dir` looks like a run directory written by `anser run` or `anser demo`.
pub fn is_run_dir(dir: &Path) -> bool {
    dir.join("metadata.json").is_file()
}

/// A folder the run in `run_dir` recorded under `extra.<key>` in its metadata.json, when it is
/// still a directory; otherwise `<name>` of the run's own workspace (`RUN_DIR/../..`, the
/// layout `anser run` and `anser demo` write) when that exists — so a workspace that was moved
/// or copied keeps working.
pub fn recorded_dir(run_dir: &Path, key: &str, name: &str) -> Option<PathBuf> {
    let recorded = fs_err::read_to_string(run_dir.join("metadata.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|meta| meta.get("extra").and_then(|e| e.get(key)).and_then(Value::as_str).map(PathBuf::from));
    if let Some(dir) = recorded.filter(|d| d.is_dir()) {
        return Some(dir);
    }
    let workspace = absolute(run_dir).parent()?.parent()?.to_path_buf();
    Some(workspace.join(name)).filter(|d| d.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_dir_prefers_the_metadata_then_the_runs_workspace() {
        let ws = tempfile::tempdir().expect("tempdir");
        let run = ws.path().join(RUNS_DIR).join("r1");
        fs_err::create_dir_all(&run).expect("mkdir");
        let elsewhere = tempfile::tempdir().expect("tempdir");
        let meta = serde_json::json!({"extra": {"benchmark_dir": elsewhere.path()}});
        fs_err::write(run.join("metadata.json"), meta.to_string()).expect("write");
        assert_eq!(recorded_dir(&run, "benchmark_dir", QUERY_DIR).as_deref(), Some(elsewhere.path()));
        assert_eq!(recorded_dir(&run, "corpus_root", CORPUS_DIR), None, "no corpus anywhere");
        fs_err::create_dir_all(ws.path().join(CORPUS_DIR)).expect("mkdir");
        assert_eq!(recorded_dir(&run, "corpus_root", CORPUS_DIR), Some(ws.path().join(CORPUS_DIR)));
    }

    #[test]
    fn a_named_workspace_prefixes_the_default_folders_only() {
        assert_eq!(Workspace::new(None).join(QUERY_DIR), PathBuf::from("query"));
        assert_eq!(Workspace::new(Some("/w".into())).join(RUNS_DIR), PathBuf::from("/w/runs"));
    }
}
