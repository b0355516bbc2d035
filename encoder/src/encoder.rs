//! The encoder: tokenise, run the ONNX graph in length-sorted batches, and hand back either
//! every token's hidden state or a pooled sentence vector.
//!
//! Texts are tokenised once, sorted by token count and cut into batches, each padded only to its
//! own longest text, so little of the model's work goes into padding. Batches run on one ONNX
//! Runtime session (spread over its intra-op threads) or, with [`EncoderConfig::sessions`] > 1,
//! on several sessions side by side, each taking the next batch as it finishes one.

use std::{
    path::{Path, PathBuf},
    sync::{
        Mutex, OnceLock, PoisonError,
        atomic::{AtomicUsize, Ordering},
    },
};

use ort::{
    session::{Session, builder::GraphOptimizationLevel},
    value::{Tensor, ValueType},
};
use sha2::{Digest, Sha256};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::{
    EncoderConfig, Error, ModelInfo, Pooling, Result,
    config::dir_settings,
    pooling::{l2_normalize, mean_pool},
    runtime::environment,
};

/// The token-level output for one text.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenOutput {
    /// Token ids, special tokens included (`[CLS] … [SEP]` for BERT).
    pub ids: Vec<u32>,
    /// The token strings.
    pub tokens: Vec<String>,
    /// Byte offsets of each token in the text (`(0, 0)` for special tokens).
    pub offsets: Vec<(usize, usize)>,
    /// 1 for special tokens (`[CLS]`, `[SEP]`), 0 otherwise.
    pub special_tokens_mask: Vec<u32>,
    /// 1 for tokens the model attended to (all of them: batches are padded internally).
    pub attention_mask: Vec<u32>,
    /// `ids.len() × dim` last-hidden-state values, row-major.
    pub hidden: Vec<f32>,
    pub dim: usize,
}

impl TokenOutput {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are no tokens (never the case for BERT-style tokenizers).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The hidden state of token `i`.
    pub fn hidden_row(&self, i: usize) -> &[f32] {
        &self.hidden[i * self.dim..(i + 1) * self.dim]
    }
}

/// An ONNX encoder. `Sync`: calls from several threads share the sessions (each session runs
/// one batch at a time).
#[derive(Debug)]
pub struct Encoder {
    sessions: Vec<Mutex<Session>>,
    tokenizer: Tokenizer,
    info: ModelInfo,
    batch_size: usize,
    input_names: Vec<String>,
    output_name: String,
    pad_id: u32,
    content_hash: OnceLock<String>,
}

impl Encoder {
    /// Open a model directory (`model.onnx` + `tokenizer.json` [+ `config.json`]).
    pub fn open(dir: impl AsRef<Path>, config: &EncoderConfig) -> Result<Encoder> {
        let dir = dir.as_ref().to_path_buf();
        let model_path = dir.join("model.onnx");
        let tokenizer_path = dir.join("tokenizer.json");
        for p in [&model_path, &tokenizer_path] {
            if !p.is_file() {
                return Err(Error::Model {
                    path: dir.clone(),
                    message: format!(
                        "{} is missing (an encoder directory holds model.onnx and tokenizer.json; scripts/fetch-model.sh makes one)",
                        p.file_name().map(|f| f.to_string_lossy()).unwrap_or_default()
                    ),
                });
            }
        }
        let settings = dir_settings(&dir)?;
        let max_length = settings.max_positions.map_or(config.max_length(), |m| config.max_length().min(m));

        let mut tokenizer = Tokenizer::from_file(&tokenizer_path).map_err(|e| Error::Model {
            path: tokenizer_path.clone(),
            message: format!("cannot load tokenizer: {e}"),
        })?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams { max_length, ..TruncationParams::default() }))
            .map_err(|e| Error::Model { path: tokenizer_path.clone(), message: format!("truncation: {e}") })?;
        let pad_id = tokenizer.token_to_id("[PAD]").or_else(|| tokenizer.token_to_id("<pad>")).unwrap_or(0);

        let env = environment(config.ort_library())?;
        let sessions = (0..config.sessions())
            .map(|i| open_session(env, &model_path, config.session_threads(i)))
            .collect::<Result<Vec<Session>>>()?;
        let session = &sessions[0];
        let input_names: Vec<String> = session.inputs().iter().map(|i| i.name().to_string()).collect();
        for name in &input_names {
            if !matches!(name.as_str(), "input_ids" | "attention_mask" | "token_type_ids") {
                return Err(Error::Model {
                    path: model_path,
                    message: format!(
                        "unexpected model input {name:?} (expected input_ids, attention_mask, token_type_ids)"
                    ),
                });
            }
        }
        let output = session
            .outputs()
            .iter()
            .find(|o| o.name() == "last_hidden_state")
            .or_else(|| session.outputs().first())
            .ok_or_else(|| Error::Model { path: model_path.clone(), message: "the model has no output".into() })?;
        let output_name = output.name().to_string();
        let graph_dim = match output.dtype() {
            ValueType::Tensor { shape, .. } if shape.len() == 3 && shape[2] > 0 => Some(shape[2] as usize),
            _ => None,
        };
        let dim = graph_dim.or(settings.hidden_size).ok_or_else(|| Error::Model {
            path: model_path.clone(),
            message: "cannot tell the hidden size (no fixed last output dimension, no config.json hidden_size)".into(),
        })?;

        let model_id = dir.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_else(|| "encoder".into());
        let info = ModelInfo {
            model_id,
            dir,
            dim,
            max_length,
            pooling: config.pooling().or(settings.pooling).unwrap_or(Pooling::Mean),
            normalize: config.normalize().unwrap_or(settings.normalize),
        };
        Ok(Encoder {
            sessions: sessions.into_iter().map(Mutex::new).collect(),
            tokenizer,
            info,
            batch_size: config.batch_size(),
            input_names,
            output_name,
            pad_id,
            content_hash: OnceLock::new(),
        })
    }

    /// Model id, dimension, pooling, normalisation and maximum length.
    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// Hex SHA-256 over `model.onnx` and `tokenizer.json` (computed on first call, then cached):
    /// the identity an index records so that a different model is never queried silently.
    pub fn content_hash(&self) -> Result<&str> {
        if let Some(h) = self.content_hash.get() {
            return Ok(h);
        }
        let mut hasher = Sha256::new();
        for name in ["model.onnx", "tokenizer.json"] {
            let path: PathBuf = self.info.dir.join(name);
            let mut file = fs_err::File::open(&path)?;
            std::io::copy(&mut file, &mut hasher)?;
        }
        let hex: String = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok(self.content_hash.get_or_init(|| hex))
    }

    /// Tokenise without running the model (ids, special-token mask, truncated to max length).
    pub fn tokenize(&self, texts: &[&str]) -> Result<Vec<Encoding>> {
        self.tokenizer.encode_batch(texts.to_vec(), true).map_err(|e| Error::Tokenizer(e.to_string()))
    }

    /// Token-level outputs, one per text, in input order.
    pub fn encode_tokens(&self, texts: &[&str]) -> Result<Vec<TokenOutput>> {
        let out: Mutex<Vec<Option<TokenOutput>>> = Mutex::new(vec![None; texts.len()]);
        let dim = self.info.dim;
        self.forward(texts, |i, enc, rows| {
            let output = TokenOutput {
                ids: enc.get_ids().to_vec(),
                tokens: enc.get_tokens().to_vec(),
                offsets: enc.get_offsets().to_vec(),
                special_tokens_mask: enc.get_special_tokens_mask().to_vec(),
                attention_mask: enc.get_attention_mask().to_vec(),
                hidden: rows.to_vec(),
                dim,
            };
            out.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(output);
        })?;
        out.into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .into_iter()
            .enumerate()
            .map(|(i, o)| o.ok_or_else(|| Error::Ort(format!("no output for text {i}"))))
            .collect()
    }

    /// Pooled sentence vectors (per [`ModelInfo::pooling`] and [`ModelInfo::normalize`]), one per
    /// text, in input order.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let out: Mutex<Vec<Vec<f32>>> = Mutex::new(vec![Vec::new(); texts.len()]);
        let (dim, pooling, normalize) = (self.info.dim, self.info.pooling, self.info.normalize);
        self.forward(texts, |i, enc, rows| {
            let mut v = match pooling {
                Pooling::Mean => mean_pool(rows, enc.get_attention_mask(), dim),
                Pooling::Cls => rows[..dim].to_vec(),
            };
            if normalize {
                l2_normalize(&mut v);
            }
            out.lock().unwrap_or_else(PoisonError::into_inner)[i] = v;
        })?;
        Ok(out.into_inner().unwrap_or_else(PoisonError::into_inner))
    }

    /// Run the model over `texts` in length-sorted batches; calls `sink(index, encoding, rows)`
    /// with the text's own `len × dim` hidden rows (padding removed), from the thread of the
    /// session that ran its batch.
    fn forward(&self, texts: &[&str], sink: impl Fn(usize, &Encoding, &[f32]) + Sync) -> Result<()> {
        if texts.is_empty() {
            return Ok(());
        }
        let encodings = self.tokenize(texts)?;
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let batches: Vec<&[usize]> = order.chunks(self.batch_size).collect();
        let workers = self.sessions.len().min(batches.len());
        if workers <= 1 {
            let mut session = self.sessions[0].lock().unwrap_or_else(PoisonError::into_inner);
            return batches.iter().try_for_each(|batch| self.run_batch(&mut session, &encodings, batch, &sink));
        }
        // Each session takes the next batch when it is done with one; the first error stops
        // the others from starting new batches.
        let next = AtomicUsize::new(0);
        let first_error: Mutex<Option<Error>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for slot in &self.sessions[..workers] {
                let (next, first_error, batches, encodings, sink) = (&next, &first_error, &batches, &encodings, &sink);
                scope.spawn(move || {
                    let mut session = slot.lock().unwrap_or_else(PoisonError::into_inner);
                    loop {
                        if first_error.lock().unwrap_or_else(PoisonError::into_inner).is_some() {
                            break;
                        }
                        let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                        if let Err(e) = self.run_batch(&mut session, encodings, batch, sink) {
                            first_error.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(e);
                            break;
                        }
                    }
                });
            }
        });
        match first_error.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// One batch through one session: pad to the batch's longest text, run, hand each text's
    /// rows to `sink`.
    fn run_batch(
        &self,
        session: &mut Session,
        encodings: &[Encoding],
        batch: &[usize],
        sink: &(impl Fn(usize, &Encoding, &[f32]) + Sync),
    ) -> Result<()> {
        let dim = self.info.dim;
        let seq = batch.iter().map(|&i| encodings[i].get_ids().len()).max().unwrap_or(0).max(1);
        let n = batch.len();
        let mut ids = vec![i64::from(self.pad_id); n * seq];
        let mut mask = vec![0i64; n * seq];
        let mut types = vec![0i64; n * seq];
        for (row, &i) in batch.iter().enumerate() {
            let e = &encodings[i];
            for (t, ((&id, &m), &ty)) in
                e.get_ids().iter().zip(e.get_attention_mask()).zip(e.get_type_ids()).enumerate()
            {
                ids[row * seq + t] = i64::from(id);
                mask[row * seq + t] = i64::from(m);
                types[row * seq + t] = i64::from(ty);
            }
        }
        let shape = [n, seq];
        let mut inputs: Vec<(String, Tensor<i64>)> = Vec::with_capacity(self.input_names.len());
        let mut columns = [Some(ids), Some(mask), Some(types)];
        for name in &self.input_names {
            let column = match name.as_str() {
                "input_ids" => 0,
                "attention_mask" => 1,
                _ => 2,
            };
            // Each input is moved into its tensor (an ONNX graph never repeats an input name).
            let data = match columns[column].take() {
                Some(d) => d,
                None => return Err(Error::Ort(format!("model input {name} appears twice"))),
            };
            let tensor = Tensor::from_array((shape, data)).map_err(|e| Error::Ort(e.to_string()))?;
            inputs.push((name.clone(), tensor));
        }
        let outputs = session.run(inputs).map_err(|e| Error::Ort(e.to_string()))?;
        let value =
            outputs.get(&self.output_name).ok_or_else(|| Error::Ort(format!("output {} missing", self.output_name)))?;
        let (out_shape, data) = value.try_extract_tensor::<f32>().map_err(|e| Error::Ort(e.to_string()))?;
        if out_shape.len() != 3
            || out_shape[0] as usize != n
            || out_shape[1] as usize != seq
            || out_shape[2] as usize != dim
        {
            return Err(Error::Ort(format!(
                "output {} has shape {:?}, expected [{n}, {seq}, {dim}]",
                self.output_name,
                &out_shape[..]
            )));
        }
        for (row, &i) in batch.iter().enumerate() {
            let len = encodings[i].get_ids().len();
            let start = row * seq * dim;
            sink(i, &encodings[i], &data[start..start + len * dim]);
        }
        Ok(())
    }
}

/// One session over `model_path` with `threads` intra-op threads (0: ONNX Runtime's choice).
fn open_session(env: &ort::environment::Environment, model_path: &Path, threads: usize) -> Result<Session> {
    let ort_err = |e: ort::Error<ort::session::builder::SessionBuilder>| Error::Ort(e.to_string());
    let mut builder = Session::builder(env)
        .map_err(|e| Error::Ort(e.to_string()))?
        .with_optimization_level(GraphOptimizationLevel::All)
        .map_err(ort_err)?;
    if threads > 0 {
        builder = builder.with_intra_threads(threads).map_err(ort_err)?;
    }
    builder
        .commit_from_file(model_path)
        .map_err(|e| Error::Model { path: model_path.to_path_buf(), message: format!("cannot load ONNX model: {e}") })
}
