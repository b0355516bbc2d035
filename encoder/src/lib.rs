//! anser-encoder: a transformer encoder exported to ONNX, run with ONNX Runtime (`ort`, loaded
//! dynamically from the `onnxruntime` PyPI wheel's `libonnxruntime.so`) and tokenised with the
//! Hugging Face `tokenizers` crate.
//!
//! A model directory holds `model.onnx` (inputs `input_ids`, `attention_mask` and optionally
//! `token_type_ids`, output `last_hidden_state` `[batch, seq, dim]`), `tokenizer.json` and
//! optionally `config.json` (Hugging Face model config) and sentence-transformers files
//! (`1_Pooling/config.json`, `modules.json`) that say how sentence vectors are pooled.
//!
//! Two outputs, for two kinds of callers:
//! - [`Encoder::encode_tokens`]: per text, the token ids, special-token mask, attention mask and
//!   the last hidden state row of every token (what BERTScore needs);
//! - [`Encoder::embed`]: one pooled sentence vector per text (mean over the attention mask or
//!   the CLS token, optionally L2-normalised), for dense retrieval.
//!
//! ```no_run
//! use anser_encoder::{Encoder, EncoderConfig};
//! # fn main() -> anser_encoder::Result<()> {
//! // The ONNX Runtime library comes from EncoderConfigBuilder::ort_library or ORT_DYLIB_PATH.
//! let encoder = Encoder::open("../shared/models/m3e-small", &EncoderConfig::default())?;
//! let vectors = encoder.embed(&["机器学习", "machine learning"])?;
//! assert_eq!(vectors[0].len(), encoder.info().dim);
//! let tokens = encoder.encode_tokens(&["机器学习"])?;
//! assert_eq!(tokens[0].hidden_row(0).len(), encoder.info().dim);
//! # Ok(())
//! # }
//! ```

mod config;
mod encoder;
mod error;
mod pooling;
mod runtime;

pub use config::{
    DEFAULT_BATCH_SIZE, DEFAULT_MAX_LENGTH, DEFAULT_SESSIONS, DEFAULT_THREADS, EncoderConfig, EncoderConfigBuilder,
    MAX_SESSIONS, MAX_THREADS, ModelInfo, Pooling,
};
pub use encoder::{Encoder, TokenOutput};
pub use error::{Error, Result};
pub use pooling::{cosine, l2_normalize, mean_pool};
pub use runtime::{ORT_DYLIB_ENV, ort_library_path};
