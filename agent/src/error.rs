//! The crate's one error type. Tool errors split in two: the ones a caller (an LLM or the
//! offline planner) caused and can fix by changing its request — they say what to do and are
//! sent back to the model as the tool's answer — and internal ones that name what broke.

use std::path::PathBuf;

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the agent's tools.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The SQL tool refused a statement (write, ATTACH, PRAGMA, several statements, a table of
    /// another route, ...). The message says what is allowed.
    #[error("SQL refused: {0}")]
    SqlRefused(String),

    /// The statement ran past the tool's time limit and was interrupted.
    #[error("SQL interrupted after the {limit_ms} ms time limit; narrow the query (add WHERE conditions or LIMIT)")]
    SqlTimeout { limit_ms: u64 },

    /// The statement hit a resource limit of the SQL guard (value size, memory, the task's
    /// deadline, an interrupt) and was stopped; the message says which and what to do.
    #[error("SQL stopped: {0}")]
    SqlLimit(String),

    /// SQLite rejected the statement (syntax error, unknown column, ...).
    #[error("SQL error: {0}")]
    Sql(String),

    /// The route's corpus file could not be opened or prepared.
    #[error("cannot open {path} for route {route}: {message}")]
    Open { route: anser_manifest::Route, path: PathBuf, message: String },

    /// The route is not a SQLite route (science articles, the rule and statute JSONL files).
    #[error("route {0} is not a SQLite corpus; use the search and open tools for it")]
    NotSqlite(anser_manifest::Route),

    /// The task states its information cutoff in more than one, conflicting way.
    #[error("task {task}: ambiguous information cutoff: {message}")]
    AmbiguousCutoff { task: String, message: String },

    /// A compute request is malformed or does not fit its input table.
    #[error("compute: {0}")]
    Compute(String),

    /// A statistic is undefined for the given data (an empty group, no variation, ...).
    #[error("statistics: {0}")]
    Statistics(String),

    /// A final answer does not have the form the task asks for.
    #[error("answer: {0}")]
    Answer(String),

    /// An evidence item is not an identifier of the task's route.
    #[error("evidence: {0}")]
    Evidence(String),

    /// A parameter struct failed validation.
    #[error("invalid parameter: {0}")]
    Param(String),

    /// The manifest could not map a task.
    #[error(transparent)]
    Manifest(#[from] anser_manifest::Error),

    /// A run cannot start or resume as asked (changed settings, a foreign run directory, ...).
    #[error("{0}")]
    Run(String),

    /// Run-directory bookkeeping failed (run name, journal, atomic writes, fingerprints).
    #[error(transparent)]
    Store(#[from] anser_runstore::Error),

    /// An I/O error; fs-err puts the path in the message.
    #[error(transparent)]
    Io(#[from] std::io::Error),

    /// Something broke inside the agent (a bug or an exhausted resource), not the caller's input.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// Whether the caller caused the error (and should get it back as a tool message) rather
    /// than the system (a corpus that cannot be opened, a broken manifest).
    pub fn is_caller_error(&self) -> bool {
        !matches!(
            self,
            Error::Open { .. }
                | Error::Manifest(_)
                | Error::Store(_)
                | Error::Io(_)
                | Error::Internal(_)
                | Error::Run(_)
        )
    }
}

impl From<polars::prelude::PolarsError> for Error {
    fn from(e: polars::prelude::PolarsError) -> Self {
        Error::Compute(e.to_string())
    }
}

impl From<anser_record::Error> for Error {
    fn from(e: anser_record::Error) -> Self {
        match e {
            anser_record::Error::Manifest(e) => Error::Manifest(e),
        }
    }
}
