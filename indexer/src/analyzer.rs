//! Text analyzers for BM25: the official baseline's Chinese bigrams, jieba word segmentation,
//! and an English chain. tantivy's default tokenizer is never used for Chinese: it emits a whole
//! CJK run as one token and silently drops runs longer than 40 bytes.
//!
//! Every analyzer is a tantivy [`TextAnalyzer`], registered on the index under its name, and is
//! also run directly ([`Analyzer::tokens`]) to produce the pre-tokenised field values, the
//! exact document lengths BM25 needs and the query terms, so indexing and querying can never
//! disagree.

use std::{fmt, str::FromStr};

use rustc_hash::{FxBuildHasher, FxHashSet};
use serde::{Deserialize, Serialize};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer, Token,
    TokenFilter, TokenStream, Tokenizer,
};

/// Longest token kept by the English analyzer (bytes), as tantivy's default.
pub const EN_MAX_TOKEN_BYTES: usize = 40;

/// A BM25 analyzer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Analyzer {
    /// The official sparse baseline's terms: lower-cased ASCII word runs `[A-Za-z0-9_]+` plus the
    /// overlapping character bigrams of every CJK run (U+4E00–U+9FFF); a one-character run
    /// contributes itself.
    ZhBigram,
    /// jieba search-mode segmentation (dictionary bundled with jieba-rs), tokens without any
    /// alphanumeric character dropped, lower-cased.
    ZhJieba,
    /// Split on non-alphanumerics, drop tokens over 40 bytes, lower-case, ASCII folding.
    En,
    /// [`Analyzer::En`] plus the English Snowball stemmer.
    EnStem,
}

impl Analyzer {
    /// Every analyzer, in canonical order.
    pub const ALL: [Analyzer; 4] = [Analyzer::ZhBigram, Analyzer::ZhJieba, Analyzer::En, Analyzer::EnStem];

    /// Stable name (index folders, fingerprints, `--retriever bm25:NAME`).
    pub fn as_str(self) -> &'static str {
        match self {
            Analyzer::ZhBigram => "zh_bigram",
            Analyzer::ZhJieba => "zh_jieba",
            Analyzer::En => "en",
            Analyzer::EnStem => "en_stem",
        }
    }

    /// The tantivy analyzer chain.
    pub fn text_analyzer(self) -> TextAnalyzer {
        match self {
            Analyzer::ZhBigram => TextAnalyzer::builder(BigramTokenizer).build(),
            Analyzer::ZhJieba => TextAnalyzer::builder(tantivy_jieba::JiebaTokenizer::new())
                .filter(AlnumFilter)
                .filter(LowerCaser)
                .build(),
            Analyzer::En => TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(RemoveLongFilter::limit(EN_MAX_TOKEN_BYTES))
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .build(),
            Analyzer::EnStem => TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(RemoveLongFilter::limit(EN_MAX_TOKEN_BYTES))
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .filter(Stemmer::new(Language::English))
                .build(),
        }
    }

    /// Whether this analyzer suits Chinese text.
    pub fn is_chinese(self) -> bool {
        matches!(self, Analyzer::ZhBigram | Analyzer::ZhJieba)
    }
}

impl fmt::Display for Analyzer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Analyzer {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "zh_bigram" | "bigram" => Ok(Analyzer::ZhBigram),
            "zh_jieba" | "jieba" => Ok(Analyzer::ZhJieba),
            "en" => Ok(Analyzer::En),
            "en_stem" | "stem" => Ok(Analyzer::EnStem),
            _ => Err(format!("unknown analyzer {s:?} (expected zh_bigram, zh_jieba, en or en_stem)")),
        }
    }
}

/// Runs one analyzer repeatedly (a [`TextAnalyzer`] needs `&mut` to tokenise).
#[derive(Clone)]
pub struct Tokens {
    analyzer: TextAnalyzer,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tokens")
    }
}

impl Tokens {
    pub fn new(analyzer: Analyzer) -> Self {
        Self { analyzer: analyzer.text_analyzer() }
    }

    /// The tokens of `text`, with offsets and positions.
    pub fn tokens(&mut self, text: &str) -> Vec<Token> {
        self.each(text, Token::clone)
    }

    /// Just the token texts (copied straight from the stream: a query's terms are analysed on
    /// every search).
    pub fn terms(&mut self, text: &str) -> Vec<String> {
        self.each(text, |t| t.text.clone())
    }

    /// The distinct token texts of `text`, in first-occurrence order (a query's terms are
    /// analysed on every search). Copying every token and then dropping repeats, found with a
    /// set of borrowed texts, measured faster than an insertion-ordered set of owned ones.
    pub fn distinct_terms(&mut self, text: &str) -> Vec<String> {
        let mut terms = self.terms(text);
        let mut seen = FxHashSet::with_capacity_and_hasher(terms.len(), FxBuildHasher);
        let first: Vec<bool> = terms.iter().map(|t| seen.insert(t.as_str())).collect();
        drop(seen);
        let mut first = first.into_iter();
        terms.retain(|_| first.next().unwrap_or(false));
        terms
    }

    /// `take` of each token of `text`, in order.
    fn each<T>(&mut self, text: &str, mut take: impl FnMut(&Token) -> T) -> Vec<T> {
        let mut out = Vec::new();
        let mut stream = self.analyzer.token_stream(text);
        while stream.advance() {
            out.push(take(stream.token()));
        }
        out
    }
}

fn is_cjk(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c)
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// tantivy tokenizer for [`Analyzer::ZhBigram`].
#[derive(Debug, Clone, Copy, Default)]
pub struct BigramTokenizer;

/// The bigram terms of a text (see [`Analyzer::ZhBigram`]), in text order, produced one at a
/// time into one reused [`Token`]: indexing and every query analyse text with it, and the
/// earlier list of tokens, each with its own string, showed in the profiles of both.
#[derive(Debug)]
pub struct BigramTokenStream<'a> {
    text: &'a str,
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    /// In a CJK run: the byte range of its last character, and whether that character already
    /// began or ended a bigram (a one-character run contributes itself).
    run: Option<(usize, usize, bool)>,
    token: Token,
    next_position: usize,
}

impl BigramTokenStream<'_> {
    fn emit(&mut self, from: usize, to: usize) -> bool {
        self.token.text.clear();
        self.token.text.push_str(&self.text[from..to]);
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.position = self.next_position;
        self.next_position += 1;
        true
    }
}

impl TokenStream for BigramTokenStream<'_> {
    fn advance(&mut self) -> bool {
        loop {
            if let Some((from, to, paired)) = self.run {
                match self.chars.peek() {
                    Some(&(start, c)) if is_cjk(c) => {
                        self.chars.next();
                        let end = start + c.len_utf8();
                        self.run = Some((start, end, true));
                        return self.emit(from, end);
                    }
                    _ => {
                        self.run = None;
                        if !paired {
                            return self.emit(from, to);
                        }
                    }
                }
            }
            let Some((start, c)) = self.chars.next() else { return false };
            if is_word(c) {
                let mut end = start + c.len_utf8();
                while let Some(&(at, d)) = self.chars.peek() {
                    if !is_word(d) {
                        break;
                    }
                    end = at + d.len_utf8();
                    self.chars.next();
                }
                self.emit(start, end);
                self.token.text.make_ascii_lowercase();
                return true;
            }
            if is_cjk(c) {
                self.run = Some((start, start + c.len_utf8(), false));
            }
        }
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

impl Tokenizer for BigramTokenizer {
    type TokenStream<'a> = BigramTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> BigramTokenStream<'a> {
        BigramTokenStream {
            text,
            chars: text.char_indices().peekable(),
            run: None,
            token: Token::default(),
            next_position: 0,
        }
    }
}

/// Drops tokens that contain no alphanumeric character (jieba emits spaces and punctuation).
#[derive(Debug, Clone, Copy, Default)]
pub struct AlnumFilter;

impl TokenFilter for AlnumFilter {
    type Tokenizer<T: Tokenizer> = AlnumFilterWrapper<T>;
    fn transform<T: Tokenizer>(self, tokenizer: T) -> AlnumFilterWrapper<T> {
        AlnumFilterWrapper(tokenizer)
    }
}

/// [`AlnumFilter`] applied to a tokenizer.
#[derive(Debug, Clone)]
pub struct AlnumFilterWrapper<T>(T);

impl<T: Tokenizer> Tokenizer for AlnumFilterWrapper<T> {
    type TokenStream<'a> = AlnumFilterStream<T::TokenStream<'a>>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        AlnumFilterStream(self.0.token_stream(text))
    }
}

/// Stream of [`AlnumFilter`].
#[derive(Debug)]
pub struct AlnumFilterStream<S>(S);

impl<S: TokenStream> TokenStream for AlnumFilterStream<S> {
    fn advance(&mut self) -> bool {
        while self.0.advance() {
            if self.0.token().text.chars().any(char::is_alphanumeric) {
                return true;
            }
        }
        false
    }
    fn token(&self) -> &Token {
        self.0.token()
    }
    fn token_mut(&mut self) -> &mut Token {
        self.0.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(a: Analyzer, text: &str) -> Vec<String> {
        Tokens::new(a).terms(text)
    }

    #[test]
    fn bigrams_follow_the_official_baseline() {
        assert_eq!(
            terms(Analyzer::ZhBigram, "上市规则 Rule_5.1，第A条"),
            vec!["上市", "市规", "规则", "rule_5", "1", "第", "a", "条"]
        );
        // A long CJK run (15 characters, 45 bytes) is fully searchable, unlike tantivy's default.
        let long = "上海证券交易所股票上市规则修订版";
        assert_eq!(terms(Analyzer::ZhBigram, long).len(), long.chars().count() - 1);
    }

    /// The bigram rule written out over a character list, as the stream's reference.
    fn bigram_reference(text: &str) -> Vec<(String, usize, usize)> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let end_of = |i: usize| chars.get(i).map_or(text.len(), |(o, _)| *o);
        let mut out = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let (start, c) = chars[i];
            let mut j = i + 1;
            if is_word(c) {
                while j < chars.len() && is_word(chars[j].1) {
                    j += 1;
                }
                out.push((text[start..end_of(j)].to_ascii_lowercase(), start, end_of(j)));
            } else if is_cjk(c) {
                while j < chars.len() && is_cjk(chars[j].1) {
                    j += 1;
                }
                if j - i == 1 {
                    out.push((c.to_string(), start, end_of(j)));
                }
                for k in i..j - 1 {
                    out.push((text[chars[k].0..end_of(k + 2)].to_string(), chars[k].0, end_of(k + 2)));
                }
            }
            i = j;
        }
        out
    }

    #[test]
    fn bigram_stream_matches_the_rule_with_offsets_and_positions() {
        let texts = [
            "",
            "。",
            "条",
            "第A条",
            "上市规则 Rule_5.1，第A条",
            "ABC_def9 x 上 市 公司；2023年度报告（修订）éü 资产负债表",
            "末尾是汉字",
            "中文abc中文d中",
        ];
        for text in texts {
            let tokens = Tokens::new(Analyzer::ZhBigram).tokens(text);
            let got: Vec<(String, usize, usize)> =
                tokens.iter().map(|t| (t.text.clone(), t.offset_from, t.offset_to)).collect();
            assert_eq!(got, bigram_reference(text), "{text:?}");
            assert!(tokens.iter().enumerate().all(|(i, t)| t.position == i && t.position_length == 1), "{text:?}");
        }
    }

    #[test]
    fn distinct_terms_keep_first_occurrences() {
        let mut tokens = Tokens::new(Analyzer::ZhBigram);
        let text = "上市规则 rule 上市 规则 RULE 市规";
        let mut expected: Vec<String> = Vec::new();
        for t in tokens.terms(text) {
            if !expected.contains(&t) {
                expected.push(t);
            }
        }
        assert_eq!(tokens.distinct_terms(text), expected);
        assert_eq!(tokens.distinct_terms(text), vec!["上市", "市规", "规则", "rule"]);
        assert!(tokens.distinct_terms("，。").is_empty());
    }

    #[test]
    fn jieba_drops_punctuation_and_whitespace() {
        let t = terms(Analyzer::ZhJieba, "上市公司应当披露业绩预告。 Annual Report");
        assert!(t.contains(&"上市公司".to_string()), "{t:?}");
        assert!(t.contains(&"业绩".to_string()) || t.contains(&"业绩预告".to_string()), "{t:?}");
        assert!(t.contains(&"annual".to_string()), "{t:?}");
        assert!(t.iter().all(|w| w.chars().any(char::is_alphanumeric)), "{t:?}");
    }

    #[test]
    fn english_folds_and_optionally_stems() {
        assert_eq!(terms(Analyzer::En, "Café Filings"), vec!["cafe", "filings"]);
        assert_eq!(terms(Analyzer::EnStem, "Café Filings"), vec!["cafe", "file"]);
    }

    #[test]
    fn names_round_trip() {
        for a in Analyzer::ALL {
            assert_eq!(a.as_str().parse::<Analyzer>(), Ok(a));
        }
        assert!("default".parse::<Analyzer>().is_err());
    }
}
