//! The crate's one error type.

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong while interpreting run files.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The manifest could not map a task to its route and evidence kind.
    #[error(transparent)]
    Manifest(#[from] anser_manifest::Error),
}
