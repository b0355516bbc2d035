//! Helpers shared by the CLI tests: run the binary, find the examples and ../shared.

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
};

/// Start `anser mock-llm` with `args` (include `--port 0`); returns the child, its first
/// stdout line and the base URL printed in it (`None` when it printed none: it failed to start).
pub fn spawn_mock_llm(args: &[&str]) -> (Child, String, Option<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_anser"))
        .arg("mock-llm")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mock-llm starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first).expect("first line");
    let url = first.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:")).map(str::to_string);
    (child, first, url)
}

/// Run `anser` with `args`; returns the full output.
pub fn anser(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_anser")).args(args).output().expect("the anser binary runs")
}

/// Each task's metrics in an `evaluation.json` (its first results file), by task id.
pub fn metrics_by_id(evaluation: &serde_json::Value) -> std::collections::BTreeMap<&str, &serde_json::Value> {
    evaluation["files"][0]["details"]
        .as_array()
        .expect("details")
        .iter()
        .map(|d| (d["id"].as_str().expect("id"), &d["metrics"]))
        .collect()
}

/// The bundled example task folder.
pub fn examples_query() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/query")
}

/// The shared reference folder, or `None` (after printing the skip reason).
pub fn shared(what: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("ANSER_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    if dir.join("anser").is_dir() {
        Some(dir)
    } else {
        anser_manifest::missing_prerequisite(what, "../shared not found (set ANSER_SHARED)");
        None
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Copy a directory tree (test fixtures are built from the bundled examples).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// Run `anser` with `args` and extra environment variables (set on the child only, so tests
/// running in parallel threads never see each other's settings).
pub fn anser_env(args: &[&str], env: &[(String, String)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_anser"));
    for var in ["EMBEDDING_BACKEND", "EMBEDDING_BASE_URL", "EMBEDDING_MODEL", "EMBEDDING_API_KEY", "EMBEDDING_DIM"] {
        command.env_remove(var);
    }
    command.args(args).envs(env.iter().map(|(k, v)| (k, v))).output().expect("the anser binary runs")
}

/// `anser run --method vanilla --run-name NAME` on `bench` and `corpus` into `out`, quietly, with
/// chat requests to the loopback mock at `base_url`.
pub fn vanilla_run_args<'a>(
    name: &'a str,
    bench: &'a str,
    corpus: &'a str,
    out: &'a str,
    base_url: &'a str,
) -> Vec<&'a str> {
    vec![
        "run",
        "--method",
        "vanilla",
        "--run-name",
        name,
        "--benchmark-dir",
        bench,
        "--corpus-root",
        corpus,
        "--output-dir",
        out,
        "--base-url",
        base_url,
        "--model",
        "mock-llm",
        "--quiet",
    ]
}

/// Every string and number inside a JSON value, in document order (the leaves a leak scan
/// compares).
pub fn string_leaves(v: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        Value::Object(o) => o.values().for_each(|x| string_leaves(x, out)),
        _ => {}
    }
}

/// Dimension of the mock's embeddings in the shared index.
pub const MOCK_EMBEDDING_DIM: usize = 16;

/// The generated sample with BM25 and dense indexes whose vectors come from the API embedder
/// pointed at a loopback mock's `/v1/embeddings`, so no ONNX model is needed. The mock also
/// answers chat requests. Query-time embedding needs the same endpoint: pass [`Self::env`].
pub struct IndexedSample {
    pub mock: anser_llm::mock::MockServer,
    /// `anser sample --out`'s `query/` and `corpus/`.
    pub query: PathBuf,
    pub corpus: PathBuf,
    pub index: PathBuf,
    /// Wall time of `anser sample` + `anser index`.
    pub build_seconds: f64,
    _dir: tempfile::TempDir,
}

/// The fixture while some test holds it; built again only if every holder has finished.
static INDEXED: std::sync::Mutex<std::sync::Weak<IndexedSample>> = std::sync::Mutex::new(std::sync::Weak::new());

impl IndexedSample {
    /// The shared fixture (built on first use; concurrent callers wait for it).
    pub fn get() -> std::sync::Arc<IndexedSample> {
        let mut slot = INDEXED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(fixture) = slot.upgrade() {
            return fixture;
        }
        let fixture = std::sync::Arc::new(Self::build());
        *slot = std::sync::Arc::downgrade(&fixture);
        fixture
    }

    fn build() -> IndexedSample {
        let started = std::time::Instant::now();
        let mock = anser_llm::mock::MockServer::start(anser_llm::mock::MockConfig::instant()).expect("mock starts");
        let dir = tempfile::tempdir().expect("tempdir");
        let sample = dir.path().join("sample");
        let index = dir.path().join("index");
        let o = anser(&["sample", "--out", sample.to_str().expect("utf8")]);
        assert!(o.status.success(), "anser sample: {}", stderr(&o));
        let (query, corpus) = (sample.join("query"), sample.join("corpus"));
        let mut fixture = IndexedSample { mock, query, corpus, index, build_seconds: 0.0, _dir: dir };
        let o = anser_env(
            &[
                "index",
                "--corpus-root",
                fixture.corpus_root(),
                "--index-dir",
                fixture.index_dir(),
                "--embedding-backend",
                "api",
                "--quiet",
                "--json",
            ],
            &fixture.env(),
        );
        assert!(o.status.success(), "anser index: {}", stderr(&o));
        let reports: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("index reports");
        assert_eq!(reports.as_array().map(Vec::len), Some(10), "every route indexed: {reports}");
        assert!(
            fixture.mock.requests().iter().any(|r| r.path == "/v1/embeddings"),
            "the dense vectors came from the mock's /v1/embeddings"
        );
        fixture.build_seconds = started.elapsed().as_secs_f64();
        eprintln!("indexed sample (BM25 + API embeddings) built in {:.1} s", fixture.build_seconds);
        fixture
    }

    /// `EMBEDDING_*` for the child processes: the API backend on the mock.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("EMBEDDING_BACKEND".into(), "api".into()),
            ("EMBEDDING_BASE_URL".into(), self.mock.base_url()),
            ("EMBEDDING_MODEL".into(), "mock-embedding".into()),
            ("EMBEDDING_DIM".into(), MOCK_EMBEDDING_DIM.to_string()),
        ]
    }

    pub fn benchmark_dir(&self) -> &str {
        self.query.to_str().expect("utf8")
    }

    pub fn corpus_root(&self) -> &str {
        self.corpus.to_str().expect("utf8")
    }

    pub fn index_dir(&self) -> &str {
        self.index.to_str().expect("utf8")
    }

    /// `anser run --method METHOD --run-name NAME` on this fixture's tasks, corpus and indexes,
    /// into `out`, quietly; add to it with [`RunArgs`]'s methods.
    pub fn run_args(&self, method: &str, name: &str, out: &str) -> RunArgs {
        RunArgs(
            [
                "run",
                "--method",
                method,
                "--run-name",
                name,
                "--benchmark-dir",
                self.benchmark_dir(),
                "--corpus-root",
                self.corpus_root(),
                "--index-dir",
                self.index_dir(),
                "--output-dir",
                out,
                "--quiet",
            ]
            .map(String::from)
            .to_vec(),
        )
    }
}

/// An `anser run` argument list built by [`IndexedSample::run_args`].
#[derive(Debug, Clone)]
pub struct RunArgs(pub Vec<String>);

impl RunArgs {
    /// Chat requests go to `base_url` (a loopback mock) with the mock's model name.
    pub fn chat(self, base_url: &str) -> RunArgs {
        self.args(&["--base-url", base_url, "--model", "mock-llm"])
    }

    /// Read the tasks from `dir` instead of the fixture's.
    pub fn benchmark_dir(mut self, dir: &str) -> RunArgs {
        if let Some(at) = self.0.iter().position(|a| a == "--benchmark-dir") {
            self.0[at + 1] = dir.to_string();
        }
        self
    }

    pub fn args(mut self, more: &[&str]) -> RunArgs {
        self.0.extend(more.iter().map(|a| a.to_string()));
        self
    }

    /// The arguments as [`anser`] and [`anser_env`] take them.
    pub fn strs(&self) -> Vec<&str> {
        self.0.iter().map(String::as_str).collect()
    }
}
