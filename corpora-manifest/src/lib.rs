//! anser-manifest: the shared vocabulary of the whole system.
//!
//! - [`TaskGroup`] and [`Route`]: the 14 task groups and the ten corpus routes.
//! - [`Manifest`]: the corpora manifest (`manifest.toml` + `schema.toml`, embedded data) with the
//!   strict task→route mapping and the evidence identifier each group is scored on.
//! - [`Benchmark`], [`PublicTask`], [`Reference`]: task loading that keeps the scorer's reference
//!   apart from what a system under test may see.
//! - [`Selection`]: the official runner's task filters.
//! - [`check_corpus`]: schema checks of a corpus root.
//! - [`boundary`]: a task's information cutoff, parsed once here for every layer below the model
//!   (indexes, retrievers, SQL views, `open`).

pub mod boundary;
mod check;
mod error;
mod group;
mod manifest;
mod route;
mod select;
mod shared;
mod task;

pub use check::{
    ColumnReport, CorpusReport, RouteReport, RouteStatus, TableReport, check_corpus, open_sqlite_readonly,
};
pub use error::{Error, Result};
pub use group::{Domain, Language, Split, TaskGroup};
pub use manifest::{
    ColumnSpec, CorpusFormat, DatedField, DatedTable, Dating, EvidenceKind, EvidenceMetric, EvidenceShape, Exclusion,
    FileSchema, GroupSpec, Manifest, Resolution, RouteSpec, TableSpec, UnitSpec, type_key,
};
pub use route::Route;
pub use select::{Selection, SelectionEntry};
pub use shared::{missing_prerequisite, shared_dir, shared_dir_or_skip, under_ci};
pub use task::{Benchmark, GroupCounts, PublicTask, Reference, TaskCounts, load_public_tasks, resolve_benchmark_dir};
