//! anser-manifest: the shared vocabulary of the whole system.
//!
//! - [`TaskGroup`] and [`Route`]: the 14 task groups and the ten corpus routes.
//! - [`Manifest`]: the corpora manifest (`manifest.toml` + `schema.toml`, embedded data) with the
//!   strict task→route mapping and the evidence identifier each group is scored on.
//! - [`TaskSet`], [`PublicTask`]: task loading that parses the public fields only; the scorer's
//!   reference (ground truth, gold evidence) is read by the separate `anser-gold` crate.
//! - [`Selection`]: the official runner's task filters.
//! - [`check_corpus`]: schema and integrity (`PRAGMA quick_check`) checks of a corpus root.
//! - [`Exclusion`] rules (`RouteSpec::exclusion_filter`, `RouteSpec::followers`): the one
//!   definition of the ground-truth rows no reader may see, for the indexer and the SQL views.
//! - [`boundary`]: a task's information cutoff, parsed once here for every layer below the model
//!   (indexes, retrievers, SQL views, `open`).

pub mod boundary;
mod check;
mod error;
mod evidence;
mod exclusion;
mod group;
mod manifest;
mod route;
mod select;
mod shared;
mod task;

pub use check::{
    CheckOptions, ColumnReport, CorpusReport, DEFAULT_INTEGRITY_TIMEOUT, RouteReport, RouteStatus, TableReport,
    check_corpus, check_corpus_with, open_sqlite_readonly,
};
pub use error::{Error, Result};
pub use evidence::{EvidenceFrom, EvidenceIdentity, EvidenceLookup, EvidenceRecords, EvidenceSource, LawItemColumns};
pub use exclusion::follows_visible_parent;
pub use group::{Domain, Language, Split, TaskGroup};
pub use manifest::{
    ColumnSpec, CorpusFormat, DatedField, DatedTable, Dating, EvidenceKind, EvidenceMetric, EvidenceShape, Exclusion,
    FileSchema, GroupSpec, Manifest, Resolution, RouteSpec, TableSpec, UnitSpec, type_key,
};
pub use route::Route;
pub use select::{Selection, SelectionEntry};
pub use shared::{missing_prerequisite, shared_dir, shared_dir_or_skip, under_ci};
pub use task::{
    GroupCounts, PublicTask, TaskCounts, TaskFile, TaskSet, load_public_tasks, load_task_files, resolve_benchmark_dir,
    task_files,
};
