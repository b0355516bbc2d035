//! What an index was built from and how. Every route index records its corpus file's identity
//! (path, size, modification time, SHA-256 of the whole file and a SHA-256 of sampled blocks),
//! the chunking, the BM25 analyzers and parameters, the embedding model (id, dimension, content
//! identity) with the HNSW parameters, how its units were dated and which evidence kinds their
//! filter masks name, and the tool version with the on-disk format. Opening an index compares
//! this with the present corpus and the request, so a stale or mismatched index is an error,
//! never a silent wrong answer; an index of an older format is refused with one line that says
//! to re-run `anser index`.
//!
//! Size and modification time alone miss an edit that keeps both (a copy with `cp -p`, a
//! restored timestamp). Hashing the whole file on every open would cost seconds per route on
//! release-size files, so the default check hashes [`SAMPLE_BLOCKS`] blocks of
//! [`SAMPLE_BLOCK_BYTES`] at fixed offsets spread over the file (all of it when smaller), plus the
//! size: an edit inside a sampled block, any change of size and (when the modification time
//! moved) any content change are caught. `--verify` ([`set_full_verification`]) compares the full
//! SHA-256 instead, catching every change at the cost of reading the file.

use std::{
    io::{Read, Seek, SeekFrom},
    path::{Path, PathBuf},
    sync::atomic::{AtomicBool, Ordering},
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
/// 3: BM25 text tokenised by tantivy without fieldnorms or a `len` fast field; exact lengths
/// and per-block maxima in `bm25-stats-<segment>.bin` (block-max pruning).
/// 4: the per-block maxima are each block's (term frequency, length) Pareto front, so a block's
/// bound is its exact largest score for any k1 and b.
/// 5: a small build's BM25 index is one file, `index.pack` (tantivy's files and the statistics
/// files back to back, [`crate::pack`]).
/// 6: the BM25 fast fields hold only the values a unit has (no year, days or evidence mask
/// stored as a sentinel), so a segment of undated units has no date columns.
/// 7: each document's unit ordinal and filter attributes are in the BM25 statistics files, not
/// tantivy fast fields (only the threaded writer's segments keep an `ord` fast field, which the
/// build reads once).
pub const INDEX_FORMAT: u32 = 7;
pub(crate) const FINGERPRINT_FILE: &str = "fingerprint.json";

/// The tool that wrote an index.
pub fn tool_version() -> String {
    format!("anser-indexer {} format {INDEX_FORMAT}", env!("CARGO_PKG_VERSION"))
}

/// Blocks hashed by the default (sampled) content check.
pub const SAMPLE_BLOCKS: u64 = 64;
/// Size of one sampled block (64 blocks × 64 KiB = 4 MiB read per check, whatever the file size).
pub const SAMPLE_BLOCK_BYTES: u64 = 64 * 1024;

/// Whether fingerprint checks compare the full SHA-256 (`--verify`) instead of sampled blocks.
/// A process setting: the check runs deep inside every index open (retrievers, the agent's
/// searcher), and the commands that take `--verify` set it once before opening anything.
static FULL_VERIFICATION: AtomicBool = AtomicBool::new(false);

/// Make every later fingerprint check of this process hash whole corpus files (`--verify`).
pub fn set_full_verification(on: bool) {
    FULL_VERIFICATION.store(on, Ordering::Relaxed);
}

fn full_verification() -> bool {
    FULL_VERIFICATION.load(Ordering::Relaxed)
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
    /// Hex SHA-256 of the size and the sampled blocks ([`sampled_sha256`]); empty in indexes
    /// written before it existed (their check falls back to the full hash).
    #[serde(default)]
    pub sampled_sha256: String,
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

/// Offsets of the sampled blocks of a file of `size` bytes: evenly spread, the first at 0 and
/// the last ending at the end of the file; `[0]` (the whole file) when it is small.
fn sample_offsets(size: u64) -> Vec<u64> {
    if size <= SAMPLE_BLOCKS * SAMPLE_BLOCK_BYTES {
        return vec![0];
    }
    let span = size - SAMPLE_BLOCK_BYTES;
    (0..SAMPLE_BLOCKS)
        .map(|i| span / (SAMPLE_BLOCKS - 1) * i + span % (SAMPLE_BLOCKS - 1) * i / (SAMPLE_BLOCKS - 1))
        .collect()
}

/// Hex SHA-256 over the size and the sampled blocks of a file (each with its offset).
pub fn sampled_sha256(path: &Path) -> Result<String> {
    let mut file = fs_err::File::open(path)?;
    let size = file.metadata()?.len();
    let mut hasher = Sha256::new();
    hasher.update(size.to_le_bytes());
    let block = if size <= SAMPLE_BLOCKS * SAMPLE_BLOCK_BYTES { size } else { SAMPLE_BLOCK_BYTES };
    let mut buf = Vec::new();
    for offset in sample_offsets(size) {
        file.seek(SeekFrom::Start(offset))?;
        buf.clear();
        (&mut file).take(block).read_to_end(&mut buf)?;
        hasher.update(offset.to_le_bytes());
        hasher.update(&buf);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

impl CorpusIdentity {
    /// Identity of `path` now.
    pub fn of(path: &Path) -> Result<Self> {
        let (size, mtime_ns) = size_mtime(path)?;
        let path = fs_err::canonicalize(path)?;
        Ok(Self { sha256: sha256_file(&path)?, sampled_sha256: sampled_sha256(&path)?, path, size, mtime_ns })
    }

    /// `None` when `path` still holds the recorded content, else what changed. A different size
    /// is a change; otherwise the full SHA-256 decides under `--verify` or when the modification
    /// time moved, and the sampled blocks decide when it did not.
    pub fn changed(&self, path: &Path) -> Result<Option<String>> {
        if !path.is_file() {
            return Ok(Some(format!("corpus file {} no longer exists", path.display())));
        }
        let (size, mtime_ns) = size_mtime(path)?;
        if size != self.size {
            return Ok(Some(format!("corpus file {} changed size ({} → {size} bytes)", path.display(), self.size)));
        }
        let same = if full_verification() || mtime_ns != self.mtime_ns || self.sampled_sha256.is_empty() {
            sha256_file(path)? == self.sha256
        } else {
            sampled_sha256(path)? == self.sampled_sha256
        };
        if same {
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
                    .map(|p| {
                        format!("{}(k1={},b={},{:?})", p.analyzer, p.params.k1(), p.params.b(), p.params.idf_kind())
                    })
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
    use std::io::Write;

    use super::*;

    /// A file of `blocks` sampled-block sizes with deterministic content.
    fn write_file(path: &Path, bytes: u64) {
        let mut f = std::fs::File::create(path).expect("create");
        let data: Vec<u8> = (0..bytes).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8).collect();
        f.write_all(&data).expect("write");
    }

    /// Overwrite one byte at `at`, keeping size and modification time.
    fn poke(path: &Path, at: u64) {
        let before = std::fs::metadata(path).and_then(|m| m.modified()).expect("mtime");
        let mut f = std::fs::OpenOptions::new().read(true).write(true).open(path).expect("open");
        let mut b = [0u8; 1];
        f.seek(SeekFrom::Start(at)).expect("seek");
        f.read_exact(&mut b).expect("read");
        f.seek(SeekFrom::Start(at)).expect("seek");
        f.write_all(&[b[0] ^ 0xff]).expect("write");
        f.set_modified(before).expect("restore mtime");
    }

    #[test]
    fn sample_offsets_cover_both_ends() {
        assert_eq!(sample_offsets(10), vec![0]);
        let size = 10 * SAMPLE_BLOCKS * SAMPLE_BLOCK_BYTES + 12_345;
        let offsets = sample_offsets(size);
        assert_eq!(offsets.len() as u64, SAMPLE_BLOCKS);
        assert_eq!(offsets[0], 0);
        assert_eq!(offsets[offsets.len() - 1], size - SAMPLE_BLOCK_BYTES);
        assert!(offsets.windows(2).all(|w| w[0] < w[1]));
    }

    /// An edit that keeps size and modification time is caught by the default check when it is
    /// in a sampled block (a small file is sampled whole), and by `--verify` anywhere.
    #[test]
    fn content_edits_with_size_and_mtime_kept_are_detected() {
        let dir = tempfile::tempdir().expect("tempdir");
        let small = dir.path().join("small.sqlite");
        write_file(&small, 100_000);
        let id = CorpusIdentity::of(&small).expect("identity");
        assert_eq!(id.changed(&small).expect("check"), None);
        poke(&small, 54_321);
        assert!(id.changed(&small).expect("check").is_some_and(|m| m.contains("changed content")));

        // A large file: an edit inside the second sampled block is caught by default; one between
        // blocks only with full verification.
        let large = dir.path().join("large.sqlite");
        let size = 4 * SAMPLE_BLOCKS * SAMPLE_BLOCK_BYTES;
        write_file(&large, size);
        let id = CorpusIdentity::of(&large).expect("identity");
        let offsets = sample_offsets(size);
        let between = offsets[1] + SAMPLE_BLOCK_BYTES + 7;
        assert!(between < offsets[2]);
        poke(&large, between);
        assert_eq!(id.changed(&large).expect("check"), None, "outside the sampled blocks");
        set_full_verification(true);
        let verified = id.changed(&large).expect("check");
        set_full_verification(false);
        assert!(verified.is_some(), "--verify hashes the whole file");
        poke(&large, between);
        poke(&large, offsets[1] + 10);
        assert!(id.changed(&large).expect("check").is_some(), "inside a sampled block");
    }

    #[test]
    fn reads_the_format_of_a_tool_string() {
        assert_eq!(format_of(&tool_version()), Some(INDEX_FORMAT));
        assert_eq!(format_of("anser-indexer 0.1.0 format 1"), Some(1));
        assert_eq!(format_of("something else"), None);
    }
}
