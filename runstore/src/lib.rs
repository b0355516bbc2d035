//! anser-runstore: the crash-safety layer every run loop shares (ANSER runs, `anser omb`).
//!
//! - [`RunName`]: a validated run name that can only ever name one directory directly below the
//!   runs root (no separators, no `.`/`..`, no hidden names).
//! - [`RunDir`]: creates a run directory, refusing an existing one unless the caller resumes.
//! - [`write_atomic`] / [`write_json_atomic`]: temp file in the same directory + fsync + rename,
//!   so a reader sees either the old file or the new one, never half of one.
//! - [`Journal`] / [`read_journal`]: an append-only JSONL file, fsynced per record, whose reader
//!   ignores a torn last line (a `kill -9` in the middle of a write) and yields each key once.
//! - [`SharedJournal`]: a journal that worker threads append to at once, with group commit (one
//!   fsync covers every line written before it started).
//! - [`rewrite_journal`] / [`retain_lines`]: atomic rewrites of a journal (retrying failed
//!   tasks) and of a JSONL file filtered line by line (dropping orphaned trace lines).
//! - [`Fingerprint`] / [`FingerprintSet`]: size, mtime and sha256 of the inputs of a run, and a
//!   comparison that names what changed, so `--resume` can refuse changed inputs.

mod atomic;
mod error;
mod fingerprint;
mod journal;
mod run;
mod shared_journal;

pub use atomic::{write_atomic, write_json_atomic};
pub use error::{Error, Result};
pub use fingerprint::{Change, ChangeKind, Fingerprint, FingerprintSet, sha256_hex};
pub use journal::{
    Journal, JournalContents, Retained, read_journal, read_journal_by_key, retain_lines, rewrite_journal,
};
pub use run::{OpenMode, RunDir, RunName};
pub use shared_journal::SharedJournal;
