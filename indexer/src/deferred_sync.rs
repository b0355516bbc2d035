//! A tantivy directory for building an index in a staging folder, syncing once at the end: the
//! directory of a build by tantivy's threaded writer (a small build keeps its files in memory
//! and writes them as one file, [`crate::pack`]). The measurements below were taken on small
//! routes when they too were built this way.
//!
//! tantivy's `MmapDirectory` syncs every file it finishes (each segment's eight or so files,
//! `meta.json`, `.managed.json`) and the folder after each commit. A BM25 build writes into a
//! staging folder that only becomes the index when the build renames it into place, so nothing
//! needs to be durable before then: [`DeferredSync`] writes files without syncing them and
//! [`DeferredSync::sync_all`] syncs every file still there, then the folder, once. On a small
//! route those per-file syncs were a large share of the build.
//!
//! For the same reason the small files tantivy replaces whole (`meta.json`, and `.managed.json`
//! once per segment file it opens) are kept in memory until [`DeferredSync::sync_all`]: writing
//! each version to a new file and renaming it over the old one cost a file creation and an
//! inode release per version, about 1 ms of a 6 ms small build.
//!
//! Each file's write-back to the disk is started as soon as it is finished
//! ([`start_writeback`]), so that by the final sync its data is on its way and the sync mostly
//! waits: a small route's nine files, synced one after the other without it, took about 2 ms of
//! a 4.4 ms build; with it 1.1 ms. (Syncing each file on a background thread as soon as it was
//! finished measured slower, 4.1–4.3 ms against 3.4–3.6 for the whole build.)

use std::{
    collections::{BTreeMap, BTreeSet},
    io::{self, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError},
};

use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, TerminatingWrite,
    WatchCallback, WatchHandle, WritePtr,
    error::{DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError},
};

/// A folder written without a sync per file (see the module docs).
#[derive(Clone)]
pub(crate) struct DeferredSync {
    inner: MmapDirectory,
    root: PathBuf,
    /// Files written through this directory (paths relative to `root`), deleted ones removed.
    written: Arc<Mutex<BTreeSet<PathBuf>>>,
    /// The latest content of each file written whole ([`Directory::atomic_write`]), not yet on
    /// disk.
    pending: Arc<Mutex<BTreeMap<PathBuf, Arc<[u8]>>>>,
}

impl std::fmt::Debug for DeferredSync {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeferredSync").field("root", &self.root).finish_non_exhaustive()
    }
}

impl DeferredSync {
    /// The existing folder `root`.
    pub(crate) fn open(root: &Path) -> Result<Self, OpenDirectoryError> {
        Ok(Self {
            inner: MmapDirectory::open(root)?,
            root: root.to_path_buf(),
            written: Arc::default(),
            pending: Arc::default(),
        })
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, BTreeMap<PathBuf, Arc<[u8]>>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn written(&self) -> std::sync::MutexGuard<'_, BTreeSet<PathBuf>> {
        self.written.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Write the files held in memory, sync every file written through this directory that
    /// still exists, [`SYNC_THREADS`] at a time, then the folder.
    pub(crate) fn sync_all(&self) -> io::Result<()> {
        let pending = std::mem::take(&mut *self.pending());
        let mut jobs = Vec::new();
        for (rel, data) in &pending {
            let mut file = fs_err::File::create(self.root.join(rel))?;
            file.write_all(data)?;
            start_writeback(file.file());
            self.written().insert(rel.clone());
            jobs.push(ToSync::Open(file));
        }
        let closed: Vec<PathBuf> =
            self.written().iter().filter(|rel| !pending.contains_key(*rel)).map(|rel| self.root.join(rel)).collect();
        jobs.extend(closed.into_iter().map(ToSync::Closed));
        let threads = SYNC_THREADS.min(jobs.len()).max(1);
        let mut shares: Vec<Vec<ToSync>> = (0..threads).map(|_| Vec::new()).collect();
        for (i, job) in jobs.into_iter().enumerate() {
            shares[i % threads].push(job);
        }
        crate::parallel::in_parallel(
            "index file sync",
            shares.into_iter().map(|share| move || share.into_iter().try_for_each(ToSync::sync)),
        )?;
        fs_err::File::open(&self.root)?.sync_all()
    }
}

/// Files [`DeferredSync::sync_all`] syncs at once. A sync mostly waits on the disk, and syncs
/// issued together can share the file system's journal commits. Medians of 20 builds, three
/// rounds, on ext4: finance_en_audit's 17 files 1.06–1.63 ms one after the other, 0.79–1.02 ms
/// four at a time, 0.85–0.89 ms eight at a time (17 at once, 1.1 ms: the threads' starts cost
/// more than they save); finance_en_capital_rules 1.05–1.10 → 0.83–0.89 ms; finance_zh_rules'
/// 9 files 0.75–0.78 → 0.64–0.71 ms.
const SYNC_THREADS: usize = 4;

/// A file to sync: still open ([`DeferredSync`] wrote it at the end), or closed (by tantivy), so
/// opened again by its path; one deleted since is skipped.
enum ToSync {
    Open(fs_err::File),
    Closed(PathBuf),
}

impl ToSync {
    fn sync(self) -> io::Result<()> {
        match self {
            ToSync::Open(file) => file.sync_all(),
            ToSync::Closed(path) => match fs_err::File::open(&path) {
                Ok(f) => f.sync_all(),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e),
            },
        }
    }
}

/// Start writing `file`'s dirty pages to the disk without waiting (Linux's
/// `sync_file_range(SYNC_FILE_RANGE_WRITE)`), so that a later sync of it has less to wait for.
/// Only a hint: it does not make the file durable, and a failure is left to that sync.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn start_writeback(file: &std::fs::File) {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is `file`'s, open for the whole call, and the call reads and writes
    // no memory of ours (offset 0 and length 0 mean the whole file).
    let _ = unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_: &std::fs::File) {}

/// A file written as is: terminating it flushes and starts its write-back but does not sync.
struct Unsynced(std::fs::File);

impl Write for Unsynced {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TerminatingWrite for Unsynced {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.0.flush()?;
        start_writeback(&self.0);
        Ok(())
    }
}

impl Directory for DeferredSync {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        match self.pending().get(path) {
            Some(data) => Ok(Arc::new(OwnedBytes::new(data.to_vec()))),
            None => self.inner.get_file_handle(path),
        }
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        if self.pending().remove(path).is_some() {
            return Ok(());
        }
        self.inner.delete(path)?;
        self.written().remove(path);
        Ok(())
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        if self.pending().contains_key(path) {
            return Ok(true);
        }
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        if self.pending().contains_key(path) {
            return Err(OpenWriteError::FileAlreadyExists(path.to_path_buf()));
        }
        let full = self.root.join(path);
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&full).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                OpenWriteError::FileAlreadyExists(path.to_path_buf())
            } else {
                OpenWriteError::wrap_io_error(e, full.clone())
            }
        })?;
        self.written().insert(path.to_path_buf());
        Ok(io::BufWriter::new(Box::new(Unsynced(file))))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        match self.pending().get(path) {
            Some(data) => Ok(data.to_vec()),
            None => self.inner.atomic_read(path),
        }
    }

    /// Kept in memory until [`DeferredSync::sync_all`] (module docs); a reader of this directory
    /// sees the old or the new content, never part of it.
    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.pending().insert(path.to_path_buf(), Arc::from(data));
        Ok(())
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_file_it_wrote_and_not_the_deleted_ones() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = DeferredSync::open(tmp.path()).expect("open");
        let mut w = dir.open_write(Path::new("a.bin")).expect("write a");
        w.write_all(b"abc").expect("bytes");
        w.into_inner().map_err(|e| e.into_error()).expect("buffer").terminate().expect("terminate");
        dir.atomic_write(Path::new("meta.json"), b"{\"v\":1}").expect("meta");
        dir.atomic_write(Path::new("meta.json"), b"{}").expect("meta again");
        // Held in memory until the sync, and read back from there.
        assert!(!tmp.path().join("meta.json").exists());
        assert_eq!(dir.atomic_read(Path::new("meta.json")).expect("meta"), b"{}");
        assert!(dir.exists(Path::new("meta.json")).expect("exists"));
        let handle = dir.get_file_handle(Path::new("meta.json")).expect("handle");
        assert_eq!(handle.read_bytes(0..2).expect("bytes").as_slice(), b"{}");
        assert!(matches!(dir.open_write(Path::new("meta.json")), Err(OpenWriteError::FileAlreadyExists(_))));
        let mut gone = dir.open_write(Path::new("b.bin")).expect("write b");
        gone.flush().expect("flush");
        drop(gone);
        dir.delete(Path::new("b.bin")).expect("delete");
        assert!(matches!(dir.open_write(Path::new("a.bin")), Err(OpenWriteError::FileAlreadyExists(_))));
        dir.sync_all().expect("sync");
        let written: Vec<PathBuf> = dir.written().iter().cloned().collect();
        assert_eq!(written, vec![PathBuf::from("a.bin"), PathBuf::from("meta.json")]);
        assert_eq!(fs_err::read(tmp.path().join("a.bin")).expect("a"), b"abc");
        assert_eq!(fs_err::read(tmp.path().join("meta.json")).expect("meta on disk"), b"{}");
        assert_eq!(dir.atomic_read(Path::new("meta.json")).expect("meta"), b"{}");
    }
}
