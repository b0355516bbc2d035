//! The crate's error type.

/// What went wrong serving tools or proxying.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Agent(#[from] anser_agent::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Bad settings or a request the caller can fix.
    #[error("{0}")]
    Param(String),
    /// Something broke that the caller cannot fix.
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// Whether the user (flags, files) can fix it.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::Agent(e) => match e {
                anser_agent::Error::Store(s) => s.is_user_error(),
                anser_agent::Error::Run(_) => true,
                other => other.is_caller_error(),
            },
            Error::Param(_) => true,
            Error::Io(_) | Error::Internal(_) => false,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
