//! BERTScore-F1 (card profile) over any ONNX encoder directory (`model.onnx` +
//! `tokenizer.json`), computed as in Zhang et al. (2020) and the `bert_score` package with
//! `idf=False` and no baseline rescaling:
//!
//! - both texts are encoded with the encoder's own special tokens; every token's last hidden
//!   state is L2-normalised;
//! - precision = mean over the candidate's ordinary tokens of the best cosine against any
//!   reference token, recall = mean over the reference's ordinary tokens of the best cosine
//!   against any candidate token, F1 = 2PR / (P + R). Special tokens (`[CLS]`, `[SEP]`) take
//!   part in the matching but carry weight 0 in the means, exactly as in `bert_score`;
//! - a side with no ordinary token (empty text) scores P = R = F1 = 0, as `bert_score` does
//!   after its "empty candidate" warning.
//!
//! The official name (`xlm-roberta-large`, layer unknown) cannot be downloaded here, so the
//! model directory is written into the evaluation file next to the scores.
//!
//! The encoder (ONNX Runtime through `anser-encoder`) sits behind the `bertscore` feature: the
//! matching below is plain arithmetic, and a build without the feature reports the metric
//! unavailable with the reason instead of linking ONNX Runtime into every reader of results.

use std::path::Path;

#[cfg(feature = "bertscore")]
use anser_encoder::{Encoder, EncoderConfigBuilder, TokenOutput};

#[cfg(feature = "bertscore")]
use crate::{Error, Result};

/// Texts encoded per encoder call.
pub const DEFAULT_BATCH: usize = 64;

/// Precision, recall and F1 of one candidate against one reference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BertScore {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// Pairs scored and time spent (evaluation overhead).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BertScoreOverhead {
    pub pairs: usize,
    pub seconds: f64,
}

/// F1 of every (candidate, reference) pair with the encoder in `dir`, or the reason each one is
/// unavailable (the encoder cannot be loaded or run, or this build has no encoder).
pub fn f1_with_model(dir: &Path, pairs: &[(String, String)]) -> Vec<Result<f64, String>> {
    #[cfg(feature = "bertscore")]
    {
        match BertScorer::load(dir) {
            Ok(scorer) => scorer.f1_batch(pairs),
            Err(e) => vec![Err(e.to_string()); pairs.len()],
        }
    }
    #[cfg(not(feature = "bertscore"))]
    {
        let reason = format!(
            "this build has no BERTScore encoder for {} (build anser-evaluator with its `bertscore` feature, as the \
             `anser` binary does)",
            dir.display()
        );
        vec![Err(reason); pairs.len()]
    }
}

/// A loaded encoder that scores pairs.
#[cfg(feature = "bertscore")]
#[derive(Debug)]
pub struct BertScorer {
    encoder: Encoder,
}

#[cfg(feature = "bertscore")]
impl BertScorer {
    /// Load `dir` (the ONNX Runtime library comes from `ORT_DYLIB_PATH`).
    pub fn load(dir: &Path) -> Result<BertScorer> {
        Self::load_with_library(dir, None)
    }

    /// Load `dir` with an explicit ONNX Runtime library (`None`: `ORT_DYLIB_PATH`).
    pub fn load_with_library(dir: &Path, ort_library: Option<&Path>) -> Result<BertScorer> {
        let config = EncoderConfigBuilder { ort_library: ort_library.map(Path::to_path_buf), ..Default::default() }
            .build()
            .map_err(|e| Error::BertScore(e.to_string()))?;
        let encoder = Encoder::open(dir, &config).map_err(|e| Error::BertScore(e.to_string()))?;
        Ok(BertScorer { encoder })
    }

    /// Score (candidate, reference) pairs.
    pub fn score_batch(&self, pairs: &[(String, String)]) -> Result<Vec<BertScore>> {
        let mut out = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(DEFAULT_BATCH / 2) {
            let texts: Vec<&str> = chunk.iter().flat_map(|(c, r)| [c.as_str(), r.as_str()]).collect();
            let encoded = self.encoder.encode_tokens(&texts).map_err(|e| Error::BertScore(e.to_string()))?;
            for pair in encoded.chunks(2) {
                out.push(score_tokens(&TokenVectors::from_output(&pair[0]), &TokenVectors::from_output(&pair[1])));
            }
        }
        Ok(out)
    }

    /// F1 per pair, or the reason it is unavailable.
    pub fn f1_batch(&self, pairs: &[(String, String)]) -> Vec<std::result::Result<f64, String>> {
        match self.score_batch(pairs) {
            Ok(scores) => scores.into_iter().map(|s| Ok(s.f1)).collect(),
            Err(e) => vec![Err(e.to_string()); pairs.len()],
        }
    }
}

/// A text's token vectors for matching.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TokenVectors {
    /// L2-normalised hidden state of every token, special tokens included.
    pub rows: Vec<Vec<f64>>,
    /// Whether each token counts in the means (false for special tokens).
    pub weighted: Vec<bool>,
}

impl TokenVectors {
    #[cfg(feature = "bertscore")]
    pub fn from_output(tokens: &TokenOutput) -> TokenVectors {
        let rows = (0..tokens.len())
            .map(|i| {
                let row: Vec<f64> = tokens.hidden_row(i).iter().map(|&x| f64::from(x)).collect();
                let norm = row.iter().map(|x| x * x).sum::<f64>().sqrt();
                if norm > 0.0 { row.iter().map(|x| x / norm).collect() } else { row }
            })
            .collect();
        let weighted = (0..tokens.len()).map(|i| tokens.special_tokens_mask.get(i) != Some(&1)).collect();
        TokenVectors { rows, weighted }
    }

    fn ordinary(&self) -> usize {
        self.weighted.iter().filter(|w| **w).count()
    }
}

/// Greedy matching of token vectors.
pub fn score_tokens(candidate: &TokenVectors, reference: &TokenVectors) -> BertScore {
    let (nc, nr) = (candidate.ordinary(), reference.ordinary());
    if nc == 0 || nr == 0 {
        return BertScore { precision: 0.0, recall: 0.0, f1: 0.0 };
    }
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let sim: Vec<Vec<f64>> =
        candidate.rows.iter().map(|c| reference.rows.iter().map(|r| dot(c, r)).collect()).collect();
    let precision = (0..candidate.rows.len())
        .filter(|&i| candidate.weighted[i])
        .map(|i| sim[i].iter().copied().fold(f64::NEG_INFINITY, f64::max))
        .sum::<f64>()
        / nc as f64;
    let recall = (0..reference.rows.len())
        .filter(|&j| reference.weighted[j])
        .map(|j| sim.iter().map(|row| row[j]).fold(f64::NEG_INFINITY, f64::max))
        .sum::<f64>()
        / nr as f64;
    BertScore { precision, recall, f1: crate::answer::harmonic_f1(precision, recall) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_matching_hand_computed() {
        let s = std::f64::consts::FRAC_1_SQRT_2;
        // Candidate: [CLS]=e2 (special), e1, e2. Reference: e1, (e1+e2)/√2, [SEP]=-e1 (special).
        let cand = TokenVectors {
            rows: vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![0.0, 1.0]],
            weighted: vec![false, true, true],
        };
        let refs =
            TokenVectors { rows: vec![vec![1.0, 0.0], vec![s, s], vec![-1.0, 0.0]], weighted: vec![true, true, false] };
        let b = score_tokens(&cand, &refs);
        // P = (max(1, s, -1) + max(0, s, 0)) / 2 = (1 + s) / 2.
        assert!((b.precision - (1.0 + s) / 2.0).abs() < 1e-15);
        // R = (max(0, 1, 0) + max(s, s, s)) / 2 = (1 + s) / 2 — the special [CLS] matches too.
        assert!((b.recall - (1.0 + s) / 2.0).abs() < 1e-15);
        assert!((b.f1 - b.precision).abs() < 1e-15);
        let empty = TokenVectors { rows: vec![vec![1.0, 0.0]], weighted: vec![false] };
        assert_eq!(score_tokens(&empty, &refs), BertScore { precision: 0.0, recall: 0.0, f1: 0.0 });
    }
}
