//! One HTTP attempt of a call: what the retry loop records and what errors and outcomes carry.
//! A leaf module so that `error` and `retry` can both name it without depending on each other.

use serde::{Deserialize, Serialize};

/// One HTTP attempt of a call, for traces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// 1-based attempt number.
    pub attempt: u32,
    /// HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// What went wrong, when something did (never contains the key).
    pub error: Option<String>,
    /// Wall time of the attempt, milliseconds.
    pub latency_ms: f64,
    /// `Retry-After` the server asked for, milliseconds.
    pub retry_after_ms: Option<u64>,
    /// Time waited after this attempt before the next one, milliseconds (`None` for the last).
    pub wait_ms: Option<u64>,
}
