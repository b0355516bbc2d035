//! A tantivy directory for building an index in a staging folder, syncing once at the end.
//!
//! tantivy's `MmapDirectory` syncs every file it finishes (each segment's eight or so files,
//! `meta.json`, `.managed.json`) and the folder after each commit. A BM25 build writes into a
//! staging folder that only becomes the index when the build renames it into place, so nothing
//! needs to be durable before then: [`DeferredSync`] writes files without syncing them and
//! [`DeferredSync::sync_all`] syncs every file still there, then the folder, once. On a small
//! route those per-file syncs were a large share of the build.

use std::{
    collections::BTreeSet,
    io::{self, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError},
};

use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, TerminatingWrite, WatchCallback,
    WatchHandle, WritePtr,
    error::{DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError},
};

/// A folder written without a sync per file (see the module docs).
#[derive(Clone)]
pub(crate) struct DeferredSync {
    inner: MmapDirectory,
    root: PathBuf,
    /// Files written through this directory (paths relative to `root`), deleted ones removed.
    written: Arc<Mutex<BTreeSet<PathBuf>>>,
}

impl std::fmt::Debug for DeferredSync {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeferredSync").field("root", &self.root).finish_non_exhaustive()
    }
}

impl DeferredSync {
    /// The existing folder `root`.
    pub(crate) fn open(root: &Path) -> Result<Self, OpenDirectoryError> {
        Ok(Self { inner: MmapDirectory::open(root)?, root: root.to_path_buf(), written: Arc::default() })
    }

    fn written(&self) -> std::sync::MutexGuard<'_, BTreeSet<PathBuf>> {
        self.written.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sync every file written through this directory that still exists, then the folder.
    pub(crate) fn sync_all(&self) -> io::Result<()> {
        let files: Vec<PathBuf> = self.written().iter().cloned().collect();
        for rel in files {
            let path = self.root.join(rel);
            match fs_err::File::open(&path) {
                Ok(f) => f.sync_all()?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        fs_err::File::open(&self.root)?.sync_all()
    }
}

/// A file written as is: terminating it flushes but does not sync.
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
        self.0.flush()
    }
}

impl Directory for DeferredSync {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)?;
        self.written().remove(path);
        Ok(())
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
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
        self.inner.atomic_read(path)
    }

    /// Written to a temporary name and renamed, so a reader sees the old or the new content.
    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let full = self.root.join(path);
        let mut tmp_name = full.clone().into_os_string();
        tmp_name.push(".writing");
        let tmp = PathBuf::from(tmp_name);
        fs_err::write(&tmp, data)?;
        fs_err::rename(&tmp, &full)?;
        self.written().insert(path.to_path_buf());
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
        dir.atomic_write(Path::new("meta.json"), b"{}").expect("meta");
        let mut gone = dir.open_write(Path::new("b.bin")).expect("write b");
        gone.flush().expect("flush");
        drop(gone);
        dir.delete(Path::new("b.bin")).expect("delete");
        assert!(matches!(dir.open_write(Path::new("a.bin")), Err(OpenWriteError::FileAlreadyExists(_))));
        dir.sync_all().expect("sync");
        let written: Vec<PathBuf> = dir.written().iter().cloned().collect();
        assert_eq!(written, vec![PathBuf::from("a.bin"), PathBuf::from("meta.json")]);
        assert_eq!(fs_err::read(tmp.path().join("a.bin")).expect("a"), b"abc");
        assert_eq!(dir.atomic_read(Path::new("meta.json")).expect("meta"), b"{}");
        assert!(!tmp.path().join("meta.json.writing").exists());
    }
}
