//! anser-record: the run-directory schema.
//!
//! What `anser run` writes and what everything downstream reads — reports, the MCP server,
//! comparisons — lives here, so reading a run directory does not compile the agent (polars,
//! tantivy, ONNX Runtime). The writers (the run loop, `TraceWriter`) stay in the agent.
//!
//! - [`files`]: the file names inside a run directory;
//! - [`result`]: one line of `results.json` ([`ResultRecord`]) and its per-stage cost;
//! - [`trace`]: one line of `trace.jsonl` ([`TraceEvent`]);
//! - [`evidence`]: shaping an evidence list into the scorer's identifier kind of a task.
//!
//! The serialised bytes are the contract: records and trace lines written by earlier versions
//! must still read, and the same values must write the same bytes.

mod error;
pub mod evidence;
pub mod files;
pub mod result;
pub mod trace;

/// The task types a run directory names: `selection.json` holds public tasks, records carry
/// their group and route.
pub use anser_manifest::{PublicTask, Route, TaskGroup};
pub use error::{Error, Result};
pub use evidence::{EvidenceCheck, shape_evidence};
pub use files::*;
pub use result::{GenerationStatus, ResultRecord, StageCost, Stages};
pub use trace::{Stage, TraceEvent, unix_now};
