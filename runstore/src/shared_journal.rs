//! A [`Journal`] shared by worker threads, with group commit.
//!
//! Every worker of `anser omb generate` / `judge` journals its reply before moving on, and a
//! reply must be on disk when `append` returns (crash safety). Holding one lock across write
//! *and* fsync makes the workers queue for the disk: when a wave of replies arrives together,
//! the last worker waits for every fsync before its own (8 workers × a few ms of fsync each, per
//! wave). Here a worker writes its line under the write lock, then syncs under a second lock: a
//! worker that finds its line already covered by a finished fsync returns at once, and one
//! fsync covers every line written before it started, so a wave costs about two fsyncs.
//!
//! If an fsync fails, the lines after the last durable point cannot be trusted: the file is cut
//! back to that point and every later `append` fails too (the caller stops the run and resumes
//! it later, as after a crash).

use std::sync::{Mutex, MutexGuard, PoisonError};

use fs_err as fs;
use serde::Serialize;

use crate::{Error, Journal, Result};

/// What is known to be on disk.
#[derive(Debug)]
struct Durable {
    /// Bytes of the file known to be synced.
    len: u64,
    /// The message of a failed fsync; once set, every append fails.
    failed: Option<String>,
}

/// A journal that several threads append to at once (see the module docs).
#[derive(Debug)]
pub struct SharedJournal {
    journal: Mutex<Journal>,
    durable: Mutex<Durable>,
    sync_file: fs::File,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SharedJournal {
    /// Share `journal` (opened with [`Journal::open`], so everything in it is durable).
    pub fn new(journal: Journal) -> Result<Self> {
        let sync_file = journal.sync_handle()?;
        let durable = Mutex::new(Durable { len: journal.len(), failed: None });
        Ok(Self { journal: Mutex::new(journal), durable, sync_file })
    }

    /// Open `path` as [`Journal::open`] does and share it.
    pub fn open(path: &std::path::Path) -> Result<Self> {
        Self::new(Journal::open(path)?)
    }

    /// Append one record as a JSON line; returns once it is on disk (fsynced, possibly by
    /// another thread's fsync that covered it).
    pub fn append<T: Serialize + ?Sized>(&self, record: &T) -> Result<()> {
        let end = lock(&self.journal).write_unsynced(record)?;
        let mut durable = lock(&self.durable);
        if let Some(message) = &durable.failed {
            return Err(Error::Io(std::io::Error::other(message.clone())));
        }
        if durable.len >= end {
            return Ok(());
        }
        // Everything written so far, this line included; writers that come later wait on
        // `durable` and are covered by this fsync or the next one.
        let target = lock(&self.journal).len();
        match self.sync_file.sync_data() {
            Ok(()) => {
                durable.len = target;
                Ok(())
            }
            Err(e) => {
                lock(&self.journal).cut_back(durable.len);
                durable.failed = Some(format!("{e} (the journal was cut back to its last synced record)"));
                Err(Error::Io(e))
            }
        }
    }
}
