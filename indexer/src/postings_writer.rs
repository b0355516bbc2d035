//! The postings of a small build's segment, gathered by anser and written with tantivy's own
//! postings serializer, instead of tantivy's segment writer's in-memory postings.
//!
//! tantivy's segment writer keeps every term's postings as variable-length integers in linked
//! blocks of a memory arena, found through a hash table of the full terms: on a one-thread
//! build of legal_en_precedents (5,000 precedents of ~660 bytes) that table and its recorders
//! were 40 % of the build, and the largest part of what made the small routes' one-thread
//! builds slower than 1.5× FTS5's. Here a segment's postings are gathered for the documents of
//! one thread only, all in memory, and written once:
//!
//! - each distinct term is stored once (its bytes back to back in one buffer) and found through
//!   a hash table of term numbers (FxHash of the bytes);
//! - a document's tokens count each term's frequency in per-term slots, and at the document's
//!   end one `(term, document, frequency)` posting per distinct term is appended;
//! - at the end the postings are put in term order by a counting sort (stable: each term's
//!   documents stay ascending), the terms in byte order, and tantivy's `InvertedIndexSerializer`
//!   writes the postings, the term dictionary and its FST exactly as its segment writer does
//!   (the same calls: `new_term` with the document frequency, `write_doc`, `close_term`).
//!
//! The segment's other files (document store, fast fields, field norms) are written by a tantivy
//! segment writer given as many documents without fields; its empty postings files are then
//! replaced ([`PostingsWriter::write_segment`]). `tests::postings_equal_tantivys_segment_writer` checks that
//! every term, document frequency, document and term frequency, and the token count, are the
//! ones tantivy's segment writer writes for the same texts.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use tantivy::{
    Directory, Document, Segment,
    index::SegmentComponent,
    postings::InvertedIndexSerializer,
    schema::Field,
    tokenizer::{MAX_TOKEN_LEN, TextAnalyzer},
};

use crate::Result;

/// No term yet in the current document.
const NO_DOC: u32 = u32::MAX;
/// The memory budget of the tantivy segment writer that writes a segment's other files: its
/// documents have no fields, so it only picks the size of a term table that stays empty (tantivy
/// sizes it from the budget: 2^13 slots here; its floor for the threaded writer is 2^19).
const EMPTY_WRITER_BUDGET: usize = 256 << 10;

/// The postings of one segment's documents, gathered in memory.
pub(crate) struct PostingsWriter {
    analyzer: TextAnalyzer,
    /// Every distinct term's bytes, back to back.
    bytes: Vec<u8>,
    /// Where each term's bytes end in `bytes`.
    ends: Vec<u32>,
    /// Term numbers, hashed by their bytes.
    table: HashTable<u32>,
    hasher: FxBuildHasher,
    /// Per term: the last document it was seen in, its frequency there, its document count.
    last_doc: Vec<u32>,
    tf: Vec<u32>,
    doc_freq: Vec<u32>,
    /// `(term, document, frequency)`, in document order.
    postings: Vec<(u32, u32, u32)>,
    /// The distinct terms of the current document.
    doc_terms: Vec<u32>,
    /// Token count per document.
    lens: Vec<u32>,
    total_tokens: u64,
}

impl PostingsWriter {
    pub(crate) fn new(analyzer: TextAnalyzer) -> Self {
        Self {
            analyzer,
            bytes: Vec::new(),
            ends: Vec::new(),
            table: HashTable::new(),
            hasher: FxBuildHasher,
            last_doc: Vec::new(),
            tf: Vec::new(),
            doc_freq: Vec::new(),
            postings: Vec::new(),
            doc_terms: Vec::new(),
            lens: Vec::new(),
            total_tokens: 0,
        }
    }

    /// Term `id`'s bytes.
    fn term<'a>(bytes: &'a [u8], ends: &[u32], id: u32) -> &'a [u8] {
        let end = ends[id as usize] as usize;
        let start = id.checked_sub(1).map_or(0, |p| ends[p as usize] as usize);
        &bytes[start..end]
    }

    /// Index the next document's text (documents are numbered in the order they are added).
    pub(crate) fn add(&mut self, text: &str) -> Result<()> {
        let doc = u32::try_from(self.lens.len())
            .map_err(|_| crate::Error::Internal("more than 2^32 documents in one segment".into()))?;
        let Self { analyzer, bytes, ends, table, hasher, last_doc, tf, doc_freq, doc_terms, .. } = self;
        let (mut tokens, mut overflow) = (0u32, false);
        let mut stream = analyzer.token_stream(text);
        stream.process(&mut |token| {
            let term = token.text.as_bytes();
            // As tantivy's segment writer: longer tokens are dropped (our analyzers drop long
            // tokens before this).
            if term.len() > MAX_TOKEN_LEN {
                return;
            }
            tokens += 1;
            let hash = hasher.hash_one(term);
            let id = match table.find(hash, |&id| Self::term(bytes, ends, id) == term) {
                Some(&id) => id,
                None => {
                    // Term numbers and ends are u32: at most 4 GiB of distinct terms.
                    let Ok(end) = u32::try_from(bytes.len() + term.len()) else {
                        overflow = true;
                        return;
                    };
                    let id = ends.len() as u32;
                    bytes.extend_from_slice(term);
                    ends.push(end);
                    last_doc.push(NO_DOC);
                    tf.push(0);
                    doc_freq.push(0);
                    table.insert_unique(hash, id, |&id| hasher.hash_one(Self::term(bytes, ends, id)));
                    id
                }
            };
            let at = id as usize;
            if last_doc[at] == doc {
                tf[at] += 1;
            } else {
                last_doc[at] = doc;
                tf[at] = 1;
                doc_terms.push(id);
            }
        });
        for &id in doc_terms.iter() {
            self.postings.push((id, doc, tf[id as usize]));
            doc_freq[id as usize] += 1;
        }
        doc_terms.clear();
        if overflow {
            return Err(crate::Error::Param(
                "more than 4 GiB of distinct terms in one BM25 segment; lower BuildOptions::small_build_bytes".into(),
            ));
        }
        self.lens.push(tokens);
        self.total_tokens += u64::from(tokens);
        Ok(())
    }

    /// The terms found in more than `docs` documents so far.
    pub(crate) fn terms_in_more_than(&self, docs: usize) -> Vec<Vec<u8>> {
        (0..self.ends.len() as u32)
            .filter(|&id| self.doc_freq[id as usize] as usize > docs)
            .map(|id| Self::term(&self.bytes, &self.ends, id).to_vec())
            .collect()
    }

    /// Write the segment: tantivy's files for its documents (none of them stored or fast), then
    /// the postings and term dictionary of `field`. Returns each document's token count.
    pub(crate) fn write_segment(self, segment: &Segment, field: Field) -> Result<(Segment, Vec<u32>)> {
        let max_doc = self.lens.len() as u32;
        let mut writer = tantivy::indexer::SegmentWriter::for_segment(EMPTY_WRITER_BUDGET, segment.clone())?;
        for opstamp in 0..u64::from(max_doc) {
            writer.add_document(tantivy::indexer::AddOperation { opstamp, document: NoFields })?;
        }
        writer.finalize()?;
        let segment = segment.clone().with_max_doc(max_doc);
        let directory = segment.index().directory();
        for component in [SegmentComponent::Postings, SegmentComponent::Positions, SegmentComponent::Terms] {
            let path = segment.relative_path(component);
            directory
                .delete(&path)
                .map_err(|e| crate::Error::Internal(format!("replacing {}: {e}", path.display())))?;
        }
        let terms = self.ends.len();
        // Each term's postings, contiguous and in document order (a stable counting sort).
        let mut starts = Vec::with_capacity(terms + 1);
        starts.push(0usize);
        for &n in &self.doc_freq {
            starts.push(starts[starts.len() - 1] + n as usize);
        }
        let mut next = starts.clone();
        let mut sorted = vec![(0u32, 0u32); self.postings.len()];
        for &(id, doc, tf) in &self.postings {
            let at = &mut next[id as usize];
            sorted[*at] = (doc, tf);
            *at += 1;
        }
        let mut order: Vec<u32> = (0..terms as u32).collect();
        order.sort_unstable_by(|&a, &b| {
            Self::term(&self.bytes, &self.ends, a).cmp(Self::term(&self.bytes, &self.ends, b))
        });
        let mut serializer = InvertedIndexSerializer::open(&segment)?;
        let mut postings = serializer.new_field(field, self.total_tokens, None)?;
        for id in order {
            let at = id as usize;
            postings.new_term(Self::term(&self.bytes, &self.ends, id), self.doc_freq[at], true)?;
            for &(doc, tf) in &sorted[starts[at]..starts[at + 1]] {
                postings.write_doc(doc, tf, &[]);
            }
            postings.close_term()?;
        }
        postings.close()?;
        serializer.close()?;
        Ok((segment, self.lens))
    }
}

/// A document without fields: the segment writer writes its store, fast-field and field-norm
/// entries (all empty) and no postings.
#[derive(Debug, Clone, Copy)]
struct NoFields;

impl Document for NoFields {
    type Value<'a> = &'a str;
    type FieldsValuesIter<'a> = std::iter::Empty<(Field, &'a str)>;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        std::iter::empty()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::{
        Index, SegmentReader,
        schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions},
    };

    use super::*;
    use crate::analyzer::Analyzer;

    /// Every term's document frequency, documents and term frequencies, and the token count,
    /// as tantivy's segment writer writes them for the same texts, for every analyzer, over
    /// texts with repeated, shared, unique, Chinese and no terms and terms of several blocks.
    #[test]
    fn postings_equal_tantivys_segment_writer() {
        let texts: Vec<String> = (0..700)
            .map(|i| match i % 7 {
                0 => String::new(),
                1 => format!("Capital ratio {i} of banks; capital, CAPITAL and Ämter"),
                2 => "资本充足率 监管 要求 资本".to_string(),
                3 => format!("word{} word{} shared", i % 13, i % 200),
                _ => format!("common common {} tail{}", "x".repeat(i % 5 + 1), i),
            })
            .collect();
        for analyzer in Analyzer::ALL {
            // A text field as the BM25 index's (`bm25::schema`, which this module may not use:
            // bm25 uses it).
            let mut b = Schema::builder();
            let indexing = TextFieldIndexing::default()
                .set_tokenizer(analyzer.as_str())
                .set_index_option(IndexRecordOption::WithFreqs)
                .set_fieldnorms(false);
            let field = b.add_text_field("text", TextOptions::default().set_indexing_options(indexing));
            let index = Index::create_in_ram(b.build());
            index.tokenizers().register(analyzer.as_str(), analyzer.text_analyzer());

            let theirs = index.new_segment();
            let mut writer = tantivy::indexer::SegmentWriter::for_segment(1 << 20, theirs.clone()).expect("writer");
            for (opstamp, text) in (0u64..).zip(&texts) {
                let document = tantivy::doc!(field => text.clone());
                writer.add_document(tantivy::indexer::AddOperation { opstamp, document }).expect("add");
            }
            writer.finalize().expect("finalize");
            let theirs = SegmentReader::open(&theirs.with_max_doc(texts.len() as u32)).expect("theirs");

            let mut ours = PostingsWriter::new(analyzer.text_analyzer());
            for text in &texts {
                ours.add(text).expect("add");
            }
            let (ours, lens) = ours.write_segment(&index.new_segment(), field).expect("write");
            let ours = SegmentReader::open(&ours).expect("ours");

            let (a, b) = (ours.inverted_index(field).expect("ours"), theirs.inverted_index(field).expect("theirs"));
            assert_eq!(a.total_num_tokens(), b.total_num_tokens(), "{analyzer}");
            assert_eq!(lens.iter().map(|&l| u64::from(l)).sum::<u64>(), b.total_num_tokens(), "{analyzer}");
            assert_eq!(a.terms().num_terms(), b.terms().num_terms(), "{analyzer}");
            assert!(a.terms().num_terms() > 250, "{analyzer}: {} terms", a.terms().num_terms());
            let (mut sa, mut sb) = (a.terms().stream().expect("stream"), b.terms().stream().expect("stream"));
            let mut long = 0;
            while let Some((term, info)) = sb.next() {
                let (term, info) = (term.to_vec(), info.clone());
                let (other, other_info) = sa.next().expect("as many terms");
                assert_eq!(other, term.as_slice(), "{analyzer}");
                assert_eq!(other_info.doc_freq, info.doc_freq, "{analyzer}");
                long += usize::from(info.doc_freq > 128);
                let postings = |inv: &tantivy::InvertedIndexReader, info: &tantivy::postings::TermInfo| {
                    let mut block =
                        inv.read_block_postings_from_terminfo(info, IndexRecordOption::WithFreqs).expect("postings");
                    let mut all = Vec::new();
                    while !block.docs().is_empty() {
                        all.extend(block.docs().iter().copied().zip(block.freqs().iter().copied()));
                        block.advance();
                    }
                    all
                };
                assert_eq!(postings(&a, other_info), postings(&b, &info), "{analyzer}: {term:?}");
            }
            assert!(long > 0, "{analyzer}: a term with more than one block");
        }
    }
}
