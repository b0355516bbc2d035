//! Helpers shared by the CLI tests: run the binary, find the examples and ../shared.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// Run `anser` with `args`; returns the full output.
pub fn anser(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_anser")).args(args).output().expect("the anser binary runs")
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
}
