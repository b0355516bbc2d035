//! Information boundaries: the cutoff a predictive or science task states, parsed strictly.
//!
//! The parser, the [`Cutoff`] and its two checked forms (the SQL predicate of the `sql` tool's
//! views and the numeric [`DateWindow`] the indexes and `open` use) live in
//! [`anser_manifest::boundary`], so the retrievers below the agent (`anser retrieve`, the
//! single-stage methods, the `search` tool) and the agent's own tools derive a task's boundary
//! from one place. This module re-exports it under the name the tools have always used.

pub use anser_manifest::boundary::*;
