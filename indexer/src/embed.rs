//! Embedders: text → vector. Two implementations behind one trait: a local ONNX encoder
//! (anser-encoder) and an OpenAI-compatible `/embeddings` API (anser-llm). Vectors are
//! L2-normalised here, whatever the model does, so that inner product = cosine everywhere
//! downstream (HNSW, exact search, hybrid fusion).

use std::path::{Path, PathBuf};

use anser_encoder::{Encoder, EncoderConfig, EncoderConfigBuilder, l2_normalize};
use anser_llm::{BlockingClient, ClientOptions, EMBEDDING, EmbeddingRequest, EndpointConfig, Overrides, Settings};

use crate::{Error, Result};

/// Which embedding backend (`EMBEDDING_BACKEND`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "backend", rename_all = "snake_case")]
pub enum EmbedderSpec {
    /// Local ONNX encoder directory.
    Onnx { dir: PathBuf },
    /// OpenAI-compatible API; model and URL from `EMBEDDING_*`.
    Api { model: String, base_url: String },
}

/// Text → unit-length vectors.
pub trait Embedder: Send + Sync + std::fmt::Debug {
    /// Model name recorded in the index (`m3e-small`, `Qwen/Qwen3-Embedding-4B`).
    fn model_id(&self) -> &str;
    /// Vector dimension.
    fn dim(&self) -> usize;
    /// What identifies the exact model: a content hash for ONNX, `api:<base_url>` for APIs.
    fn identity(&self) -> Result<String>;
    /// How to re-open this embedder at query time.
    fn spec(&self) -> EmbedderSpec;
    /// One L2-normalised vector per text, in order. May be called from several threads at once.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// How many [`Embedder::embed`] calls a build should run at once: a remote API gains from
    /// several requests in flight, a local model already uses every thread it was given.
    fn max_concurrency(&self) -> usize {
        usize::MAX
    }
    /// What else changes the low bits of the vectors without changing the model: a local
    /// model's thread layout changes the order of its float sums (vectors differ by ~1e-7).
    /// Not part of the index fingerprint (the index is the same model); the dense checkpoint
    /// keys on it so that a resumed build never mixes vectors made with two layouts.
    fn numeric_layout(&self) -> String {
        String::new()
    }
}

/// Local ONNX encoder.
#[derive(Debug)]
pub struct OnnxEmbedder {
    encoder: Encoder,
    /// Threads, sessions and batch size: see [`Embedder::numeric_layout`].
    layout: String,
}

impl OnnxEmbedder {
    /// Open an encoder directory (see anser-encoder). `threads` = 0 lets ONNX Runtime choose.
    pub fn open(dir: &Path, threads: usize) -> Result<Self> {
        Self::with_config(dir, &EncoderConfigBuilder { threads, ..EncoderConfigBuilder::default() }.build()?)
    }

    /// Open an encoder directory with explicit encoder parameters (threads, parallel sessions,
    /// batch size).
    pub fn with_config(dir: &Path, config: &EncoderConfig) -> Result<Self> {
        let layout =
            format!("threads={} sessions={} batch={}", config.threads(), config.sessions(), config.batch_size());
        Ok(Self { encoder: Encoder::open(dir, config)?, layout })
    }
}

impl Embedder for OnnxEmbedder {
    fn model_id(&self) -> &str {
        &self.encoder.info().model_id
    }
    fn dim(&self) -> usize {
        self.encoder.info().dim
    }
    fn identity(&self) -> Result<String> {
        Ok(format!("sha256:{}", self.encoder.content_hash()?))
    }
    fn numeric_layout(&self) -> String {
        self.layout.clone()
    }
    fn spec(&self) -> EmbedderSpec {
        let dir = &self.encoder.info().dir;
        EmbedderSpec::Onnx { dir: fs_err::canonicalize(dir).unwrap_or_else(|_| dir.clone()) }
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut v = self.encoder.embed(texts)?;
        v.iter_mut().for_each(|x| l2_normalize(x));
        Ok(v)
    }
    fn max_concurrency(&self) -> usize {
        1
    }
}

/// OpenAI-compatible `/embeddings` API.
#[derive(Debug)]
pub struct ApiEmbedder {
    client: BlockingClient,
    model: String,
    base_url: String,
    dim: usize,
}

impl ApiEmbedder {
    /// From `EMBEDDING_BASE_URL`, `EMBEDDING_API_KEY`, `EMBEDDING_MODEL` and `EMBEDDING_DIM`
    /// (environment or `.env`).
    pub fn from_env() -> Result<Self> {
        let settings = Settings::load()?;
        let endpoint = settings.endpoint(&EMBEDDING, &Overrides::default())?;
        let dim = match settings.lookup("EMBEDDING_DIM", None) {
            Some(r) => Some(r.value.trim().parse::<usize>().ok().filter(|d| *d > 0).ok_or_else(|| {
                Error::EmbeddingConfig(format!("EMBEDDING_DIM={} is not a positive integer", r.value))
            })?),
            None => None,
        };
        Self::new(endpoint, dim)
    }

    /// An embedder for `endpoint`. With `dim`, vectors of that size are requested (and
    /// checked); without, the dimension is probed with one call.
    pub fn new(endpoint: EndpointConfig, dim: Option<usize>) -> Result<Self> {
        let model = endpoint.model.clone();
        let base_url = endpoint.base_url.clone();
        let client = BlockingClient::new(endpoint, ClientOptions::default())?;
        let mut this = Self { client, model, base_url, dim: dim.unwrap_or(0) };
        let probe = this.call(&["dimension probe"])?;
        let got = probe.first().map_or(0, Vec::len);
        if let Some(d) = dim.filter(|d| *d != got) {
            return Err(Error::EmbeddingConfig(format!(
                "EMBEDDING_DIM={d} but the API returns {got}-dimensional vectors"
            )));
        }
        this.dim = got;
        Ok(this)
    }

    fn call(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        // Servers reject empty inputs; a blank text is sent as ".".
        let inputs =
            texts.iter().map(|t| if t.trim().is_empty() { ".".to_string() } else { (*t).to_string() }).collect();
        // One request per call: the build's batches are its checkpoint and concurrency units.
        let mut request = EmbeddingRequest::new(inputs).with_batch_size(texts.len().max(1));
        if self.dim > 0 {
            request = request.with_dimensions(self.dim as u32);
        }
        Ok(self.client.embed(&request)?.vectors)
    }
}

impl Embedder for ApiEmbedder {
    fn model_id(&self) -> &str {
        &self.model
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn identity(&self) -> Result<String> {
        Ok(format!("api:{}", self.base_url))
    }
    fn spec(&self) -> EmbedderSpec {
        EmbedderSpec::Api { model: self.model.clone(), base_url: self.base_url.clone() }
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut v = self.call(texts)?;
        if let Some(bad) = v.iter().position(|x| x.len() != self.dim) {
            return Err(Error::EmbeddingConfig(format!(
                "the API returned a {}-dimensional vector for input {bad}; the index uses {}",
                v[bad].len(),
                self.dim
            )));
        }
        v.iter_mut().for_each(|x| l2_normalize(x));
        Ok(v)
    }
}

/// Open the embedder a spec names (`EMBEDDING_*` supplies the API settings).
pub fn open_embedder(spec: &EmbedderSpec, threads: usize) -> Result<Box<dyn Embedder>> {
    match spec {
        EmbedderSpec::Onnx { dir } => Ok(Box::new(OnnxEmbedder::open(dir, threads)?)),
        EmbedderSpec::Api { .. } => Ok(Box::new(ApiEmbedder::from_env()?)),
    }
}

/// The embedder `EMBEDDING_BACKEND` selects: `onnx` (model directory in `EMBEDDING_MODEL`) or
/// `api`/`openai` (the `EMBEDDING_*` endpoint). `None` when the variable is unset.
pub fn embedder_from_env(threads: usize) -> Result<Option<Box<dyn Embedder>>> {
    let settings = Settings::load()?;
    let Some(backend) = settings.lookup("EMBEDDING_BACKEND", None) else { return Ok(None) };
    match backend.value.trim() {
        "onnx" | "local" => {
            let dir = settings.lookup("EMBEDDING_MODEL", None).ok_or_else(|| {
                Error::EmbeddingConfig("EMBEDDING_BACKEND=onnx needs EMBEDDING_MODEL=<encoder directory>".into())
            })?;
            Ok(Some(Box::new(OnnxEmbedder::open(Path::new(dir.value.trim()), threads)?)))
        }
        "api" | "openai" => Ok(Some(Box::new(ApiEmbedder::from_env()?))),
        other => Err(Error::EmbeddingConfig(format!("EMBEDDING_BACKEND={other:?} (expected onnx or api)"))),
    }
}
