//! Building and opening the index of one route: `<index-dir>/<route>/` holds the fingerprint,
//! the unit store, the per-unit filter attributes (`unit_attrs.bin`: record dates and evidence
//! mask, read by vector searches), one tantivy BM25 index per analyzer (`bm25/<analyzer>/`, the
//! same attributes in its statistics files) and, when an embedder is given, the dense vectors and HNSW
//! graph (`dense/`).
//!
//! A build writes into a temporary sibling folder and renames it into place at the end, so an
//! interrupted build never leaves a half-written index where a finished one was. The vectors of
//! finished embedding batches are checkpointed beside it ([`crate::checkpoint`]), so the next
//! run of an interrupted build embeds only what is missing.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    time::Instant,
};

use serde::Serialize;

use anser_manifest::{Manifest, Route, boundary::DateWindow};

use crate::{
    Analyzer, Bm25Params, Chunking, DenseParams, DenseStats, Embedder, Error, HnswParams, Result,
    bm25::{Bm25Index, Bm25Writer, DEFAULT_SMALL_BUILD_BYTES, Scored},
    checkpoint::DenseCheckpoint,
    dense_build::DenseBuilder,
    filter::{AttrsWriter, MAX_EVIDENCE_KINDS, NO_UNIT, UnitAttrs, UnitFilter, UnitSet, read_attrs},
    fingerprint::{Bm25Part, CorpusIdentity, DensePart, Fingerprint, tool_version},
    progress::bar,
    store::{UnitStore, UnitStoreWriter},
    units::{count_records, read_units, route_evidence_kinds},
    vectors::VectorIndex,
};

/// The analyzers a route gets by default: both Chinese analyzers for Chinese corpora (jieba
/// first: it is what `bm25` means there), English with stemming otherwise.
pub fn default_analyzers(route: Route) -> Vec<Analyzer> {
    if route.as_str().contains("_zh_") { vec![Analyzer::ZhJieba, Analyzer::ZhBigram] } else { vec![Analyzer::EnStem] }
}

/// How to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub chunking: Chunking,
    /// Empty: [`default_analyzers`].
    pub analyzers: Vec<Analyzer>,
    pub bm25: Bm25Params,
    pub hnsw: HnswParams,
    /// Embedding batch size and concurrency.
    pub dense: DenseParams,
    /// Indexing threads (≥ 1).
    pub threads: usize,
    /// Text bytes of a route up to which each BM25 index holds its units and writes them at the
    /// end, one segment per thread ([`DEFAULT_SMALL_BUILD_BYTES`]; 0: always with tantivy's
    /// `threads` writer threads as the units are read).
    pub small_build_bytes: usize,
    /// Replace an existing index even when it is up to date or built differently.
    pub rebuild: bool,
    pub quiet: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            chunking: Chunking::default(),
            analyzers: Vec::new(),
            bm25: Bm25Params::default(),
            hnsw: HnswParams::default(),
            dense: DenseParams::default(),
            threads: 1,
            small_build_bytes: DEFAULT_SMALL_BUILD_BYTES,
            rebuild: false,
            quiet: true,
        }
    }
}

/// What a build did.
#[derive(Debug, Clone, Serialize)]
pub struct BuildReport {
    pub route: Route,
    pub dir: PathBuf,
    /// `built`, `rebuilt` or `up_to_date`.
    pub action: &'static str,
    pub records: u64,
    pub units: u64,
    pub excluded: u64,
    /// Embedding batches sent in this run and taken from an interrupted run's checkpoint.
    #[serde(flatten)]
    pub dense: DenseStats,
    pub seconds: f64,
}

/// The folder of a route's index.
pub fn route_dir(index_dir: &Path, route: Route) -> PathBuf {
    index_dir.join(route.as_str())
}

/// The corpus file of a route under a corpus root.
pub fn corpus_file(corpus_root: &Path, route: Route) -> PathBuf {
    corpus_root.join(&Manifest::get().route(route).file)
}

fn requested(
    route: Route,
    corpus: CorpusIdentity,
    opts: &BuildOptions,
    embedder: Option<&dyn Embedder>,
) -> Result<Fingerprint> {
    let analyzers = if opts.analyzers.is_empty() { default_analyzers(route) } else { opts.analyzers.clone() };
    let dense = match embedder {
        Some(e) => Some(DensePart {
            model_id: e.model_id().to_string(),
            dim: e.dim(),
            identity: e.identity()?,
            embedder: e.spec(),
            hnsw: opts.hnsw,
        }),
        None => None,
    };
    Ok(Fingerprint {
        tool: tool_version(),
        route,
        corpus,
        chunking: opts.chunking,
        stats: Default::default(),
        bm25: analyzers.into_iter().map(|analyzer| Bm25Part { analyzer, params: opts.bm25 }).collect(),
        dense,
        dated: Manifest::get().route(route).dated.clone(),
        evidence_kinds: route_evidence_kinds(route).into_iter().collect(),
    })
}

/// Build (or confirm) the index of `route`.
pub fn build_route(
    index_dir: &Path,
    corpus_root: &Path,
    route: Route,
    opts: &BuildOptions,
    embedder: Option<&dyn Embedder>,
) -> Result<BuildReport> {
    let t0 = Instant::now();
    let corpus_path = corpus_file(corpus_root, route);
    if !corpus_path.is_file() {
        return Err(Error::Corpus {
            path: corpus_path,
            message: format!("corpus file of route {route} not found; check --corpus-root"),
        });
    }
    let dir = route_dir(index_dir, route);
    remove_stray_staging(index_dir, route)?;
    let identity = CorpusIdentity::of(&corpus_path)?;
    let mut want = requested(route, identity, opts, embedder)?;
    let existed = dir.join(crate::fingerprint::FINGERPRINT_FILE).is_file();
    if existed && !opts.rebuild {
        let have = Fingerprint::read(&dir)?;
        let mut problems = have.mismatches(&want);
        if let Some(change) = have.corpus.changed(&corpus_path)? {
            problems.push(change);
        }
        if problems.is_empty() {
            return Ok(BuildReport {
                route,
                dir,
                action: "up_to_date",
                records: have.stats.records,
                units: have.stats.units,
                excluded: have.stats.excluded,
                dense: DenseStats::default(),
                seconds: t0.elapsed().as_secs_f64(),
            });
        }
        return Err(Error::Stale { path: dir, message: problems.join("; ") });
    } else if dir.exists() && !existed && !opts.rebuild {
        return Err(Error::Exists { path: dir });
    }

    fs_err::create_dir_all(index_dir)?;
    let tmp = index_dir.join(format!("{}{}", staging_prefix(route), std::process::id()));
    if tmp.exists() {
        fs_err::remove_dir_all(&tmp)?;
    }
    fs_err::create_dir_all(tmp.join("bm25"))?;
    let checkpoint = match (embedder, &want.dense) {
        (Some(e), Some(dense)) => {
            let key = checkpoint_key(&want, dense.identity.as_str(), &e.numeric_layout(), opts.dense.batch)?;
            let path = DenseCheckpoint::path_for(index_dir, route.as_str());
            let cp = DenseCheckpoint::open(&path, &key, dense.dim)?;
            if cp.dropped_bytes() > 0 {
                tracing::warn!(path = %path.display(), bytes = cp.dropped_bytes(), "dropped an unusable checkpoint tail");
            }
            Some((e, cp))
        }
        _ => None,
    };
    let result = write_index(&tmp, &corpus_path, route, &mut want, opts, checkpoint);
    let (dense_stats, checkpoint) = match result {
        Ok(done) => done,
        Err(e) => {
            let _ = fs_err::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    if dir.exists() {
        fs_err::remove_dir_all(&dir)?;
    }
    fs_err::rename(&tmp, &dir)?;
    if let Some(cp) = checkpoint {
        cp.remove()?;
    }
    Ok(BuildReport {
        route,
        dir,
        action: if existed { "rebuilt" } else { "built" },
        records: want.stats.records,
        units: want.stats.units,
        excluded: want.stats.excluded,
        dense: dense_stats,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// The name of a build's staging folder before the building process's id.
fn staging_prefix(route: Route) -> String {
    format!(".{}.building-", route.as_str())
}

/// Remove the staging folders of `route` left by builds that were killed (their process is
/// gone), saying so on stderr; a folder of a running build is left alone. Returns the removed
/// folders.
fn remove_stray_staging(index_dir: &Path, route: Route) -> Result<Vec<PathBuf>> {
    if !index_dir.is_dir() {
        return Ok(Vec::new());
    }
    let prefix = staging_prefix(route);
    let mut removed = Vec::new();
    for entry in fs_err::read_dir(index_dir)? {
        let path = entry?.path();
        let pid = path.file_name().and_then(|n| n.to_str()?.strip_prefix(&prefix)?.parse::<u32>().ok());
        // This process's own folder is the one it is about to write (cleared there).
        let Some(pid) = pid.filter(|&p| p != std::process::id() && !process_alive(p)) else { continue };
        if path.is_dir() {
            fs_err::remove_dir_all(&path)?;
            tracing::warn!(path = %path.display(), pid, "removed the staging folder of a build that is no longer running");
            removed.push(path);
        }
    }
    Ok(removed)
}

/// Whether process `pid` exists (Linux: `/proc/<pid>`). Without `/proc` every process counts
/// as alive, so a folder that may be in use is never removed.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// What a checkpoint must have been written by to be reused: the same embedder, the same
/// corpus content, the same units and the same batches.
fn checkpoint_key(want: &Fingerprint, identity: &str, layout: &str, batch: usize) -> Result<String> {
    let dense = want.dense.as_ref().map(|d| (&d.model_id, d.dim));
    serde_json::to_string(&(identity, layout, dense, &want.corpus.sha256, want.chunking, want.route, batch))
        .map_err(|e| Error::Param(format!("cannot describe the dense build: {e}")))
}

type Checkpointed<'a> = Option<(&'a dyn Embedder, DenseCheckpoint)>;

fn write_index(
    dir: &Path,
    corpus_path: &Path,
    route: Route,
    want: &mut Fingerprint,
    opts: &BuildOptions,
    checkpoint: Checkpointed<'_>,
) -> Result<(DenseStats, Option<DenseCheckpoint>)> {
    let total = count_records(route, corpus_path)?;
    if want.evidence_kinds.len() > MAX_EVIDENCE_KINDS {
        return Err(Error::Param(format!("route {route} serves more than {MAX_EVIDENCE_KINDS} evidence kinds")));
    }
    let mut store = UnitStoreWriter::create(dir)?;
    let mut attrs_out = AttrsWriter::create(dir)?;
    let kinds = want.evidence_kinds.clone();
    let mut writers = Vec::new();
    for part in &want.bm25 {
        let d = dir.join("bm25").join(part.analyzer.as_str());
        fs_err::create_dir_all(&d)?;
        writers.push(Bm25Writer::create(&d, part.analyzer, opts.threads, opts.small_build_bytes)?);
    }
    let pb = bar(opts.quiet, total, format!("{route}: index"));
    let embed_pb = bar(opts.quiet, 0, format!("{route}: embed"));
    let mut dense = checkpoint.map(|(e, cp)| DenseBuilder::new(e, opts.dense, cp, &embed_pb));
    let stats = read_units(
        route,
        corpus_path,
        want.chunking,
        |unit| {
            let attrs = UnitAttrs::of_unit(&unit, &kinds);
            store.add(&unit)?;
            attrs_out.add(&attrs)?;
            for w in &mut writers {
                w.add(&unit, &attrs)?;
            }
            if let Some(d) = &mut dense {
                d.push(unit.text)?;
            }
            Ok(())
        },
        || pb.inc(1),
    )?;
    let dense = dense.map(DenseBuilder::finish).transpose()?;
    embed_pb.finish_and_clear();
    pb.finish_and_clear();
    store.finish()?;
    attrs_out.finish()?;
    let commit = bar(opts.quiet, 0, format!("{route}: commit BM25"));
    for w in writers {
        w.finish()?;
    }
    commit.finish_and_clear();
    let (dense_stats, checkpoint) = match (dense, &want.dense) {
        (Some((vectors, dense_stats, checkpoint)), Some(part)) => {
            let d = dir.join("dense");
            fs_err::create_dir_all(&d)?;
            let graph = bar(opts.quiet, 0, format!("{route}: HNSW graph over {} vectors", stats.units));
            let index = VectorIndex::build(vectors, part.dim, part.hnsw)?;
            index.save(&d)?;
            graph.finish_and_clear();
            (dense_stats, Some(checkpoint))
        }
        _ => (DenseStats::default(), None),
    };
    want.stats = stats;
    want.write(dir)?;
    Ok((dense_stats, checkpoint))
}

/// An open route index.
#[derive(Debug)]
pub struct RouteIndex {
    pub route: Route,
    pub dir: PathBuf,
    pub fingerprint: Fingerprint,
    pub store: UnitStore,
    /// Filter attributes by unit ordinal (`unit_attrs.bin`).
    attrs: Vec<UnitAttrs>,
    bm25: BTreeMap<Analyzer, Bm25Index>,
    vectors: Option<VectorIndex>,
}

impl RouteIndex {
    /// Open `<index_dir>/<route>`, checking that the corpus file (under `corpus_root`, or where
    /// it was at build time) is unchanged and that the index was written by this version.
    pub fn open(index_dir: &Path, route: Route, corpus_root: Option<&Path>) -> Result<Self> {
        let dir = route_dir(index_dir, route);
        let fingerprint = Fingerprint::read(&dir)?;
        let stale = |message: String| Error::Stale { path: dir.clone(), message };
        if fingerprint.tool != tool_version() {
            return Err(stale(format!("written by {}, this is {}", fingerprint.tool, tool_version())));
        }
        if fingerprint.route != route {
            return Err(stale(format!("holds route {}, not {route}", fingerprint.route)));
        }
        let corpus = match corpus_root {
            Some(root) => corpus_file(root, route),
            None => fingerprint.corpus.path.clone(),
        };
        if let Some(change) = fingerprint.corpus.changed(&corpus)? {
            return Err(stale(change));
        }
        let dated = &Manifest::get().route(route).dated;
        if fingerprint.dated != *dated {
            return Err(stale(format!("units dated by {:?}, the manifest now says {dated:?}", fingerprint.dated)));
        }
        let store = UnitStore::open(&dir)?;
        if store.len() as u64 != fingerprint.stats.units {
            return Err(stale(format!("{} units stored, fingerprint says {}", store.len(), fingerprint.stats.units)));
        }
        let attrs = read_attrs(&dir, store.len())?;
        let mut bm25 = BTreeMap::new();
        for part in &fingerprint.bm25 {
            let index = Bm25Index::open(&dir.join("bm25").join(part.analyzer.as_str()), part.analyzer)?;
            bm25.insert(part.analyzer, index);
        }
        let vectors = match &fingerprint.dense {
            Some(d) => Some(VectorIndex::load(&dir.join("dense"), d.dim, d.hnsw)?),
            None => None,
        };
        Ok(Self { route, dir, fingerprint, store, attrs, bm25, vectors })
    }

    /// The filter for a search of this route: `window` (a task's information boundary) applies
    /// when the route's units are dated, as the SQL views apply a cutoff only to dated tables;
    /// `evidence_kinds` keeps units naming all of them (none, for a kind the route does not serve).
    pub fn unit_filter(&self, window: Option<DateWindow>, evidence_kinds: &[String]) -> UnitFilter {
        let window = window.filter(|_| self.fingerprint.dated.is_some());
        let evidence = (!evidence_kinds.is_empty()).then(|| {
            evidence_kinds.iter().fold(0u32, |mask, kind| {
                mask | self.fingerprint.evidence_kinds.iter().position(|k| k == kind).map_or(NO_UNIT, |i| 1u32 << i)
            })
        });
        UnitFilter { window, evidence }
    }

    /// The filter attributes of unit `ord`.
    pub fn unit_attrs(&self, ord: u32) -> Option<&UnitAttrs> {
        self.attrs.get(ord as usize)
    }

    /// Dense top-k among the units `filter` admits and, when given, `units` contains (HNSW with
    /// the filter inside, exact when `exact` or the filter is selective), so a filtered-out unit
    /// never takes one of the k places.
    pub fn dense_search(
        &self,
        query: &[f32],
        k: usize,
        exact: bool,
        filter: &UnitFilter,
        units: Option<&UnitSet>,
    ) -> Result<Vec<Scored>> {
        let (vectors, _) = self.dense()?;
        let keep = |ord: u32| {
            units.is_none_or(|u| u.contains(ord)) && self.attrs.get(ord as usize).is_some_and(|a| filter.admits(a))
        };
        match (exact, filter.is_none() && units.is_none()) {
            (true, true) => vectors.exact_search(query, k),
            (true, false) => vectors.exact_search_where(query, k, &keep),
            (false, true) => vectors.search(query, k),
            (false, false) => vectors.search_filtered(query, k, vectors.params().ef_search, &keep),
        }
    }

    /// The BM25 index of `analyzer` (`None`: the route's first analyzer) and its build params.
    pub fn bm25(&self, analyzer: Option<Analyzer>) -> Result<(&Bm25Index, Bm25Params)> {
        let part = match analyzer {
            Some(a) => self.fingerprint.bm25.iter().find(|p| p.analyzer == a),
            None => self.fingerprint.bm25.first(),
        };
        let built: Vec<&str> = self.fingerprint.bm25.iter().map(|p| p.analyzer.as_str()).collect();
        let part = part.ok_or_else(|| Error::MissingIndex {
            path: self.dir.clone(),
            message: format!(
                "no BM25 index for analyzer {} (built: {}); rebuild with --analyzers",
                analyzer.map_or("?", Analyzer::as_str),
                built.join(", ")
            ),
        })?;
        let index = self.bm25.get(&part.analyzer).ok_or_else(|| Error::MissingIndex {
            path: self.dir.clone(),
            message: format!("BM25 index {} missing on disk", part.analyzer),
        })?;
        Ok((index, part.params))
    }

    /// The dense vectors and what built them.
    pub fn dense(&self) -> Result<(&VectorIndex, &DensePart)> {
        match (&self.vectors, &self.fingerprint.dense) {
            (Some(v), Some(d)) => Ok((v, d)),
            _ => Err(Error::MissingIndex {
                path: self.dir.clone(),
                message: "this index has no embeddings; rebuild with --embedding-model DIR or --embedding-backend api"
                    .into(),
            }),
        }
    }

    /// Check that `embedder` is the model the vectors were built with.
    pub fn check_embedder(&self, embedder: &dyn Embedder) -> Result<()> {
        let (_, d) = self.dense()?;
        let identity = embedder.identity()?;
        if embedder.model_id() != d.model_id || embedder.dim() != d.dim || identity != d.identity {
            return Err(Error::Stale {
                path: self.dir.clone(),
                message: format!(
                    "vectors are from {} ({} dims, {}), the query embedder is {} ({} dims, {identity})",
                    d.model_id,
                    d.dim,
                    d.identity,
                    embedder.model_id(),
                    embedder.dim()
                ),
            });
        }
        Ok(())
    }
}
