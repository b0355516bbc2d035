//! Encoder parameters (validated, with documented defaults) and what a model directory says
//! about itself: pooling, normalisation, maximum length and vector dimension.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{Error, Result};

/// Default maximum number of tokens per text, special tokens included (BERT's 512 positions);
/// longer texts are truncated. Clamped to the model's `max_position_embeddings`.
pub const DEFAULT_MAX_LENGTH: usize = 512;
/// Default number of texts per ONNX Runtime call. Texts are sorted by length first, so a batch
/// is padded only to its own longest text.
pub const DEFAULT_BATCH_SIZE: usize = 32;
/// Default intra-op thread count; 0 lets ONNX Runtime choose (one per physical core).
pub const DEFAULT_THREADS: usize = 0;
/// Default number of ONNX Runtime sessions running batches side by side. One session spreads
/// each batch over all `threads`; several sessions split `threads` between them and run
/// different batches at once (more memory: one copy of the model each).
pub const DEFAULT_SESSIONS: usize = 1;
/// Largest accepted session count.
pub const MAX_SESSIONS: usize = 64;

/// How token states become one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// Mean of the last hidden state over the attention mask (sentence-transformers default).
    Mean,
    /// The first token's state (`[CLS]`).
    Cls,
}

impl std::fmt::Display for Pooling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
        })
    }
}

/// Largest accepted intra-op thread count in all.
pub const MAX_THREADS: usize = 1024;

/// Parameters of an [`crate::Encoder`], valid by construction: built from an
/// [`EncoderConfigBuilder`] (ranges on its fields' docs); read through the getters.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EncoderConfig(EncoderConfigBuilder);

/// The unchecked parameters of an encoder; [`EncoderConfigBuilder::build`] checks them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncoderConfigBuilder {
    /// ONNX Runtime library; `None` reads `ORT_DYLIB_PATH`.
    pub ort_library: Option<PathBuf>,
    /// Maximum tokens per text (≥ 2, for the special tokens); see [`DEFAULT_MAX_LENGTH`].
    pub max_length: usize,
    /// Texts per ONNX Runtime call (≥ 1); see [`DEFAULT_BATCH_SIZE`].
    pub batch_size: usize,
    /// Intra-op threads in all (≤ [`MAX_THREADS`]), shared out between the sessions; see
    /// [`DEFAULT_THREADS`].
    pub threads: usize,
    /// Sessions running batches in parallel, in [1, [`MAX_SESSIONS`]]; see [`DEFAULT_SESSIONS`].
    pub sessions: usize,
    /// Override the model's pooling (`None`: as the model directory says, else mean).
    pub pooling: Option<Pooling>,
    /// Override L2 normalisation of pooled vectors (`None`: as the model directory says).
    pub normalize: Option<bool>,
}

impl Default for EncoderConfigBuilder {
    fn default() -> Self {
        Self {
            ort_library: None,
            max_length: DEFAULT_MAX_LENGTH,
            batch_size: DEFAULT_BATCH_SIZE,
            threads: DEFAULT_THREADS,
            sessions: DEFAULT_SESSIONS,
            pooling: None,
            normalize: None,
        }
    }
}

impl EncoderConfigBuilder {
    /// The parameters, when every field is in its range (the error names the field and range).
    pub fn build(self) -> Result<EncoderConfig> {
        if self.max_length < 2 {
            return Err(Error::Param(format!("max_length {} must be at least 2", self.max_length)));
        }
        if self.batch_size == 0 {
            return Err(Error::Param("batch_size must be at least 1".into()));
        }
        if self.threads > MAX_THREADS {
            return Err(Error::Param(format!("threads {} must be at most {MAX_THREADS}", self.threads)));
        }
        if !(1..=MAX_SESSIONS).contains(&self.sessions) {
            return Err(Error::Param(format!("sessions {} must be in [1, {MAX_SESSIONS}]", self.sessions)));
        }
        Ok(EncoderConfig(self))
    }
}

impl EncoderConfig {
    /// A builder holding these parameters, to change some of them.
    pub fn to_builder(&self) -> EncoderConfigBuilder {
        self.0.clone()
    }

    /// ONNX Runtime library; `None` reads `ORT_DYLIB_PATH`.
    pub fn ort_library(&self) -> Option<&Path> {
        self.0.ort_library.as_deref()
    }

    /// Maximum tokens per text (before clamping to the model's positions).
    pub fn max_length(&self) -> usize {
        self.0.max_length
    }

    /// Texts per ONNX Runtime call.
    pub fn batch_size(&self) -> usize {
        self.0.batch_size
    }

    /// Intra-op threads in all; 0 lets ONNX Runtime choose.
    pub fn threads(&self) -> usize {
        self.0.threads
    }

    /// Sessions running batches in parallel.
    pub fn sessions(&self) -> usize {
        self.0.sessions
    }

    /// The pooling override.
    pub fn pooling(&self) -> Option<Pooling> {
        self.0.pooling
    }

    /// The normalisation override.
    pub fn normalize(&self) -> Option<bool> {
        self.0.normalize
    }

    /// Intra-op threads of session `i`: `threads` shared out as evenly as possible (the first
    /// `threads % sessions` sessions get one more), at least 1; 0 (ONNX Runtime chooses) when
    /// `threads` is 0.
    pub fn session_threads(&self, i: usize) -> usize {
        match self.0.threads {
            0 => 0,
            t => (t / self.0.sessions + usize::from(i < t % self.0.sessions)).max(1),
        }
    }
}

/// What the encoder knows about its model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// The model directory's name (`m3e-small`).
    pub model_id: String,
    pub dir: PathBuf,
    /// Size of a hidden state row and of a sentence vector.
    pub dim: usize,
    /// Effective maximum tokens per text.
    pub max_length: usize,
    pub pooling: Pooling,
    pub normalize: bool,
}

/// Settings read from the model directory's optional JSON files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DirSettings {
    pub pooling: Option<Pooling>,
    pub normalize: bool,
    pub max_positions: Option<usize>,
    pub hidden_size: Option<usize>,
}

fn read_json(path: &Path) -> Result<Option<Value>> {
    if !path.is_file() {
        return Ok(None);
    }
    let text = fs_err::read_to_string(path)?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| Error::Model { path: path.to_path_buf(), message: format!("not valid JSON: {e}") })
}

/// Read `config.json`, `1_Pooling/config.json` and `modules.json` when present.
pub(crate) fn dir_settings(dir: &Path) -> Result<DirSettings> {
    let mut s = DirSettings::default();
    if let Some(cfg) = read_json(&dir.join("config.json"))? {
        s.max_positions = cfg.get("max_position_embeddings").and_then(Value::as_u64).map(|v| v as usize);
        s.hidden_size = cfg.get("hidden_size").and_then(Value::as_u64).map(|v| v as usize);
        // uniem (m3e) names its pooling here: "last_mean" or "cls".
        s.pooling = match cfg.get("uniem_embedding_strategy").and_then(Value::as_str) {
            Some("last_mean") => Some(Pooling::Mean),
            Some("cls") => Some(Pooling::Cls),
            _ => None,
        };
    }
    if let Some(pool) = read_json(&dir.join("1_Pooling").join("config.json"))? {
        let on = |k: &str| pool.get(k).and_then(Value::as_bool).unwrap_or(false);
        if on("pooling_mode_cls_token") {
            s.pooling = Some(Pooling::Cls);
        } else if on("pooling_mode_mean_tokens") {
            s.pooling = Some(Pooling::Mean);
        }
    }
    if let Some(Value::Array(modules)) = read_json(&dir.join("modules.json"))? {
        s.normalize =
            modules.iter().any(|m| m.get("type").and_then(Value::as_str).is_some_and(|t| t.ends_with(".Normalize")));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_documented_values() {
        let c = EncoderConfig::default();
        assert_eq!((c.max_length(), c.batch_size(), c.threads(), c.sessions()), (512, 32, 0, 1));
        assert_eq!((c.ort_library(), c.pooling(), c.normalize()), (None, None, None));
        assert_eq!(EncoderConfigBuilder::default().build().expect("defaults are valid"), c);
        assert_eq!(c.to_builder(), EncoderConfigBuilder::default());
    }

    #[test]
    fn bad_params_are_rejected() {
        let b = EncoderConfigBuilder::default;
        for (bad, says) in [
            (EncoderConfigBuilder { max_length: 1, ..b() }, "max_length 1 must be at least 2"),
            (EncoderConfigBuilder { batch_size: 0, ..b() }, "batch_size must be at least 1"),
            (EncoderConfigBuilder { threads: 1025, ..b() }, "threads 1025 must be at most 1024"),
            (EncoderConfigBuilder { sessions: 0, ..b() }, "sessions 0 must be in [1, 64]"),
            (EncoderConfigBuilder { sessions: 65, ..b() }, "sessions 65 must be in [1, 64]"),
        ] {
            let msg = bad.build().expect_err("out of range").to_string();
            assert!(msg.contains(says), "{msg}");
        }
        let edge = EncoderConfigBuilder { max_length: 2, batch_size: 1, threads: 1024, sessions: 64, ..b() };
        assert_eq!(edge.clone().build().expect("bounds are valid").to_builder(), edge);
    }

    #[test]
    fn threads_are_shared_out_between_sessions() {
        let c = |threads, sessions| {
            EncoderConfigBuilder { threads, sessions, ..EncoderConfigBuilder::default() }.build().expect("valid")
        };
        let split = |c: &EncoderConfig| (0..c.sessions()).map(|i| c.session_threads(i)).collect::<Vec<_>>();
        // 7 threads over 3 sessions: 7 / 3 = 2 each, the first 7 % 3 = 1 session one more.
        assert_eq!(split(&c(7, 3)), [3, 2, 2]);
        assert_eq!(split(&c(8, 2)), [4, 4]);
        // Fewer threads than sessions: never 0 (which would mean "ONNX Runtime chooses").
        assert_eq!(split(&c(2, 4)), [1, 1, 1, 1]);
        assert_eq!(split(&c(0, 3)), [0, 0, 0]);
    }

    #[test]
    fn sentence_transformers_files_set_pooling_and_normalisation() {
        let dir = std::env::temp_dir().join(format!("anser-encoder-cfg-{}", std::process::id()));
        fs_err::create_dir_all(dir.join("1_Pooling")).expect("mkdir");
        fs_err::write(dir.join("config.json"), r#"{"max_position_embeddings": 128, "hidden_size": 384}"#)
            .expect("write");
        fs_err::write(dir.join("1_Pooling/config.json"), r#"{"pooling_mode_cls_token": true}"#).expect("write");
        fs_err::write(
            dir.join("modules.json"),
            r#"[{"type": "sentence_transformers.models.Transformer"}, {"type": "sentence_transformers.models.Normalize"}]"#,
        )
        .expect("write");
        let s = dir_settings(&dir).expect("settings");
        fs_err::remove_dir_all(&dir).expect("cleanup");
        assert_eq!(
            s,
            DirSettings {
                pooling: Some(Pooling::Cls),
                normalize: true,
                max_positions: Some(128),
                hidden_size: Some(384)
            }
        );
    }

    #[test]
    fn uniem_strategy_is_read() {
        let dir = std::env::temp_dir().join(format!("anser-encoder-uniem-{}", std::process::id()));
        fs_err::create_dir_all(&dir).expect("mkdir");
        fs_err::write(dir.join("config.json"), r#"{"uniem_embedding_strategy": "last_mean"}"#).expect("write");
        let s = dir_settings(&dir).expect("settings");
        fs_err::remove_dir_all(&dir).expect("cleanup");
        assert_eq!(s.pooling, Some(Pooling::Mean));
        assert!(!s.normalize);
    }
}
