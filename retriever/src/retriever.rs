//! The [`Retriever`] trait and its implementation over per-route indexes.
//!
//! An [`Engine`] owns the index folder: it opens each route's index once (checking its
//! fingerprint) and the query embedder once (checking it is the model the vectors came from).
//! A [`SpecRetriever`] runs one [`RetrieverSpec`] against it. [`Retriever::bind`] returns a
//! [`BoundRetriever`] that can only ever search one task's route: its `search` takes no route,
//! and as a `Retriever` it refuses every other route.

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use serde::Serialize;
use serde_json::Value;

use anser_indexer::{Analyzer, Bm25Params, Embedder, EmbedderSpec, RouteIndex, Scored, open_embedder};
use anser_manifest::{PublicTask, Route};

use crate::{
    Error, Result,
    fusion::{rrf, weighted},
    in_force::{Applicability, RuleVersions, rule_law},
    spec::{DEFAULT_FUSION_DEPTH, Fusion, RetrieverSpec},
};

/// One retrieved unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// 1-based rank.
    pub rank: usize,
    pub score: f64,
    /// Unit ordinal in the route's store.
    pub ord: u32,
    /// `<record id>:<chunk>`.
    pub retrieval_id: String,
    pub record_id: String,
    pub text: String,
    /// Identifier per evidence kind the route serves (see anser_indexer::evidence).
    pub evidence: BTreeMap<String, Value>,
}

/// Ranked retrieval over corpus routes.
pub trait Retriever: Send + Sync + std::fmt::Debug {
    /// The spec this retriever runs.
    fn spec(&self) -> &RetrieverSpec;

    /// The `k` best units of `route` for `query`, best first.
    fn search(&self, route: Route, query: &str, k: usize) -> Result<Vec<Hit>>;

    /// A retriever that can only search `task`'s route.
    fn bind<'a>(&'a self, task: &PublicTask) -> BoundRetriever<'a>
    where
        Self: Sized,
    {
        BoundRetriever { inner: self, route: task.route }
    }
}

/// A retriever bound to one route (that of the task it was bound to).
#[derive(Debug, Clone, Copy)]
pub struct BoundRetriever<'a> {
    inner: &'a dyn Retriever,
    route: Route,
}

impl BoundRetriever<'_> {
    /// The only route this retriever searches.
    pub fn route(&self) -> Route {
        self.route
    }

    /// The `k` best units of the bound route.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<Hit>> {
        self.inner.search(self.route, query, k)
    }
}

impl Retriever for BoundRetriever<'_> {
    fn spec(&self) -> &RetrieverSpec {
        self.inner.spec()
    }

    fn search(&self, route: Route, query: &str, k: usize) -> Result<Vec<Hit>> {
        if route != self.route {
            return Err(Error::WrongRoute { bound: self.route, asked: route });
        }
        self.inner.search(route, query, k)
    }
}

/// Open indexes and embedders, shared by every retriever over one index folder.
#[derive(Debug)]
pub struct Engine {
    index_dir: PathBuf,
    corpus_root: Option<PathBuf>,
    threads: usize,
    routes: Mutex<HashMap<Route, Arc<RouteIndex>>>,
    embedders: Mutex<Vec<(EmbedderSpec, Arc<dyn Embedder>)>>,
    rule_versions: Mutex<HashMap<Route, Arc<RuleVersions>>>,
}

impl Engine {
    /// Indexes under `index_dir`; corpus files are checked for staleness under `corpus_root`
    /// (or where they were at build time).
    pub fn new(index_dir: &Path, corpus_root: Option<&Path>) -> Self {
        Self {
            index_dir: index_dir.to_path_buf(),
            corpus_root: corpus_root.map(Path::to_path_buf),
            threads: 0,
            routes: Mutex::new(HashMap::new()),
            embedders: Mutex::new(Vec::new()),
            rule_versions: Mutex::new(HashMap::new()),
        }
    }

    /// ONNX Runtime threads for query embedding (0 = its default).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Use this embedder for queries against indexes built with its spec (instead of opening
    /// one from the fingerprint).
    pub fn with_embedder(self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedders.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((embedder.spec(), embedder));
        self
    }

    /// The open index of `route`.
    pub fn route(&self, route: Route) -> Result<Arc<RouteIndex>> {
        let mut routes = self.routes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(r) = routes.get(&route) {
            return Ok(r.clone());
        }
        let index = Arc::new(RouteIndex::open(&self.index_dir, route, self.corpus_root.as_deref())?);
        routes.insert(route, index.clone());
        Ok(index)
    }

    /// The rulebook revisions of `route`'s regulatory rules (read from its units once).
    pub fn rule_versions(&self, route: Route, index: &RouteIndex) -> Result<Arc<RuleVersions>> {
        let mut cache = self.rule_versions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(v) = cache.get(&route) {
            return Ok(v.clone());
        }
        let mut laws = Vec::new();
        for unit in index.store.iter() {
            if let Some(law) = rule_law(&unit?.evidence) {
                laws.push(law.to_string());
            }
        }
        let versions = Arc::new(RuleVersions::from_laws(laws.iter().map(String::as_str)));
        cache.insert(route, versions.clone());
        Ok(versions)
    }

    /// The query embedder of a route index, checked against the index.
    pub fn embedder(&self, index: &RouteIndex) -> Result<Arc<dyn Embedder>> {
        let (_, dense) = index.dense()?;
        let mut cache = self.embedders.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let embedder = match cache.iter().find(|(s, _)| *s == dense.embedder) {
            Some((_, e)) => e.clone(),
            None => {
                let e: Arc<dyn Embedder> = Arc::from(open_embedder(&dense.embedder, self.threads)?);
                cache.push((dense.embedder.clone(), e.clone()));
                e
            }
        };
        index.check_embedder(embedder.as_ref())?;
        Ok(embedder)
    }
}

/// A retriever running one spec over an [`Engine`].
#[derive(Debug, Clone)]
pub struct SpecRetriever {
    engine: Arc<Engine>,
    spec: RetrieverSpec,
    depth: usize,
}

impl SpecRetriever {
    pub fn new(engine: Arc<Engine>, spec: RetrieverSpec) -> Self {
        Self { engine, spec, depth: DEFAULT_FUSION_DEPTH }
    }

    /// Hits each hybrid part retrieves before fusion (raised to k when k is larger).
    pub fn with_fusion_depth(mut self, depth: usize) -> Self {
        self.depth = depth.max(1);
        self
    }

    fn ranked(
        &self,
        spec: &RetrieverSpec,
        route: Route,
        index: &RouteIndex,
        query: &str,
        k: usize,
    ) -> Result<Vec<Scored>> {
        Ok(match spec {
            RetrieverSpec::None => Vec::new(),
            RetrieverSpec::Bm25 { analyzer, k1, b } => {
                let built: Vec<Analyzer> = index.fingerprint.bm25.iter().map(|p| p.analyzer).collect();
                let analyzer = analyzer.unwrap_or_else(|| RetrieverSpec::default_analyzer(route, &built));
                let (bm25, built) = index.bm25(Some(analyzer))?;
                let params = Bm25Params::new(k1.unwrap_or(built.k1), b.unwrap_or(built.b), built.idf)?;
                bm25.search(query, k, &params)?
            }
            RetrieverSpec::Dense { exact } => {
                let (vectors, _) = index.dense()?;
                let embedder = self.engine.embedder(index)?;
                let q = embedder.embed(&[query])?.pop().unwrap_or_default();
                if *exact { vectors.exact_search(&q, k)? } else { vectors.search(&q, k)? }
            }
            RetrieverSpec::Hybrid { parts, fusion } => {
                let depth = self.depth.max(k);
                let lists =
                    parts.iter().map(|p| self.ranked(p, route, index, query, depth)).collect::<Result<Vec<_>>>()?;
                let mut fused = match fusion {
                    Fusion::Rrf { k } => rrf(&lists, *k),
                    Fusion::Weighted { weights } => weighted(&lists, weights),
                };
                fused.truncate(k);
                fused
            }
            RetrieverSpec::InForce(inner) => {
                let applicability = Applicability::of_query(query);
                // Filtering removes hits, so rank deeper than k first.
                let ranked = self.ranked(inner, route, index, query, self.depth.max(k.saturating_mul(4)))?;
                let mut versions = None;
                let mut kept = Vec::with_capacity(k);
                for s in ranked {
                    if kept.len() == k {
                        break;
                    }
                    let unit = index.store.get(s.ord)?;
                    let applies = match rule_law(&unit.evidence) {
                        Some(law) => {
                            let v = match &versions {
                                Some(v) => v,
                                None => versions.insert(self.engine.rule_versions(route, index)?),
                            };
                            v.applies(law, &applicability)
                        }
                        None => true,
                    };
                    if applies {
                        kept.push(s);
                    }
                }
                kept
            }
        })
    }
}

impl Retriever for SpecRetriever {
    fn spec(&self) -> &RetrieverSpec {
        &self.spec
    }

    fn search(&self, route: Route, query: &str, k: usize) -> Result<Vec<Hit>> {
        if matches!(self.spec, RetrieverSpec::None) || k == 0 {
            return Ok(Vec::new());
        }
        let index = self.engine.route(route)?;
        let scored = self.ranked(&self.spec, route, &index, query, k)?;
        scored
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let unit = index.store.get(s.ord)?;
                Ok(Hit {
                    rank: i + 1,
                    score: s.score,
                    ord: s.ord,
                    retrieval_id: unit.retrieval_id(),
                    record_id: unit.record_id,
                    text: unit.text,
                    evidence: unit.evidence,
                })
            })
            .collect()
    }
}
