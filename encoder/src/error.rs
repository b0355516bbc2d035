//! One error type for the crate. User errors (a missing library or model file, a bad
//! parameter) say what to do; the rest say what broke.

use std::path::PathBuf;

/// Errors of the encoder.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No ONNX Runtime library was named.
    #[error(
        "no ONNX Runtime library: set {} to libonnxruntime.so (scripts/fetch-ort.sh fetches it from the onnxruntime PyPI wheel)",
        crate::ORT_DYLIB_ENV
    )]
    NoOrtLibrary,
    /// The ONNX Runtime library could not be loaded.
    #[error(
        "cannot load ONNX Runtime from {path}: {message} (use onnxruntime >= 1.19 from PyPI; scripts/fetch-ort.sh)"
    )]
    OrtLoad { path: PathBuf, message: String },
    /// The model directory is missing a file or holds an unreadable one.
    #[error("model directory {path}: {message}")]
    Model { path: PathBuf, message: String },
    /// A parameter is out of range.
    #[error("invalid encoder parameter: {0}")]
    Param(String),
    /// ONNX Runtime failed while building a session or running the model.
    #[error("ONNX Runtime: {0}")]
    Ort(String),
    /// The tokenizer failed on an input.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// A file could not be read (the message names the path).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// Whether the user can fix this (missing files, bad flags) rather than a broken program.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::NoOrtLibrary | Error::OrtLoad { .. } | Error::Model { .. } | Error::Param(_) | Error::Io(_)
        )
    }
}

/// Result alias of the crate.
pub type Result<T> = std::result::Result<T, Error>;
