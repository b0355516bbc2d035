//! anser-indexer: the per-route retrieval indexes.
//!
//! - [`units`]: retrieval units as the corpora manifest defines them, chunked ([`Chunking`]),
//!   each carrying its evidence identifiers ([`evidence`]); excluded rows are never read.
//! - [`analyzer`]: zh bigram (official baseline), zh jieba, en (+ stemming).
//! - [`bm25`]: tantivy postings with our own BM25 scoring ([`Bm25Params`]: k1, b, idf) as a
//!   tantivy query with exact top-k pruning ([`bm25_query`]).
//! - [`filter`]: per-unit record dates and evidence masks (BM25 statistics files, `unit_attrs.bin`) and
//!   the [`UnitFilter`] a search applies inside its ranking (a task's information boundary).
//! - [`embed`]: the [`Embedder`] trait (local ONNX via anser-encoder, or an OpenAI-compatible
//!   `/embeddings` API via anser-llm).
//! - [`dense_build`]: batched, concurrent embedding during a build, checkpointed per batch
//!   ([`checkpoint`]) so that a killed build resumes without embedding finished batches again.
//! - [`vectors`]: exact and hnsw_rs search over unit vectors ([`HnswParams`]).
//! - [`fingerprint`]: what an index was built from; stale indexes are refused.
//! - [`route_index`]: [`build_route`] and [`RouteIndex::open`].
//!
//! ```no_run
//! use anser_indexer::{BuildOptions, RouteIndex, build_route};
//! use anser_manifest::Route;
//! # fn main() -> anser_indexer::Result<()> {
//! let (index, corpus) = (std::path::Path::new("idx"), std::path::Path::new("corpus"));
//! build_route(index, corpus, Route::FinanceZhRules, &BuildOptions::default(), None)?;
//! let ri = RouteIndex::open(index, Route::FinanceZhRules, None)?;
//! let (bm25, params) = ri.bm25(None)?;
//! for hit in bm25.search("业绩预告 披露", 5, &params)? {
//!     println!("{} {:.3} {}", hit.ord, hit.score, ri.store.get(hit.ord)?.record_id);
//! }
//! # Ok(()) }
//! ```

pub mod analyzer;
pub mod bm25;
mod bm25_params;
pub mod bm25_query;
mod bm25_stats;
pub mod checkpoint;
pub mod chunk;
mod deferred_sync;
pub mod dense_build;
pub mod embed;
mod error;
pub mod evidence;
pub mod filter;
pub mod fingerprint;
mod le_reader;
mod pack;
mod parallel;
mod postings_writer;
pub mod progress;
pub mod route_index;
pub mod store;
mod term_cache;
pub mod units;
pub mod vectors;

pub use analyzer::{Analyzer, Tokens};
/// Encoder parameters for [`OnnxEmbedder::with_config`].
pub use anser_encoder::{DEFAULT_SESSIONS as DEFAULT_ONNX_SESSIONS, EncoderConfig, EncoderConfigBuilder};
pub use bm25::{Bm25Index, Bm25Params, DEFAULT_B, DEFAULT_K1, DEFAULT_SMALL_BUILD_BYTES, Idf, Scored};
pub use bm25_query::{Bm25Query, PruneStats};
pub use chunk::{Chunking, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE};
pub use dense_build::{DEFAULT_EMBED_BATCH, DEFAULT_EMBEDDING_CONCURRENCY, DenseParams, DenseStats};
pub use embed::{ApiEmbedder, Embedder, EmbedderSpec, OnnxEmbedder, embedder_from_env, open_embedder};
pub use error::{Error, Result};
pub use filter::{UnitAttrs, UnitFilter, UnitSet};
pub use fingerprint::{Fingerprint, INDEX_FORMAT, tool_version};
pub use route_index::{BuildOptions, BuildReport, RouteIndex, build_route, corpus_file, default_analyzers, route_dir};
pub use units::Unit;
pub use vectors::{HnswParams, VectorIndex};
