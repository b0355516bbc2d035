//! One error type for the crate.

/// Errors of retrievers.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The retriever spec string is malformed.
    #[error("invalid retriever spec {spec:?}: {message}")]
    Spec { spec: String, message: String },
    /// A retriever bound to one route was asked about another.
    #[error("this retriever is bound to route {bound}; it cannot search {asked}")]
    WrongRoute { bound: anser_manifest::Route, asked: anser_manifest::Route },
    /// The task's information boundary cannot be read (it states conflicting cutoffs).
    #[error(transparent)]
    Boundary(anser_manifest::Error),
    /// The index layer failed (missing, stale, unreadable index; embedder problems).
    #[error(transparent)]
    Index(#[from] anser_indexer::Error),
}

impl Error {
    /// Whether the user can fix this.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::Spec { .. } | Error::Boundary(_) => true,
            Error::WrongRoute { .. } => false,
            Error::Index(e) => e.is_user_error(),
        }
    }
}

/// Result alias of the crate.
pub type Result<T> = std::result::Result<T, Error>;
