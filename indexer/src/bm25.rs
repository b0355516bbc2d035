//! BM25 over a tantivy index with our own parameters: tantivy's built-in BM25 hard-codes
//! k1 = 1.2 and b = 0.75 and quantises document lengths to one byte, so the scoring is our
//! [`Bm25Query`] (a tantivy `Query` → `Weight` → `Scorer`, [`crate::bm25_query`]) over tantivy's
//! postings, with exact top-k pruning (block-max MaxScore).
//!
//! Each unit is one tantivy document: its text, tokenised on the indexing threads with the
//! route's [`Analyzer`] (registered on the index, so index and query analysis are the same
//! code), and in the threaded writer's segments its unit ordinal as a fast field (tantivy
//! decides which segment and document a unit becomes there). A small build gathers each
//! segment's postings itself and writes them with tantivy's serializer
//! ([`crate::postings_writer`]); a large one streams to tantivy's threaded writer. Beside each
//! segment the build writes the exact token count, unit ordinal and filter attributes of every
//! document ([`crate::filter`]: record year, first and last day, evidence-kind mask) and the
//! per-block maxima the pruning needs ([`crate::bm25_stats`]): a small build counts the tokens
//! as it indexes them, knows each document's unit, and decodes only the long terms' postings;
//! the threaded writer's segments are decoded once after the last commit, each document's unit
//! read from its ordinal. A small build's index is one file
//! ([`crate::pack`]); the threaded writer's is tantivy's folder of files. A query is analysed
//! into distinct terms (as the official baseline's OR query of distinct terms) and scored
//!
//! `score(d) = Σ_t idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·|d|/avgdl))`
//!
//! with `avgdl` the mean exact token count and `idf` per [`Idf`], only over units the query's
//! [`UnitFilter`] admits (checked before a document is scored). Ties are broken by unit ordinal
//! (insertion order, as FTS5 breaks them by rowid).

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use tantivy::{
    Directory, Index, IndexSettings, Searcher, SegmentReader, TantivyDocument, Term,
    directory::{MmapDirectory, RamDirectory, TerminatingWrite},
    index::SegmentId,
    schema::{FAST, Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions},
};

pub use crate::bm25_params::{Bm25Params, DEFAULT_B, DEFAULT_K1, FTS5_MIN_IDF, Idf, Scored};
use crate::{
    Error, Result,
    analyzer::{Analyzer, Tokens},
    bm25_query::{Bm25Query, Corpus, PruneStats, QueryTerm, SegmentData},
    bm25_stats::{SegmentStats, stats_file},
    deferred_sync::DeferredSync,
    filter::{UnitAttrs, UnitFilter},
    pack::{PACK_FILE, PackDirectory, has_pack, write_pack},
    postings_writer::PostingsWriter,
    term_cache::TermCache,
    units::Unit,
};

/// tantivy writer memory budget per indexing thread. Large enough that a release-size route
/// (~320k report chunks) is flushed in a few segments, so little time goes to merging.
pub const DEFAULT_WRITER_MEMORY_PER_THREAD: usize = 256 << 20;

/// The fields of a BM25 index.
#[derive(Debug, Clone, Copy)]
struct Fields {
    text: Field,
    /// Written only by the threaded writer, read only by its [`Bm25Writer::finish`].
    ord: Field,
}

fn schema(analyzer: Analyzer) -> (Schema, Fields) {
    let mut b = Schema::builder();
    // Fieldnorms are not kept: lengths are exact, in the statistics file.
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(analyzer.as_str())
        .set_index_option(IndexRecordOption::WithFreqs)
        .set_fieldnorms(false);
    let text = b.add_text_field("text", TextOptions::default().set_indexing_options(indexing));
    let ord = b.add_u64_field("ord", FAST);
    (b.build(), Fields { text, ord })
}

/// A reader that never reloads: a finished index does not change, and tantivy's default policy
/// starts a thread that polls `meta.json`.
fn manual_reader(index: &Index) -> Result<tantivy::IndexReader> {
    Ok(index.reader_builder().reload_policy(tantivy::ReloadPolicy::Manual).try_into()?)
}

/// Text bytes up to which a BM25 build holds its documents and writes them at the end with its
/// own postings writers, one per thread ([`Bm25Writer::write_segments`]); above, they stream to
/// tantivy's threaded `IndexWriter` as they are read, which bounds the memory of a large route.
///
/// On the release-size sample every route under it built faster this way (two threads, medians
/// of 7 builds, of 3 for the two largest): finance_en_reports (37 MB of text) 394 → 315 ms,
/// legal_en_cases (19 MB) 211 → 161 ms, legal_zh_cases (9.9 MB) 175 → 119 ms,
/// legal_zh_statutes (7.6 MB) 163 → 115 ms, legal_en_precedents (3.3 MB, medians of 15)
/// 32–33 → 27–28 ms in two of three rounds: the threaded writer's queue and its term tables of
/// at least 2^19 slots per thread cost more than reading every unit before indexing.
pub const DEFAULT_SMALL_BUILD_BYTES: usize = 64 << 20;

/// Text bytes per segment, at least, of a build written by [`Bm25Writer::write_segments`]: below,
/// a second thread and segment cost more than they save (finance_zh_rules' 47 kB in two
/// segments: build 0.77–1.00× FTS5's and query p95 15–16× faster than FTS5's in three benches,
/// against 1.01–1.08× and 16–22× in one segment).
pub const PARALLEL_BUILD_BYTES: usize = 128 << 10;

/// tantivy's index metadata file.
const META_FILE: &str = "meta.json";

/// Units held by a small build: their texts back to back and, per unit, where its text ends,
/// its ordinal and its filter attributes.
#[derive(Default)]
struct Held {
    text: String,
    units: Vec<HeldUnit>,
}

/// One held unit: the end of its text in [`Held::text`], its ordinal and filter attributes.
struct HeldUnit {
    end: usize,
    ord: u32,
    attrs: UnitAttrs,
}

impl Held {
    fn push(&mut self, unit: &Unit, attrs: &UnitAttrs) {
        self.text.push_str(&unit.text);
        self.units.push(HeldUnit { end: self.text.len(), ord: unit.ord, attrs: *attrs });
    }

    /// The start of unit `i`'s text.
    fn start(&self, i: usize) -> usize {
        i.checked_sub(1).map_or(0, |p| self.units[p].end)
    }

    /// Unit `i`'s text.
    fn text(&self, i: usize) -> &str {
        &self.text[self.start(i)..self.units[i].end]
    }
}

/// A unit's document for tantivy's threaded writer: its ordinal, by which
/// [`Bm25Writer::finish`] finds its attributes, and its text.
fn unit_doc(fields: &Fields, ord: u32, text: &str) -> TantivyDocument {
    // Sized for its text and a number (tantivy's default reserves 1 KiB per document).
    let mut doc = TantivyDocument::with_capacity(text.len() + 16);
    doc.add_u64(fields.ord, u64::from(ord));
    doc.add_text(fields.text, text);
    doc
}

/// tantivy's threaded writer and the filter attributes of the units given to it, by ordinal.
struct Threaded {
    writer: tantivy::IndexWriter<TantivyDocument>,
    attrs: Vec<UnitAttrs>,
}

impl Threaded {
    fn add(&mut self, fields: &Fields, ord: u32, attrs: &UnitAttrs, text: &str) -> Result<()> {
        let at = ord as usize;
        if self.attrs.len() <= at {
            self.attrs.resize(at + 1, UnitAttrs::default());
        }
        self.attrs[at] = *attrs;
        self.writer.add_document(unit_doc(fields, ord, text))?;
        Ok(())
    }
}

/// Where a [`Bm25Writer`]'s units go.
enum Sink {
    /// Held until their text passes the small-build limit (then handed to the threaded writer),
    /// or written by [`Bm25Writer::write_segments`] at [`Bm25Writer::finish`].
    Small(Held),
    /// Boxed: the writer is several times the size of the other variant.
    Threaded(Box<Threaded>),
}

impl Default for Sink {
    fn default() -> Self {
        Sink::Small(Held::default())
    }
}

/// Writes a BM25 index for one analyzer into a staging folder: a small build as one file
/// ([`crate::pack`]), a threaded one as tantivy's folder of files, synced once at the end
/// ([`crate::deferred_sync`]).
pub struct Bm25Writer {
    sink: Sink,
    schema: Schema,
    analyzer: Analyzer,
    fields: Fields,
    dir: PathBuf,
    directory: DeferredSync,
    threads: usize,
    small_build_bytes: usize,
}

impl std::fmt::Debug for Bm25Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Writer").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl Bm25Writer {
    /// Create an empty index in `dir` (which must exist and be empty), tokenising and indexing
    /// on `threads` threads (1–8): tantivy's once the units' text passes `small_build_bytes`
    /// ([`DEFAULT_SMALL_BUILD_BYTES`]; 0: always), our own segment writers below.
    pub fn create(dir: &Path, analyzer: Analyzer, threads: usize, small_build_bytes: usize) -> Result<Self> {
        let (schema, fields) = schema(analyzer);
        let directory = DeferredSync::open(dir).map_err(tantivy::TantivyError::from)?;
        Ok(Self {
            sink: Sink::default(),
            schema,
            analyzer,
            fields,
            dir: dir.to_path_buf(),
            directory,
            threads: threads.clamp(1, 8),
            small_build_bytes,
        })
    }

    /// The index in `directory`, with the route's analyzer registered.
    fn create_index(&self, directory: Box<dyn Directory>) -> Result<Index> {
        // No field is stored, so the document store is empty: no thread of its own to compress it.
        let settings = IndexSettings { docstore_compress_dedicated_thread: false, ..IndexSettings::default() };
        let index = Index::create(directory, self.schema.clone(), settings)?;
        index.tokenizers().register(self.analyzer.as_str(), self.analyzer.text_analyzer());
        Ok(index)
    }

    /// Add one unit with its filter attributes.
    pub fn add(&mut self, unit: &Unit, attrs: &UnitAttrs) -> Result<()> {
        match &mut self.sink {
            Sink::Threaded(threaded) => threaded.add(&self.fields, unit.ord, attrs, &unit.text)?,
            Sink::Small(held) => {
                held.push(unit, attrs);
                if held.text.len() > self.small_build_bytes {
                    let held = std::mem::take(held);
                    let threads = self.threads;
                    let writer = self
                        .create_index(Box::new(self.directory.clone()))?
                        .writer_with_num_threads(threads, threads * DEFAULT_WRITER_MEMORY_PER_THREAD)?;
                    let mut threaded = Threaded { writer, attrs: Vec::with_capacity(held.units.len()) };
                    for (i, u) in held.units.iter().enumerate() {
                        threaded.add(&self.fields, u.ord, &u.attrs, held.text(i))?;
                    }
                    self.sink = Sink::Threaded(Box::new(threaded));
                }
            }
        }
        Ok(())
    }

    /// Write the held units as one segment per [`PARALLEL_BUILD_BYTES`] of text, at most one per
    /// thread, each written by a thread of its own (the last on this one), which gathers its
    /// units' postings ([`crate::postings_writer`]), writes the segment, then its statistics with
    /// the lengths it counted and its units' ordinals and attributes, and the index's `meta.json`
    /// listing them; all in memory, then written as the index's pack and synced ([`crate::pack`]).
    ///
    /// tantivy's threaded `IndexWriter` would do the same with a queue, a commit and a term table
    /// of at least 2^19 slots per thread (its 15 MB budget floor); its `SingleSegmentIndexWriter`
    /// writes one segment on one thread; both keep the postings in its segment writer's arena
    /// (see [`crate::postings_writer`] for what that cost).
    fn write_segments(&self, held: Held) -> Result<()> {
        let ram = RamDirectory::create();
        let index = self.create_index(Box::new(ram.clone()))?;
        let total = held.text.len();
        let parts = self.threads.min(1 + total / PARALLEL_BUILD_BYTES);
        // Contiguous shares of about equal text: a unit goes to the share its text starts in.
        let mut shares: Vec<std::ops::Range<usize>> = Vec::with_capacity(parts);
        for i in 0..held.units.len() {
            let share = (held.start(i) * parts / total.max(1)).min(parts - 1);
            let opened = shares.len();
            match shares.last_mut() {
                Some(units) if opened > share => units.end = i + 1,
                _ => shares.push(i..i + 1),
            }
        }
        let (text, analyzer) = (self.fields.text, self.analyzer);
        let metas = crate::parallel::in_parallel(
            "BM25 segment writer",
            shares.into_iter().map(|units| {
                let (index, directory, held) = (&index, &ram, &held);
                move || -> Result<tantivy::SegmentMeta> {
                    let mut postings = PostingsWriter::new(analyzer.text_analyzer());
                    for i in units.clone() {
                        postings.add(held.text(i))?;
                    }
                    let long = postings.terms_in_more_than(crate::bm25_stats::BLOCK);
                    let (segment, lens) = postings.write_segment(&index.new_segment(), text)?;
                    let reader = SegmentReader::open(&segment)?;
                    let units = &held.units[units];
                    let stats = SegmentStats::compute_counted(&reader, text, lens, &long)?
                        .with_units(units.iter().map(|u| u.ord).collect(), units.iter().map(|u| u.attrs).collect())?;
                    write_stats(directory, segment.id(), &stats)?;
                    Ok(segment.meta().clone())
                }
            }),
        )?;
        // The pack holds the files the index reads, in a fixed order: `meta.json`, the segments'
        // files (those tantivy wrote and kept) by name, then their statistics.
        let mut files: Vec<PathBuf> = index
            .directory()
            .list_managed_files()
            .into_iter()
            .filter(|f| f.as_os_str() != META_FILE && ram.exists(f).unwrap_or(false))
            .collect();
        files.sort();
        files.insert(0, PathBuf::from(META_FILE));
        files.extend(metas.iter().map(|m| stats_file(m.id())));
        let meta = tantivy::IndexMeta {
            index_settings: index.settings().clone(),
            persisted_custom_extensions: Vec::new(),
            segments: metas,
            schema: index.schema(),
            opstamp: 0,
            payload: None,
        };
        // As tantivy writes it (pretty JSON and a newline).
        let mut json = serde_json::to_vec_pretty(&meta).map_err(tantivy::TantivyError::from)?;
        json.push(b'\n');
        index.directory().atomic_write(Path::new(META_FILE), &json)?;
        write_pack(&self.dir, &ram, &files)
    }

    /// Write the segments with their statistics as the index's pack (a small build), or commit,
    /// wait for merges, write every segment's statistics and sync every file of the index (the
    /// threaded writer).
    pub fn finish(mut self) -> Result<()> {
        match std::mem::take(&mut self.sink) {
            Sink::Threaded(threaded) => {
                let Threaded { mut writer, attrs } = *threaded;
                writer.commit()?;
                writer.wait_merging_threads()?;
                let index = Index::open(self.directory.clone())?;
                let searcher = manual_reader(&index)?.searcher();
                let segments = searcher.segment_readers();
                for (seg, stats) in
                    segments.iter().zip(SegmentStats::compute_all(segments, self.fields.text, self.threads)?)
                {
                    let (ords, units) = segment_units(seg, &attrs)?;
                    write_stats(&self.directory, seg.segment_id(), &stats.with_units(ords, units)?)?;
                }
                self.directory.sync_all()?;
            }
            // With no units, an index without segments (as the threaded writer commits it).
            Sink::Small(held) => self.write_segments(held)?,
        }
        Ok(())
    }
}

/// The unit ordinal and filter attributes of each document of a threaded writer's segment, from
/// its `ord` fast field and the attributes the writer kept by ordinal.
fn segment_units(seg: &SegmentReader, attrs: &[UnitAttrs]) -> Result<(Vec<u32>, Vec<UnitAttrs>)> {
    let column = seg.fast_fields().u64("ord")?;
    let mut ords = Vec::with_capacity(seg.max_doc() as usize);
    let mut units = Vec::with_capacity(seg.max_doc() as usize);
    for doc in 0..seg.max_doc() {
        let unit =
            column.first(doc).and_then(|o| u32::try_from(o).ok()).and_then(|o| Some((o, *attrs.get(o as usize)?)));
        let Some((ord, unit_attrs)) = unit else {
            return Err(Error::Internal(format!("document {doc} of a new segment has no unit the build gave it")));
        };
        ords.push(ord);
        units.push(unit_attrs);
    }
    Ok((ords, units))
}

/// A segment's term dictionary, as a query looks its terms up.
enum Dict<'a> {
    /// In memory ([`crate::term_cache`]).
    Held(&'a TermCache),
    /// tantivy's FST.
    Fst(Arc<tantivy::InvertedIndexReader>),
}

/// Write segment `id`'s statistics file through the build's directory (synced or packed with the
/// rest).
fn write_stats(directory: &dyn Directory, id: SegmentId, stats: &SegmentStats) -> Result<()> {
    let mut out = directory.open_write(&stats_file(id)).map_err(tantivy::TantivyError::from)?;
    stats.write(&mut out)?;
    out.terminate()?;
    Ok(())
}

/// An open BM25 index.
pub struct Bm25Index {
    searcher: Searcher,
    fields: Fields,
    analyzer: Analyzer,
    tokens: std::sync::Mutex<Tokens>,
    num_docs: u64,
    corpus: Arc<Corpus>,
    /// Threads a large query is searched on: the machine's.
    query_threads: usize,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index")
            .field("analyzer", &self.analyzer)
            .field("num_docs", &self.num_docs)
            .field("avgdl", &self.corpus.avgdl)
            .finish_non_exhaustive()
    }
}

/// The index in `dir` (its pack, or its folder of files), the directory holding its files as
/// written (our statistics files are not tantivy's managed files: `Index::directory` would look
/// for its footer in them), and the path its files are shown under in errors.
fn open_index(dir: &Path) -> Result<(Index, Box<dyn Directory>, PathBuf)> {
    let (files, shown): (Box<dyn Directory>, PathBuf) = if has_pack(dir) {
        (Box::new(PackDirectory::open(dir)?), dir.join(PACK_FILE))
    } else {
        let folder = MmapDirectory::open(dir)
            .map_err(|e| Error::MissingIndex { path: dir.to_path_buf(), message: e.to_string() })?;
        (Box::new(folder), dir.to_path_buf())
    };
    Ok((Index::open(files.box_clone())?, files, shown))
}

impl Bm25Index {
    /// Open the index in `dir` (a pack or a folder of tantivy files), built with `analyzer`.
    pub fn open(dir: &Path, analyzer: Analyzer) -> Result<Self> {
        Self::open_with(dir, analyzer, crate::term_cache::MAX_TERMS)
    }

    /// [`Self::open`], holding the term dictionary of the segments with at most
    /// `max_cached_terms` terms in memory ([`crate::term_cache`]).
    fn open_with(dir: &Path, analyzer: Analyzer, max_cached_terms: usize) -> Result<Self> {
        let (index, files, shown) = open_index(dir)?;
        index.tokenizers().register(analyzer.as_str(), analyzer.text_analyzer());
        let (_, fields) = schema(analyzer);
        let searcher = manual_reader(&index)?.searcher();
        let num_docs = searcher.num_docs();
        let mut segments = Vec::new();
        let mut total = 0u64;
        for seg in searcher.segment_readers() {
            let max_doc = seg.max_doc();
            let mut stats = SegmentStats::read(files.as_ref(), &shown, seg.segment_id(), max_doc)?;
            total += stats.lens.iter().map(|&l| u64::from(l)).sum::<u64>();
            let (ords, attrs) = (std::mem::take(&mut stats.ords), std::mem::take(&mut stats.attrs));
            let terms = TermCache::load(seg.inverted_index(fields.text)?.terms(), max_cached_terms)?;
            segments.push(Arc::new(SegmentData { id: seg.segment_id(), stats, ords, attrs, terms }));
        }
        let avgdl = if num_docs > 0 { total as f64 / num_docs as f64 } else { 0.0 };
        Ok(Self {
            searcher,
            fields,
            analyzer,
            tokens: std::sync::Mutex::new(Tokens::new(analyzer)),
            num_docs,
            corpus: Arc::new(Corpus { segments, avgdl }),
            query_threads: std::thread::available_parallelism().map_or(1, usize::from),
        })
    }

    pub fn analyzer(&self) -> Analyzer {
        self.analyzer
    }

    /// Number of indexed units.
    pub fn num_docs(&self) -> u64 {
        self.num_docs
    }

    /// Mean exact token count per unit.
    pub fn avgdl(&self) -> f64 {
        self.corpus.avgdl
    }

    /// The tantivy searcher (for running a [`Bm25Query`] with tantivy's collectors).
    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    /// Distinct query terms in first-occurrence order.
    pub fn query_terms(&self, query: &str) -> Vec<String> {
        self.tokens.lock().unwrap_or_else(std::sync::PoisonError::into_inner).distinct_terms(query)
    }

    /// The query over already analysed, distinct terms (terms no unit holds are dropped).
    pub fn query(&self, terms: &[String], params: &Bm25Params, filter: &UnitFilter) -> Result<Bm25Query> {
        let mut weighted = Vec::with_capacity(terms.len());
        let mut postings = 0;
        // Each segment's dictionary: held in memory, or tantivy's (`corpus.segments` is in the
        // readers' order).
        let dicts = self
            .searcher
            .segment_readers()
            .iter()
            .zip(&self.corpus.segments)
            .map(|(r, seg)| match &seg.terms {
                Some(held) => Ok(Dict::Held(held)),
                None => r.inverted_index(self.fields.text).map(Dict::Fst),
            })
            .collect::<tantivy::Result<Vec<_>>>()?;
        // Looked up by their text bytes (a text term's value bytes), so that a term no unit holds
        // (most of a long Chinese query's bigrams) costs one dictionary lookup per segment and
        // no allocation.
        let mut infos = Vec::with_capacity(dicts.len());
        for t in terms {
            infos.clear();
            for dict in &dicts {
                infos.push(match dict {
                    Dict::Held(held) => held.get(t.as_bytes()).cloned(),
                    Dict::Fst(inverted) => inverted.terms().get(t.as_bytes())?,
                });
            }
            let n: u64 = infos.iter().flatten().map(|i| u64::from(i.doc_freq)).sum();
            if n > 0 {
                postings += n;
                let term = Term::from_field_text(self.fields.text, t);
                weighted.push(QueryTerm { term, idf: params.idf(self.num_docs, n), infos: infos.clone() });
            }
        }
        Ok(Bm25Query {
            params: *params,
            filter: *filter,
            units: None,
            window: crate::bm25_query::DEFAULT_WINDOW,
            seed_windows: crate::bm25_query::DEFAULT_SEED_WINDOWS,
            threads: self.query_threads,
            parallel_min_postings: crate::bm25_query::DEFAULT_PARALLEL_MIN_POSTINGS,
            postings,
            scale: crate::bm25_query::fixed_point_scale(&weighted, params),
            corpus: self.corpus.clone(),
            terms: weighted.into(),
        })
    }

    /// The `k` best units for `query` (only units matching at least one term), best first.
    pub fn search(&self, query: &str, k: usize, params: &Bm25Params) -> Result<Vec<Scored>> {
        self.search_filtered(query, k, params, &UnitFilter::none())
    }

    /// The `k` best units for `query` among those `filter` admits, best first.
    pub fn search_filtered(
        &self,
        query: &str,
        k: usize,
        params: &Bm25Params,
        filter: &UnitFilter,
    ) -> Result<Vec<Scored>> {
        Ok(self.search_terms(&self.query_terms(query), k, params, filter)?.0)
    }

    /// The `k` best units among those `filter` admits for already analysed, distinct terms
    /// ([`Self::query_terms`]), best first, with the pruning's postings counters.
    pub fn search_terms(
        &self,
        terms: &[String],
        k: usize,
        params: &Bm25Params,
        filter: &UnitFilter,
    ) -> Result<(Vec<Scored>, PruneStats)> {
        self.top_k(&self.query(terms, params, filter)?, k)
    }

    /// The `k` best units of a [`Bm25Query`] of this index (see [`Self::query`]), best first,
    /// with the pruning's postings counters.
    pub fn top_k(&self, query: &Bm25Query, k: usize) -> Result<(Vec<Scored>, PruneStats)> {
        Ok(query.bm25_weight().top_k(&self.searcher, k)?)
    }

    /// The exhaustive scorer's `k` best (no pruning): the reference for tests and benchmarks.
    #[doc(hidden)]
    pub fn search_exhaustive(
        &self,
        terms: &[String],
        k: usize,
        params: &Bm25Params,
        filter: &UnitFilter,
    ) -> Result<Vec<Scored>> {
        let query = self.query(terms, params, filter)?;
        let mut hits = query.bm25_weight().exhaustive(&self.searcher)?;
        hits.truncate(k);
        Ok(hits)
    }

    /// The filter attributes of every unit, by ordinal (for checks and tests).
    pub fn unit_attrs(&self) -> Result<Vec<(u32, UnitAttrs)>> {
        let mut out: Vec<(u32, UnitAttrs)> =
            self.corpus.segments.iter().flat_map(|s| s.ords.iter().copied().zip(s.attrs.iter().copied())).collect();
        out.sort_by_key(|(o, _)| *o);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rule unit with ordinal `ord`, its record id the ordinal, holding `text`.
    fn rule_unit(ord: u32, text: String) -> Unit {
        Unit {
            ord,
            kind: "rule".into(),
            record_id: ord.to_string(),
            chunk: 0,
            text,
            evidence: Default::default(),
            date: Default::default(),
        }
    }

    #[test]
    fn defaults_and_validation() {
        let p = Bm25Params::default();
        assert_eq!((p.k1(), p.b(), p.idf_kind()), (1.2, 0.75, Idf::Lucene));
        assert!(Bm25Params::new(-0.1, 0.5, Idf::Lucene).is_err());
        assert!(Bm25Params::new(1.0, 1.5, Idf::Lucene).is_err());
        assert!(Bm25Params::new(f64::NAN, 0.5, Idf::Lucene).is_err());
        assert!(Bm25Params::new(0.9, 0.4, Idf::Fts5).is_ok());
    }

    #[test]
    fn idf_by_hand() {
        let lucene = Bm25Params::default();
        // N = 10, n = 2: ln(1 + 8.5 / 2.5) = ln(4.4)
        assert!((lucene.idf(10, 2) - 4.4f64.ln()).abs() < 1e-12);
        let fts5 = Bm25Params::new(lucene.k1(), lucene.b(), Idf::Fts5).expect("valid");
        assert!((fts5.idf(10, 2) - 3.4f64.ln()).abs() < 1e-12);
        // A term in most documents: ln(1.5 / 8.5) < 0 → floor.
        assert_eq!(fts5.idf(10, 8), 1e-6);
    }

    #[test]
    fn term_score_by_hand() {
        let p = Bm25Params::new(1.2, 0.75, Idf::Lucene).expect("valid");
        // idf 2, tf 3, dl 10, avgdl 5: 2·3·2.2 / (3 + 1.2·(0.25 + 1.5)) = 13.2 / 5.1
        assert!((p.term_score(2.0, 3.0, 10.0, 5.0) - 13.2 / 5.1).abs() < 1e-12);
        let flat = Bm25Params::new(0.9, 0.0, Idf::Lucene).expect("valid");
        // b = 0: length ignored; 1·1·1.9 / (1 + 0.9)
        assert!((flat.term_score(1.0, 1.0, 100.0, 5.0) - 1.0).abs() < 1e-12);
    }

    /// Queries rank alike whether a segment's terms are looked up in the in-memory copy of its
    /// dictionary or in tantivy's FST: the same units with the same score bits.
    #[test]
    fn term_cache_and_fst_rank_alike() {
        let tmp = tempfile::tempdir().expect("tmp");
        let analyzer = Analyzer::ZhBigram;
        let mut writer = Bm25Writer::create(tmp.path(), analyzer, 2, DEFAULT_SMALL_BUILD_BYTES).expect("writer");
        let words = ["银行", "资本", "充足率", "监管", "capital", "ratio", "第", "条", "rules"];
        for ord in 0..3000u32 {
            let text: String = (0..12).map(|j| words[((ord * 7 + j * 3) % 9) as usize]).collect::<Vec<_>>().join(" ");
            writer.add(&rule_unit(ord, format!("{text} {ord}")), &UnitAttrs::default()).expect("add");
        }
        writer.finish().expect("finish");
        let cached = Bm25Index::open(tmp.path(), analyzer).expect("open");
        let fst = Bm25Index::open_with(tmp.path(), analyzer, 0).expect("open");
        assert!(cached.corpus.segments.iter().all(|s| s.terms.is_some()));
        assert!(fst.corpus.segments.iter().all(|s| s.terms.is_none()));
        let params = Bm25Params::new(1.2, 0.75, Idf::Fts5).expect("params");
        let mut found = 0;
        for query in ["银行资本充足率的监管规则", "capital ratio 17", "第12条 rules 2999", "不存在的词 nothing"]
        {
            let a = cached.search(query, 10, &params).expect("cached");
            let b = fst.search(query, 10, &params).expect("fst");
            assert_eq!(a, b, "{query}");
            found += a.len();
        }
        assert!(found > 20, "the queries find units");
    }

    /// A small build counts each document's tokens as tantivy indexes them: the lengths it
    /// writes are the sums of the documents' term frequencies in the postings, for every
    /// analyzer, one segment or several, with empty documents, repeated terms and a token longer
    /// than tantivy indexes (which it drops).
    #[test]
    fn counted_lengths_are_the_postings_sums() {
        let long_word = "a".repeat(tantivy::tokenizer::MAX_TOKEN_LEN + 1);
        let texts: Vec<String> = (0..400)
            .map(|i| match i % 5 {
                0 => String::new(),
                1 => format!("第{i}条 规定 规定 the rules, the RULES; Café {i}"),
                // Three long words: text enough for a segment per thread.
                2 if i < 15 => format!("{long_word} 银行间市场 {i} 交易商协会 ok"),
                2 => format!("银行间市场 {i} 交易商协会 ok"),
                3 => "—— ，。 ".to_string(),
                _ => format!("Paragraph {i}: capital ratios of banks and bank holding companies 资本充足率"),
            })
            .collect();
        for analyzer in Analyzer::ALL {
            for threads in [1, 2] {
                let tmp = tempfile::tempdir().expect("tmp");
                let mut writer =
                    Bm25Writer::create(tmp.path(), analyzer, threads, DEFAULT_SMALL_BUILD_BYTES).expect("writer");
                for (ord, text) in (0u32..).zip(&texts) {
                    writer.add(&rule_unit(ord, text.clone()), &UnitAttrs::default()).expect("add");
                }
                writer.finish().expect("finish");
                let (index, files, shown) = open_index(tmp.path()).expect("open");
                assert_eq!(shown, tmp.path().join(PACK_FILE), "a small build is a pack");
                index.tokenizers().register(analyzer.as_str(), analyzer.text_analyzer());
                let text = index.schema().get_field("text").expect("text field");
                let searcher = manual_reader(&index).expect("reader").searcher();
                let segments = searcher.segment_readers();
                assert_eq!(segments.len(), threads, "{analyzer}, {threads} thread(s)");
                for seg in segments {
                    let written =
                        SegmentStats::read(files.as_ref(), &shown, seg.segment_id(), seg.max_doc()).expect("stats");
                    let summed = SegmentStats::compute(seg, text, 1)
                        .and_then(|s| s.with_units(written.ords.clone(), written.attrs.clone()))
                        .expect("summed");
                    assert_eq!(written, summed, "{analyzer}, {threads} thread(s)");
                }
            }
        }
    }

    /// Unit ordinals and filter attributes read back from the statistics files as written,
    /// whether a unit has a year, days, evidence kinds, some or none, and with the units given
    /// out of ordinal order: from one or two small-build segments and from the threaded writer
    /// (which finds each document's unit by its `ord` fast field).
    #[test]
    fn units_round_trip_through_the_statistics() {
        use anser_manifest::boundary::RecordDate;
        let dated = [
            UnitAttrs { date: RecordDate::parse("2019-05-12"), evidence: 0b10 },
            UnitAttrs { date: RecordDate::of_parts(Some(2021), None), evidence: 1 },
            UnitAttrs { date: RecordDate::parse("2023-01-31"), evidence: 0 },
            UnitAttrs::default(),
        ];
        let undated = [UnitAttrs { date: RecordDate::default(), evidence: 0b101 }, UnitAttrs::default()];
        for (threads, small_build_bytes) in [(1, DEFAULT_SMALL_BUILD_BYTES), (2, DEFAULT_SMALL_BUILD_BYTES), (2, 0)] {
            for cycle in [&dated[..], &undated[..]] {
                let tmp = tempfile::tempdir().expect("tmp");
                let mut writer =
                    Bm25Writer::create(tmp.path(), Analyzer::En, threads, small_build_bytes).expect("writer");
                // Text enough for two segments of a two-thread small build.
                let mut written: Vec<(u32, UnitAttrs)> =
                    (0..400u32).map(|i| (i * 7 % 400, cycle[i as usize % cycle.len()])).collect();
                for (ord, attrs) in &written {
                    writer.add(&rule_unit(*ord, format!("unit {ord} {}", "words ".repeat(100))), attrs).expect("add");
                }
                writer.finish().expect("finish");
                written.sort_by_key(|(ord, _)| *ord);
                let index = Bm25Index::open(tmp.path(), Analyzer::En).expect("open");
                if small_build_bytes > 0 {
                    assert_eq!(index.searcher.segment_readers().len(), threads);
                }
                assert_eq!(index.unit_attrs().expect("attrs"), written, "{threads} thread(s), {small_build_bytes}");
            }
        }
    }

    /// A statistics file cut short (or of the older layout, without units) is refused at open
    /// with a one-line error naming the file and the rebuild, not read as other documents' units.
    #[test]
    fn a_cut_statistics_file_is_refused_at_open() {
        let tmp = tempfile::tempdir().expect("tmp");
        // The threaded writer's index is a folder, so its statistics files can be cut.
        let mut writer = Bm25Writer::create(tmp.path(), Analyzer::En, 1, 0).expect("writer");
        for ord in 0..50u32 {
            writer.add(&rule_unit(ord, format!("unit {ord} text")), &UnitAttrs::default()).expect("add");
        }
        writer.finish().expect("finish");
        let stats = fs_err::read_dir(tmp.path())
            .expect("list")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("bm25-stats-")))
            .expect("a statistics file");
        let bytes = fs_err::read(&stats).expect("read");
        // Without the last document's ordinal and attributes (20 bytes per document).
        fs_err::write(&stats, &bytes[..bytes.len() - 20]).expect("cut");
        let err = Bm25Index::open(tmp.path(), Analyzer::En).expect_err("a cut file is refused").to_string();
        let name = stats.file_name().expect("name").to_string_lossy().to_string();
        assert!(err.contains(&name) && err.contains("--rebuild") && !err.contains('\n'), "{err}");
    }

    /// A one-segment small build of 40,000 distinct terms (its postings writer's term table
    /// grows from empty) holds every term with its document frequency, and a search finds the
    /// unit of the last.
    #[test]
    fn small_build_holds_forty_thousand_terms() {
        let tmp = tempfile::tempdir().expect("tmp");
        let analyzer = Analyzer::En;
        let mut writer = Bm25Writer::create(tmp.path(), analyzer, 1, DEFAULT_SMALL_BUILD_BYTES).expect("writer");
        for ord in 0..2000u32 {
            let words: Vec<String> = (0..20).map(|j| format!("t{}x", ord * 20 + j)).collect();
            writer.add(&rule_unit(ord, format!("{} shared", words.join(" "))), &UnitAttrs::default()).expect("add");
        }
        writer.finish().expect("finish");
        let index = Bm25Index::open_with(tmp.path(), analyzer, 0).expect("open");
        let segments = index.searcher.segment_readers();
        assert_eq!(segments.len(), 1);
        let inverted = segments[0].inverted_index(index.fields.text).expect("inverted");
        assert_eq!(inverted.terms().num_terms(), 40_001);
        for (term, doc_freq) in [("t0x", 1), ("t39999x", 1), ("shared", 2000)] {
            let info = inverted.terms().get(term.as_bytes()).expect("lookup").expect(term);
            assert_eq!(info.doc_freq, doc_freq, "{term}");
        }
        let params = Bm25Params::new(1.2, 0.75, Idf::Fts5).expect("params");
        let hits = index.search("t39999x", 10, &params).expect("search");
        assert_eq!(hits.iter().map(|h| h.ord).collect::<Vec<_>>(), vec![1999]);
    }
}
