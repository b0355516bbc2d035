//! Embedding a route's units during a build: fixed batches of [`DenseParams::batch`] units (one
//! embedder call, one API request, one checkpoint record each), several in flight at once for
//! embedders that wait on a server ([`Embedder::max_concurrency`]), vectors kept in unit order
//! whatever order the batches finish in, and every finished batch checkpointed
//! ([`crate::checkpoint`]) so that a killed build resumes where it stopped.

use std::sync::{
    Mutex,
    atomic::{AtomicBool, AtomicUsize, Ordering},
};

use indicatif::ProgressBar;
use serde::Serialize;

use crate::{
    Embedder, Error, Result,
    checkpoint::{DenseCheckpoint, texts_hash},
};

/// Units per embedder call, per API request and per checkpoint record (`--embedding-batch`).
pub const DEFAULT_EMBED_BATCH: usize = 64;
/// API requests in flight at once (`--embedding-concurrency`); local ONNX runs one batch at a
/// time, on all its intra-op threads.
pub const DEFAULT_EMBEDDING_CONCURRENCY: usize = 4;
/// Largest accepted `--embedding-batch`.
pub const MAX_EMBED_BATCH: usize = 4096;
/// Largest accepted `--embedding-concurrency`.
pub const MAX_EMBEDDING_CONCURRENCY: usize = 256;

/// How a build embeds (validated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DenseParams {
    /// Units per batch, in [1, [`MAX_EMBED_BATCH`]].
    pub batch: usize,
    /// Batches in flight, in [1, [`MAX_EMBEDDING_CONCURRENCY`]].
    pub concurrency: usize,
}

impl Default for DenseParams {
    fn default() -> Self {
        Self { batch: DEFAULT_EMBED_BATCH, concurrency: DEFAULT_EMBEDDING_CONCURRENCY }
    }
}

impl DenseParams {
    pub fn new(batch: usize, concurrency: usize) -> Result<Self> {
        if !(1..=MAX_EMBED_BATCH).contains(&batch) {
            return Err(Error::Param(format!("--embedding-batch {batch} must be in [1, {MAX_EMBED_BATCH}]")));
        }
        if !(1..=MAX_EMBEDDING_CONCURRENCY).contains(&concurrency) {
            return Err(Error::Param(format!(
                "--embedding-concurrency {concurrency} must be in [1, {MAX_EMBEDDING_CONCURRENCY}]"
            )));
        }
        Ok(Self { batch, concurrency })
    }
}

/// What the embedding part of a build did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DenseStats {
    /// Batches sent to the embedder in this run.
    pub embedded_batches: u64,
    /// Batches taken from the checkpoint of an interrupted run.
    pub resumed_batches: u64,
}

/// Collects a route's unit texts in order and turns them into vectors.
pub(crate) struct DenseBuilder<'a> {
    embedder: &'a dyn Embedder,
    params: DenseParams,
    checkpoint: Mutex<DenseCheckpoint>,
    /// Texts not yet embedded; the first has ordinal `next_start`.
    pending: Vec<String>,
    next_start: u64,
    vectors: Vec<f32>,
    stats: DenseStats,
    progress: &'a ProgressBar,
}

impl<'a> DenseBuilder<'a> {
    pub(crate) fn new(
        embedder: &'a dyn Embedder,
        params: DenseParams,
        checkpoint: DenseCheckpoint,
        progress: &'a ProgressBar,
    ) -> Self {
        Self {
            embedder,
            params,
            checkpoint: Mutex::new(checkpoint),
            pending: Vec::new(),
            next_start: 0,
            vectors: Vec::new(),
            stats: DenseStats::default(),
            progress,
        }
    }

    fn window(&self) -> usize {
        self.params.batch * self.params.concurrency.min(self.embedder.max_concurrency()).max(1)
    }

    /// Queue the next unit's text; embeds once a window of batches is full.
    pub(crate) fn push(&mut self, text: String) -> Result<()> {
        self.pending.push(text);
        if self.pending.len() >= self.window() { self.flush() } else { Ok(()) }
    }

    /// Embed every pending batch (from the checkpoint where it has them).
    fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let dim = self.embedder.dim();
        let texts: Vec<&str> = self.pending.iter().map(String::as_str).collect();
        let batches: Vec<(u64, &[&str], [u8; 32])> = texts
            .chunks(self.params.batch)
            .enumerate()
            .map(|(i, b)| (self.next_start + (i * self.params.batch) as u64, b, texts_hash(b)))
            .collect();
        let mut done: Vec<Option<Vec<f32>>> = {
            let mut cp = self.checkpoint.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            batches.iter().map(|(start, b, hash)| cp.take(*start, b.len(), hash)).collect()
        };
        let todo: Vec<usize> = (0..batches.len()).filter(|&i| done[i].is_none()).collect();
        let resumed = (batches.len() - todo.len()) as u64;
        self.stats.resumed_batches += resumed;
        let resumed_units: usize = (0..batches.len()).filter(|i| done[*i].is_some()).map(|i| batches[i].1.len()).sum();
        self.progress.inc(resumed_units as u64);

        let workers = self.params.concurrency.min(self.embedder.max_concurrency()).min(todo.len()).max(1);
        let results: Mutex<Vec<(usize, Vec<f32>)>> = Mutex::new(Vec::with_capacity(todo.len()));
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let first_error: Mutex<Option<Error>> = Mutex::new(None);
        let work = || {
            while !failed.load(Ordering::Relaxed) {
                let Some(&i) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                let (start, texts, hash) = &batches[i];
                let outcome = self.embed_batch(texts, dim).and_then(|flat| {
                    self.checkpoint
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .append(*start, hash, &flat)?;
                    Ok(flat)
                });
                match outcome {
                    Ok(flat) => {
                        self.progress.inc(texts.len() as u64);
                        results.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((i, flat));
                    }
                    Err(e) => {
                        failed.store(true, Ordering::Relaxed);
                        first_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get_or_insert(e);
                    }
                }
            }
        };
        if workers == 1 {
            work();
        } else {
            std::thread::scope(|s| {
                for _ in 0..workers {
                    s.spawn(work);
                }
            });
        }
        if let Some(e) = first_error.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
            return Err(e);
        }
        for (i, flat) in results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
            done[i] = Some(flat);
        }
        self.stats.embedded_batches += todo.len() as u64;
        for flat in done.into_iter().flatten() {
            self.vectors.extend_from_slice(&flat);
        }
        self.next_start += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }

    /// One embedder call, checked for count and dimension, flattened.
    fn embed_batch(&self, texts: &[&str], dim: usize) -> Result<Vec<f32>> {
        let vectors = self.embedder.embed(texts)?;
        if vectors.len() != texts.len() {
            return Err(Error::EmbeddingConfig(format!(
                "the embedder returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        let mut flat = Vec::with_capacity(texts.len() * dim);
        for v in &vectors {
            if v.len() != dim {
                return Err(Error::EmbeddingConfig(format!(
                    "the embedder returned a {}-dimensional vector; the index uses {dim}",
                    v.len()
                )));
            }
            flat.extend_from_slice(v);
        }
        Ok(flat)
    }

    /// Embed what is left; the vectors of every unit in order, what was done, and the
    /// checkpoint (for the caller to remove once the index is in place).
    pub(crate) fn finish(mut self) -> Result<(Vec<f32>, DenseStats, DenseCheckpoint)> {
        self.flush()?;
        let checkpoint = self.checkpoint.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok((self.vectors, self.stats, checkpoint))
    }
}
