//! One error type for the crate. User errors (missing corpus or index, stale or mismatched
//! index, bad parameters) say what to do; internal errors say what broke.

use std::path::PathBuf;

anser_errors::crate_error! {
    /// Errors of the indexer.
    #[derive(Debug, thiserror::Error)]
    pub enum Error {
        path {
            /// The corpus file is missing or malformed.
            Corpus,
            /// No index (or not the requested part of one) exists where it was asked for.
            MissingIndex,
            /// A file of the index is unreadable.
            IndexFile,
        }
        /// A parameter is out of range.
        #[error("invalid parameter: {0}")]
        Param(String),
        /// The index was built from another corpus file or with other settings.
        #[error("{path}: stale or mismatched index: {message}; rebuild it with `anser index ... --rebuild`")]
        Stale { path: PathBuf, message: String },
        /// The index was written in an older (or newer) on-disk format.
        #[error(
            "{path}: index format {found} is not this anser's format {format}; re-run `anser index` with --rebuild to rebuild it",
            format = crate::INDEX_FORMAT
        )]
        OldFormat { path: PathBuf, found: u32 },
        /// The index exists and `--rebuild` was not given.
        #[error("{path}: an index already exists; pass --rebuild to replace it")]
        Exists { path: PathBuf },
        /// The embedding backend is misconfigured.
        #[error("embeddings: {0}")]
        EmbeddingConfig(String),
        /// The local ONNX encoder failed.
        #[error(transparent)]
        Encoder(#[from] anser_encoder::Error),
        /// The embeddings API failed.
        #[error("embeddings API: {0}")]
        Api(#[from] anser_llm::Error),
        /// tantivy failed.
        #[error("tantivy: {0}")]
        Tantivy(#[from] tantivy::TantivyError),
        /// SQLite failed while reading a corpus.
        #[error("{path}: SQLite: {message}")]
        Sqlite { path: PathBuf, message: String },
        /// The vector index failed.
        #[error("vector index {path}: {message}")]
        Vectors { path: PathBuf, message: String },
        /// A bug: what the program itself wrote or computed does not fit.
        #[error("internal error: {0}")]
        Internal(String),
        /// Any other I/O error; fs-err puts the path in the message.
        #[error(transparent)]
        Io(#[from] std::io::Error),
    }
}

impl Error {
    /// Whether the user can fix this (paths, flags, rebuilding) rather than a broken program.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::Param(_)
            | Error::Corpus { .. }
            | Error::MissingIndex { .. }
            | Error::Stale { .. }
            | Error::OldFormat { .. }
            | Error::Exists { .. }
            | Error::EmbeddingConfig(_)
            | Error::Io(_) => true,
            Error::Encoder(e) => e.is_user_error(),
            _ => false,
        }
    }
}
