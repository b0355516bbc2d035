//! File names inside a run directory `OUTPUT_DIR/NAME/` (the agent's run loop documents what
//! each holds and in which order they are written).

/// The public task inputs only.
pub const SELECTION_FILE: &str = "selection.json";
/// Method settings, endpoints without keys, budgets, fingerprints, the tool version.
pub const METADATA_FILE: &str = "metadata.json";
/// The official results format, rewritten atomically from the journal.
pub const RESULTS_FILE: &str = "results.json";
/// One line per finished task, fsynced: the source of truth.
pub const JOURNAL_FILE: &str = "results.journal.jsonl";
/// Every task's events with timings.
pub const TRACE_FILE: &str = "trace.jsonl";
/// Records of failed attempts that a resume retried (history; not scored).
pub const RETRIED_RESULTS_FILE: &str = "results.retried.jsonl";
/// Trace lines of those attempts.
pub const RETRIED_TRACE_FILE: &str = "trace.retried.jsonl";
