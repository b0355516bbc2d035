//! Counting the tokens tantivy indexes, per document, while it indexes them.
//!
//! BM25 needs every document's exact length, and tantivy keeps only a one-byte approximation
//! (its field norms). A build that writes its segments itself ([`crate::bm25::Bm25Writer`]'s
//! small builds) indexes each document on one thread with an analyzer ending in
//! [`CountTokens`], which adds every token to a counter of that thread: read and reset after
//! each document ([`take`]), it is the document's length, without decoding every term's
//! postings after the build to sum their frequencies (what [`crate::bm25_stats`] does for the
//! threaded writer's segments, whose documents are indexed on threads we do not see).
//!
//! A token is counted when tantivy indexes it: tantivy drops tokens longer than
//! [`MAX_TOKEN_LEN`], so they are not counted either, and the count is the sum of the
//! document's term frequencies.

use std::cell::Cell;

use tantivy::tokenizer::{MAX_TOKEN_LEN, Token, TokenFilter, TokenStream, Tokenizer};

thread_local! {
    static TOKENS: Cell<u32> = const { Cell::new(0) };
}

/// The tokens counted on this thread since the last call; resets the count.
pub(crate) fn take() -> u32 {
    TOKENS.with(|c| c.replace(0))
}

/// The last filter of a counting analyzer: counts the tokens it lets through on this thread.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CountTokens;

impl TokenFilter for CountTokens {
    type Tokenizer<T: Tokenizer> = Counting<T>;
    fn transform<T: Tokenizer>(self, tokenizer: T) -> Counting<T> {
        Counting(tokenizer)
    }
}

/// A tokenizer whose tokens are counted ([`CountTokens`]).
#[derive(Debug, Clone)]
pub(crate) struct Counting<T>(T);

impl<T: Tokenizer> Tokenizer for Counting<T> {
    type TokenStream<'a> = CountingStream<T::TokenStream<'a>>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CountingStream(self.0.token_stream(text))
    }
}

/// Stream of [`Counting`].
#[derive(Debug)]
pub(crate) struct CountingStream<S>(S);

impl<S: TokenStream> TokenStream for CountingStream<S> {
    fn advance(&mut self) -> bool {
        let more = self.0.advance();
        if more && self.0.token().text.len() <= MAX_TOKEN_LEN {
            TOKENS.with(|c| c.set(c.get().saturating_add(1)));
        }
        more
    }
    fn token(&self) -> &Token {
        self.0.token()
    }
    fn token_mut(&mut self) -> &mut Token {
        self.0.token_mut()
    }
}

/// A filter that changes nothing: the last filter of an analyzer that is not counted.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Uncounted;

impl TokenFilter for Uncounted {
    type Tokenizer<T: Tokenizer> = T;
    fn transform<T: Tokenizer>(self, tokenizer: T) -> T {
        tokenizer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Analyzer;

    #[test]
    fn counts_the_tokens_of_this_thread_and_resets() {
        take();
        let mut counted = Analyzer::En.counting_text_analyzer();
        let mut plain = Analyzer::En.text_analyzer();
        let text = "Two words, and three more";
        counted.token_stream(text).process(&mut |_| {});
        assert_eq!(take(), 5);
        assert_eq!(take(), 0);
        plain.token_stream(text).process(&mut |_| {});
        assert_eq!(take(), 0);
        // Another thread's tokens are its own.
        std::thread::scope(|s| {
            s.spawn(|| Analyzer::En.counting_text_analyzer().token_stream("one two").process(&mut |_| {}));
        });
        assert_eq!(take(), 0);
    }
}
