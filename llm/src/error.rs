//! The crate's one error type. Call failures carry every attempt that was made, so a caller
//! can write them to its trace even when the call failed.

use std::path::PathBuf;

use serde_json::Value;

use crate::attempt::Attempt;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in configuration, a call, the cache or the mock server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A required setting has no value in any source.
    #[error("no {what} configured: pass {flag} or set {var} (in the environment or in .env)")]
    MissingSetting { what: &'static str, flag: &'static str, var: String },

    /// Several required settings have no value (all of them named at once, so the user fixes
    /// them in one go).
    #[error("no {} configured: pass {} or set {} (in the environment or in .env)", .whats.join(" and no "), .flags.join(" and "), .vars.join(" and "))]
    MissingSettings { whats: Vec<&'static str>, flags: Vec<&'static str>, vars: Vec<String> },

    /// A setting has a value that cannot be used.
    #[error("invalid {field}: {message}")]
    InvalidSetting { field: String, message: String },

    /// A `.env` file exists but cannot be parsed.
    #[error("{path}:{line}: {message}")]
    DotEnv { path: PathBuf, line: usize, message: String },

    /// A request is malformed before it is sent (caller error).
    #[error("invalid request: {0}")]
    InvalidRequest(String),

    /// The server answered with a status that is not worth retrying (400, 401, 404, ...).
    #[error("{url} answered HTTP {status}: {message}{hint}", hint = status_hint(*status))]
    Status { url: String, status: u16, message: String, attempts: Vec<Attempt> },

    /// Every allowed attempt failed with a retryable error.
    #[error("{url} failed after {} attempt(s); last error: {last}", attempts.len())]
    Exhausted { url: String, last: String, attempts: Vec<Attempt> },

    /// The server answered 2xx with JSON that is not a valid chat/embeddings response.
    #[error("{url} returned an unusable response: {message}")]
    Malformed { url: String, message: String, attempts: Vec<Attempt> },

    /// Replay mode found no cached response for a request.
    #[error(
        "replay: no cached response for this {kind} request (model `{model}`, key {key}) in {dir}; \
         run once without --replay to record it, or check that prompts and settings are unchanged"
    )]
    ReplayMiss { kind: &'static str, model: String, key: String, dir: PathBuf },

    /// A cache entry exists but cannot be read back.
    #[error("cache entry {path} is corrupt: {message}; delete it to re-record")]
    CorruptCache { path: PathBuf, message: String },

    /// Reading or writing a file (cache, .env) failed; the message names the path.
    #[error(transparent)]
    Io(#[from] std::io::Error),

    /// The HTTP client or the mock server could not be set up.
    #[error("{0}")]
    Setup(String),
}

fn status_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (check the API key)",
        404 => " (check the base URL: it should end in /v1 for most servers, and the model name)",
        _ => "",
    }
}

impl Error {
    /// The attempts made before this error (empty for errors raised before any request).
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            Error::Status { attempts, .. } | Error::Exhausted { attempts, .. } | Error::Malformed { attempts, .. } => {
                attempts
            }
            _ => &[],
        }
    }

    /// True for errors the user fixes (settings, request, replay miss, rejected key);
    /// false for failures of the server, network or file system.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::MissingSetting { .. }
            | Error::MissingSettings { .. }
            | Error::InvalidSetting { .. }
            | Error::DotEnv { .. }
            | Error::InvalidRequest(_)
            | Error::ReplayMiss { .. }
            | Error::CorruptCache { .. } => true,
            Error::Status { status, .. } => matches!(status, 400 | 401 | 403 | 404 | 413 | 422),
            Error::Exhausted { .. } | Error::Malformed { .. } | Error::Io(_) | Error::Setup(_) => false,
        }
    }
}

/// `error.message` (or the error value itself) of an OpenAI-style error object.
pub(crate) fn error_message(err: &Value) -> String {
    match err {
        Value::String(s) => s.clone(),
        other => other.get("message").and_then(Value::as_str).map_or_else(|| other.to_string(), str::to_string),
    }
}
