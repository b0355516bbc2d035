//! The [`Retriever`] trait and its implementation over per-route indexes.
//!
//! An [`Engine`] owns the index folder: it opens each route's index once (checking its
//! fingerprint) and the query embedder once (checking it is the model the vectors came from).
//! A [`SpecRetriever`] runs one [`RetrieverSpec`] against it. [`Retriever::bind`] returns a
//! [`BoundRetriever`] that can only ever search one task's route: its `search` takes no route,
//! and as a `Retriever` it refuses every other route.
//!
//! Binding also reads the task's information boundary ([`anser_manifest::boundary`]) and every
//! search of the bound retriever applies it as a [`SearchFilter`] *inside* the ranking — the
//! BM25 scorer skips postings of units dated after the cutoff (their dates held per document), the HNSW walk only
//! admits such units (hnsw_rs `search_filter`), exact search skips them — so no part of a spec
//! (hybrid parts, `/in_force`) ever sees a unit outside the boundary. Every path that retrieves
//! for a task (`anser retrieve`, the single-stage methods, the agent's `search` tool, the
//! offline planner) goes through `bind`.

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use serde::Serialize;
use serde_json::Value;

use anser_indexer::{
    Analyzer, Bm25Params, Embedder, EmbedderSpec, RouteIndex, Scored, UnitFilter, UnitSet, open_embedder,
};
use anser_manifest::{
    PublicTask, Route,
    boundary::{Boundary, DateWindow},
};

use crate::{
    Error, Result,
    fusion::{rrf, weighted},
    in_force::{Applicability, RULE_KIND, RuleUnits, rule_law},
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

/// Filters a search applies inside its ranking: only units they admit are ever scored,
/// fused or returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchFilter {
    /// An information boundary: units of records dated outside it are never returned. Applies
    /// on routes whose records the manifest dates (as the SQL views' cutoff does).
    pub window: Option<DateWindow>,
    /// Units must name every one of these evidence kinds.
    pub evidence_kinds: Vec<String>,
}

impl SearchFilter {
    /// No filter.
    pub fn none() -> SearchFilter {
        SearchFilter::default()
    }

    /// The filter of a task's information boundary.
    pub fn boundary(boundary: Option<&Boundary>) -> SearchFilter {
        SearchFilter { window: boundary.map(|b| b.cutoff.window()), evidence_kinds: Vec::new() }
    }

    /// Keep only units that name `kind`.
    pub fn with_evidence_kind(mut self, kind: &str) -> SearchFilter {
        if !self.evidence_kinds.iter().any(|k| k == kind) {
            self.evidence_kinds.push(kind.to_string());
        }
        self
    }

    /// The filter admitting only what both admit.
    pub fn and(&self, other: &SearchFilter) -> SearchFilter {
        let window = match (&self.window, &other.window) {
            (Some(a), Some(b)) => Some(a.and(b)),
            (a, b) => a.or(*b),
        };
        let mut out = SearchFilter { window, evidence_kinds: self.evidence_kinds.clone() };
        for k in &other.evidence_kinds {
            out = out.with_evidence_kind(k);
        }
        out
    }

    fn for_index(&self, index: &RouteIndex) -> UnitFilter {
        index.unit_filter(self.window, &self.evidence_kinds)
    }
}

/// Ranked retrieval over corpus routes.
pub trait Retriever: Send + Sync + std::fmt::Debug {
    /// The spec this retriever runs.
    fn spec(&self) -> &RetrieverSpec;

    /// The `k` best units of `route` for `query`, best first, with no filter (a route-level
    /// search such as `anser search`; tasks search through [`Retriever::bind`]).
    fn search(&self, route: Route, query: &str, k: usize) -> Result<Vec<Hit>> {
        self.search_filtered(route, query, k, &SearchFilter::none())
    }

    /// The `k` best units of `route` for `query` among those `filter` admits, best first.
    fn search_filtered(&self, route: Route, query: &str, k: usize, filter: &SearchFilter) -> Result<Vec<Hit>>;

    /// A retriever that can only search `task`'s route, and only the units inside the task's
    /// information boundary. Fails when the task states conflicting cutoffs.
    fn bind<'a>(&'a self, task: &PublicTask) -> Result<BoundRetriever<'a>>
    where
        Self: Sized,
    {
        let boundary = Boundary::from_task(task).map_err(Error::Boundary)?;
        Ok(BoundRetriever { inner: self, route: task.route, boundary })
    }
}

/// A retriever bound to one route and one information boundary (those of the task it was
/// bound to).
#[derive(Debug, Clone)]
pub struct BoundRetriever<'a> {
    inner: &'a dyn Retriever,
    route: Route,
    boundary: Option<Boundary>,
}

impl BoundRetriever<'_> {
    /// The only route this retriever searches.
    pub fn route(&self) -> Route {
        self.route
    }

    /// The information boundary every search applies (`None`: the task states none).
    pub fn boundary(&self) -> Option<&Boundary> {
        self.boundary.as_ref()
    }

    /// The `k` best units of the bound route inside the boundary.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<Hit>> {
        self.search_with(query, k, &SearchFilter::none())
    }

    /// [`Self::search`] with further filters (they can only narrow the boundary).
    pub fn search_with(&self, query: &str, k: usize, filter: &SearchFilter) -> Result<Vec<Hit>> {
        let bounded = SearchFilter::boundary(self.boundary.as_ref()).and(filter);
        self.inner.search_filtered(self.route, query, k, &bounded)
    }
}

impl Retriever for BoundRetriever<'_> {
    fn spec(&self) -> &RetrieverSpec {
        self.inner.spec()
    }

    fn search_filtered(&self, route: Route, query: &str, k: usize, filter: &SearchFilter) -> Result<Vec<Hit>> {
        if route != self.route {
            return Err(Error::WrongRoute { bound: self.route, asked: route });
        }
        self.search_with(query, k, filter)
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
    rule_units: Mutex<HashMap<Route, Arc<RuleUnits>>>,
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
            rule_units: Mutex::new(HashMap::new()),
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

    /// The regulatory rules of `route` (read from its units once; empty, without reading, on a
    /// route that serves no regulatory rules).
    pub fn rule_units(&self, route: Route, index: &RouteIndex) -> Result<Arc<RuleUnits>> {
        let mut cache = self.rule_units.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(v) = cache.get(&route) {
            return Ok(v.clone());
        }
        let mut laws = Vec::new();
        if index.fingerprint.evidence_kinds.iter().any(|k| k == RULE_KIND) {
            for unit in index.store.iter() {
                let unit = unit?;
                if let Some(law) = rule_law(&unit.evidence) {
                    laws.push((unit.ord, law.to_string()));
                }
            }
        }
        let rules = Arc::new(RuleUnits::from_units(index.store.len() as u32, laws));
        cache.insert(route, rules.clone());
        Ok(rules)
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

    /// The ranking of `spec`, every part of it filtered by `filter` and, when given, restricted to
    /// `units` inside its search.
    #[allow(clippy::too_many_arguments)]
    fn ranked(
        &self,
        spec: &RetrieverSpec,
        route: Route,
        index: &RouteIndex,
        query: &str,
        k: usize,
        filter: &UnitFilter,
        units: Option<&Arc<UnitSet>>,
    ) -> Result<Vec<Scored>> {
        Ok(match spec {
            RetrieverSpec::None => Vec::new(),
            RetrieverSpec::Bm25 { analyzer, k1, b } => {
                let built: Vec<Analyzer> = index.fingerprint.bm25.iter().map(|p| p.analyzer).collect();
                let analyzer = analyzer.unwrap_or_else(|| RetrieverSpec::default_analyzer(route, &built));
                let (bm25, built) = index.bm25(Some(analyzer))?;
                let params = Bm25Params::new(k1.unwrap_or(built.k1()), b.unwrap_or(built.b()), built.idf_kind())?;
                let mut q = bm25.query(&bm25.query_terms(query), &params, filter)?;
                if let Some(units) = units {
                    q = q.with_units(units.clone());
                }
                bm25.top_k(&q, k)?.0
            }
            RetrieverSpec::Dense { exact } => {
                let embedder = self.engine.embedder(index)?;
                let q = embedder.embed(&[query])?.pop().unwrap_or_default();
                index.dense_search(&q, k, *exact, filter, units.map(|u| u.as_ref()))?
            }
            RetrieverSpec::Hybrid { parts, fusion } => {
                let depth = self.depth.max(k);
                let lists = parts
                    .iter()
                    .map(|p| self.ranked(p, route, index, query, depth, filter, units))
                    .collect::<Result<Vec<_>>>()?;
                let mut fused = match fusion {
                    Fusion::Rrf { k } => rrf(&lists, *k),
                    Fusion::Weighted { weights } => weighted(&lists, weights),
                };
                fused.truncate(k);
                fused
            }
            RetrieverSpec::InForce(inner) => {
                let rules = self.engine.rule_units(route, index)?;
                if rules.is_empty() {
                    return self.ranked(inner, route, index, query, k, filter, units);
                }
                let mut in_force = rules.in_force(&Applicability::of_query(query));
                if let Some(outer) = units {
                    in_force =
                        UnitSet::from_fn(index.store.len() as u32, |o| in_force.contains(o) && outer.contains(o));
                }
                // Every part admits only the rules in force inside its own search (BM25 pruning,
                // HNSW `search_filter`, exact scan), so a hybrid fuses lists of rules in force.
                self.ranked(inner, route, index, query, k, filter, Some(&Arc::new(in_force)))?
            }
        })
    }
}

impl Retriever for SpecRetriever {
    fn spec(&self) -> &RetrieverSpec {
        &self.spec
    }

    fn search_filtered(&self, route: Route, query: &str, k: usize, filter: &SearchFilter) -> Result<Vec<Hit>> {
        if matches!(self.spec, RetrieverSpec::None) || k == 0 {
            return Ok(Vec::new());
        }
        let index = self.engine.route(route)?;
        let unit_filter = filter.for_index(&index);
        let scored = self.ranked(&self.spec, route, &index, query, k, &unit_filter, None)?;
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
