//! One error type for the crate. User errors (an output folder that cannot be used) say what to
//! do; internal errors (a generator that produced a row the schema rejects, SQLite failures) say
//! what broke and where.

use std::path::PathBuf;

anser_errors::crate_error! {
    /// Everything that can go wrong while generating a sample.
    #[derive(Debug, thiserror::Error)]
    pub enum Error {
        path {
            /// The output folder cannot be used (not empty, holds another sample, is a file).
            OutputDir,
        }

        /// Invalid generation options.
        #[error("sample options: {0}")]
        Options(String),

        /// A generator produced data its own schema or invariants reject (a bug in this crate).
        #[error("sample generator bug: {0}")]
        Generator(String),

        /// SQLite failed while writing a corpus file.
        #[error("{path}: SQLite error: {source}")]
        Sqlite {
            path: PathBuf,
            #[source]
            source: rusqlite::Error,
        },

        /// JSON serialisation failed.
        #[error("{path}: cannot serialise JSON: {source}")]
        Json {
            path: PathBuf,
            #[source]
            source: serde_json::Error,
        },

        /// Any other I/O error; fs-err already puts the path in the message.
        #[error(transparent)]
        Io(#[from] std::io::Error),
    }
}

impl Error {
    /// True when the error comes from user input (exit code 2) rather than from a bug.
    pub fn is_user_error(&self) -> bool {
        matches!(self, Self::OutputDir { .. } | Self::Options(_))
    }

    pub(crate) fn bug(message: impl Into<String>) -> Self {
        Self::Generator(message.into())
    }
}
