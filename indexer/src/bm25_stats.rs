//! Per-segment statistics the BM25 scorer needs and tantivy does not keep: every document's
//! exact token count, and for every term with more than one block of postings the maxima of
//! each block, written once at build time beside the segment (`bm25-stats-<segment>.bin`).
//!
//! A block's entry is its last document and the Pareto front of its postings' (term frequency,
//! document length) pairs: the pairs no other posting of the block beats on both (a higher or
//! equal tf in a shorter or equal document). BM25's term score grows with tf and shrinks with
//! the document length for every k1 ≥ 0 and b ∈ [0, 1], so the block's largest score is reached
//! on its front whatever parameters a query uses: the bound a query computes from the front is
//! the block's exact maximum — unlike tantivy's own block-max data, which stores the single
//! (tf, fieldnorm) pair that maximises its built-in k1 = 1.2, b = 0.75 score over quantised
//! lengths, or a single `(max tf, min length)` pair, which on chunked text (a short last chunk in
//! most blocks) is near the saturation limit for every block. Fronts longer than
//! [`MAX_FRONT`] keep their first points and merge the rest into one pair that dominates them
//! (still a bound). Blocks are tantivy's own postings blocks, so they are computed by decoding
//! each block once.
//!
//! Terms with at most one block are left out: their bound is BM25's saturation limit
//! `idf·(k1 + 1)`, and they have so few postings that a loose bound costs little.
//!
//! The lengths are the sum of a document's term frequencies over all terms, i.e. the number of
//! tokens indexed: counted as they were indexed by a small build's postings writer
//! ([`crate::postings_writer`]), otherwise (tantivy's threaded writer) summed here from the
//! postings.
//!
//! The file also holds each document's unit ordinal and filter attributes ([`UnitAttrs`]), which
//! the build knows and tantivy need not: as fast fields they cost tantivy's segment writer a
//! column lookup and a record per value and document (an eighth of finance_en_audit's
//! one-thread build when they were).

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use tantivy::{
    Directory, InvertedIndexReader, SegmentReader,
    directory::error::OpenReadError,
    index::SegmentId,
    postings::TermInfo,
    schema::{Field, IndexRecordOption},
};

use crate::{
    Error, Result,
    filter::{ATTRS_BYTES, UnitAttrs},
    le_reader::LeReader,
    parallel::in_parallel,
};

const MAGIC: &[u8; 8] = b"ANSBM25\x03";
/// Documents per tantivy postings block.
pub(crate) const BLOCK: usize = 128;
/// Tokens of a segment per thread its statistics are computed on: below, a second thread costs
/// more to start than it saves.
const TOKENS_PER_STATS_THREAD: u64 = 1 << 18;
/// Bytes per document in the file: token count, unit ordinal (u32 each), filter attributes.
const DOC_BYTES: usize = 8 + ATTRS_BYTES;
/// Most points kept of a block's (tf, length) front.
pub(crate) const MAX_FRONT: usize = 6;

/// One postings block of one term: its last document and its (tf, length) front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block {
    pub last_doc: u32,
    /// Index of the block's first point in the segment's points.
    pub first: u32,
    /// Number of points (1..=[`MAX_FRONT`]).
    pub count: u32,
}

/// A (term frequency, document length) pair of a block's front.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Point {
    pub tf: u32,
    pub len: u32,
}

/// The Pareto front of `pairs` (shortest length first, each with a higher tf than the shorter
/// ones), at most [`MAX_FRONT`] points: the last kept point takes the largest tf of the points
/// merged into it, so it still dominates them. `pairs` is reordered.
pub(crate) fn front(pairs: &mut [Point], out: &mut Vec<Point>) {
    pairs.sort_unstable_by(|a, b| a.len.cmp(&b.len).then(b.tf.cmp(&a.tf)));
    let from = out.len();
    for p in pairs.iter() {
        if out.len() == from || p.tf > out[out.len() - 1].tf {
            if out.len() - from == MAX_FRONT {
                // Merged into the last point: its length stays the shortest, its tf grows.
                let last = out.len() - 1;
                out[last].tf = p.tf;
            } else {
                out.push(*p);
            }
        }
    }
}

/// `(start of a term's postings in the segment's postings file, first block, block count)`.
type TermBlocks = (u64, u32, u32);

/// The statistics of one segment.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SegmentStats {
    /// Exact token count per document.
    pub lens: Vec<u32>,
    /// Unit ordinal per document (empty until [`Self::with_units`]).
    pub ords: Vec<u32>,
    /// Filter attributes per document (empty until [`Self::with_units`]).
    pub attrs: Vec<UnitAttrs>,
    /// `(start of the term's postings in the segment's postings file, first block, block count)`,
    /// sorted by the start (which identifies a term within its segment).
    terms: Vec<TermBlocks>,
    blocks: Vec<Block>,
    /// The blocks' fronts.
    points: Vec<Point>,
}

/// The statistics file of segment `id`, relative to its index's directory.
pub(crate) fn stats_file(id: SegmentId) -> PathBuf {
    PathBuf::from(format!("bm25-stats-{}.bin", id.uuid_string()))
}

impl SegmentStats {
    /// The statistics of every segment, their lengths summed from the postings, on up to
    /// `threads` threads: when no segment is large enough to be split over threads
    /// ([`TOKENS_PER_STATS_THREAD`]), the segments side by side, one thread each; otherwise one
    /// after the other, each on up to `threads`.
    pub(crate) fn compute_all(segments: &[SegmentReader], field: Field, threads: usize) -> Result<Vec<Self>> {
        let workers = threads.clamp(1, segments.len().max(1));
        let all_small = segments.iter().try_fold(true, |small, seg| {
            Ok::<_, Error>(small && seg.inverted_index(field)?.total_num_tokens() < TOKENS_PER_STATS_THREAD)
        })?;
        if workers == 1 || !all_small {
            return segments.iter().map(|seg| Self::compute(seg, field, threads)).collect();
        }
        // Worker w takes segments w, w + workers, …
        let parts = in_parallel(
            "BM25 statistics",
            (0..workers).map(|w| {
                move || {
                    segments
                        .iter()
                        .skip(w)
                        .step_by(workers)
                        .map(|seg| Self::compute(seg, field, 1))
                        .collect::<Result<Vec<_>>>()
                }
            }),
        )?;
        let mut parts: Vec<_> = parts.into_iter().map(Vec::into_iter).collect();
        Ok((0..segments.len()).filter_map(|i| parts[i % workers].next()).collect())
    }

    /// Decode the segment's postings of `field` to compute its statistics, on up to `threads`
    /// threads (one per [`TOKENS_PER_STATS_THREAD`] tokens of the segment): each walks one
    /// range of the term dictionary, and the terms with more than one block are then shared
    /// out by their postings.
    pub(crate) fn compute(seg: &SegmentReader, field: Field, threads: usize) -> Result<Self> {
        Self::compute_with(seg, field, threads, TOKENS_PER_STATS_THREAD, None)
    }

    /// The statistics of a segment whose document lengths were counted as it was indexed
    /// (`lens`) and whose terms with more than one block ([`BLOCK`] documents) its writer knows
    /// (`long`, among other terms), on this thread: only those terms are looked up in the
    /// dictionary and only their postings decoded.
    pub(crate) fn compute_counted(seg: &SegmentReader, field: Field, lens: Vec<u32>, long: &[Vec<u8>]) -> Result<Self> {
        if lens.len() != seg.max_doc() as usize {
            return Err(Error::Internal(format!(
                "BM25 statistics: {} lengths counted for a segment of {} documents",
                lens.len(),
                seg.max_doc()
            )));
        }
        let dict = seg.inverted_index(field)?.terms().clone();
        let mut infos = Vec::with_capacity(long.len());
        for term in long {
            let Some(info) = dict.get(term)? else {
                return Err(Error::Internal(format!(
                    "BM25 statistics: term {term:?} written but not in the dictionary"
                )));
            };
            if info.doc_freq as usize > BLOCK {
                infos.push(info);
            }
        }
        // In dictionary order, as the other path walks them (the blocks and fronts are laid out
        // in that order).
        infos.sort_unstable_by_key(|i| i.postings_range.start);
        Self::compute_with(seg, field, 1, TOKENS_PER_STATS_THREAD, Some((lens, infos)))
    }

    /// [`Self::compute`] with one thread per `tokens_per_thread` tokens at most, or with the
    /// lengths and the long terms already known (`counted`).
    fn compute_with(
        seg: &SegmentReader,
        field: Field,
        threads: usize,
        tokens_per_thread: u64,
        counted: Option<(Vec<u32>, Vec<TermInfo>)>,
    ) -> Result<Self> {
        let inverted = seg.inverted_index(field)?;
        let tokens = inverted.total_num_tokens();
        let threads = threads.clamp(1, 1 + usize::try_from(tokens / tokens_per_thread.max(1)).unwrap_or(usize::MAX));
        let (lens, long) = match counted {
            Some(counted) => counted,
            None => Self::lens_and_long_terms(&inverted, seg.max_doc() as usize, threads)?,
        };
        // Pass 2: block maxima of the long terms, in `threads` shares of about equal postings.
        let total: u64 = long.iter().map(|i| u64::from(i.doc_freq)).sum();
        let mut shares: Vec<Vec<TermInfo>> = vec![Vec::new(); threads];
        let mut seen = 0u64;
        for info in long {
            let share = usize::try_from(seen * threads as u64 / total.max(1)).unwrap_or(threads - 1).min(threads - 1);
            seen += u64::from(info.doc_freq);
            shares[share].push(info);
        }
        let lens_ref = &lens;
        let parts = in_parallel(
            "BM25 statistics",
            shares.iter().filter(|infos| !infos.is_empty()).map(|infos| {
                let inverted = &inverted;
                move || -> Result<(Vec<TermBlocks>, Vec<Block>, Vec<Point>)> {
                    let mut terms = Vec::with_capacity(infos.len());
                    let mut blocks = Vec::new();
                    let mut points = Vec::new();
                    let mut pairs = Vec::with_capacity(BLOCK);
                    for info in infos {
                        let first = blocks.len() as u32;
                        let mut block =
                            inverted.read_block_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?;
                        while let Some(&last_doc) = block.docs().last() {
                            pairs.clear();
                            pairs.extend(
                                block
                                    .docs()
                                    .iter()
                                    .zip(block.freqs())
                                    .map(|(&d, &tf)| Point { tf, len: lens_ref[d as usize] }),
                            );
                            let at = points.len();
                            front(&mut pairs, &mut points);
                            blocks.push(Block { last_doc, first: at as u32, count: (points.len() - at) as u32 });
                            block.advance();
                        }
                        terms.push((info.postings_range.start as u64, first, blocks.len() as u32 - first));
                    }
                    Ok((terms, blocks, points))
                }
            }),
        )?;
        let mut terms = Vec::new();
        let mut blocks = Vec::new();
        let mut points = Vec::new();
        for (t, b, p) in parts {
            let offset = blocks.len() as u32;
            let point_offset = points.len() as u32;
            terms.extend(t.into_iter().map(|(start, first, n)| (start, first + offset, n)));
            blocks.extend(b.into_iter().map(|b| Block { first: b.first + point_offset, ..b }));
            points.extend(p);
        }
        terms.sort_unstable_by_key(|t| t.0);
        Ok(Self { lens, ords: Vec::new(), attrs: Vec::new(), terms, blocks, points })
    }

    /// These statistics with each document's unit ordinal and filter attributes (one per
    /// document, in document order).
    pub(crate) fn with_units(self, ords: Vec<u32>, attrs: Vec<UnitAttrs>) -> Result<Self> {
        if ords.len() != self.lens.len() || attrs.len() != self.lens.len() {
            return Err(Error::Internal(format!(
                "BM25 statistics: {} ordinals and {} attributes for a segment of {} documents",
                ords.len(),
                attrs.len(),
                self.lens.len()
            )));
        }
        Ok(Self { ords, attrs, ..self })
    }

    /// Pass 1 without counted lengths: the lengths (sum of term frequencies per document) and
    /// the terms with more than one block, on `threads` threads, thread t walking the terms from
    /// the t-th bound (inclusive) to the next.
    fn lens_and_long_terms(
        inverted: &InvertedIndexReader,
        max_doc: usize,
        threads: usize,
    ) -> Result<(Vec<u32>, Vec<TermInfo>)> {
        let dict = inverted.terms();
        let mut bounds = Vec::with_capacity(threads.saturating_sub(1));
        let num_terms = dict.num_terms() as u64;
        for t in 1..threads as u64 {
            let mut key = Vec::new();
            if dict.ord_to_term(num_terms * t / threads as u64, &mut key)? {
                bounds.push(key);
            }
        }
        let parts = in_parallel(
            "BM25 statistics",
            (0..=bounds.len()).map(|t| {
                let bounds = &bounds;
                move || -> Result<(Vec<u32>, Vec<TermInfo>)> {
                    let mut lens = vec![0u32; max_doc];
                    let mut long = Vec::new();
                    let mut range = inverted.terms().range();
                    if let Some(from) = t.checked_sub(1).and_then(|f| bounds.get(f)) {
                        range = range.ge(from);
                    }
                    if let Some(to) = bounds.get(t) {
                        range = range.lt(to);
                    }
                    let mut stream = range.without_keys().into_stream()?;
                    while stream.advance() {
                        let info = stream.value();
                        let mut block =
                            inverted.read_block_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?;
                        while !block.docs().is_empty() {
                            for (&d, &tf) in block.docs().iter().zip(block.freqs()) {
                                lens[d as usize] += tf;
                            }
                            block.advance();
                        }
                        if info.doc_freq as usize > BLOCK {
                            long.push(info.clone());
                        }
                    }
                    Ok((lens, long))
                }
            }),
        )?;
        let mut parts = parts.into_iter();
        let (mut lens, mut long) = parts.next().unwrap_or_else(|| (vec![0; max_doc], Vec::new()));
        for (part, l) in parts {
            for (a, b) in lens.iter_mut().zip(part) {
                *a += b;
            }
            long.extend(l);
        }
        Ok((lens, long))
    }

    /// The blocks of the term whose postings start at `postings_start`, when it has more than
    /// one block.
    pub(crate) fn blocks(&self, postings_start: u64) -> Option<&[Block]> {
        let i = self.terms.binary_search_by_key(&postings_start, |t| t.0).ok()?;
        let (_, first, n) = self.terms[i];
        self.blocks.get(first as usize..(first + n) as usize)
    }

    /// The front of a block of this segment.
    pub(crate) fn front(&self, block: &Block) -> &[Point] {
        self.points.get(block.first as usize..(block.first + block.count) as usize).unwrap_or(&[])
    }

    /// Write the statistics file's bytes to `out` (buffered by the caller).
    pub(crate) fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(MAGIC)?;
        for n in [self.lens.len(), self.terms.len(), self.blocks.len(), self.points.len()] {
            out.write_all(&(n as u64).to_le_bytes())?;
        }
        if self.ords.len() != self.lens.len() || self.attrs.len() != self.lens.len() {
            return Err(std::io::Error::other("BM25 statistics written without every document's unit"));
        }
        for ((l, o), a) in self.lens.iter().zip(&self.ords).zip(&self.attrs) {
            out.write_all(&l.to_le_bytes())?;
            out.write_all(&o.to_le_bytes())?;
            out.write_all(&a.to_bytes())?;
        }
        for (start, first, n) in &self.terms {
            out.write_all(&start.to_le_bytes())?;
            out.write_all(&first.to_le_bytes())?;
            out.write_all(&n.to_le_bytes())?;
        }
        for b in &self.blocks {
            for v in [b.last_doc, b.first, b.count] {
                out.write_all(&v.to_le_bytes())?;
            }
        }
        for p in &self.points {
            for v in [p.tf, p.len] {
                out.write_all(&v.to_le_bytes())?;
            }
        }
        Ok(())
    }

    /// Read the statistics of segment `id` with `max_doc` documents from its index's
    /// `directory`, shown as `shown` (a folder or a pack) in errors.
    pub(crate) fn read(directory: &dyn Directory, shown: &Path, id: SegmentId, max_doc: u32) -> Result<Self> {
        let file = stats_file(id);
        let bad = |message: String| Error::IndexFile {
            path: shown.join(&file),
            message: format!("{message}; rebuild the index with `anser index --rebuild`"),
        };
        let bytes = match directory.open_read(&file) {
            Ok(slice) => slice.read_bytes().map_err(|e| bad(format!("unreadable: {e}")))?,
            Err(OpenReadError::FileDoesNotExist(_)) => return Err(bad("BM25 statistics file missing".into())),
            Err(e) => return Err(bad(format!("unreadable: {e}"))),
        };
        let bytes = bytes.as_slice();
        let mut r = LeReader::new(bytes);
        if r.take(8) != Some(MAGIC.as_slice()) {
            return Err(bad("not a BM25 statistics file of this format".into()));
        }
        let mut counts = [0usize; 4];
        for c in &mut counts {
            *c = r.u64().ok_or_else(|| bad("truncated header".into()))? as usize;
        }
        let [n_lens, n_terms, n_blocks, n_points] = counts;
        let expected = n_lens
            .checked_mul(DOC_BYTES)
            .and_then(|l| l.checked_add(n_terms.checked_mul(16)?))
            .and_then(|l| l.checked_add(n_blocks.checked_mul(12)?))
            .and_then(|l| l.checked_add(n_points.checked_mul(8)?))
            .and_then(|l| l.checked_add(40));
        if n_lens != max_doc as usize || expected != Some(bytes.len()) {
            return Err(bad(format!("{} bytes do not fit a segment of {max_doc} documents", bytes.len())));
        }
        let truncated = || bad("truncated".into());
        let (mut lens, mut ords, mut attrs) =
            (Vec::with_capacity(n_lens), Vec::with_capacity(n_lens), Vec::with_capacity(n_lens));
        for _ in 0..n_lens {
            lens.push(r.u32().ok_or_else(truncated)?);
            ords.push(r.u32().ok_or_else(truncated)?);
            attrs.push(UnitAttrs::from_bytes(r.take(ATTRS_BYTES).ok_or_else(truncated)?));
        }
        let terms = (0..n_terms)
            .map(|_| {
                Ok((r.u64().ok_or_else(truncated)?, r.u32().ok_or_else(truncated)?, r.u32().ok_or_else(truncated)?))
            })
            .collect::<Result<Vec<_>>>()?;
        let blocks = (0..n_blocks)
            .map(|_| {
                Ok(Block {
                    last_doc: r.u32().ok_or_else(truncated)?,
                    first: r.u32().ok_or_else(truncated)?,
                    count: r.u32().ok_or_else(truncated)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let points = (0..n_points)
            .map(|_| Ok(Point { tf: r.u32().ok_or_else(truncated)?, len: r.u32().ok_or_else(truncated)? }))
            .collect::<Result<Vec<_>>>()?;
        if terms.iter().any(|&(_, first, n)| first as usize + n as usize > blocks.len())
            || blocks.iter().any(|b| b.count == 0 || b.first as usize + b.count as usize > points.len())
        {
            return Err(bad("block range out of bounds".into()));
        }
        Ok(Self { lens, ords, attrs, terms, blocks, points })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bm25Params, Idf};

    fn pt(tf: u32, len: u32) -> Point {
        Point { tf, len }
    }

    /// Document i: "common" 1 + i % 3 times, "half{i % 2}", and "t{i % 50}" (600 documents: two
    /// terms with several blocks, many with one).
    fn doc_text(i: u32) -> String {
        let mut words = vec!["common"; 1 + (i % 3) as usize];
        let (half, tail) = (format!("half{}", i % 2), format!("t{}", i % 50));
        words.extend([half.as_str(), tail.as_str()]);
        words.join(" ")
    }

    /// An index of documents `0..docs`, one segment per `per_segment` documents.
    fn index_of(docs: u32, per_segment: u32) -> (tantivy::Index, Field) {
        use tantivy::schema::{Schema, TextFieldIndexing, TextOptions};
        let mut b = Schema::builder();
        let indexing =
            TextFieldIndexing::default().set_tokenizer("whitespace").set_index_option(IndexRecordOption::WithFreqs);
        let text = b.add_text_field("text", TextOptions::default().set_indexing_options(indexing));
        let index = tantivy::Index::create_in_ram(b.build());
        let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 15_000_000).expect("writer");
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        for i in 0..docs {
            writer.add_document(tantivy::doc!(text => doc_text(i))).expect("add");
            if (i + 1) % per_segment == 0 {
                writer.commit().expect("commit");
            }
        }
        writer.commit().expect("commit");
        (index, text)
    }

    /// The lengths are the documents' token counts, and the statistics are the same whether the
    /// dictionary is walked by one thread or split into ranges over two or three.
    #[test]
    fn statistics_by_hand_and_alike_on_one_or_several_threads() {
        let (index, text) = index_of(600, 600);
        let searcher = index.reader().expect("reader").searcher();
        let seg = &searcher.segment_readers()[0];
        let one = SegmentStats::compute_with(seg, text, 1, u64::MAX, None).expect("one thread");
        // "common" 1–3 times, then two more words.
        let expected: Vec<u32> = (0..600).map(|i| 1 + i % 3 + 2).collect();
        assert_eq!(one.lens, expected);
        // "common" (600 documents) and "half0" / "half1" (300 each) have more than one block.
        assert_eq!(one.terms.len(), 3);
        assert_eq!(one.blocks.len(), 5 + 3 + 3);
        // 2,400 tokens: three threads, then two.
        for tokens_per_thread in [1, 2000] {
            let split = SegmentStats::compute_with(seg, text, 3, tokens_per_thread, None).expect("three threads");
            assert_eq!(split, one, "one thread per {tokens_per_thread} tokens");
        }
        // Lengths counted while indexing leave only the long terms' postings to decode: the
        // same statistics.
        // Every term given (as a writer may give more than the long ones): the same statistics.
        let mut all_terms = Vec::new();
        let inverted = seg.inverted_index(text).expect("inverted");
        let mut stream = inverted.terms().stream().expect("stream");
        while let Some((term, _)) = stream.next() {
            all_terms.push(term.to_vec());
        }
        let counted = SegmentStats::compute_counted(seg, text, expected, &all_terms).expect("counted");
        assert_eq!(counted, one);
        let all = SegmentStats::compute_all(searcher.segment_readers(), text, 2).expect("all");
        assert_eq!(all, vec![one]);
    }

    /// Small segments are computed side by side, and each comes back in its place.
    #[test]
    fn small_segments_side_by_side_in_order() {
        let (index, text) = index_of(900, 300);
        let searcher = index.reader().expect("reader").searcher();
        let segments = searcher.segment_readers();
        assert_eq!(segments.len(), 3);
        let each: Vec<SegmentStats> =
            segments.iter().map(|s| SegmentStats::compute(s, text, 1).expect("one")).collect();
        assert_eq!(SegmentStats::compute_all(segments, text, 2).expect("all"), each);
        assert_eq!(SegmentStats::compute_all(segments, text, 8).expect("all"), each);
    }

    #[test]
    fn front_keeps_the_undominated_pairs() {
        let mut pairs = vec![pt(1, 50), pt(3, 200), pt(2, 50), pt(1, 10), pt(3, 400), pt(5, 900), pt(2, 120)];
        let mut out = Vec::new();
        front(&mut pairs, &mut out);
        assert_eq!(out, vec![pt(1, 10), pt(2, 50), pt(3, 200), pt(5, 900)]);
    }

    #[test]
    fn long_fronts_are_merged_into_a_dominating_point() {
        let mut pairs: Vec<Point> = (1..=10).map(|i| pt(i, i * 10)).collect();
        let mut out = Vec::new();
        front(&mut pairs, &mut out);
        assert_eq!(out.len(), MAX_FRONT);
        assert_eq!(out[MAX_FRONT - 1], pt(10, MAX_FRONT as u32 * 10));
    }

    /// The best score on the front is the block's exact maximum for any parameters.
    #[test]
    fn front_bound_is_the_exact_block_maximum() {
        let pairs: Vec<Point> = (0..128u32).map(|i| pt(1 + (i * 7919) % 13, 5 + (i * 104_729) % 997)).collect();
        let mut out = Vec::new();
        front(&mut pairs.clone(), &mut out);
        assert!(out.len() < pairs.len());
        for (k1, b) in [(1.2, 0.75), (0.0, 0.3), (2.0, 1.0), (0.5, 0.0), (100.0, 0.9)] {
            let p = Bm25Params::new(k1, b, Idf::Lucene).expect("params");
            let score = |q: &Point| p.term_score(1.7, f64::from(q.tf), f64::from(q.len), 300.0);
            let exact = pairs.iter().map(score).fold(0.0, f64::max);
            let bound = out.iter().map(score).fold(0.0, f64::max);
            if out.len() < MAX_FRONT {
                assert_eq!(bound, exact, "k1 {k1} b {b}");
            }
            assert!(bound >= exact, "k1 {k1} b {b}: {bound} < {exact}");
        }
    }
}
