//! One error type for the crate. User errors (bad run names, an existing run without
//! `--resume`, a corrupt journal) say what to do; I/O errors carry their path (fs-err).

use std::path::PathBuf;

/// Result alias for this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while managing a run directory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The run name cannot be used as a directory name.
    #[error("invalid run name {name:?}: {reason}; use letters, digits, '-', '_' or '.' (not leading)")]
    InvalidRunName { name: String, reason: &'static str },

    /// A new run was requested but the directory already exists.
    #[error("{path}: run already exists; pass --resume to continue it or choose another --run-name")]
    RunExists { path: PathBuf },

    /// A run was to be resumed or read but its directory does not exist.
    #[error("{path}: no such run; check --run-name and the output directory")]
    RunMissing { path: PathBuf },

    /// A complete journal line is not valid JSON for the expected record type.
    #[error("{path}: line {line}: corrupt journal record ({message}); the file was not written by anser or was edited")]
    CorruptJournal { path: PathBuf, line: usize, message: String },

    /// A value could not be serialized to JSON (a bug in the caller's type).
    #[error("{path}: cannot serialize record: {source}")]
    Serialize { path: PathBuf, source: serde_json::Error },

    /// Any other I/O error; fs-err already puts the path in the message.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl From<Error> for std::io::Error {
    /// For callers whose own error type wraps `std::io::Error` (the message keeps the path).
    fn from(e: Error) -> Self {
        match e {
            Error::Io(io) => io,
            other => std::io::Error::other(other.to_string()),
        }
    }
}

impl Error {
    /// True when the error comes from user input (exit code 2) rather than from a broken system.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Self::InvalidRunName { .. }
                | Self::RunExists { .. }
                | Self::RunMissing { .. }
                | Self::CorruptJournal { .. }
        )
    }
}
