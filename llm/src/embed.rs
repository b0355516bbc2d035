//! `/embeddings` request and response types. Input lists are split into batches, each batch is
//! one call with the same retries, usage accounting and cache as chat calls.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::retry::Attempt;
use crate::usage::Usage;

/// Inputs per `/embeddings` call.
pub const DEFAULT_EMBED_BATCH_SIZE: usize = 64;

/// Texts to embed. Build with [`EmbeddingRequest::new`] and the `with_*` methods.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddingRequest {
    pub inputs: Vec<String>,
    /// Overrides the endpoint's model.
    pub model: Option<String>,
    /// Sent as `dimensions` when set (only some models accept it); every returned vector must
    /// then have this length.
    pub dimensions: Option<u32>,
    /// Inputs per call, ≥ 1.
    pub batch_size: usize,
    /// Further top-level body fields.
    pub extra: Map<String, Value>,
}

impl EmbeddingRequest {
    pub fn new(inputs: Vec<String>) -> Self {
        Self { inputs, model: None, dimensions: None, batch_size: DEFAULT_EMBED_BATCH_SIZE, extra: Map::new() }
    }

    pub fn with_dimensions(mut self, dimensions: u32) -> Self {
        self.dimensions = Some(dimensions);
        self
    }

    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size;
        self
    }

    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.batch_size == 0 {
            return Err(Error::InvalidRequest("embedding batch_size must be at least 1".into()));
        }
        if self.dimensions == Some(0) {
            return Err(Error::InvalidRequest("embedding dimensions must be at least 1".into()));
        }
        if let Some(i) = self.inputs.iter().position(|s| s.trim().is_empty()) {
            return Err(Error::InvalidRequest(format!("embedding input {i} is empty; servers reject empty inputs")));
        }
        Ok(())
    }

    /// The JSON body of one batch.
    pub(crate) fn batch_body(&self, default_model: &str, batch: &[String]) -> Result<Value> {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model.as_deref().unwrap_or(default_model)));
        body.insert("input".into(), json!(batch));
        body.insert("encoding_format".into(), json!("float"));
        if let Some(d) = self.dimensions {
            body.insert("dimensions".into(), json!(d));
        }
        for (k, v) in &self.extra {
            if body.contains_key(k) {
                return Err(Error::InvalidRequest(format!("extra field `{k}` repeats a field the request sets")));
            }
            body.insert(k.clone(), v.clone());
        }
        Ok(Value::Object(body))
    }
}

/// Parses an `/embeddings` response for `expected` inputs, ordering vectors by `index`.
pub(crate) fn parse_embeddings(
    body: &Value,
    expected: usize,
    dimensions: Option<u32>,
) -> std::result::Result<Vec<Vec<f32>>, String> {
    let data = body.get("data").and_then(Value::as_array).ok_or("no `data` array")?;
    if data.len() != expected {
        return Err(format!("{} vectors for {expected} inputs", data.len()));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (pos, item) in data.iter().enumerate() {
        let index = item.get("index").and_then(Value::as_u64).map_or(pos, |i| i as usize);
        let slot = out.get_mut(index).ok_or_else(|| format!("data[{pos}].index {index} is out of range"))?;
        if slot.is_some() {
            return Err(format!("index {index} appears twice"));
        }
        let vector = item
            .get("embedding")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("data[{pos}] has no `embedding` array (base64 encoding is not supported)"))?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| format!("data[{pos}].embedding holds a non-number"))?;
        *slot = Some(vector);
    }
    let vectors: Vec<Vec<f32>> = out.into_iter().flatten().collect();
    let dim = vectors.first().map_or(0, Vec::len);
    if dim == 0 && expected > 0 {
        return Err("vectors are empty".into());
    }
    if let Some(bad) = vectors.iter().position(|v| v.len() != dim) {
        return Err(format!("vector {bad} has {} dimensions, vector 0 has {dim}", vectors[bad].len()));
    }
    if let Some(d) = dimensions.filter(|d| *d as usize != dim) {
        return Err(format!("asked for {d} dimensions, got {dim}"));
    }
    Ok(vectors)
}

/// Finished embeddings: one vector per input, in input order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbeddingOutcome {
    pub vectors: Vec<Vec<f32>>,
    /// Summed over batches; `estimated` when some batch reported none.
    pub usage: Usage,
    /// Every HTTP attempt of every batch, in order.
    pub attempts: Vec<Attempt>,
    pub batches: usize,
    pub cached_batches: usize,
    pub latency_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_orders_by_index_and_checks_shapes() {
        let body = json!({"data": [{"index": 1, "embedding": [3.0, 4.0]}, {"index": 0, "embedding": [1.0, 2.0]}]});
        assert_eq!(parse_embeddings(&body, 2, Some(2)).expect("ok"), vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
        assert_eq!(parse_embeddings(&body, 3, None).expect_err("count"), "2 vectors for 3 inputs");
        assert_eq!(parse_embeddings(&body, 2, Some(8)).expect_err("dims"), "asked for 8 dimensions, got 2");
        let ragged = json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 1, "embedding": [1.0, 2.0]}]});
        assert!(parse_embeddings(&ragged, 2, None).is_err());
        let dup = json!({"data": [{"index": 0, "embedding": [1.0]}, {"index": 0, "embedding": [1.0]}]});
        assert_eq!(parse_embeddings(&dup, 2, None).expect_err("dup"), "index 0 appears twice");
    }

    #[test]
    fn request_validation() {
        assert!(EmbeddingRequest::new(vec!["a".into(), " ".into()]).validate().is_err());
        assert!(EmbeddingRequest::new(vec!["a".into()]).with_batch_size(0).validate().is_err());
        let body =
            EmbeddingRequest::new(vec!["a".into()]).with_dimensions(4).batch_body("e", &["a".into()]).expect("ok");
        assert_eq!(body, json!({"model": "e", "input": ["a"], "encoding_format": "float", "dimensions": 4}));
    }
}
