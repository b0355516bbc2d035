//! One error type for the crate. User errors (bad task files, bad corpora, mapping violations)
//! name the file, the record and the field, and say what to do; internal errors say what broke.

use std::path::PathBuf;

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while loading the manifest, tasks or corpora.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The embedded manifest is inconsistent (a bug in this repository, not in user input).
    #[error("corpora manifest is invalid: {0}")]
    Manifest(String),

    /// A task file or task record is malformed.
    #[error("{path}: {message}")]
    TaskFile { path: PathBuf, message: String },

    /// The benchmark directory itself is unusable.
    #[error("{path}: {message}")]
    BenchmarkDir { path: PathBuf, message: String },

    /// A task cannot be mapped to exactly one corpus route.
    #[error("task {id}: {message}")]
    Mapping { id: String, message: String },

    /// A task states its information cutoff in more than one, conflicting way.
    #[error("task {id}: ambiguous information cutoff: {message}")]
    AmbiguousCutoff { id: String, message: String },

    /// A selection filter is invalid or matches nothing.
    #[error("selection: {0}")]
    Selection(String),

    /// A corpus file could not be opened or read.
    #[error("{path}: {message}")]
    Corpus { path: PathBuf, message: String },

    /// Any other I/O error; fs-err already puts the path in the message.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    pub(crate) fn task_file(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::TaskFile { path: path.into(), message: message.into() }
    }

    pub(crate) fn corpus(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::Corpus { path: path.into(), message: message.into() }
    }

    /// True when the error comes from user input (exit code 2) rather than from a bug.
    pub fn is_user_error(&self) -> bool {
        !matches!(self, Self::Manifest(_))
    }
}
