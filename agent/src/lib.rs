//! anser-agent: the analytical agent.
//!
//! - [`run`]: the run loop (run directories, resume, bounded concurrency, journal, traces).
//! - [`method`]: how tasks are answered ([`method::Solver`]): vanilla, retrieval-augmented, ...
//! - [`tools`]: the tools shared by the LLM loop and the offline planner (guarded SQL,
//!   information boundaries, compute, answer validation).

mod error;
pub mod method;
pub mod run;
mod solver;
pub mod tools;
mod trace;

pub use error::{Error, Result};
