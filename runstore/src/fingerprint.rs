//! File fingerprints (size, mtime, sha256) and their comparison. A run records the fingerprints
//! of its inputs (dataset, prompts, configuration); `--resume` compares them with the files now on
//! disk and refuses to mix results computed from different inputs, naming what changed. A file
//! that was only touched (same size and hash, new mtime) is reported but is not a content change.

use std::{collections::BTreeMap, fmt, io::Read, path::Path};

use fs_err as fs;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::Result;

/// Size, modification time and content hash of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Size in bytes.
    pub size: u64,
    /// Modification time: seconds since the Unix epoch (negative before 1970).
    pub mtime_secs: i64,
    /// Modification time: nanoseconds within the second.
    pub mtime_nanos: u32,
    /// Lowercase hex sha256 of the content.
    pub sha256: String,
}

impl Fingerprint {
    /// Fingerprint the file at `path` (reads it once, in blocks).
    pub fn of(path: &Path) -> Result<Self> {
        let mut file = fs::File::open(path)?;
        let meta = file.metadata()?;
        let (mtime_secs, mtime_nanos) = match meta.modified()?.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => (i64::try_from(d.as_secs()).unwrap_or(i64::MAX), d.subsec_nanos()),
            Err(before) => {
                let d = before.duration();
                (-i64::try_from(d.as_secs()).unwrap_or(i64::MAX), d.subsec_nanos())
            }
        };
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut size = 0u64;
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            size += n as u64;
            hasher.update(&buf[..n]);
        }
        Ok(Self { size, mtime_secs, mtime_nanos, sha256: hex(&hasher.finalize()) })
    }

    fn same_mtime(&self, other: &Self) -> bool {
        (self.mtime_secs, self.mtime_nanos) == (other.mtime_secs, other.mtime_nanos)
    }
}

/// Lowercase hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Fingerprints of a run's inputs, keyed by a label such as `"dataset"`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FingerprintSet(pub BTreeMap<String, Fingerprint>);

impl FingerprintSet {
    /// Fingerprint each `(label, path)`.
    pub fn of_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a Path)>) -> Result<Self> {
        let mut set = BTreeMap::new();
        for (label, path) in files {
            set.insert(label.to_string(), Fingerprint::of(path)?);
        }
        Ok(Self(set))
    }

    /// What changed from `self` (recorded) to `current`, in label order; empty when identical.
    pub fn diff(&self, current: &Self) -> Vec<Change> {
        let mut changes = Vec::new();
        for (label, before) in &self.0 {
            let kind = match current.0.get(label) {
                None => ChangeKind::Removed,
                Some(after) if after.sha256 != before.sha256 || after.size != before.size => ChangeKind::Content {
                    size_before: before.size,
                    size_after: after.size,
                    sha256_before: before.sha256.clone(),
                    sha256_after: after.sha256.clone(),
                },
                Some(after) if !after.same_mtime(before) => ChangeKind::MtimeOnly,
                Some(_) => continue,
            };
            changes.push(Change { label: label.clone(), kind });
        }
        for label in current.0.keys().filter(|l| !self.0.contains_key(*l)) {
            changes.push(Change { label: label.clone(), kind: ChangeKind::Added });
        }
        changes.sort_by(|a, b| a.label.cmp(&b.label));
        changes
    }

    /// The changes that matter for resuming: everything except [`ChangeKind::MtimeOnly`].
    pub fn content_changes(&self, current: &Self) -> Vec<Change> {
        self.diff(current).into_iter().filter(|c| c.kind != ChangeKind::MtimeOnly).collect()
    }
}

/// One difference between two fingerprint sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The input's label.
    pub label: String,
    /// What changed.
    pub kind: ChangeKind,
}

/// The kind of a [`Change`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    /// The input is new.
    Added,
    /// The input is gone.
    Removed,
    /// The content differs.
    Content { size_before: u64, size_after: u64, sha256_before: String, sha256_after: String },
    /// Same size and content, different modification time (the file was touched or copied).
    MtimeOnly,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let short = |s: &str| s.chars().take(12).collect::<String>();
        match &self.kind {
            ChangeKind::Added => write!(f, "{}: added", self.label),
            ChangeKind::Removed => write!(f, "{}: removed", self.label),
            ChangeKind::Content { size_before, size_after, sha256_before, sha256_after } => write!(
                f,
                "{}: content changed (size {size_before} -> {size_after} bytes, sha256 {} -> {})",
                self.label,
                short(sha256_before),
                short(sha256_after)
            ),
            ChangeKind::MtimeOnly => write!(f, "{}: modification time changed, content identical", self.label),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_known_strings() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
