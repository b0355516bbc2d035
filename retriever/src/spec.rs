//! Retriever spec strings, so an ablation is a flag:
//!
//! | spec | meaning |
//! |---|---|
//! | `none` | no retrieval |
//! | `bm25` | BM25 with the route language's default analyzer ([`RetrieverSpec::default_analyzer`]) and the index's parameters |
//! | `bm25:zh_jieba`, `bm25:zh_bigram`, `bm25:en_stem`, `bm25:en` | BM25 with that analyzer |
//! | `bm25:zh_jieba(k1=0.9,b=0.4)` | … with query-time k1/b |
//! | `dense` | cosine over the route's embeddings (HNSW) |
//! | `dense(exact)` | … exact (flat) search |
//! | `hybrid:bm25+dense` | reciprocal rank fusion with k = 60 |
//! | `hybrid:bm25+dense@rrf20` | RRF with k = 20 |
//! | `hybrid:bm25+dense@w0.3,0.7` | weighted fusion of min–max normalised scores |
//! | `SPEC/in_force` | SPEC, keeping only regulatory rules in force for the query (see [`crate::in_force`]) |
//!
//! Parts of a hybrid are any non-hybrid specs; `/in_force` applies to the whole spec.

use std::{fmt, str::FromStr};

use anser_indexer::{Analyzer, Bm25Params};
use anser_manifest::Route;

use crate::{Error, Result};

/// Default RRF constant.
pub const DEFAULT_RRF_K: f64 = 60.0;
/// Hits each part of a hybrid retrieves before fusion (at least k).
pub const DEFAULT_FUSION_DEPTH: usize = 100;

/// How a hybrid fuses its parts.
#[derive(Debug, Clone, PartialEq)]
pub enum Fusion {
    /// Σ 1 / (k + rank), rank 1-based.
    Rrf { k: f64 },
    /// Σ wᵢ · (s − minᵢ) / (maxᵢ − minᵢ) over each part's retrieved list (1 when max = min).
    Weighted { weights: Vec<f64> },
}

/// A parsed retriever spec.
#[derive(Debug, Clone, PartialEq)]
pub enum RetrieverSpec {
    None,
    Bm25 {
        analyzer: Option<Analyzer>,
        k1: Option<f64>,
        b: Option<f64>,
    },
    Dense {
        exact: bool,
    },
    Hybrid {
        parts: Vec<RetrieverSpec>,
        fusion: Fusion,
    },
    /// The inner spec's ranking, keeping only rules in force for the query.
    InForce(Box<RetrieverSpec>),
}

/// Every form a spec can take, for error messages.
const FORMS: &str = "none, bm25[:zh_jieba|zh_bigram|en_stem|en][(k1=X,b=Y)], dense[(exact)], \
                     hybrid:A+B[@rrfK|@wX,Y], any of them + /in_force";

/// Suffix of the in-force filter.
const IN_FORCE_SUFFIX: &str = "/in_force";

fn bad(spec: &str, message: impl Into<String>) -> Error {
    Error::Spec { spec: spec.to_string(), message: message.into() }
}

fn parse_simple(whole: &str, s: &str) -> Result<RetrieverSpec> {
    let (head, args) = match s.split_once('(') {
        Some((h, rest)) => {
            let inner = rest.strip_suffix(')').ok_or_else(|| bad(whole, format!("unclosed parenthesis in {s:?}")))?;
            (h, Some(inner))
        }
        None => (s, None),
    };
    let (kind, variant) = match head.split_once(':') {
        Some((k, v)) => (k, Some(v)),
        None => (head, None),
    };
    match kind {
        "none" if variant.is_none() && args.is_none() => Ok(RetrieverSpec::None),
        "bm25" => {
            let analyzer = variant.map(|v| v.parse::<Analyzer>().map_err(|e| bad(whole, e))).transpose()?;
            let (mut k1, mut b) = (None, None);
            for kv in args.into_iter().flat_map(|a| a.split(',')).map(str::trim).filter(|a| !a.is_empty()) {
                let (key, value) =
                    kv.split_once('=').ok_or_else(|| bad(whole, format!("expected key=value, got {kv:?}")))?;
                let value: f64 =
                    value.trim().parse().map_err(|_| bad(whole, format!("{key} = {value:?} is not a number")))?;
                match key.trim() {
                    "k1" => k1 = Some(value),
                    "b" => b = Some(value),
                    other => return Err(bad(whole, format!("unknown BM25 parameter {other:?} (k1, b)"))),
                }
            }
            let probe = Bm25Params::default();
            Bm25Params::new(k1.unwrap_or(probe.k1()), b.unwrap_or(probe.b()), probe.idf_kind())
                .map_err(|e| bad(whole, e.to_string()))?;
            Ok(RetrieverSpec::Bm25 { analyzer, k1, b })
        }
        "dense" if variant.is_none() => match args {
            None => Ok(RetrieverSpec::Dense { exact: false }),
            Some("exact") => Ok(RetrieverSpec::Dense { exact: true }),
            Some(other) => Err(bad(whole, format!("dense takes only (exact), got ({other})"))),
        },
        "hybrid" => Err(bad(whole, "a hybrid cannot be part of a hybrid")),
        _ => Err(bad(whole, format!("unknown retriever {s:?} (expected {FORMS})"))),
    }
}

impl FromStr for RetrieverSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let whole = s.trim();
        if let Some(inner) = whole.strip_suffix(IN_FORCE_SUFFIX) {
            let inner: RetrieverSpec = inner.parse()?;
            return match inner {
                RetrieverSpec::None => Err(bad(whole, "`none` retrieves nothing to filter")),
                RetrieverSpec::InForce(_) => Err(bad(whole, "/in_force given twice")),
                inner => Ok(RetrieverSpec::InForce(Box::new(inner))),
            };
        }
        if let Some((_, filter)) = whole.rsplit_once('/') {
            return Err(bad(whole, format!("unknown filter /{filter} (the only filter is /in_force; forms: {FORMS})")));
        }
        let Some(rest) = whole.strip_prefix("hybrid:") else { return parse_simple(whole, whole) };
        let (parts_s, fusion_s) = match rest.rsplit_once('@') {
            Some((p, f)) => (p, Some(f)),
            None => (rest, None),
        };
        let parts = parts_s.split('+').map(|p| parse_simple(whole, p.trim())).collect::<Result<Vec<_>>>()?;
        if parts.len() < 2 {
            return Err(bad(whole, "a hybrid needs at least two parts joined by +"));
        }
        if parts.iter().any(|p| matches!(p, RetrieverSpec::None)) {
            return Err(bad(whole, "`none` cannot be part of a hybrid"));
        }
        let fusion = match fusion_s {
            None => Fusion::Rrf { k: DEFAULT_RRF_K },
            Some(f) if f.starts_with("rrf") => {
                let k = if f == "rrf" {
                    DEFAULT_RRF_K
                } else {
                    f[3..].parse::<f64>().map_err(|_| bad(whole, format!("bad RRF constant in {f:?}")))?
                };
                if !(k.is_finite() && k >= 0.0) {
                    return Err(bad(whole, "the RRF constant must be ≥ 0"));
                }
                Fusion::Rrf { k }
            }
            Some(f) if f.starts_with('w') => {
                let weights = f[1..]
                    .split(',')
                    .map(|w| w.trim().parse::<f64>().map_err(|_| bad(whole, format!("bad weight {w:?}"))))
                    .collect::<Result<Vec<_>>>()?;
                if weights.len() != parts.len() {
                    return Err(bad(whole, format!("{} weights for {} parts", weights.len(), parts.len())));
                }
                if weights.iter().any(|w| !w.is_finite() || *w < 0.0) || weights.iter().sum::<f64>() <= 0.0 {
                    return Err(bad(whole, "weights must be ≥ 0 with a positive sum"));
                }
                Fusion::Weighted { weights }
            }
            Some(f) => return Err(bad(whole, format!("unknown fusion {f:?} (rrfK or wX,Y)"))),
        };
        Ok(RetrieverSpec::Hybrid { parts, fusion })
    }
}

impl fmt::Display for RetrieverSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetrieverSpec::None => f.write_str("none"),
            RetrieverSpec::Bm25 { analyzer, k1, b } => {
                f.write_str("bm25")?;
                if let Some(a) = analyzer {
                    write!(f, ":{a}")?;
                }
                let mut args = Vec::new();
                if let Some(k1) = k1 {
                    args.push(format!("k1={k1}"));
                }
                if let Some(b) = b {
                    args.push(format!("b={b}"));
                }
                if !args.is_empty() {
                    write!(f, "({})", args.join(","))?;
                }
                Ok(())
            }
            RetrieverSpec::Dense { exact } => f.write_str(if *exact { "dense(exact)" } else { "dense" }),
            RetrieverSpec::Hybrid { parts, fusion } => {
                let parts: Vec<String> = parts.iter().map(ToString::to_string).collect();
                write!(f, "hybrid:{}", parts.join("+"))?;
                match fusion {
                    Fusion::Rrf { k } => write!(f, "@rrf{k}"),
                    Fusion::Weighted { weights } => {
                        let w: Vec<String> = weights.iter().map(ToString::to_string).collect();
                        write!(f, "@w{}", w.join(","))
                    }
                }
            }
            RetrieverSpec::InForce(inner) => write!(f, "{inner}{IN_FORCE_SUFFIX}"),
        }
    }
}

impl RetrieverSpec {
    /// The analyzer plain `bm25` uses on `route`, named per language so that it never depends
    /// on the order of `--analyzers` at index time: Chinese routes `zh_jieba` (`zh_bigram` when
    /// only that is built), English routes `en_stem` (`en` when only that is built). When the
    /// route has none of its language's analyzers, the first preference is returned, and the
    /// search reports it missing.
    pub fn default_analyzer(route: Route, built: &[Analyzer]) -> Analyzer {
        let preference: [Analyzer; 2] = if route.as_str().contains("_zh_") {
            [Analyzer::ZhJieba, Analyzer::ZhBigram]
        } else {
            [Analyzer::EnStem, Analyzer::En]
        };
        preference.into_iter().find(|a| built.contains(a)).unwrap_or(preference[0])
    }

    /// Whether this spec needs embeddings.
    pub fn needs_dense(&self) -> bool {
        match self {
            RetrieverSpec::Dense { .. } => true,
            RetrieverSpec::Hybrid { parts, .. } => parts.iter().any(RetrieverSpec::needs_dense),
            RetrieverSpec::InForce(inner) => inner.needs_dense(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> RetrieverSpec {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn plain_bm25_is_named_per_language_not_by_build_order() {
        use Analyzer::{En, EnStem, ZhBigram, ZhJieba};
        let zh = Route::FinanceZhRules;
        let en = Route::LegalEnCases;
        assert_eq!(RetrieverSpec::default_analyzer(zh, &[ZhBigram, ZhJieba]), ZhJieba);
        assert_eq!(RetrieverSpec::default_analyzer(zh, &[ZhJieba, ZhBigram]), ZhJieba);
        assert_eq!(RetrieverSpec::default_analyzer(zh, &[ZhBigram]), ZhBigram);
        assert_eq!(RetrieverSpec::default_analyzer(en, &[En, EnStem]), EnStem);
        assert_eq!(RetrieverSpec::default_analyzer(en, &[En]), En);
        assert_eq!(RetrieverSpec::default_analyzer(en, &[ZhJieba]), EnStem, "reported missing by the search");
    }

    #[test]
    fn spec_errors_list_every_form_including_in_force() {
        for bad in ["bm26", "bm25/latest"] {
            let e = bad.parse::<RetrieverSpec>().expect_err(bad).to_string();
            assert!(e.contains("/in_force") && e.contains("bm25[:zh_jieba"), "{bad}: {e}");
        }
    }

    #[test]
    fn parses_the_documented_forms() {
        assert_eq!(p("none"), RetrieverSpec::None);
        assert_eq!(p("bm25"), RetrieverSpec::Bm25 { analyzer: None, k1: None, b: None });
        assert_eq!(p("bm25:jieba"), RetrieverSpec::Bm25 { analyzer: Some(Analyzer::ZhJieba), k1: None, b: None });
        assert_eq!(
            p("bm25:bigram(k1=0.9,b=0.4)"),
            RetrieverSpec::Bm25 { analyzer: Some(Analyzer::ZhBigram), k1: Some(0.9), b: Some(0.4) }
        );
        assert_eq!(p("dense(exact)"), RetrieverSpec::Dense { exact: true });
        let h = p("hybrid:bm25+dense");
        assert_eq!(h, p("hybrid:bm25+dense@rrf60"));
        assert!(h.needs_dense());
        assert_eq!(
            p("hybrid:bm25:jieba+dense@w0.3,0.7"),
            RetrieverSpec::Hybrid {
                parts: vec![
                    RetrieverSpec::Bm25 { analyzer: Some(Analyzer::ZhJieba), k1: None, b: None },
                    RetrieverSpec::Dense { exact: false }
                ],
                fusion: Fusion::Weighted { weights: vec![0.3, 0.7] }
            }
        );
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "none",
            "bm25",
            "bm25:zh_jieba(k1=0.9,b=0.4)",
            "dense",
            "hybrid:bm25:zh_bigram+dense@rrf60",
            "hybrid:bm25+dense@w0.5,1.5",
            "hybrid:bm25:zh_jieba+dense@rrf60/in_force",
            "bm25/in_force",
        ] {
            assert_eq!(p(s).to_string(), s);
            assert_eq!(p(&p(s).to_string()), p(s));
        }
    }

    #[test]
    fn rejects_bad_specs() {
        for s in [
            "",
            "bm26",
            "bm25:klingon",
            "bm25(k1=-1)",
            "bm25(b=2)",
            "hybrid:bm25",
            "hybrid:bm25+none",
            "hybrid:bm25+dense@w1",
            "hybrid:bm25+dense@foo",
            "hybrid:hybrid:bm25+dense",
            "dense(fast)",
            "none/in_force",
            "bm25/in_force/in_force",
            "bm25/stale",
        ] {
            assert!(s.parse::<RetrieverSpec>().is_err(), "{s} should be rejected");
        }
    }
}
