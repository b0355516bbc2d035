//! Append-only JSONL journal. Each record is one line written with a single `write_all` and
//! fsynced before `append` returns, so a record the caller saw succeed survives a crash.
//!
//! A `kill -9` (or power cut) in the middle of a write leaves at most one torn line at the end of
//! the file, without its final newline. Readers ignore that tail; [`Journal::open`] cuts it off
//! before appending so the next record starts on its own line. A complete line that does not
//! parse is corruption (someone edited the file) and is reported with its line number rather than
//! skipped. [`read_journal_by_key`] keeps the first record per key, so a record journaled twice
//! (a resumed run racing a crash) is never yielded twice.

use std::{
    collections::HashSet,
    hash::Hash,
    io::{Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use fs_err as fs;
use serde::{Serialize, de::DeserializeOwned};

use crate::{Error, Result};

/// Size of the blocks read backwards from the end when looking for the last newline.
const TAIL_SCAN_BLOCK: u64 = 64 * 1024;

/// An open journal, positioned for appending.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: fs::File,
    len: u64,
    torn_bytes_removed: u64,
}

impl Journal {
    /// Open `path` for appending, creating it if needed. A torn last line left by a crash is
    /// truncated away first (see [`Journal::torn_bytes_removed`]).
    pub fn open(path: &Path) -> Result<Self> {
        let mut file = fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)?;
        let len = file.metadata()?.len();
        let complete = complete_prefix_len(&mut file, len)?;
        if complete < len {
            file.set_len(complete)?;
            file.sync_all()?;
        }
        file.seek(SeekFrom::Start(complete))?;
        Ok(Self { path: path.to_path_buf(), file, len: complete, torn_bytes_removed: len - complete })
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes of a torn last line that [`Journal::open`] removed (0 after a clean shutdown).
    pub fn torn_bytes_removed(&self) -> u64 {
        self.torn_bytes_removed
    }

    /// Append one record as a JSON line and fsync it. If the write fails half-way the file is cut
    /// back to its previous length, so later records stay on lines of their own.
    pub fn append<T: Serialize + ?Sized>(&mut self, record: &T) -> Result<()> {
        let before = self.len;
        self.write_unsynced(record)?;
        if let Err(e) = self.file.sync_data() {
            self.cut_back(before);
            return Err(e.into());
        }
        Ok(())
    }

    /// Length of the file in bytes: every record written so far, synced or not.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Write one record as a JSON line without fsync (the caller syncs: [`crate::SharedJournal`]);
    /// returns the file length after it. A failed write is cut back like in [`Journal::append`].
    pub(crate) fn write_unsynced<T: Serialize + ?Sized>(&mut self, record: &T) -> Result<u64> {
        let mut line =
            serde_json::to_vec(record).map_err(|source| Error::Serialize { path: self.path.clone(), source })?;
        line.push(b'\n');
        if let Err(e) = self.file.write_all(&line) {
            self.cut_back(self.len);
            return Err(e.into());
        }
        self.len += line.len() as u64;
        Ok(self.len)
    }

    /// A second handle on the file, to fsync it without holding the journal.
    pub(crate) fn sync_handle(&self) -> Result<fs::File> {
        Ok(self.file.try_clone()?)
    }

    /// Cut the file back to `len` bytes (best effort: this runs after a failure already being
    /// reported), so later records start on a line of their own.
    pub(crate) fn cut_back(&mut self, len: u64) {
        let _ = self.file.set_len(len);
        let _ = self.file.seek(SeekFrom::Start(len));
        self.len = len;
    }
}

/// Length of the file up to and including its last newline.
fn complete_prefix_len(file: &mut fs::File, len: u64) -> Result<u64> {
    let mut end = len;
    let mut block = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(TAIL_SCAN_BLOCK);
        block.resize((end - start) as usize, 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut block)?;
        if let Some(pos) = block.iter().rposition(|&b| b == b'\n') {
            return Ok(start + pos as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// What a journal holds.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalContents<T> {
    /// The complete records, in file order.
    pub records: Vec<T>,
    /// Bytes of a torn last line that were ignored (0 after a clean shutdown).
    pub torn_bytes: usize,
    /// Records dropped because an earlier record had the same key ([`read_journal_by_key`] only).
    pub duplicates: usize,
}

/// Read every complete record of the journal at `path`; a missing file is an empty journal.
pub fn read_journal<T: DeserializeOwned>(path: &Path) -> Result<JournalContents<T>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let mut records = Vec::new();
    for (index, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record = serde_json::from_slice(line).map_err(|e| Error::CorruptJournal {
            path: path.to_path_buf(),
            line: index + 1,
            message: e.to_string(),
        })?;
        records.push(record);
    }
    Ok(JournalContents { records, torn_bytes: bytes.len() - complete, duplicates: 0 })
}

/// Like [`read_journal`], keeping only the first record for each `key(record)`.
pub fn read_journal_by_key<T, K, F>(path: &Path, key: F) -> Result<JournalContents<T>>
where
    T: DeserializeOwned,
    K: Eq + Hash,
    F: Fn(&T) -> K,
{
    let all = read_journal::<T>(path)?;
    let mut seen = HashSet::new();
    let total = all.records.len();
    let records: Vec<T> = all.records.into_iter().filter(|r| seen.insert(key(r))).collect();
    Ok(JournalContents { duplicates: total - records.len(), records, torn_bytes: all.torn_bytes })
}

/// Replace the journal at `path` with exactly `records`, one JSON line each, atomically
/// ([`crate::write_atomic`]): a crash leaves the old journal or the new one. Used when a resumed
/// run retries failed tasks, so that the journal keeps one record per task.
pub fn rewrite_journal<T: Serialize>(path: &Path, records: &[T]) -> Result<()> {
    let mut bytes = Vec::new();
    for record in records {
        serde_json::to_writer(&mut bytes, record)
            .map_err(|source| Error::Serialize { path: path.to_path_buf(), source })?;
        bytes.push(b'\n');
    }
    crate::write_atomic(path, &bytes)
}

/// What [`retain_lines`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Retained {
    /// Complete lines kept.
    pub kept: usize,
    /// Complete lines dropped because `keep` refused them.
    pub dropped: usize,
    /// Bytes of a torn last line (no final newline) that were dropped.
    pub torn_bytes: usize,
}

/// Keep only the complete lines of the JSONL file at `path` for which `keep(line)` is true, and
/// drop a torn last line. The file is rewritten atomically, and only when something is dropped;
/// a missing file is left missing. Used to drop the trace lines of tasks that have no journal
/// record (a crash between writing a task's trace and its journal line).
pub fn retain_lines(path: &Path, mut keep: impl FnMut(&[u8]) -> bool) -> Result<Retained> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Retained::default()),
        Err(e) => return Err(e.into()),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let mut out = Vec::with_capacity(complete);
    let mut stats = Retained { torn_bytes: bytes.len() - complete, ..Retained::default() };
    for line in bytes[..complete].split_inclusive(|&b| b == b'\n') {
        let body = &line[..line.len() - 1];
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if keep(body) {
            out.extend_from_slice(line);
            stats.kept += 1;
        } else {
            stats.dropped += 1;
        }
    }
    if stats.dropped > 0 || stats.torn_bytes > 0 {
        crate::write_atomic(path, &out)?;
    }
    Ok(stats)
}
