//! BM25's parameters and its scored hit, in a leaf module: the index (`bm25`) and the query
//! (`bm25_query`) both need them, and neither should depend on the other for them.

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Default k1 (term-frequency saturation), as SQLite FTS5, tantivy and Lucene.
pub const DEFAULT_K1: f64 = 1.2;
/// Default b (length normalisation), as SQLite FTS5, tantivy and Lucene.
pub const DEFAULT_B: f64 = 0.75;
/// Floor FTS5 puts on a non-positive Robertson–Spärck Jones idf.
pub const FTS5_MIN_IDF: f64 = 1e-6;

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

/// BM25 parameters, valid by construction ([`Bm25Params::new`]; deserialising validates too).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawBm25Params")]
pub struct Bm25Params {
    /// ≥ 0; 0 makes term frequency irrelevant.
    k1: f64,
    /// In [0, 1]; 0 disables length normalisation.
    b: f64,
    idf: Idf,
}

/// The serialised form of [`Bm25Params`], validated on the way in.
#[derive(Deserialize)]
struct RawBm25Params {
    k1: f64,
    b: f64,
    idf: Idf,
}

impl TryFrom<RawBm25Params> for Bm25Params {
    type Error = Error;
    fn try_from(r: RawBm25Params) -> Result<Self> {
        Bm25Params::new(r.k1, r.b, r.idf)
    }
}

impl Default for Bm25Params {
    fn default() -> Self {
        Self { k1: DEFAULT_K1, b: DEFAULT_B, idf: Idf::Lucene }
    }
}

impl Bm25Params {
    /// Validated parameters: k1 finite and ≥ 0, b in [0, 1].
    pub fn new(k1: f64, b: f64, idf: Idf) -> Result<Self> {
        if !(k1.is_finite() && k1 >= 0.0) {
            return Err(Error::Param(format!("BM25 k1 = {k1} must be a finite number ≥ 0")));
        }
        if !(0.0..=1.0).contains(&b) {
            return Err(Error::Param(format!("BM25 b = {b} must be in [0, 1]")));
        }
        Ok(Self { k1, b, idf })
    }

    /// Term-frequency saturation.
    pub fn k1(&self) -> f64 {
        self.k1
    }

    /// Length normalisation.
    pub fn b(&self) -> f64 {
        self.b
    }

    /// The idf variant.
    pub fn idf_kind(&self) -> Idf {
        self.idf
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

/// A scored unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub ord: u32,
    pub score: f64,
}
