//! What an index was built from and how. Every route index records its corpus file's identity
//! (path, size, modification time, SHA-256), the chunking, the BM25 analyzers and parameters,
//! the embedding model (id, dimension, content identity) with the HNSW parameters, how its units
//! were dated and which evidence kinds their filter masks name, and the tool version with the
//! on-disk format. Opening an index compares this with the present corpus and the request, so a
//! stale or mismatched index is an error, never a silent wrong answer; an index of an older
//! format is refused with one line that says to re-run `anser index`.

use std::{
    io::Read,
    path::{Path, PathBuf},
    time::UNIX_EPOCH,
};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use anser_manifest::{Dating, Route};

use crate::{Analyzer, Bm25Params, Chunking, EmbedderSpec, Error, HnswParams, Result, units::ReadStats};

/// Version of the on-disk layout; bump when files change meaning.
///
/// 2: units carry their record's dates and evidence-kind mask (BM25 fast fields `year`,
/// `day_first`, `day_last`, `evidence`; `unit_attrs.bin`), for filters inside the search.
pub const INDEX_FORMAT: u32 = 2;
pub(crate) const FINGERPRINT_FILE: &str = "fingerprint.json";

/// The tool that wrote an index.
pub fn tool_version() -> String {
    format!("anser-indexer {} format {INDEX_FORMAT}", env!("CARGO_PKG_VERSION"))
}

/// The on-disk format named by a `tool` string of a fingerprint (`… format N`).
fn format_of(tool: &str) -> Option<u32> {
    tool.rsplit_once(" format ").and_then(|(_, n)| n.trim().parse().ok())
}

/// Identity of a corpus file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorpusIdentity {
    /// Absolute path at build time.
    pub path: PathBuf,
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch (0 when the OS gives none).
    pub mtime_ns: u64,
    /// Hex SHA-256 of the content.
    pub sha256: String,
}

fn size_mtime(path: &Path) -> Result<(u64, u64)> {
    let meta = fs_err::metadata(path)?;
    let mtime = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as u64);
    Ok((meta.len(), mtime))
}

/// Hex SHA-256 of a file.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = fs_err::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

impl CorpusIdentity {
    /// Identity of `path` now.
    pub fn of(path: &Path) -> Result<Self> {
        let (size, mtime_ns) = size_mtime(path)?;
        let path = fs_err::canonicalize(path)?;
        Ok(Self { sha256: sha256_file(&path)?, path, size, mtime_ns })
    }

    /// `None` when `path` still holds the recorded content (size and mtime equal, or the
    /// content hash equal), else what changed.
    pub fn changed(&self, path: &Path) -> Result<Option<String>> {
        if !path.is_file() {
            return Ok(Some(format!("corpus file {} no longer exists", path.display())));
        }
        let (size, mtime_ns) = size_mtime(path)?;
        if size == self.size && mtime_ns == self.mtime_ns {
            return Ok(None);
        }
        if size != self.size {
            return Ok(Some(format!("corpus file {} changed size ({} → {size} bytes)", path.display(), self.size)));
        }
        if sha256_file(path)? == self.sha256 {
            return Ok(None);
        }
        Ok(Some(format!("corpus file {} changed content since the index was built", path.display())))
    }
}

/// One BM25 index of a route.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bm25Part {
    pub analyzer: Analyzer,
    /// Parameters searches use unless the retriever spec overrides them.
    pub params: Bm25Params,
}

/// The dense part of a route index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DensePart {
    pub model_id: String,
    pub dim: usize,
    /// Content hash (ONNX) or endpoint (API) of the model.
    pub identity: String,
    pub embedder: EmbedderSpec,
    pub hnsw: HnswParams,
}

/// Everything a route index was built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub tool: String,
    pub route: Route,
    pub corpus: CorpusIdentity,
    pub chunking: Chunking,
    pub stats: ReadStats,
    pub bm25: Vec<Bm25Part>,
    pub dense: Option<DensePart>,
    /// How the units' records were dated (the manifest's `dated` entry); `None`: undated.
    pub dated: Option<Dating>,
    /// The route's evidence kinds in mask-bit order (bit i = `evidence_kinds[i]`).
    pub evidence_kinds: Vec<String>,
}

impl Fingerprint {
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join(FINGERPRINT_FILE);
        if !path.is_file() {
            return Err(Error::MissingIndex {
                path: dir.to_path_buf(),
                message: "no index here (fingerprint.json missing); build it with `anser index`".into(),
            });
        }
        let text = fs_err::read_to_string(&path)?;
        // The format first, so an index of an older layout gets one clear line, not a
        // complaint about whichever field changed.
        let tool = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("tool").and_then(|t| t.as_str()).map(str::to_string));
        if let Some(found) = tool.as_deref().and_then(format_of).filter(|f| *f != INDEX_FORMAT) {
            return Err(Error::OldFormat { path: dir.to_path_buf(), found });
        }
        serde_json::from_str(&text).map_err(|e| Error::Stale {
            path,
            message: format!("unreadable fingerprint ({e}); it was written by another version"),
        })
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| Error::Param(e.to_string()))?;
        anser_runstore::write_atomic(&dir.join(FINGERPRINT_FILE), (text + "\n").as_bytes())
            .map_err(std::io::Error::from)?;
        Ok(())
    }

    /// Differences between what this index holds and what a build request asks for.
    pub fn mismatches(&self, want: &Fingerprint) -> Vec<String> {
        let mut out = Vec::new();
        if self.tool != want.tool {
            out.push(format!("built by {}, this is {}", self.tool, want.tool));
        }
        if self.chunking != want.chunking {
            out.push(format!("chunking {:?}, requested {:?}", self.chunking, want.chunking));
        }
        if self.bm25 != want.bm25 {
            let names = |v: &[Bm25Part]| {
                v.iter()
                    .map(|p| format!("{}(k1={},b={},{:?})", p.analyzer, p.params.k1, p.params.b, p.params.idf))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            out.push(format!("BM25 {}, requested {}", names(&self.bm25), names(&want.bm25)));
        }
        match (&self.dense, &want.dense) {
            (Some(a), Some(b)) if a != b => out.push(format!(
                "embeddings {} ({} dims, {}), requested {} ({} dims, {})",
                a.model_id, a.dim, a.identity, b.model_id, b.dim, b.identity
            )),
            (None, Some(b)) => out.push(format!("no embeddings, requested {}", b.model_id)),
            (Some(a), None) => out.push(format!("embeddings {} present, none requested", a.model_id)),
            _ => {}
        }
        if self.dated != want.dated {
            out.push(format!("units dated by {:?}, the manifest now says {:?}", self.dated, want.dated));
        }
        if self.evidence_kinds != want.evidence_kinds {
            out.push(format!(
                "evidence kinds {:?}, the manifest now says {:?}",
                self.evidence_kinds, want.evidence_kinds
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_format_of_a_tool_string() {
        assert_eq!(format_of(&tool_version()), Some(INDEX_FORMAT));
        assert_eq!(format_of("anser-indexer 0.1.0 format 1"), Some(1));
        assert_eq!(format_of("something else"), None);
    }
}
