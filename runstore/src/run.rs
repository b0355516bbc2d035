//! Run names and run directories. A run name becomes a directory name below a runs root, so it
//! is validated to name exactly one directory there: no separators, no `.`/`..`, nothing hidden.
//! Creating a run refuses an existing directory unless the caller resumes it, so a typo never
//! overwrites a finished run.

use std::{
    fmt,
    path::{Path, PathBuf},
};

use fs_err as fs;

use crate::{Error, Result, atomic::sync_dir};

/// Longest accepted run name in bytes (well below every file system's name limit).
pub const MAX_RUN_NAME_BYTES: usize = 128;

/// A run name that is safe to use as a single directory name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunName(String);

impl RunName {
    /// Validate `name`: 1..=[`MAX_RUN_NAME_BYTES`] bytes of letters, digits, `-`, `_` and `.`,
    /// not starting with `.` (which also rules out `.` and `..`).
    pub fn new(name: &str) -> Result<Self> {
        let invalid = |reason| Err(Error::InvalidRunName { name: name.to_string(), reason });
        if name.is_empty() {
            return invalid("it is empty");
        }
        if name.len() > MAX_RUN_NAME_BYTES {
            return invalid("it is longer than 128 bytes");
        }
        if name == "." || name == ".." {
            return invalid("it names the current or the parent directory");
        }
        if name.contains(['/', '\\']) {
            return invalid("it contains a path separator");
        }
        if name.starts_with('.') {
            return invalid("it starts with '.' (hidden directory)");
        }
        if !name.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.')) {
            return invalid("it contains a character other than a letter, digit, '-', '_' or '.'");
        }
        Ok(Self(name.to_string()))
    }

    /// The validated name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RunName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for RunName {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Self::new(s)
    }
}

/// How to open a run directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Start a new run; the directory must not exist yet.
    New,
    /// Continue an existing run; the directory must exist.
    Resume,
}

/// One run's directory, `<root>/<name>`.
#[derive(Debug, Clone)]
pub struct RunDir {
    name: RunName,
    path: PathBuf,
}

impl RunDir {
    /// Create (`New`) or reopen (`Resume`) the run `name` below `root`. `New` creates `root` if
    /// needed and fails with [`Error::RunExists`] when the run is already there; `Resume` fails
    /// with [`Error::RunMissing`] when it is not.
    pub fn create(root: &Path, name: &RunName, mode: OpenMode) -> Result<Self> {
        let path = root.join(name.as_str());
        match mode {
            OpenMode::New => {
                fs::create_dir_all(root)?;
                match fs::create_dir(&path) {
                    Ok(()) => sync_dir(root)?,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(Error::RunExists { path }),
                    Err(e) => return Err(e.into()),
                }
            }
            OpenMode::Resume => {
                if !path.is_dir() {
                    return Err(Error::RunMissing { path });
                }
            }
        }
        Ok(Self { name: name.clone(), path })
    }

    /// Open an existing run for reading (same as `create(.., Resume)`).
    pub fn open(root: &Path, name: &RunName) -> Result<Self> {
        Self::create(root, name, OpenMode::Resume)
    }

    /// The run's name.
    pub fn name(&self) -> &RunName {
        &self.name
    }

    /// The run directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file inside the run directory.
    pub fn file(&self, file_name: &str) -> PathBuf {
        self.path.join(file_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_names() {
        for ok in ["run1", "gpt-4o_2026.01", "中文运行", "a", "x.y", "a..b"] {
            assert_eq!(RunName::new(ok).map(|n| n.to_string()).ok().as_deref(), Some(ok), "{ok}");
        }
        assert!(RunName::new(&"a".repeat(MAX_RUN_NAME_BYTES)).is_ok());
    }

    #[test]
    fn rejects_traversal_separators_and_oddities() {
        for bad in ["", ".", "..", "../x", "a/b", "a\\b", "/abs", ".hidden", "a b", "a\0b", "a:b", "tab\t", "new\nline"]
        {
            assert!(matches!(RunName::new(bad), Err(Error::InvalidRunName { .. })), "{bad:?} was accepted");
        }
        assert!(RunName::new(&"a".repeat(MAX_RUN_NAME_BYTES + 1)).is_err());
    }
}
