//! An embedder wrapper that records what it embeds and can fail on purpose: the texts of every
//! call that succeeded, the span from the first call's start to the last one's end, and an
//! injected fault on call `fail_on` (1-based, in arrival order). Shared by the resume tests
//! (`dense_resume.rs`) and the dense-build benchmark (`benches/dense_build.rs`, which includes
//! this file by path).

use std::{
    sync::{
        Mutex, PoisonError,
        atomic::{AtomicUsize, Ordering},
    },
    time::Instant,
};

use anser_indexer::{Embedder, EmbedderSpec, Error, Result};

#[derive(Debug)]
pub struct Recording<E> {
    inner: E,
    fail_on: Option<usize>,
    calls: AtomicUsize,
    succeeded: Mutex<Vec<Vec<String>>>,
    /// Start of the first call and end of the last one: the embedding part of a build.
    span: Mutex<Option<(Instant, Instant)>>,
    /// Stands in for the inner embedder's numeric layout when set.
    layout: Option<String>,
}

impl<E: Embedder> Recording<E> {
    pub fn new(inner: E, fail_on: Option<usize>) -> Self {
        Self {
            inner,
            fail_on,
            calls: AtomicUsize::new(0),
            succeeded: Mutex::new(Vec::new()),
            span: Mutex::new(None),
            layout: None,
        }
    }

    /// Report `layout` as the numeric layout (as a local model with other threads would).
    #[allow(dead_code, reason = "the dense-build benchmark includes this file and does not use it")]
    pub fn with_layout(mut self, layout: &str) -> Self {
        self.layout = Some(layout.to_string());
        self
    }

    /// The texts of each call that succeeded, in the order they finished.
    pub fn batches(&self) -> Vec<Vec<String>> {
        self.succeeded.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Seconds from the start of the first call to the end of the last successful one.
    pub fn embed_seconds(&self) -> f64 {
        let span = *self.span.lock().unwrap_or_else(PoisonError::into_inner);
        span.map_or(0.0, |(a, b)| (b - a).as_secs_f64())
    }
}

impl<E: Embedder> Embedder for Recording<E> {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn identity(&self) -> Result<String> {
        self.inner.identity()
    }
    fn spec(&self) -> EmbedderSpec {
        self.inner.spec()
    }
    fn numeric_layout(&self) -> String {
        self.layout.clone().unwrap_or_else(|| self.inner.numeric_layout())
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let t0 = Instant::now();
        if self.fail_on == Some(n) {
            return Err(Error::EmbeddingConfig(format!("injected fault on call {n}")));
        }
        let v = self.inner.embed(texts)?;
        let mut span = self.span.lock().unwrap_or_else(PoisonError::into_inner);
        let (first, _) = span.get_or_insert((t0, t0));
        *span = Some((t0.min(*first), Instant::now()));
        drop(span);
        self.succeeded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(texts.iter().map(|t| (*t).to_string()).collect());
        Ok(v)
    }
}
