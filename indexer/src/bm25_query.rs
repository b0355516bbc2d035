//! BM25 as a tantivy [`Query`] → [`Weight`] → [`Scorer`], with our parameters and exact top-k
//! pruning.
//!
//! [`Bm25Query`] holds the analysed query terms with their idf, the [`Bm25Params`] and a
//! [`UnitFilter`]. Its weight's [`Weight::scorer`] is the exhaustive disjunction: every document
//! holding a query term that the filter admits, scored
//! `Σ_t idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·|d|/avgdl))` with `|d|` the exact token count
//! ([`crate::bm25_stats`]), not tantivy's one-byte fieldnorm. It is the reference the pruned path
//! is tested against.
//!
//! The top-k path ([`Weight::for_each_pruning`], and [`Bm25Weight::top_k`] which keeps scores in
//! f64 and breaks ties by unit ordinal) is **block-max MaxScore**:
//!
//! - each term has an upper bound: over its postings blocks, the largest score a block reaches
//!   (the best point of the block's (tf, length) front, [`crate::bm25_stats`]; terms with one
//!   block: the saturation limit `idf·(k1 + 1)`), computed per query, so it is valid for any k1,
//!   b and idf;
//! - a slice of at most [`DENSE_MAX_DOCS`] documents (a small route's one segment) is scored
//!   without pruning, term at a time into one accumulator per document;
//! - a segment is scored in windows of documents (128 first, doubling up to 4,096); in each
//!   window a term's bound is the largest bound of its blocks overlapping the window, and a
//!   window whose bounds sum below the k-th best score θ so far is skipped without decoding a
//!   posting;
//! - inside a window, terms are sorted by bound; once θ exceeds the sum of the smallest bounds,
//!   those terms are *non-essential*: a document holding only them cannot enter the top k. The
//!   essential terms' postings in the window are scored term at a time into per-document
//!   accumulators; the documents they reached are the candidates;
//! - a candidate is dropped when its partial score plus the window bounds of the non-essential
//!   terms is below θ; the others are completed term at a time: each non-essential term, largest
//!   bound first, passes over the candidates still alive in document order (reached by `seek`,
//!   which skips whole blocks without decoding them), and a candidate is dropped as soon as its
//!   score plus the term's *block* bound at it and the window bounds of the terms left cannot
//!   reach θ. One term at a time rather than one candidate at a time keeps one postings list's
//!   block decoded and makes the candidates' updates independent of each other (the divisions
//!   of their term scores overlap): on the release science_articles route, ~70 terms per query,
//!   it was 1.5× faster than completing each candidate in turn, for the same seeks;
//! - filters (the [`UnitFilter`] on the candidate's attributes from the statistics files, and an optional
//!   [`UnitSet`] of admitted unit ordinals, e.g. the rules in force for `/in_force`) are checked
//!   on each candidate before it is bounded, so a filtered-out unit is never offered and never
//!   raises θ, and pruning stays exact under filters.
//!
//! Bounds are compared with a relative margin of 1e-9. Term scores are summed in fixed point
//! ([`fixed_point_scale`]), so a document's score does not depend on the order its terms were
//! added in: both paths return the same scores bit for bit and the same top k (ties by unit
//! ordinal).

use std::{
    collections::BinaryHeap,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use tantivy::{
    DocId, DocSet, Score, SegmentReader, TERMINATED, Term,
    index::SegmentId,
    postings::{BlockSegmentPostings, Postings, SegmentPostings, TermInfo},
    query::{EnableScoring, Explanation, Query, Scorer, Weight},
    schema::IndexRecordOption,
};

use crate::{
    bm25_params::{Bm25Params, Scored},
    bm25_stats::{Block, SegmentStats},
    filter::{UnitAttrs, UnitFilter, UnitSet},
};

/// Relative margin under which a bound is taken to reach the threshold (rounding of sums in
/// another order is ~1e-15 relative).
const MARGIN: f64 = 1e-9;
/// Documents per pruning window: each window re-sorts the terms by their bound inside it, and a
/// window whose bounds sum below the k-th score is skipped without decoding a posting.
pub const DEFAULT_WINDOW: DocId = 4096;
/// Documents in a segment's first window; each next window is twice as long, up to the query's
/// window, so the k-th score θ is established on few documents before windows grow (in a
/// window every term that can reach θ is scored term at a time).
const FIRST_WINDOW: DocId = 128;
/// Longest slice (run of documents of one segment) scored without pruning: every posting of
/// every term, term at a time into one accumulator per document, through one reused block
/// decoder. Pruning such a slice gains little (its first windows are searched before the k-th
/// score is known) and costs more than it saves: a term's cursor holds its own decoded block
/// (over 1 KiB, copied as it is opened) and its bounds are computed before a posting is read.
/// On the real finance_zh_rules (one segment of 216 rules, ~110 distinct bigrams per query) a
/// warm query went from 27 to 19 µs, of which the search from 17 to 9; on routes with
/// segments of 3,000–5,000 documents it made no difference up to 2,048 documents per slice and
/// was slower from 4,096 (finance_en_audit 62 → 130 µs).
pub const DENSE_MAX_DOCS: DocId = 512;
/// Windows of a slice searched before the others: those where the terms' bounds sum highest,
/// so that the k-th score θ starts near its final value (a slice with fewer than four times as
/// many windows is searched in order, from windows of [`FIRST_WINDOW`]). Off by default: on
/// the release science_articles route θ is near its final value after the first windows anyway,
/// and the seed windows, searched while θ is still low, scored more postings than they saved
/// (698k vs 658k per query); kept as an option for routes where the best units come late.
pub const DEFAULT_SEED_WINDOWS: DocId = 0;
/// Postings (summed over the query's terms and segments) from which a top-k search is split
/// over threads: below it, starting threads costs more than it saves.
pub const DEFAULT_PARALLEL_MIN_POSTINGS: u64 = 1_000_000;

/// What the index keeps in memory per segment for scoring.
#[derive(Debug)]
pub(crate) struct SegmentData {
    pub id: SegmentId,
    pub stats: SegmentStats,
    /// The term dictionary of the text field, when the segment is small enough to hold it.
    pub terms: Option<crate::term_cache::TermCache>,
    /// Unit ordinal per document.
    pub ords: Vec<u32>,
    /// Filter attributes per document.
    pub attrs: Vec<UnitAttrs>,
}

/// The segments of an open index and its mean document length.
#[derive(Debug)]
pub(crate) struct Corpus {
    pub segments: Vec<Arc<SegmentData>>,
    pub avgdl: f64,
}

impl Corpus {
    /// The position of segment `id` in `segments`.
    fn position(&self, id: SegmentId) -> tantivy::Result<usize> {
        self.segments.iter().position(|s| s.id == id).ok_or_else(|| {
            tantivy::TantivyError::InternalError(format!("no BM25 statistics for segment {}", id.uuid_string()))
        })
    }

    fn segment(&self, id: SegmentId) -> tantivy::Result<&Arc<SegmentData>> {
        Ok(&self.segments[self.position(id)?])
    }
}

/// Postings counters of one search (debug statistics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PruneStats {
    /// Postings of the query's terms in the searched segments.
    pub postings: u64,
    /// Postings whose term score was computed.
    pub scored: u64,
    /// Documents whose full score was computed and offered to the top k.
    pub docs_scored: u64,
    /// Candidate documents the filter rejected before scoring.
    pub docs_filtered: u64,
    /// Windows of documents skipped whole (their terms' bounds could not reach the k-th score).
    pub windows_skipped: u64,
    /// Documents the essential terms reached (each then bounded, filtered, maybe completed).
    pub candidates: u64,
    /// Windows searched before the others ([`DEFAULT_SEED_WINDOWS`]).
    pub seeded: u64,
    /// Non-essential postings lists moved forward to a candidate.
    pub seeks: u64,
    /// Runs of consecutive documents of one segment searched (more than the segments when the
    /// search was split over threads).
    pub slices: u64,
    /// Of those, the ones scored without pruning, every posting term at a time (no longer than
    /// [`DENSE_MAX_DOCS`] documents).
    pub dense_slices: u64,
}

impl PruneStats {
    /// Postings never scored.
    pub fn skipped(&self) -> u64 {
        self.postings.saturating_sub(self.scored)
    }

    fn add(&mut self, o: &PruneStats) {
        self.postings += o.postings;
        self.scored += o.scored;
        self.docs_scored += o.docs_scored;
        self.docs_filtered += o.docs_filtered;
        self.windows_skipped += o.windows_skipped;
        self.candidates += o.candidates;
        self.seeks += o.seeks;
        self.seeded += o.seeded;
        self.slices += o.slices;
        self.dense_slices += o.dense_slices;
    }
}

/// One analysed query term with its idf.
#[derive(Debug, Clone)]
pub(crate) struct QueryTerm {
    pub term: Term,
    pub idf: f64,
    /// Where its postings are in each segment (`Corpus::segments` order; `None`: not there),
    /// looked up once when the query is made rather than again by every search of it.
    pub infos: Vec<Option<TermInfo>>,
}

/// Our BM25 over the distinct terms of a query, as a tantivy query.
#[derive(Clone)]
pub struct Bm25Query {
    pub(crate) terms: Arc<[QueryTerm]>,
    pub(crate) params: Bm25Params,
    pub(crate) filter: UnitFilter,
    /// When set, only these unit ordinals are admitted.
    pub(crate) units: Option<Arc<UnitSet>>,
    /// Documents per pruning window.
    pub(crate) window: DocId,
    /// Fixed-point scale of the score sums ([`fixed_point_scale`]).
    pub(crate) scale: f64,
    /// Windows of each slice searched first ([`DEFAULT_SEED_WINDOWS`]).
    pub(crate) seed_windows: DocId,
    /// Threads a top-k search may use (1: the caller's thread only).
    pub(crate) threads: usize,
    /// Postings from which the search is split over `threads`.
    pub(crate) parallel_min_postings: u64,
    /// The query terms' postings over all segments.
    pub(crate) postings: u64,
    pub(crate) corpus: Arc<Corpus>,
}

impl std::fmt::Debug for Bm25Query {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Query")
            .field("terms", &self.terms.len())
            .field("params", &self.params)
            .field("filter", &self.filter)
            .finish_non_exhaustive()
    }
}

impl Query for Bm25Query {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.bm25_weight()))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        for t in self.terms.iter() {
            visitor(&t.term, false);
        }
    }
}

impl Bm25Query {
    /// Admit only the units of `units` (on top of the filter).
    pub fn with_units(mut self, units: Arc<UnitSet>) -> Self {
        self.units = Some(units);
        self
    }

    /// Use pruning windows of `docs` documents (≥ 1) instead of [`DEFAULT_WINDOW`] (for tests
    /// that need many windows on a small index).
    #[doc(hidden)]
    pub fn with_window(mut self, docs: DocId) -> Self {
        self.window = docs.max(1);
        self
    }

    /// Split a top-k search with at least `min_postings` postings over `threads` threads (≥ 1)
    /// instead of the defaults (the machine's threads, [`DEFAULT_PARALLEL_MIN_POSTINGS`]).
    #[doc(hidden)]
    pub fn with_threads(mut self, threads: usize, min_postings: u64) -> Self {
        self.threads = threads.max(1);
        self.parallel_min_postings = min_postings;
        self
    }

    /// Search `windows` windows of each slice first (0: in order; see [`DEFAULT_SEED_WINDOWS`]).
    #[doc(hidden)]
    pub fn with_seed_windows(mut self, windows: DocId) -> Self {
        self.seed_windows = windows;
        self
    }

    /// Whether document `d` of `seg` passes the filter and the unit set.
    fn admits(&self, seg: &SegmentData, d: DocId) -> bool {
        (self.filter.is_none() || seg.attrs.get(d as usize).is_some_and(|a| self.filter.admits(a)))
            && self.units.as_ref().is_none_or(|u| seg.ords.get(d as usize).is_some_and(|&o| u.contains(o)))
    }

    /// The weight, typed (the scores of its f64 top-k path are not rounded to tantivy's f32).
    pub fn bm25_weight(&self) -> Bm25Weight {
        Bm25Weight { query: self.clone() }
    }
}

/// The weight of a [`Bm25Query`].
#[derive(Debug, Clone)]
pub struct Bm25Weight {
    query: Bm25Query,
}

/// Receives the documents the pruned path finds, and tells it the score to beat.
trait Sink {
    /// The k-th best score so far (−∞ until k documents are held).
    fn threshold(&self) -> f64;
    fn offer(&mut self, doc: DocId, ord: u32, score: f64);
}

/// Heap entry ordered worst first: lower score, then higher ordinal.
#[derive(Debug, Clone, Copy)]
struct Entry(Scored);

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.0.score.total_cmp(&self.0.score).then(self.0.ord.cmp(&o.0.ord))
    }
}

/// The k best (score desc, ordinal asc) offered documents.
///
/// When the search is split over threads, each thread keeps its own k best and publishes its
/// k-th score in `shared` (scores are positive, so their bits order as the scores do): every
/// thread's k-th score is at most the final k-th score, so the largest of them is a threshold
/// all threads may prune with, and it only ever drops documents that cannot enter the final k.
struct TopK<'a> {
    k: usize,
    heap: BinaryHeap<Entry>,
    shared: Option<&'a AtomicU64>,
}

impl<'a> TopK<'a> {
    fn new(k: usize, shared: Option<&'a AtomicU64>) -> Self {
        TopK { k, heap: BinaryHeap::with_capacity(k + 1), shared }
    }

    fn local_threshold(&self) -> f64 {
        match self.heap.peek() {
            Some(w) if self.heap.len() == self.k => w.0.score,
            _ => f64::NEG_INFINITY,
        }
    }
}

impl Sink for TopK<'_> {
    fn threshold(&self) -> f64 {
        let local = self.local_threshold();
        match self.shared {
            Some(s) => local.max(f64::from_bits(s.load(Ordering::Relaxed))),
            None => local,
        }
    }

    fn offer(&mut self, _doc: DocId, ord: u32, score: f64) {
        let e = Entry(Scored { ord, score });
        if self.heap.len() < self.k {
            self.heap.push(e);
        } else if self.heap.peek().is_some_and(|w| e < *w) {
            self.heap.pop();
            self.heap.push(e);
        } else {
            return;
        }
        let local = self.local_threshold();
        if let Some(s) = self.shared
            && local > 0.0
        {
            s.fetch_max(local.to_bits(), Ordering::Relaxed);
        }
    }
}

/// tantivy's pruning callback as a sink (f32 scores, collected only above its threshold).
struct CallbackSink<'a> {
    threshold: Score,
    callback: &'a mut dyn FnMut(DocId, Score) -> Score,
}

impl Sink for CallbackSink<'_> {
    fn threshold(&self) -> f64 {
        f64::from(self.threshold)
    }

    fn offer(&mut self, doc: DocId, _ord: u32, score: f64) {
        let s = score as Score;
        if s > self.threshold {
            self.threshold = (self.callback)(doc, s);
        }
    }
}

/// The power of two that scores are summed at: a term's score is rounded to a multiple of
/// `1 / scale` and the multiples are added as integers, so a document's score does not depend on
/// the order its terms are added in (the pruned path adds them window by window, the exhaustive
/// one in query order). No term scores more than its saturation `idf·(k1 + 1)`, so with the sum
/// of those below `2^61 / scale` no sum overflows; the rounding is ~1e-15 of the largest score.
pub(crate) fn fixed_point_scale(terms: &[QueryTerm], params: &Bm25Params) -> f64 {
    let most: f64 = terms.iter().map(|t| t.idf * (params.k1() + 1.0)).sum();
    let exp = if most > 0.0 { 61 - most.log2().ceil() as i32 } else { 61 };
    2f64.powi(exp.clamp(-1000, 1000))
}

/// A term score in fixed point (see [`fixed_point_scale`]).
#[inline]
fn fixed(score: f64, scale: f64) -> u64 {
    // Below 2^61 (see `fixed_point_scale`), so the signed conversion (one instruction, where
    // the unsigned one is several) gives the same integer.
    (score * scale + 0.5) as i64 as u64
}

/// A fixed-point sum as a score. `scale` is a power of two, so multiplying by its reciprocal
/// is exact and the division is hoisted out of the loops that call this.
#[inline]
fn unfixed(sum: u64, scale: f64) -> f64 {
    sum as i64 as f64 * (1.0 / scale)
}

/// The value a bound must reach to count as reaching `threshold` (its relative margin off).
#[inline]
fn threshold_floor(threshold: f64) -> f64 {
    threshold - MARGIN * threshold.abs()
}

fn below(bound: f64, threshold: f64) -> bool {
    bound < threshold_floor(threshold)
}

/// One term's bounds over one slice of a segment.
struct Bounds<'a> {
    /// The term's index in the query's terms, and where its postings are in the segment.
    term: usize,
    info: &'a TermInfo,
    idf: f64,
    /// Bound over all its postings.
    ub: f64,
    /// Its blocks overlapping the slice (`None`: it has a single block, bound by `ub`).
    blocks: Option<&'a [Block]>,
    /// Bound per block (same indexes as `blocks`).
    block_ub: Vec<f64>,
}

/// One term's postings in one slice of a segment, with its bounds.
struct Cursor<'a, 'b> {
    postings: SegmentPostings,
    bounds: &'b Bounds<'a>,
    /// Block holding the current candidate.
    at: usize,
}

impl Cursor<'_, '_> {
    /// Bound of this term's score over documents `start..end` (0 when it has no posting there;
    /// a term without block maxima is sought to `start`, which decodes at most its one block).
    fn window_bound(&mut self, start: DocId, end: DocId) -> f64 {
        match self.bounds.blocks {
            None => {
                if self.postings.doc() < start {
                    self.postings.seek(start);
                }
                if self.postings.doc() < end { self.bounds.ub } else { 0.0 }
            }
            Some(blocks) => {
                while self.at < blocks.len() && blocks[self.at].last_doc < start {
                    self.at += 1;
                }
                let mut bound = 0.0f64;
                for (b, ub) in blocks[self.at..].iter().zip(&self.bounds.block_ub[self.at..]) {
                    bound = bound.max(*ub);
                    if b.last_doc + 1 >= end {
                        break;
                    }
                }
                bound
            }
        }
    }

    /// Bound of this term's score for document `d`: the bound of the block holding `d` (0 past
    /// its last posting; a term without block maxima: its bound over all postings). `d` only
    /// grows from call to call within a slice.
    fn block_bound(&mut self, d: DocId) -> f64 {
        match self.bounds.blocks {
            None => self.bounds.ub,
            Some(blocks) => {
                while self.at < blocks.len() && blocks[self.at].last_doc < d {
                    self.at += 1;
                }
                self.bounds.block_ub.get(self.at).copied().unwrap_or(0.0)
            }
        }
    }
}

/// Scratch space of one slice's search, reused window after window.
struct Scratch {
    /// Each term's bound inside the window.
    wmax: Vec<f64>,
    /// Terms in ascending window bound order.
    order: Vec<usize>,
    /// Prefix sums of the window bounds in that order.
    prefix: Vec<f64>,
    /// The essential terms' fixed-point partial scores per document of the window.
    acc: Vec<u64>,
    /// The documents of the window the essential terms reached.
    hit: Vec<u64>,
    /// The window's live candidates: document and fixed-point score so far.
    live: Vec<(DocId, u64)>,
}

impl Scratch {
    fn new(terms: usize, window: usize) -> Self {
        Scratch {
            wmax: vec![0.0; terms],
            order: (0..terms).collect(),
            prefix: vec![0.0; terms + 1],
            acc: vec![0; window],
            hit: vec![0; window.div_ceil(64)],
            live: Vec::with_capacity(window),
        }
    }
}

/// The largest term score over a block's (tf, length) front: `idf·(k1 + 1)·tf / (tf + c0 +
/// c1·len)` is largest where `tf / (tf + c0 + c1·len)` is, found by cross-multiplying, so a
/// front costs one division rather than two per point (bounds are computed for every block of
/// every query term). It may differ from [`Bm25Params::term_score`] in the last bits, which the
/// relative [`MARGIN`] of every comparison absorbs.
fn front_bound(params: &Bm25Params, idf: f64, avgdl: f64, front: &[crate::bm25_stats::Point]) -> f64 {
    let k1 = params.k1();
    let (c0, c1) = if avgdl > 0.0 { (k1 * (1.0 - params.b()), k1 * params.b() / avgdl) } else { (k1, 0.0) };
    let (mut num, mut den) = (0.0f64, 1.0f64);
    for p in front {
        let tf = f64::from(p.tf);
        let d = tf + c0 + c1 * f64::from(p.len);
        if tf * den > num * d {
            (num, den) = (tf, d);
        }
    }
    if num == 0.0 { 0.0 } else { idf * (k1 + 1.0) * num / den }
}

/// A segment's inverted index of the field of the terms asked for, looked up again only when
/// the field changes from one term to the next (a query's terms are of one field).
struct FieldIndex<'r> {
    reader: &'r SegmentReader,
    held: Option<(tantivy::schema::Field, Arc<tantivy::InvertedIndexReader>)>,
}

impl<'r> FieldIndex<'r> {
    fn new(reader: &'r SegmentReader) -> Self {
        FieldIndex { reader, held: None }
    }

    fn of(&mut self, field: tantivy::schema::Field) -> tantivy::Result<&tantivy::InvertedIndexReader> {
        let held = match self.held.take() {
            Some((f, r)) if f == field => (f, r),
            _ => (field, self.reader.inverted_index(field)?),
        };
        Ok(&self.held.insert(held).1)
    }
}

/// The part of a segment one thread searches: documents `lo..hi` of segment `seg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slice {
    seg: usize,
    lo: DocId,
    hi: DocId,
}

/// The segments' documents (`max_doc` per segment) cut into `parts` runs of consecutive
/// documents of about equal length, each run a list of slices in segment and document order.
fn partition(max_docs: &[DocId], parts: usize) -> Vec<Vec<Slice>> {
    let total: u64 = max_docs.iter().map(|&m| u64::from(m)).sum();
    let parts = (parts.max(1) as u64).min(total.max(1));
    let mut out = vec![Vec::new(); parts as usize];
    let mut base = 0u64;
    for (seg, &max_doc) in max_docs.iter().enumerate() {
        let (first, last) = (base, base + u64::from(max_doc));
        for (p, run) in out.iter_mut().enumerate() {
            let (from, to) = (total * p as u64 / parts, total * (p as u64 + 1) / parts);
            let (lo, hi) = (from.max(first), to.min(last));
            if lo < hi {
                run.push(Slice { seg, lo: (lo - first) as DocId, hi: (hi - first) as DocId });
            }
        }
        base = last;
    }
    out
}

impl Bm25Weight {
    /// The query's terms that `reader`'s segment holds: (index in the query's terms, where its
    /// postings are), in the query's order.
    fn segment_terms(&self, reader: &SegmentReader) -> tantivy::Result<Vec<(usize, &TermInfo)>> {
        let seg = self.query.corpus.position(reader.segment_id())?;
        Ok(self
            .query
            .terms
            .iter()
            .enumerate()
            .filter_map(|(idx, t)| Some((idx, t.infos.get(seg)?.as_ref()?)))
            .collect())
    }

    /// Opens the postings of `terms` (index in the query's terms, where the postings are in
    /// `reader`'s segment: [`Self::segment_terms`]), in order, and hands each to `take` with
    /// its index. Opening one decodes its first block, so a search opens each once; and a
    /// `SegmentPostings` holds that block (over 1 KiB), so each goes straight where it is kept
    /// instead of through a vector that would copy them all again.
    fn open_postings<'t>(
        &self,
        reader: &SegmentReader,
        terms: impl IntoIterator<Item = (usize, &'t TermInfo)>,
        mut take: impl FnMut(usize, SegmentPostings),
    ) -> tantivy::Result<()> {
        let mut inverted = FieldIndex::new(reader);
        for (idx, info) in terms {
            let field_index = inverted.of(self.query.terms[idx].term.field())?;
            take(idx, field_index.read_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?);
        }
        Ok(())
    }

    /// The `k` best units, best first (ties by unit ordinal), with postings counters. A query
    /// with many postings is searched on several threads (see [`Bm25Query::with_threads`]),
    /// each over a run of consecutive documents, sharing the k-th score ([`TopK`]).
    pub fn top_k(&self, searcher: &tantivy::Searcher, k: usize) -> tantivy::Result<(Vec<Scored>, PruneStats)> {
        let mut stats = PruneStats::default();
        if k == 0 {
            return Ok((Vec::new(), stats));
        }
        let readers = searcher.segment_readers();
        let q = &self.query;
        let threads = if q.postings >= q.parallel_min_postings { q.threads } else { 1 };
        let max_docs: Vec<DocId> = readers.iter().map(SegmentReader::max_doc).collect();
        let runs = partition(&max_docs, threads);
        let mut entries = Vec::with_capacity(k * runs.len());
        if runs.len() <= 1 {
            let mut top = TopK::new(k, None);
            for reader in readers {
                stats.add(&self.prune(reader, 0, reader.max_doc(), &mut top)?);
            }
            entries.extend(top.heap.into_iter().map(|e| e.0));
        } else {
            let shared = AtomicU64::new(0.0f64.to_bits());
            let shared = &shared;
            let search = move |run: &[Slice]| -> tantivy::Result<(Vec<Scored>, PruneStats)> {
                let mut top = TopK::new(k, Some(shared));
                let mut stats = PruneStats::default();
                for sl in run {
                    stats.add(&self.prune(&readers[sl.seg], sl.lo, sl.hi, &mut top)?);
                }
                Ok((top.heap.into_iter().map(|e| e.0).collect(), stats))
            };
            let results = crate::parallel::in_parallel("BM25 search", runs.iter().map(|run| move || search(run)))?;
            for (part, part_stats) in results {
                entries.extend(part);
                stats.add(&part_stats);
            }
        }
        entries.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.ord.cmp(&b.ord)));
        entries.truncate(k);
        Ok((entries, stats))
    }

    /// Every admitted matching unit scored by the exhaustive scorer, best first (the reference
    /// the pruned path is checked against).
    pub fn exhaustive(&self, searcher: &tantivy::Searcher) -> tantivy::Result<Vec<Scored>> {
        let mut hits = Vec::new();
        for reader in searcher.segment_readers() {
            let mut scorer = self.bm25_scorer(reader)?;
            let mut doc = scorer.doc();
            while doc != TERMINATED {
                hits.push(Scored { ord: scorer.seg.ords[doc as usize], score: scorer.score_f64() });
                doc = scorer.advance();
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.ord.cmp(&b.ord)));
        Ok(hits)
    }

    /// The postings of the terms of `bounds` in `reader`, each with its bounds.
    fn cursors<'a, 'b>(
        &self,
        reader: &SegmentReader,
        bounds: &'b [Bounds<'a>],
    ) -> tantivy::Result<Vec<Cursor<'a, 'b>>> {
        let mut cursors = Vec::with_capacity(bounds.len());
        // `open_postings` hands back the terms in the order it was given them.
        let mut each = bounds.iter();
        self.open_postings(reader, bounds.iter().map(|b| (b.term, b.info)), |_, postings| {
            if let Some(bounds) = each.next() {
                cursors.push(Cursor { postings, bounds, at: 0 });
            }
        })?;
        Ok(cursors)
    }

    /// Block-max MaxScore over documents `lo..hi` of one segment, window by window (see the
    /// module docs).
    fn prune(&self, reader: &SegmentReader, lo: DocId, hi: DocId, sink: &mut dyn Sink) -> tantivy::Result<PruneStats> {
        let q = &self.query;
        let seg = q.corpus.segment(reader.segment_id())?.clone();
        // A query window shorter than the slice (tests' many small windows) keeps pruning.
        if hi - lo <= DENSE_MAX_DOCS.min(q.window) {
            return self.dense(reader, &seg, lo, hi, sink);
        }
        let (params, avgdl) = (q.params, q.corpus.avgdl);
        let mut stats = PruneStats { slices: 1, ..PruneStats::default() };
        let mut bounds = Vec::new();
        // The bounds need only where each term's postings are; `cursors` opens them from the
        // bounds.
        for (idx, info) in self.segment_terms(reader)? {
            let idf = q.terms[idx].idf;
            let start = info.postings_range.start as u64;
            // Each posting is counted once, by the slice that starts the segment.
            if lo == 0 {
                stats.postings += u64::from(info.doc_freq);
            }
            // Only the blocks overlapping lo..hi: from the first ending at or after lo to the
            // first ending at or after hi − 1.
            let blocks = seg.stats.blocks(start).map(|all| {
                let from = all.partition_point(|b| b.last_doc < lo);
                let to = all.partition_point(|b| b.last_doc < hi.saturating_sub(1)).saturating_add(1).min(all.len());
                &all[from..to.max(from)]
            });
            let block_ub: Vec<f64> =
                blocks.unwrap_or(&[]).iter().map(|b| front_bound(&params, idf, avgdl, seg.stats.front(b))).collect();
            let saturation = idf * (params.k1() + 1.0);
            let ub = if blocks.is_some() { block_ub.iter().copied().fold(0.0, f64::max) } else { saturation };
            bounds.push(Bounds { term: idx, info, idf, ub, blocks, block_ub });
        }
        if bounds.is_empty() {
            return Ok(stats);
        }
        // No window is longer than the documents searched (a small segment's are far fewer).
        let mut scratch = Scratch::new(bounds.len(), q.window.min(hi.saturating_sub(lo)) as usize);
        let grid = q.window;
        let seeds = self.seed_windows(reader, &bounds, lo, hi)?;
        if seeds.is_empty() {
            // Windows growing from FIRST_WINDOW, so θ is established on few documents.
            let mut cursors = self.cursors(reader, &bounds)?;
            let mut start = lo;
            let mut span = FIRST_WINDOW.min(grid);
            while start < hi {
                let end = start.saturating_add(span).min(hi);
                span = span.saturating_mul(2).min(grid);
                self.window(&seg, &mut cursors, &mut scratch, start, end, sink, &mut stats);
                start = end;
            }
        } else {
            // The seed windows first (θ rises on the documents most likely to be in the top k),
            // then the others in order; a seed window's documents were all offered or pruned.
            stats.seeded += seeds.len() as u64;
            let mut cursors = self.cursors(reader, &bounds)?;
            for &w in &seeds {
                let start = lo + w * grid;
                self.window(
                    &seg,
                    &mut cursors,
                    &mut scratch,
                    start,
                    start.saturating_add(grid).min(hi),
                    sink,
                    &mut stats,
                );
            }
            let mut cursors = self.cursors(reader, &bounds)?;
            let mut next_seed = seeds.iter().peekable();
            let mut w = 0;
            let mut start = lo;
            while start < hi {
                let end = start.saturating_add(grid).min(hi);
                if next_seed.next_if_eq(&&w).is_none() {
                    self.window(&seg, &mut cursors, &mut scratch, start, end, sink, &mut stats);
                }
                w += 1;
                start = end;
            }
        }
        Ok(stats)
    }

    /// Scores documents `lo..hi` of `seg`, a slice no longer than [`DENSE_MAX_DOCS`], term at a
    /// time into one accumulator per document, every posting, and offers each admitted document
    /// (the sink keeps the k best). One block decoder is reset from term to term instead of a
    /// cursor opened per term.
    fn dense(
        &self,
        reader: &SegmentReader,
        seg: &SegmentData,
        lo: DocId,
        hi: DocId,
        sink: &mut dyn Sink,
    ) -> tantivy::Result<PruneStats> {
        let q = &self.query;
        let (params, avgdl, scale) = (q.params, q.corpus.avgdl, q.scale);
        let lens = &seg.stats.lens;
        let mut stats = PruneStats { slices: 1, dense_slices: 1, ..PruneStats::default() };
        let span = (hi - lo) as usize;
        let mut acc = vec![0u64; span];
        let mut hit = vec![0u64; span.div_ceil(64)];
        let mut inverted = FieldIndex::new(reader);
        let mut block: Option<BlockSegmentPostings> = None;
        for (idx, info) in self.segment_terms(reader)? {
            let t = &q.terms[idx];
            if lo == 0 {
                stats.postings += u64::from(info.doc_freq);
            }
            let field_index = inverted.of(t.term.field())?;
            let b = match &mut block {
                Some(b) => {
                    field_index.reset_block_postings_from_terminfo(info, b)?;
                    b
                }
                None => {
                    block.insert(field_index.read_block_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?)
                }
            };
            // From the first posting at or after `lo` (blocks before it skipped undecoded) to
            // the last before `hi`.
            let mut from = if lo > 0 { b.seek(lo) } else { 0 };
            'postings: while !b.docs().is_empty() {
                // `seek` may point just past a block's last posting.
                let start = from.min(b.docs().len());
                for (&d, &tf) in b.docs()[start..].iter().zip(&b.freqs()[start..]) {
                    if d >= hi {
                        break 'postings;
                    }
                    let off = (d - lo) as usize;
                    let dl = f64::from(lens.get(d as usize).copied().unwrap_or(0));
                    acc[off] += fixed(params.term_score(t.idf, f64::from(tf), dl, avgdl), scale);
                    hit[off / 64] |= 1 << (off % 64);
                    stats.scored += 1;
                }
                from = 0;
                b.advance();
            }
        }
        for (w, mut bits) in hit.into_iter().enumerate() {
            while bits != 0 {
                let off = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let d = lo + off as DocId;
                stats.candidates += 1;
                if q.admits(seg, d) {
                    stats.docs_scored += 1;
                    sink.offer(d, seg.ords[d as usize], unfixed(acc[off], scale));
                } else {
                    stats.docs_filtered += 1;
                }
            }
        }
        Ok(stats)
    }

    /// The windows (indexes of `q.window`-document windows from `lo`) to search first, in
    /// order: the [`Bm25Query::with_seed_windows`] ones whose terms' bounds sum highest. None
    /// when the slice has fewer than four times as many windows.
    fn seed_windows(
        &self,
        reader: &SegmentReader,
        bounds: &[Bounds],
        lo: DocId,
        hi: DocId,
    ) -> tantivy::Result<Vec<DocId>> {
        let q = &self.query;
        let (grid, seeds) = (q.window, q.seed_windows as usize);
        let windows = (hi - lo).div_ceil(grid) as usize;
        if seeds == 0 || windows < 4 * seeds {
            return Ok(Vec::new());
        }
        let mut totals = vec![0.0f64; windows];
        let mut best = vec![0.0f64; windows];
        let mut cursors = self.cursors(reader, bounds)?;
        for c in &mut cursors {
            best.fill(0.0);
            match c.bounds.blocks {
                // A single block: its postings say which windows it reaches.
                None => {
                    let mut d = c.postings.doc();
                    if d < lo {
                        d = c.postings.seek(lo);
                    }
                    while d < hi {
                        best[((d - lo) / grid) as usize] = c.bounds.ub;
                        d = c.postings.advance();
                    }
                }
                Some(blocks) => {
                    let mut first = lo;
                    for (b, &ub) in blocks.iter().zip(&c.bounds.block_ub) {
                        let last = b.last_doc.min(hi - 1);
                        for w in ((first.max(lo) - lo) / grid)..=((last.max(lo) - lo) / grid) {
                            best[w as usize] = best[w as usize].max(ub);
                        }
                        first = b.last_doc.saturating_add(1);
                    }
                }
            }
            for (t, b) in totals.iter_mut().zip(&best) {
                *t += b;
            }
        }
        let mut ranked: Vec<DocId> = (0..windows as DocId).collect();
        ranked.sort_by(|&a, &b| totals[b as usize].total_cmp(&totals[a as usize]).then(a.cmp(&b)));
        ranked.truncate(seeds);
        ranked.sort_unstable();
        Ok(ranked)
    }

    /// Scores documents `start..end` of `seg` into `sink`: skipped whole when the terms' bounds
    /// cannot reach θ, else the essential terms term at a time and the candidates completed.
    #[allow(clippy::too_many_arguments)]
    fn window(
        &self,
        seg: &SegmentData,
        cursors: &mut [Cursor],
        scratch: &mut Scratch,
        start: DocId,
        end: DocId,
        sink: &mut dyn Sink,
        stats: &mut PruneStats,
    ) {
        let q = &self.query;
        let (params, avgdl, scale) = (q.params, q.corpus.avgdl, q.scale);
        let Scratch { wmax, order, prefix, acc, hit, live } = scratch;
        let n = cursors.len();
        let lens = &seg.stats.lens;
        let len_of = |d: DocId| f64::from(lens.get(d as usize).copied().unwrap_or(0));
        let theta = sink.threshold();
        let mut total = 0.0;
        for (i, c) in cursors.iter_mut().enumerate() {
            wmax[i] = c.window_bound(start, end);
            total += wmax[i];
        }
        if below(total, theta) {
            stats.windows_skipped += 1;
            return;
        }
        order.sort_unstable_by(|&a, &b| wmax[a].total_cmp(&wmax[b]).then(a.cmp(&b)));
        for (i, &o) in order.iter().enumerate() {
            prefix[i + 1] = prefix[i] + wmax[o];
        }
        // order[..ne]: non-essential terms (a document holding only them cannot reach θ).
        let mut ne = 0;
        while ne < n && below(prefix[ne + 1], theta) {
            ne += 1;
        }
        // The essential terms, term at a time, into the window's accumulators.
        for &o in &order[ne..] {
            let c = &mut cursors[o];
            if c.postings.doc() < start {
                c.postings.seek(start);
            }
            let mut d = c.postings.doc();
            while d < end {
                let off = (d - start) as usize;
                let s = params.term_score(c.bounds.idf, f64::from(c.postings.term_freq()), len_of(d), avgdl);
                acc[off] += fixed(s, scale);
                hit[off / 64] |= 1 << (off % 64);
                stats.scored += 1;
                d = c.postings.advance();
            }
        }
        // The candidates, in document order: those that pass the filter and whose score so far
        // plus every non-essential window bound reaches θ.
        let floor = threshold_floor(theta);
        live.clear();
        for (w, word) in hit.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                let off = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let sum = std::mem::take(&mut acc[off]);
                let d = start + off as DocId;
                stats.candidates += 1;
                if !q.admits(seg, d) {
                    stats.docs_filtered += 1;
                } else if prefix[ne] + unfixed(sum, scale) >= floor {
                    live.push((d, sum));
                }
            }
        }
        // The non-essential terms one at a time, largest bound first, each over the candidates
        // still alive (in document order, so its postings only move forward). Before the term a
        // candidate needs its score so far plus the term's block bound at it plus the window
        // bounds of the terms after it (`prefix[i]`) to reach θ; after it, its score plus those
        // bounds. θ is the one at the window's start: it only rises, so pruning with it is exact.
        for i in (0..ne).rev() {
            if live.is_empty() {
                break;
            }
            let rest = prefix[i];
            if wmax[order[i]] == 0.0 {
                // No posting in the window.
                continue;
            }
            let c = &mut cursors[order[i]];
            let mut keep = 0;
            for j in 0..live.len() {
                let (d, mut sum) = live[j];
                if rest + c.block_bound(d) + unfixed(sum, scale) < floor {
                    continue;
                }
                let mut at = c.postings.doc();
                if at < d {
                    at = c.postings.seek(d);
                    stats.seeks += 1;
                }
                if at == d {
                    let s = params.term_score(c.bounds.idf, f64::from(c.postings.term_freq()), len_of(d), avgdl);
                    sum += fixed(s, scale);
                    stats.scored += 1;
                }
                if rest + unfixed(sum, scale) >= floor {
                    live[keep] = (d, sum);
                    keep += 1;
                }
            }
            live.truncate(keep);
        }
        for &(d, sum) in live.iter() {
            stats.docs_scored += 1;
            sink.offer(d, seg.ords[d as usize], unfixed(sum, scale));
        }
    }

    fn bm25_scorer(&self, reader: &SegmentReader) -> tantivy::Result<Bm25Scorer> {
        let seg = self.query.corpus.segment(reader.segment_id())?.clone();
        let mut postings = Vec::new();
        self.open_postings(reader, self.segment_terms(reader)?, |idx, p| {
            postings.push((self.query.terms[idx].idf, p));
        })?;
        let mut scorer = Bm25Scorer {
            postings,
            seg,
            params: self.query.params,
            avgdl: self.query.corpus.avgdl,
            query: self.query.clone(),
            doc: 0,
        };
        scorer.doc = scorer.settle(scorer.min_doc());
        Ok(scorer)
    }
}

impl Weight for Bm25Weight {
    fn scorer(&self, reader: &SegmentReader, _boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(self.bm25_scorer(reader)?))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let mut scorer = self.bm25_scorer(reader)?;
        if scorer.doc() > doc || scorer.seek(doc) != doc {
            return Err(tantivy::TantivyError::InvalidArgument(format!("document {doc} does not match")));
        }
        let p = self.query.params;
        Ok(Explanation::new_with_string(
            format!("BM25 k1={} b={} idf={:?}", p.k1(), p.b(), p.idf_kind()),
            scorer.score_f64() as Score,
        ))
    }

    fn for_each_pruning(
        &self,
        threshold: Score,
        reader: &SegmentReader,
        callback: &mut dyn FnMut(DocId, Score) -> Score,
    ) -> tantivy::Result<()> {
        self.prune(reader, 0, reader.max_doc(), &mut CallbackSink { threshold, callback })?;
        Ok(())
    }
}

/// The exhaustive disjunction of a [`Bm25Query`] over one segment.
pub struct Bm25Scorer {
    /// (idf, postings) per query term
    postings: Vec<(f64, SegmentPostings)>,
    seg: Arc<SegmentData>,
    params: Bm25Params,
    avgdl: f64,
    query: Bm25Query,
    doc: DocId,
}

impl std::fmt::Debug for Bm25Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Scorer")
            .field("terms", &self.postings.len())
            .field("doc", &self.doc)
            .finish_non_exhaustive()
    }
}

impl Bm25Scorer {
    fn min_doc(&self) -> DocId {
        self.postings.iter().map(|p| p.1.doc()).min().unwrap_or(TERMINATED)
    }

    fn admits(&self, d: DocId) -> bool {
        self.query.admits(&self.seg, d)
    }

    /// The first admitted document from `d` on.
    fn settle(&mut self, mut d: DocId) -> DocId {
        while d != TERMINATED && !self.admits(d) {
            for p in &mut self.postings {
                if p.1.doc() == d {
                    p.1.advance();
                }
            }
            d = self.min_doc();
        }
        d
    }

    /// The current document's score (summed in fixed point, as the pruned path sums it).
    pub fn score_f64(&mut self) -> f64 {
        let d = self.doc;
        let dl = f64::from(self.seg.stats.lens.get(d as usize).copied().unwrap_or(0));
        let scale = self.query.scale;
        let mut sum = 0u64;
        for (idf, p) in &self.postings {
            if p.doc() == d {
                sum += fixed(self.params.term_score(*idf, f64::from(p.term_freq()), dl, self.avgdl), scale);
            }
        }
        unfixed(sum, scale)
    }
}

impl DocSet for Bm25Scorer {
    fn advance(&mut self) -> DocId {
        let d = self.doc;
        for p in &mut self.postings {
            if p.1.doc() == d {
                p.1.advance();
            }
        }
        self.doc = self.settle(self.min_doc());
        self.doc
    }

    fn seek(&mut self, target: DocId) -> DocId {
        for p in &mut self.postings {
            if p.1.doc() < target {
                p.1.seek(target);
            }
        }
        self.doc = self.settle(self.min_doc());
        self.doc
    }

    fn doc(&self) -> DocId {
        self.doc
    }

    fn size_hint(&self) -> u32 {
        self.postings.iter().map(|p| p.1.doc_freq()).max().unwrap_or(0)
    }
}

impl Scorer for Bm25Scorer {
    fn score(&mut self) -> Score {
        self.score_f64() as Score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_bound_is_the_best_term_score_of_the_front() {
        use crate::{Idf, bm25_stats::Point};
        let front: Vec<Point> = [(1, 40), (2, 90), (3, 300), (7, 2000)].map(|(tf, len)| Point { tf, len }).to_vec();
        for (k1, b) in [(1.2, 0.75), (0.0, 0.3), (2.0, 1.0), (0.5, 0.0), (100.0, 0.9)] {
            let p = Bm25Params::new(k1, b, Idf::Lucene).expect("params");
            for avgdl in [0.0, 150.0] {
                let best = front
                    .iter()
                    .map(|q| p.term_score(1.7, f64::from(q.tf), f64::from(q.len), avgdl))
                    .fold(0.0, f64::max);
                let bound = front_bound(&p, 1.7, avgdl, &front);
                assert!((bound - best).abs() <= 1e-12 * best, "k1 {k1} b {b} avgdl {avgdl}: {bound} vs {best}");
            }
        }
        assert_eq!(front_bound(&Bm25Params::default(), 1.7, 150.0, &[]), 0.0);
    }

    #[test]
    fn partition_cuts_segments_into_equal_runs_in_order() {
        let runs = partition(&[10, 4, 6], 2);
        let s = |seg, lo, hi| Slice { seg, lo, hi };
        assert_eq!(runs, vec![vec![s(0, 0, 10)], vec![s(1, 0, 4), s(2, 0, 6)]]);
        let runs = partition(&[7, 5], 3);
        assert_eq!(runs, vec![vec![s(0, 0, 4)], vec![s(0, 4, 7), s(1, 0, 1)], vec![s(1, 1, 5)]]);
        assert_eq!(partition(&[2], 8).len(), 2, "never more runs than documents");
        assert_eq!(partition(&[], 4), vec![Vec::new()]);
    }
}
