//! anser-reports: what a researcher reads after `anser run`.
//!
//! - [`compare`]: paired comparison of runs per task group and metric — means, deltas on the
//!   shared tasks, paired bootstrap CIs, sign-flip p-values, Holm correction ([`stats`]).
//! - [`taxonomy`]: why tasks failed (unparseable, empty evidence, wrong route, inconsistency,
//!   timeout, tool error, LLM error, wrong value), with counts and example ids.
//! - [`cost`]: per-stage latency and tokens from `trace.jsonl` (retrieval, SQL, compute, LLM).
//! - [`report`]: one run's report as text or JSON; [`html`]: the same as one self-contained
//!   HTML page with inline SVG charts drawn by plotters (no scripts, no external assets).
//! - [`trec`]: ranked evidence as a TREC run file and gold evidence as qrels.
//!
//! Everything reads run directories through [`rundir::RunData`].

pub mod compare;
pub mod cost;
mod error;
pub mod html;
pub mod report;
pub mod rng;
pub mod rundir;
pub mod stats;
pub mod taxonomy;
pub mod trec;

pub use crate::{
    compare::{Comparison, RunScores, compare},
    error::{Error, Result},
    report::{RunReport, TextOptions},
    rundir::{RunData, TaskScores},
    stats::{StatsParams, StatsParamsBuilder},
};
