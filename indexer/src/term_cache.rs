//! A small segment's whole term dictionary in a hash table, read once when the index opens.
//!
//! A query looks up every one of its distinct terms in every segment, and a long Chinese query
//! has about a hundred bigrams, most of which no unit holds. In tantivy's dictionary (an FST)
//! each lookup walks one node per key byte, about 90 ns for a six-byte bigram; on a small route
//! those lookups were a third of a query (finance_zh_rules: 10 of 28 µs). A hash table answers
//! in a few nanoseconds, hit or miss: that query's p95 went from 34 to 24 µs with warm caches
//! and from 46 to 35 µs with cold ones, and every other route with small segments gained 5–20 %
//! (identical results). Only segments of at most [`MAX_TERMS`] terms get one, as reading it
//! costs at open what the lookups save over many queries: 2.3 ms and 2.0 MiB for a segment of
//! 16,384 terms (11 ms for 65,536), against 0.2 ms and 0.1 MiB to open it without; on the
//! release-size sample, opening finance_en_audit (two segments of 2,900 terms) went from 0.40
//! to 1.82 ms and legal_zh_cases (two of 10,000) from 1.04 to 3.50 ms.

use rustc_hash::FxHashMap;
use tantivy::{postings::TermInfo, termdict::TermDictionary};

/// Most terms of a segment whose dictionary is held in memory.
pub(crate) const MAX_TERMS: usize = 1 << 14;

/// A segment's term dictionary: term bytes → term info.
#[derive(Debug, Default)]
pub(crate) struct TermCache {
    terms: FxHashMap<Box<[u8]>, TermInfo>,
}

impl TermCache {
    /// The dictionary in memory, when it has at most `max_terms` terms ([`MAX_TERMS`]).
    pub(crate) fn load(dict: &TermDictionary, max_terms: usize) -> std::io::Result<Option<Self>> {
        if dict.num_terms() > max_terms {
            return Ok(None);
        }
        let mut terms = FxHashMap::with_capacity_and_hasher(dict.num_terms(), rustc_hash::FxBuildHasher);
        let mut stream = dict.stream()?;
        while stream.advance() {
            terms.insert(Box::from(stream.key()), stream.value().clone());
        }
        Ok(Some(Self { terms }))
    }

    /// The info of the term whose bytes are `key`, as the dictionary has it.
    pub(crate) fn get(&self, key: &[u8]) -> Option<&TermInfo> {
        self.terms.get(key)
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{STRING, Schema};

    use super::*;

    /// Every term of the dictionary and a few it lacks get what the FST answers; a dictionary
    /// over the limit is not held.
    #[test]
    fn answers_as_the_dictionary() {
        let mut b = Schema::builder();
        let word = b.add_text_field("word", STRING);
        let index = tantivy::Index::create_in_ram(b.build());
        let mut writer: tantivy::IndexWriter = index.writer_with_num_threads(1, 15_000_000).expect("writer");
        for i in 0..3000u32 {
            writer.add_document(tantivy::doc!(word => format!("w{}", i % 1000), word => "银行")).expect("add");
        }
        writer.commit().expect("commit");
        let searcher = index.reader().expect("reader").searcher();
        let inverted = searcher.segment_readers()[0].inverted_index(word).expect("inverted");
        let dict = inverted.terms();
        assert_eq!(dict.num_terms(), 1001);
        assert!(TermCache::load(dict, 1000).expect("load").is_none());
        let cache = TermCache::load(dict, 1001).expect("load").expect("held");
        let mut stream = dict.stream().expect("stream");
        let mut seen = 0;
        while stream.advance() {
            assert_eq!(cache.get(stream.key()), Some(stream.value()));
            seen += 1;
        }
        assert_eq!(seen, 1001);
        assert_eq!(cache.get("银行".as_bytes()).map(|i| i.doc_freq), Some(3000));
        for absent in ["w1000", "w", "", "银", "w10000"] {
            assert_eq!(cache.get(absent.as_bytes()), None, "{absent}");
            assert_eq!(dict.get(absent.as_bytes()).expect("get"), None, "{absent}");
        }
    }
}
