//! The retrieval interface the methods use, and its implementation over the retriever crate.
//! A [`Searcher`] is always asked with the task, so it can only ever search that task's route,
//! and it answers with evidence items already in the scorer's identifier kind. With the corpus
//! root known ([`RetrieverSearcher::with_boundaries`]), hits of dated JSONL records (science
//! articles) outside the task's information boundary are dropped, as the SQL views hide such
//! rows of SQLite routes.

use std::path::PathBuf;

use anser_indexer::evidence::evidence_item;
use anser_manifest::{Manifest, PublicTask};
use anser_retriever::{Retriever, SpecRetriever};
use serde::Serialize;
use serde_json::Value;

/// One ranked retrieval hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    /// The evidence item in the scorer's identifier kind (e.g. `{"item": .., "law": ..}`).
    pub evidence: Value,
    pub score: f64,
    /// The unit's text (a chunk of the record).
    pub text: String,
    /// `<record id>:<chunk>`.
    pub unit: String,
}

/// Retrieval bound to the tasks' routes.
pub trait Searcher: Send + Sync + std::fmt::Debug {
    /// The retriever spec (`bm25`, `hybrid:bm25+dense@rrf60`, ...) for metadata and traces.
    fn spec(&self) -> String;

    /// Top `k` units of the task's route for `query`, best first. Units without an identifier
    /// of the task's evidence kind are skipped.
    fn search(&self, task: &PublicTask, query: &str, k: usize) -> Result<Vec<SearchHit>, String>;
}

/// Evidence items of hits in rank order, de-duplicated by their compact JSON.
pub fn evidence_of(hits: &[SearchHit]) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    hits.iter().filter(|h| seen.insert(h.evidence.to_string())).map(|h| h.evidence.clone()).collect()
}

use crate::{
    method::record::{JsonlIndex, jsonl_index},
    tools::boundary::{Boundary, dated_field},
};

/// [`Searcher`] over a [`SpecRetriever`] (per-route indexes of the indexer).
#[derive(Debug)]
pub struct RetrieverSearcher {
    inner: SpecRetriever,
    corpus_root: Option<PathBuf>,
}

impl RetrieverSearcher {
    pub fn new(inner: SpecRetriever) -> RetrieverSearcher {
        RetrieverSearcher { inner, corpus_root: None }
    }

    /// Enforce information boundaries on dated JSONL routes, reading record dates from the
    /// corpus under `corpus_root` (through the `open` tool's per-file index).
    pub fn with_boundaries(mut self, corpus_root: PathBuf) -> RetrieverSearcher {
        self.corpus_root = Some(corpus_root);
        self
    }

    /// The boundary to enforce on `task`'s hits and the index holding its records' dates.
    fn boundary(&self, task: &PublicTask) -> Result<Option<(Boundary, std::sync::Arc<JsonlIndex>)>, String> {
        let (Some(root), Some(_)) = (&self.corpus_root, dated_field(task.route)) else { return Ok(None) };
        let Some(boundary) = Boundary::from_task(task).map_err(|e| e.to_string())? else { return Ok(None) };
        let index = jsonl_index(root, task.route).map_err(|e| e.to_string())?;
        Ok(Some((boundary, index)))
    }
}

impl Searcher for RetrieverSearcher {
    fn spec(&self) -> String {
        self.inner.spec().to_string()
    }

    fn search(&self, task: &PublicTask, query: &str, k: usize) -> Result<Vec<SearchHit>, String> {
        let kind = Manifest::get()
            .resolve(&task.id, task.group, task.task_type.as_deref())
            .map_err(|e| e.to_string())?
            .evidence;
        let boundary = self.boundary(task)?;
        let admitted = |record_id: &str| match &boundary {
            Some((b, index)) => index.date(record_id).is_some_and(|d| b.cutoff.admits(d)),
            None => true,
        };
        let retriever = self.inner.bind(task);
        // A route can hold units of other kinds (the audit corpus: DQC rules beside the filing
        // facts the scorer expects); when they fill the top k, search deeper so that the k
        // best units *with* an identifier of the task's kind are returned.
        let mut depth = k;
        loop {
            let raw = retriever.search(query, depth).map_err(|e| e.to_string())?;
            let exhausted = raw.len() < depth;
            let mut hits: Vec<SearchHit> = raw
                .into_iter()
                .filter(|h| admitted(&h.record_id))
                .filter_map(|h| {
                    let id = h.evidence.get(&kind.name)?;
                    Some(SearchHit {
                        evidence: evidence_item(kind, id),
                        score: h.score,
                        text: h.text,
                        unit: h.retrieval_id,
                    })
                })
                .collect();
            if hits.len() >= k || exhausted || depth >= MAX_SEARCH_DEPTH {
                hits.truncate(k);
                return Ok(hits);
            }
            depth = (depth.max(1) * 4).min(MAX_SEARCH_DEPTH);
        }
    }
}

/// How deep a search may go to find `k` units of the task's evidence kind.
const MAX_SEARCH_DEPTH: usize = 1000;
