//! The retrieval interface the methods use, and its implementation over the retriever crate.
//! A [`Searcher`] is always asked with the task, so it can only ever search that task's route
//! and only the units inside the task's information boundary (on every dated route: finance
//! reports and filings, court cases, science articles — the filter runs inside the retriever,
//! as the SQL views hide such rows from `sql`), and it answers with evidence items already in
//! the scorer's identifier kind.

use anser_indexer::evidence::evidence_item;
use anser_manifest::{Manifest, PublicTask};
use anser_retriever::{Retriever, SearchFilter, SpecRetriever};
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

/// [`Searcher`] over a [`SpecRetriever`] (per-route indexes of the indexer). Every search is
/// bound to the task ([`Retriever::bind`]): its route, its information boundary, and units
/// naming the task's evidence kind — all applied inside the retriever's ranking, so the k hits
/// returned are the k best units the task may see.
#[derive(Debug)]
pub struct RetrieverSearcher {
    inner: SpecRetriever,
}

impl RetrieverSearcher {
    pub fn new(inner: SpecRetriever) -> RetrieverSearcher {
        RetrieverSearcher { inner }
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
        let retriever = self.inner.bind(task).map_err(|e| e.to_string())?;
        // A route can hold units of other kinds (the audit corpus: DQC rules beside the filing
        // facts the scorer expects): the filter keeps only units naming the task's kind.
        let only_kind = SearchFilter::none().with_evidence_kind(&kind.name);
        let hits = retriever.search_with(query, k, &only_kind).map_err(|e| e.to_string())?;
        Ok(hits
            .into_iter()
            .filter_map(|h| {
                let id = h.evidence.get(&kind.name)?;
                Some(SearchHit {
                    evidence: evidence_item(kind, id),
                    score: h.score,
                    text: h.text,
                    unit: h.retrieval_id,
                })
            })
            .collect())
    }
}
