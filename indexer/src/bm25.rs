//! BM25 over a tantivy index, scored here rather than by tantivy (which hard-codes k1 = 1.2 and
//! b = 0.75 and quantises document lengths to one byte).
//!
//! Each unit is one tantivy document: its analysed terms (pre-tokenised with the route's
//! [`Analyzer`], so index and query analysis are the same code), and as fast fields its unit
//! ordinal, its exact token count and its filter attributes ([`crate::filter`]: record year,
//! first and last day, evidence-kind mask). A query is analysed into distinct terms (as the
//! official baseline's OR query of distinct terms); for each term the postings (doc, tf) are read
//! from every segment and, for documents the query's [`UnitFilter`] admits (checked on the fast
//! fields before the document is scored, so a filtered-out unit is never scored or returned),
//!
//! `score(d) = Σ_t idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·|d|/avgdl))`
//!
//! is accumulated, with `avgdl` the mean exact token count and `idf` per [`Idf`]. Ties are
//! broken by unit ordinal (insertion order, as FTS5 breaks them by rowid).

use std::path::Path;

use serde::{Deserialize, Serialize};
use tantivy::{
    DocSet, Index, IndexReader, TERMINATED, TantivyDocument, Term,
    postings::Postings,
    schema::{FAST, Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions},
    tokenizer::PreTokenizedString,
};

use crate::{
    Error, Result,
    analyzer::{Analyzer, Tokens},
    filter::{UnitAttrs, UnitFilter},
    units::Unit,
};

/// Default k1 (term-frequency saturation), as SQLite FTS5, tantivy and Lucene.
pub const DEFAULT_K1: f64 = 1.2;
/// Default b (length normalisation), as SQLite FTS5, tantivy and Lucene.
pub const DEFAULT_B: f64 = 0.75;
/// Floor FTS5 puts on a non-positive Robertson–Spärck Jones idf.
pub const FTS5_MIN_IDF: f64 = 1e-6;
/// tantivy writer memory budget.
const WRITER_MEMORY: usize = 64 << 20;

/// Inverse document frequency variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Idf {
    /// Lucene/tantivy: `ln(1 + (N − n + 0.5) / (n + 0.5))`, always positive.
    Lucene,
    /// SQLite FTS5: `ln((N − n + 0.5) / (n + 0.5))`, replaced by 1e-6 when ≤ 0. With k1 = 1.2 and
    /// b = 0.75 this reproduces the official sparse baseline's ranking function.
    Fts5,
}

/// BM25 parameters (validated).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bm25Params {
    /// ≥ 0; 0 makes term frequency irrelevant.
    pub k1: f64,
    /// In [0, 1]; 0 disables length normalisation.
    pub b: f64,
    pub idf: Idf,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Self { k1: DEFAULT_K1, b: DEFAULT_B, idf: Idf::Lucene }
    }
}

impl Bm25Params {
    /// Validated parameters.
    pub fn new(k1: f64, b: f64, idf: Idf) -> Result<Self> {
        if !(k1.is_finite() && k1 >= 0.0) {
            return Err(Error::Param(format!("BM25 k1 = {k1} must be a finite number ≥ 0")));
        }
        if !(0.0..=1.0).contains(&b) {
            return Err(Error::Param(format!("BM25 b = {b} must be in [0, 1]")));
        }
        Ok(Self { k1, b, idf })
    }

    /// idf of a term found in `n` of `total` documents.
    pub fn idf(&self, total: u64, n: u64) -> f64 {
        let (total, n) = (total as f64, n as f64);
        let ratio = (total - n + 0.5) / (n + 0.5);
        match self.idf {
            Idf::Lucene => (1.0 + ratio).ln(),
            Idf::Fts5 => {
                let v = ratio.ln();
                if v <= 0.0 { FTS5_MIN_IDF } else { v }
            }
        }
    }

    /// Contribution of one term: `idf · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))`.
    pub fn term_score(&self, idf: f64, tf: f64, dl: f64, avgdl: f64) -> f64 {
        let norm = if avgdl > 0.0 { 1.0 - self.b + self.b * dl / avgdl } else { 1.0 };
        idf * tf * (self.k1 + 1.0) / (tf + self.k1 * norm)
    }
}

/// The fields of a BM25 index.
#[derive(Debug, Clone, Copy)]
struct Fields {
    text: Field,
    ord: Field,
    len: Field,
    year: Field,
    day_first: Field,
    day_last: Field,
    evidence: Field,
}

fn schema(analyzer: Analyzer) -> (Schema, Fields) {
    let mut b = Schema::builder();
    let indexing =
        TextFieldIndexing::default().set_tokenizer(analyzer.as_str()).set_index_option(IndexRecordOption::WithFreqs);
    let text = b.add_text_field("text", TextOptions::default().set_indexing_options(indexing));
    let ord = b.add_u64_field("ord", FAST);
    let len = b.add_u64_field("len", FAST);
    let year = b.add_i64_field("year", FAST);
    let day_first = b.add_u64_field("day_first", FAST);
    let day_last = b.add_u64_field("day_last", FAST);
    let evidence = b.add_u64_field("evidence", FAST);
    (b.build(), Fields { text, ord, len, year, day_first, day_last, evidence })
}

fn register(index: &Index, analyzer: Analyzer) {
    index.tokenizers().register(analyzer.as_str(), analyzer.text_analyzer());
}

/// Writes a BM25 index for one analyzer.
pub struct Bm25Writer {
    writer: tantivy::IndexWriter<TantivyDocument>,
    fields: Fields,
    tokens: Tokens,
}

impl std::fmt::Debug for Bm25Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Writer").finish_non_exhaustive()
    }
}

impl Bm25Writer {
    /// Create an empty index in `dir` (which must exist and be empty).
    pub fn create(dir: &Path, analyzer: Analyzer, threads: usize) -> Result<Self> {
        let (schema, fields) = schema(analyzer);
        let index = Index::create_in_dir(dir, schema)?;
        register(&index, analyzer);
        let threads = threads.clamp(1, 8);
        let writer = index.writer_with_num_threads(threads, WRITER_MEMORY.max(threads * (16 << 20)))?;
        Ok(Self { writer, fields, tokens: Tokens::new(analyzer) })
    }

    /// Add one unit with its filter attributes.
    pub fn add(&mut self, unit: &Unit, attrs: &UnitAttrs) -> Result<()> {
        let tokens = self.tokens.tokens(&unit.text);
        let mut doc = TantivyDocument::default();
        doc.add_u64(self.fields.ord, u64::from(unit.ord));
        doc.add_u64(self.fields.len, tokens.len() as u64);
        let (year, first, last) = attrs.fast_values();
        doc.add_i64(self.fields.year, year);
        doc.add_u64(self.fields.day_first, first);
        doc.add_u64(self.fields.day_last, last);
        doc.add_u64(self.fields.evidence, u64::from(attrs.evidence));
        doc.add_pre_tokenized_text(self.fields.text, PreTokenizedString { text: String::new(), tokens });
        self.writer.add_document(doc)?;
        Ok(())
    }

    /// Commit and merge.
    pub fn finish(mut self) -> Result<()> {
        self.writer.commit()?;
        self.writer.wait_merging_threads()?;
        Ok(())
    }
}

/// The fast-field columns of one segment that a [`UnitFilter`] reads, with each document's
/// decision cached.
struct SegmentGate {
    year: tantivy::columnar::Column<i64>,
    first: tantivy::columnar::Column<u64>,
    last: tantivy::columnar::Column<u64>,
    evidence: tantivy::columnar::Column<u64>,
    state: Vec<u8>,
}

impl SegmentGate {
    fn new(seg: &tantivy::SegmentReader) -> Result<Self> {
        let ff = seg.fast_fields();
        Ok(Self {
            year: ff.i64("year")?,
            first: ff.u64("day_first")?,
            last: ff.u64("day_last")?,
            evidence: ff.u64("evidence")?,
            state: vec![0; seg.max_doc() as usize],
        })
    }

    fn attrs(&self, doc: u32) -> UnitAttrs {
        UnitAttrs::from_fast_values(
            self.year.first(doc).unwrap_or(i64::MAX),
            self.first.first(doc).unwrap_or(u64::MAX),
            self.last.first(doc).unwrap_or(0),
            self.evidence.first(doc).unwrap_or(0),
        )
    }

    fn admits(&mut self, doc: u32, filter: &UnitFilter) -> bool {
        if self.state[doc as usize] == 0 {
            self.state[doc as usize] = if filter.admits(&self.attrs(doc)) { 1 } else { 2 };
        }
        self.state[doc as usize] == 1
    }
}

/// A scored unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub ord: u32,
    pub score: f64,
}

/// An open BM25 index.
pub struct Bm25Index {
    reader: IndexReader,
    fields: Fields,
    analyzer: Analyzer,
    tokens: std::sync::Mutex<Tokens>,
    num_docs: u64,
    avgdl: f64,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index")
            .field("analyzer", &self.analyzer)
            .field("num_docs", &self.num_docs)
            .field("avgdl", &self.avgdl)
            .finish_non_exhaustive()
    }
}

impl Bm25Index {
    /// Open the index in `dir`, built with `analyzer`.
    pub fn open(dir: &Path, analyzer: Analyzer) -> Result<Self> {
        let index = Index::open_in_dir(dir)?;
        register(&index, analyzer);
        let (_, fields) = schema(analyzer);
        let reader = index.reader()?;
        let searcher = reader.searcher();
        let num_docs = searcher.num_docs();
        let mut total = 0u64;
        for seg in searcher.segment_readers() {
            let len = seg.fast_fields().u64("len")?;
            for doc in 0..seg.max_doc() {
                total += len.first(doc).unwrap_or(0);
            }
        }
        let avgdl = if num_docs > 0 { total as f64 / num_docs as f64 } else { 0.0 };
        Ok(Self { reader, fields, analyzer, tokens: std::sync::Mutex::new(Tokens::new(analyzer)), num_docs, avgdl })
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
        self.avgdl
    }

    /// Distinct query terms in first-occurrence order.
    pub fn query_terms(&self, query: &str) -> Vec<String> {
        let terms = self.tokens.lock().unwrap_or_else(std::sync::PoisonError::into_inner).terms(query);
        let mut seen = std::collections::HashSet::new();
        terms.into_iter().filter(|t| seen.insert(t.clone())).collect()
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
        let terms = self.query_terms(query);
        self.search_terms_filtered(&terms, k, params, filter)
    }

    /// The `k` best units for already analysed, distinct terms.
    pub fn search_terms(&self, terms: &[String], k: usize, params: &Bm25Params) -> Result<Vec<Scored>> {
        self.search_terms_filtered(terms, k, params, &UnitFilter::none())
    }

    /// The filter attributes of every unit, by ordinal (for checks and tests).
    pub fn unit_attrs(&self) -> Result<Vec<(u32, UnitAttrs)>> {
        let searcher = self.reader.searcher();
        let mut out = Vec::new();
        for seg in searcher.segment_readers() {
            let ord = seg.fast_fields().u64("ord")?;
            let g = SegmentGate::new(seg)?;
            for doc in 0..seg.max_doc() {
                out.push((ord.first(doc).unwrap_or(u64::MAX) as u32, g.attrs(doc)));
            }
        }
        out.sort_by_key(|(o, _)| *o);
        Ok(out)
    }

    /// The `k` best units among those `filter` admits for already analysed, distinct terms.
    pub fn search_terms_filtered(
        &self,
        terms: &[String],
        k: usize,
        params: &Bm25Params,
        filter: &UnitFilter,
    ) -> Result<Vec<Scored>> {
        let searcher = self.reader.searcher();
        let mut hits: Vec<Scored> = Vec::new();
        let weighted: Vec<(Term, f64)> = terms
            .iter()
            .map(|t| Term::from_field_text(self.fields.text, t))
            .map(|term| Ok((searcher.doc_freq(&term)?, term)))
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, term)| (term, params.idf(self.num_docs, n)))
            .collect();
        for seg in searcher.segment_readers() {
            let inverted = seg.inverted_index(self.fields.text)?;
            let len = seg.fast_fields().u64("len")?;
            let ord = seg.fast_fields().u64("ord")?;
            // The filter, decided from a document's fast fields the first time one of its
            // postings is met (0: not yet, 1: admitted, 2: filtered out).
            let mut gate = if filter.is_none() { None } else { Some(SegmentGate::new(seg)?) };
            let mut acc: Vec<f64> = vec![0.0; seg.max_doc() as usize];
            let mut touched: Vec<u32> = Vec::new();
            for (term, idf) in &weighted {
                let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::WithFreqs)? else { continue };
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if let Some(g) = gate.as_mut()
                        && !g.admits(doc, filter)
                    {
                        doc = postings.advance();
                        continue;
                    }
                    let dl = len.first(doc).unwrap_or(0) as f64;
                    let s = params.term_score(*idf, f64::from(postings.term_freq()), dl, self.avgdl);
                    let slot = &mut acc[doc as usize];
                    if *slot == 0.0 {
                        touched.push(doc);
                    }
                    *slot += s;
                    doc = postings.advance();
                }
            }
            for doc in touched {
                let o = ord.first(doc).ok_or_else(|| Error::IndexFile {
                    path: std::path::PathBuf::from("bm25"),
                    message: format!("document {doc} has no unit ordinal"),
                })?;
                hits.push(Scored { ord: o as u32, score: acc[doc as usize] });
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.ord.cmp(&b.ord)));
        hits.truncate(k);
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_validation() {
        let p = Bm25Params::default();
        assert_eq!((p.k1, p.b, p.idf), (1.2, 0.75, Idf::Lucene));
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
        let fts5 = Bm25Params { idf: Idf::Fts5, ..lucene };
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
}
