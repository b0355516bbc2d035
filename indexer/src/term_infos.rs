//! A segment's term infos read in ordinal order straight from its term dictionary file, without
//! walking the dictionary's FST.
//!
//! The statistics of a small build need the terms with more than one postings block
//! ([`crate::bm25_stats`]). tantivy's only public way to visit every term info is its term
//! stream, which walks the FST to yield each key's ordinal and then looks the info up by that
//! ordinal: on finance_en_audit (5,921 units, one thread) the walk took a tenth of the whole
//! build, for infos that sit in ordinal order in a table beside the FST. tantivy 0.27 keeps that
//! table's reader private, so this module reads its layout (the FST term dictionary's
//! `TermInfoStore`, tantivy 0.27):
//!
//! - the `.term` file is a composite file ([`CompositeFile`]) with one dictionary per field;
//! - a dictionary is `[FST][store][store length: u64][FST version: u32 = 1][dictionary type:
//!   u32 = 1 (FST)]`, little-endian;
//! - the store is `[block metas length: u64][term count: u64][block metas][bit-packed infos]`,
//!   one block per 256 terms: a meta (offset of the block's packed infos: u64; the block's first
//!   term info in full: doc_freq u32, postings start u64, postings length u32, positions start
//!   u64, positions length u32; bit widths of the doc_freq, postings offset and positions offset:
//!   u8 each) and, per further term, its postings offset, positions offset (relative to the first
//!   term's) and doc_freq, bit-packed, followed by the block's end offsets.
//!
//! Anything that does not fit is an error naming what broke, and `term_infos_match_the_stream`
//! checks every info against tantivy's stream, so a tantivy upgrade that changes the layout fails
//! the tests rather than the statistics.

use tantivy::{
    directory::{CompositeFile, FileSlice},
    postings::TermInfo,
    schema::Field,
};

use crate::le_reader::LeReader;

/// Terms per block of the store.
const BLOCK_LEN: usize = 256;
/// Bytes of one block meta: offset, full term info, three bit widths.
const META_BYTES: usize = 8 + 28 + 3;
/// The FST dictionary's format version and type tag in its footer.
const FST_VERSION: u32 = 1;
const FST_DICTIONARY: u32 = 1;

/// What does not fit tantivy 0.27's term dictionary layout.
fn broken(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, format!("term dictionary: {what}"))
}

/// The term infos of `field` in the segment's term file (`.term`, [`tantivy::index::SegmentComponent::Terms`])
/// whose doc_freq is above `min_doc_freq`, in ordinal (term) order.
pub(crate) fn term_infos_above(
    terms_file: &FileSlice,
    field: Field,
    min_doc_freq: u32,
) -> std::io::Result<Vec<TermInfo>> {
    let composite = CompositeFile::open(terms_file)?;
    let Some(dict) = composite.open_read(field) else {
        // tantivy writes no dictionary for a field no document has a term of.
        return Ok(Vec::new());
    };
    let dict = dict.read_bytes()?;
    let bytes = dict.as_slice();
    let footer = bytes.len().checked_sub(16).ok_or_else(|| broken("shorter than its footer"))?;
    let mut r = LeReader::new(&bytes[footer..]);
    let (store_len, version, kind) = (r.u64(), r.u32(), r.u32());
    if kind != Some(FST_DICTIONARY) || version != Some(FST_VERSION) {
        return Err(broken("not an FST dictionary of version 1"));
    }
    let store_len = store_len.and_then(|l| usize::try_from(l).ok()).ok_or_else(|| broken("store length"))?;
    let store =
        footer.checked_sub(store_len).map(|start| &bytes[start..footer]).ok_or_else(|| broken("store length"))?;
    let mut r = LeReader::new(store);
    let (metas_len, num_terms) = match (r.u64(), r.u64()) {
        (Some(m), Some(n)) => (usize::try_from(m).ok(), usize::try_from(n).ok()),
        _ => (None, None),
    };
    let (Some(metas_len), Some(num_terms)) = (metas_len, num_terms) else {
        return Err(broken("store header"));
    };
    let metas = r.take(metas_len).ok_or_else(|| broken("block metas cut off"))?;
    let packed = &store[16 + metas_len..];
    if metas.len() != num_terms.div_ceil(BLOCK_LEN) * META_BYTES {
        return Err(broken("block metas do not match the term count"));
    }
    let mut out = Vec::new();
    for (b, meta) in metas.chunks_exact(META_BYTES).enumerate() {
        let block = Block::read(meta).ok_or_else(|| broken("block meta"))?;
        if block.first.doc_freq > min_doc_freq {
            out.push(block.first.clone());
        }
        let data = packed.get(block.offset..).ok_or_else(|| broken("block offset"))?;
        let terms = (num_terms - b * BLOCK_LEN).min(BLOCK_LEN);
        for inner in 0..terms - 1 {
            if let Some(info) = block.info(data, inner, min_doc_freq)? {
                out.push(info);
            }
        }
    }
    Ok(out)
}

/// One block meta of the store.
struct Block {
    offset: usize,
    first: TermInfo,
    postings_bits: u8,
    positions_bits: u8,
    doc_freq_bits: u8,
}

impl Block {
    fn read(meta: &[u8]) -> Option<Block> {
        let mut r = LeReader::new(meta);
        let offset = usize::try_from(r.u64()?).ok()?;
        let doc_freq = r.u32()?;
        let postings = usize::try_from(r.u64()?).ok()?;
        let postings_len = r.u32()? as usize;
        let positions = usize::try_from(r.u64()?).ok()?;
        let positions_len = r.u32()? as usize;
        let bits = r.take(3)?;
        if bits.iter().any(|&b| b > 56) {
            return None;
        }
        Some(Block {
            offset,
            first: TermInfo {
                doc_freq,
                postings_range: postings..postings.checked_add(postings_len)?,
                positions_range: positions..positions.checked_add(positions_len)?,
            },
            doc_freq_bits: bits[0],
            postings_bits: bits[1],
            positions_bits: bits[2],
        })
    }

    /// The info of the block's term `inner + 1` (the first is [`Block::first`]) when its
    /// doc_freq is above `min_doc_freq`. Its postings and positions end where the next term's
    /// start (after the last term, the block's end offsets).
    fn info(&self, data: &[u8], inner: usize, min_doc_freq: u32) -> std::io::Result<Option<TermInfo>> {
        let width =
            usize::from(self.postings_bits) + usize::from(self.positions_bits) + usize::from(self.doc_freq_bits);
        let postings_at = width * inner;
        let positions_at = postings_at + usize::from(self.postings_bits);
        let doc_freq = bits(data, positions_at + usize::from(self.positions_bits), self.doc_freq_bits)?;
        if doc_freq <= u64::from(min_doc_freq) {
            return Ok(None);
        }
        let offset = |at: usize, n: u8, base: usize| -> std::io::Result<usize> {
            usize::try_from(bits(data, at, n)?).ok().and_then(|v| base.checked_add(v)).ok_or_else(|| broken("offset"))
        };
        let (postings, positions) = (self.first.postings_range.start, self.first.positions_range.start);
        Ok(Some(TermInfo {
            doc_freq: u32::try_from(doc_freq).map_err(|_| broken("doc_freq"))?,
            postings_range: offset(postings_at, self.postings_bits, postings)?
                ..offset(postings_at + width, self.postings_bits, postings)?,
            positions_range: offset(positions_at, self.positions_bits, positions)?
                ..offset(positions_at + width, self.positions_bits, positions)?,
        }))
    }
}

/// `n` bits (at most 56) of `data` from bit `at`, little-endian (tantivy's bit packer).
fn bits(data: &[u8], at: usize, n: u8) -> std::io::Result<u64> {
    let byte = at / 8;
    let mut word = [0u8; 8];
    let available = data.get(byte..).ok_or_else(|| broken("packed infos cut off"))?;
    let len = available.len().min(8);
    word[..len].copy_from_slice(&available[..len]);
    Ok((u64::from_le_bytes(word) >> (at % 8)) & ((1u64 << n) - 1))
}

#[cfg(test)]
mod tests {
    use tantivy::{
        Index, IndexWriter,
        index::SegmentComponent,
        schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions},
    };

    use super::*;

    /// Every term info read from the store, for several thresholds, equals the one tantivy's
    /// stream yields, over dictionaries of one block, several full blocks and a partial last one,
    /// with doc_freqs and postings sizes of every width up to three blocks of postings.
    #[test]
    fn term_infos_match_the_stream() {
        for docs in [3u32, 600, 1500] {
            let mut b = Schema::builder();
            let indexing =
                TextFieldIndexing::default().set_tokenizer("whitespace").set_index_option(IndexRecordOption::WithFreqs);
            let text = b.add_text_field("text", TextOptions::default().set_indexing_options(indexing.clone()));
            let other = b.add_text_field("other", TextOptions::default().set_indexing_options(indexing));
            let index = Index::create_in_ram(b.build());
            let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).expect("writer");
            for i in 0..docs {
                // A unique term per document, terms shared by every 2nd, 7th, 50th document, and
                // one every document has (tf 1–3).
                let words = format!("u{i} h{} s{} t{} {}", i % 2, i % 7, i % 50, "common ".repeat(1 + i as usize % 3));
                writer.add_document(tantivy::doc!(text => words, other => format!("o{}", i % 3))).expect("add");
            }
            writer.commit().expect("commit");
            let segment = index.searchable_segments().expect("segments").remove(0);
            let reader = tantivy::SegmentReader::open(&segment).expect("reader");
            let file = segment.open_read(SegmentComponent::Terms).expect("terms file");
            let inverted = reader.inverted_index(text).expect("inverted");
            for min in [0, 1, 128, 400] {
                let mut expected = Vec::new();
                let mut stream = inverted.terms().stream().expect("stream");
                while let Some((_, info)) = stream.next() {
                    if info.doc_freq > min {
                        expected.push(info.clone());
                    }
                }
                let read = term_infos_above(&file, text, min).expect("read");
                assert_eq!(read, expected, "{docs} documents, doc_freq above {min}");
                if min == 0 {
                    assert_eq!(read.len(), inverted.terms().num_terms());
                }
            }
            assert_eq!(term_infos_above(&file, other, 0).expect("other").len(), 3.min(docs as usize));
        }
    }
}
