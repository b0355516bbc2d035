use anser_llm::mock::{FaultInjection, MockConfig, mock_embedding};
use anser_llm::{EmbeddingRequest, Error, estimate_tokens};

use crate::{fast_policy, fast_policy_with, setup, setup_with};

#[tokio::test]
async fn inputs_are_batched_and_returned_in_order() {
    let (server, client) = setup(fast_policy());
    let inputs: Vec<String> = ["机器学习", "machine learning", "c", "d", "e"].iter().map(|s| s.to_string()).collect();
    let out = client
        .embed(&EmbeddingRequest::new(inputs.clone()).with_batch_size(2).with_dimensions(4))
        .await
        .expect("embed");
    assert_eq!(out.batches, 3);
    let expected: Vec<Vec<f32>> = inputs.iter().map(|t| mock_embedding("test-model", t, 4)).collect();
    assert_eq!(out.vectors, expected);
    let tokens: u64 = inputs.iter().map(|s| estimate_tokens(s)).sum();
    assert_eq!((out.usage.prompt_tokens, out.usage.total_tokens, out.usage.estimated), (tokens, tokens, false));
    let sent = server.requests();
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0].path, "/v1/embeddings");
    assert_eq!(sent[0].body["input"], serde_json::json!(["机器学习", "machine learning"]));
    assert_eq!(sent[0].body["dimensions"], 4);
    assert_eq!(sent[2].body["input"], serde_json::json!(["e"]));
}

#[tokio::test]
async fn embedding_usage_is_estimated_when_missing_and_faults_are_retried() {
    let config = MockConfig::instant()
        .with_report_usage(false)
        .with_faults(Some(FaultInjection::transient(0.4, 3)))
        .expect("valid mock config");
    let (server, client) = setup_with(config, fast_policy_with(|p| p.max_attempts = 8), "");
    let inputs: Vec<String> = (0..20).map(|i| format!("text {i}")).collect();
    let out = client.embed(&EmbeddingRequest::new(inputs.clone()).with_batch_size(1)).await.expect("embed");
    assert_eq!(out.vectors.len(), 20);
    assert!(out.vectors.iter().all(|v| v.len() == 16), "the mock's default dimension");
    assert!(out.attempts.len() > 20, "some of the {} attempts were faults", out.attempts.len());
    assert_eq!(out.attempts.len(), server.requests().len());
    let tokens: u64 = inputs.iter().map(|s| estimate_tokens(s)).sum();
    assert_eq!((out.usage.prompt_tokens, out.usage.estimated), (tokens, true));
}

#[tokio::test]
async fn bad_embedding_requests_fail_before_sending() {
    let (server, client) = setup(fast_policy());
    let err = client.embed(&EmbeddingRequest::new(vec!["ok".into(), "".into()])).await.expect_err("empty input");
    assert!(matches!(err, Error::InvalidRequest(_)) && err.to_string().contains("input 1 is empty"), "{err}");
    let none = client.embed(&EmbeddingRequest::new(vec![])).await.expect("nothing to do");
    assert_eq!((none.vectors.len(), none.batches), (0, 0));
    assert!(server.requests().is_empty());
}
