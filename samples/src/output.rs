//! The output folder: refuse to overwrite anything that is not the same sample, build in a
//! staging folder next to it, move into place, and leave a marker (`anser-sample.json`) naming
//! the generator version, seed, size and every file with its byte length.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use serde::{Deserialize, Serialize};

use crate::{Error, GENERATOR_VERSION, Result, SampleOptions, Size};

/// Name of the marker file at the root of a generated sample.
pub const MARKER_FILE: &str = "anser-sample.json";

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSummary {
    /// Path relative to the sample root (`corpus/legal/zh/legal_wenshu.db`).
    pub path: String,
    pub bytes: u64,
}

/// What [`crate::generate`] produced (or found already in place).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleSummary {
    pub generator: String,
    pub generator_version: u32,
    pub seed: u64,
    pub size: Size,
    /// Fraction of the size's counts (written only when below 1, so full-size markers keep
    /// their bytes).
    #[serde(default = "full", skip_serializing_if = "is_full")]
    pub fraction: f64,
    /// True when the folder already held this sample and nothing was written.
    #[serde(skip)]
    pub reused: bool,
    /// The sample root.
    #[serde(skip)]
    pub out_dir: PathBuf,
    /// Tasks per group (`legal_zh_descriptive` → 12).
    pub tasks: BTreeMap<String, usize>,
    /// Rows (SQLite, all tables) or records (JSONL) per corpus route.
    pub corpus_rows: BTreeMap<String, u64>,
    /// Every corpus and task file, sorted by path.
    pub files: Vec<FileSummary>,
}

impl SampleSummary {
    /// `DIR/corpus`.
    pub fn corpus_dir(&self) -> PathBuf {
        self.out_dir.join("corpus")
    }

    /// `DIR/query`.
    pub fn query_dir(&self) -> PathBuf {
        self.out_dir.join("query")
    }

    /// Total number of tasks.
    pub fn task_count(&self) -> usize {
        self.tasks.values().sum()
    }

    /// Total bytes of the generated files.
    pub fn total_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }
}

fn full() -> f64 {
    crate::DEFAULT_FRACTION
}

fn is_full(f: &f64) -> bool {
    *f >= 1.0
}

enum Existing {
    /// Missing or an empty directory.
    Free,
    /// Holds this very sample.
    Same(SampleSummary),
}

fn inspect(options: &SampleOptions, dir: &Path) -> Result<Existing> {
    let user = |message: String| Error::OutputDir { path: dir.to_path_buf(), message };
    if !dir.exists() {
        return Ok(Existing::Free);
    }
    if !dir.is_dir() {
        return Err(user("exists and is not a directory; choose another --out".into()));
    }
    if fs_err::read_dir(dir)?.next().is_none() {
        return Ok(Existing::Free);
    }
    let marker = dir.join(MARKER_FILE);
    if !marker.is_file() {
        return Err(user(format!(
            "is not empty and holds no sample ({MARKER_FILE} is missing); refusing to overwrite it — choose an empty or new --out"
        )));
    }
    let text = fs_err::read_to_string(&marker)?;
    let mut found: SampleSummary = serde_json::from_str(&text).map_err(|e| {
        user(format!("{MARKER_FILE} is unreadable ({e}); refusing to overwrite — choose an empty or new --out"))
    })?;
    if found.seed != options.seed
        || found.size != options.size
        || found.fraction != options.fraction
        || found.generator_version != GENERATOR_VERSION
    {
        return Err(user(format!(
            "holds a different sample (seed {}, size {}, scale {}, generator version {}) than requested (seed {}, size {}, scale {}, version {}); \
             refusing to overwrite it — choose another --out or delete that folder",
            found.seed,
            found.size,
            found.fraction,
            found.generator_version,
            options.seed,
            options.size,
            options.fraction,
            GENERATOR_VERSION
        )));
    }
    for f in &found.files {
        let len = fs_err::metadata(dir.join(&f.path)).map(|m| m.len()).ok();
        if len != Some(f.bytes) {
            return Err(user(format!(
                "holds the same sample (seed {}, size {}) but {} is missing or modified; delete the folder and generate again",
                options.seed, options.size, f.path
            )));
        }
    }
    found.reused = true;
    found.out_dir = dir.to_path_buf();
    Ok(Existing::Same(found))
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<FileSummary>) -> Result<()> {
    for entry in fs_err::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            list_files(root, &path, out)?;
        } else {
            let rel = path.strip_prefix(root).map_err(|e| Error::bug(e.to_string()))?;
            let rel: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            out.push(FileSummary { path: rel.join("/"), bytes: fs_err::metadata(&path)?.len() });
        }
    }
    Ok(())
}

pub(crate) fn generate(options: &SampleOptions, out_dir: &Path) -> Result<SampleSummary> {
    options.validate()?;
    if let Existing::Same(summary) = inspect(options, out_dir)? {
        return Ok(summary);
    }
    let name = out_dir
        .file_name()
        .ok_or_else(|| Error::OutputDir {
            path: out_dir.to_path_buf(),
            message: "has no folder name; pass a folder path".into(),
        })?
        .to_string_lossy()
        .into_owned();
    let parent = match out_dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs_err::create_dir_all(&parent)?;
    static STAGING: AtomicU64 = AtomicU64::new(0);
    let staging = parent.join(format!(
        ".{name}.sample-staging-{}-{}",
        std::process::id(),
        STAGING.fetch_add(1, Ordering::Relaxed)
    ));
    if staging.exists() {
        fs_err::remove_dir_all(&staging)?;
    }
    fs_err::create_dir_all(&staging)?;
    let built = build_and_mark(options, &staging);
    let summary = match built {
        Ok(s) => s,
        Err(e) => {
            let _ = fs_err::remove_dir_all(&staging);
            return Err(e);
        }
    };
    if out_dir.exists() {
        // Checked empty above; remove_dir refuses anything else, so nothing can be lost.
        fs_err::remove_dir(out_dir)?;
    }
    fs_err::rename(&staging, out_dir)?;
    Ok(SampleSummary { out_dir: out_dir.to_path_buf(), ..summary })
}

fn build_and_mark(options: &SampleOptions, root: &Path) -> Result<SampleSummary> {
    let built = crate::build_into(options, root)?;
    let mut files = Vec::new();
    list_files(root, root, &mut files)?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let summary = SampleSummary {
        generator: "anser-samples".into(),
        generator_version: GENERATOR_VERSION,
        seed: options.seed,
        size: options.size,
        fraction: options.fraction,
        reused: false,
        out_dir: root.to_path_buf(),
        tasks: built.groups.iter().map(|(g, t)| (g.name(), t.len())).collect(),
        corpus_rows: built.rows.iter().map(|(r, n)| (r.to_string(), *n)).collect(),
        files,
    };
    let marker = root.join(MARKER_FILE);
    let mut text =
        serde_json::to_string_pretty(&summary).map_err(|source| Error::Json { path: marker.clone(), source })?;
    text.push('\n');
    anser_runstore::write_atomic(&marker, text.as_bytes()).map_err(std::io::Error::from)?;
    Ok(summary)
}
