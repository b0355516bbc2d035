//! anser-retriever: ranked retrieval over the per-route indexes of anser-indexer.
//!
//! Kinds: `bm25` (our BM25 over tantivy postings, any analyzer the index holds, query-time
//! k1/b), `dense` (cosine over the route's embeddings, HNSW or exact), `hybrid` (reciprocal rank
//! fusion, k = 60 by default, or weighted fusion of min–max normalised scores) and `none`; any
//! of them with `/in_force` keeps only the regulatory rules in force for the query's company and
//! date ([`in_force`]).
//! A retriever is built from a spec string ([`RetrieverSpec`]), so an ablation is a flag.
//!
//! ```no_run
//! use std::sync::Arc;
//! use anser_retriever::{Engine, Retriever, SpecRetriever};
//! # fn main() -> anser_retriever::Result<()> {
//! let engine = Arc::new(Engine::new("idx".as_ref(), None));
//! let retriever = SpecRetriever::new(engine, "hybrid:bm25+dense@rrf60".parse()?);
//! for hit in retriever.search(anser_manifest::Route::FinanceZhRules, "业绩预告", 10)? {
//!     println!("{} {:.4} {}", hit.rank, hit.score, hit.retrieval_id);
//! }
//! # Ok(()) }
//! ```
//!
//! For tasks, [`Retriever::bind`] gives a [`BoundRetriever`] that can only search the task's
//! route and only the units inside the task's information boundary (a [`SearchFilter`] applied
//! inside every search); [`evidence_list`] turns hits into the de-duplicated evidence list the
//! scorer expects.

mod error;
mod evidence;
mod fusion;
pub mod in_force;
mod retriever;
pub mod spec;

pub use error::{Error, Result};
pub use evidence::evidence_list;
pub use fusion::{rrf, weighted};
pub use retriever::{BoundRetriever, Engine, Hit, Retriever, SearchFilter, SpecRetriever};
pub use spec::{DEFAULT_FUSION_DEPTH, DEFAULT_RRF_K, Fusion, RetrieverSpec};
