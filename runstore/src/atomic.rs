//! Atomic file replacement: the bytes go to a temp file in the target's own directory (same file
//! system, so `rename` is atomic), the temp file is fsynced, renamed over the target, and the
//! directory is fsynced so the rename itself survives a power cut. A reader — or a run resumed
//! after `kill -9` — sees the old file or the new one, never a torn one.

use std::{
    io::Write,
    path::Path,
    sync::atomic::{AtomicU64, Ordering},
};

use fs_err as fs;
use serde::Serialize;

use crate::{Error, Result};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replace `path` with `bytes` atomically (temp file + fsync + rename + directory fsync).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // pid + per-process counter + clock: unique among concurrent writers and never equal to a
    // leftover of a killed process whose pid was reused (`create_new` would refuse it).
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let temp = dir.join(format!(
        ".{file_name}.{}.{}.{nanos}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| -> Result<()> {
        let mut file = fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temp, path)?;
        sync_dir(dir)
    })();
    if written.is_err() {
        // Best effort: the temp file is ours and useless now; the target is untouched.
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Serialize `value` as pretty JSON (plus a final newline) and write it atomically to `path`.
pub fn write_json_atomic<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<()> {
    let mut bytes =
        serde_json::to_vec_pretty(value).map_err(|source| Error::Serialize { path: path.to_path_buf(), source })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Fsync a directory so that entries created or renamed in it are durable (no-op off Unix).
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
