//! Embeddings in an index: the OpenAI-compatible API against the loopback mock (always), the
//! local m3e-small ONNX encoder (when ../shared and ORT_DYLIB_PATH are present), and refusal of
//! a query embedder that is not the index's model.

use anser_indexer::{ApiEmbedder, BuildOptions, Embedder, OnnxEmbedder};
use anser_llm::{
    ApiKey, EndpointConfig,
    mock::{MockConfig, MockServer},
};
use anser_manifest::Route;

use crate::fixtures::{build_and_open, rules_fixture};

#[test]
fn api_embeddings_are_stored_with_model_and_dimension() {
    let server = MockServer::start(MockConfig::instant()).expect("mock");
    let endpoint = EndpointConfig::new(&server.base_url(), "mock-embed", ApiKey::none()).expect("endpoint");
    let embedder = ApiEmbedder::new(endpoint.clone(), Some(24)).expect("embedder");
    assert_eq!((embedder.model_id(), embedder.dim()), ("mock-embed", 24));
    let (_tmp, corpus, idx) = rules_fixture();
    let (_, ri) = build_and_open(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), Some(&embedder));
    let (vectors, dense) = ri.dense().expect("dense");
    assert_eq!((vectors.len(), vectors.dim(), dense.model_id.as_str()), (5, 24, "mock-embed"));
    ri.check_embedder(&embedder).expect("same model");
    // The mock's vectors are deterministic per text: a unit's own text finds it first.
    let q = embedder.embed(&[ri.store.get(3).expect("unit").text.as_str()]).expect("embed");
    assert_eq!(vectors.exact_search(&q[0], 1).expect("search")[0].ord, 3);
    // Another dimension is another model.
    let other = ApiEmbedder::new(endpoint, Some(16)).expect("embedder");
    let err = ri.check_embedder(&other).expect_err("mismatch");
    assert!(err.to_string().contains("--rebuild"), "{err}");
}

#[test]
fn onnx_embeddings_find_paraphrases() {
    let Some(shared) = anser_manifest::shared_dir_or_skip("m3e dense index") else { return };
    if anser_encoder::ort_library_path(None).is_none() {
        anser_manifest::missing_prerequisite("m3e dense index", "ORT_DYLIB_PATH is not set (run scripts/fetch-ort.sh)");
        return;
    }
    let embedder = OnnxEmbedder::open(&shared.join("models/m3e-small"), 2).expect("encoder");
    let (_tmp, corpus, idx) = rules_fixture();
    let (_, ri) = build_and_open(&idx, &corpus, Route::FinanceZhRules, &BuildOptions::default(), Some(&embedder));
    let (vectors, dense) = ri.dense().expect("dense");
    assert_eq!((dense.model_id.as_str(), dense.dim), ("m3e-small", 512));
    assert!(dense.identity.starts_with("sha256:"));
    let q = embedder.embed(&["公司打算买回自己的股票，需要哪个机构批准？"]).expect("embed");
    let hits = vectors.search(&q[0], 5).expect("search");
    assert_eq!(ri.store.get(hits[0].ord).expect("unit").record_id, "4", "{hits:?}");
}
