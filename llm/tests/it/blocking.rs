//! [`BlockingClient`] inside a multi-thread tokio runtime, as the run loop uses it: created and
//! called under `block_in_place`, called straight from async code, and dropped in async context.
//! Before the fix, the drop panicked with "Cannot drop a runtime in a context where blocking is
//! not allowed".

use anser_llm::mock::{MockConfig, MockServer, mock_embedding};
use anser_llm::{BlockingClient, ChatRequest, ClientOptions, EmbeddingRequest, Message};

use crate::{endpoint, fast_policy};

fn client(server: &MockServer) -> BlockingClient {
    BlockingClient::new(endpoint(server, ""), ClientOptions { retry: fast_policy(), cache: None }).expect("client")
}

fn embed_one(client: &BlockingClient, text: &str) -> Vec<f32> {
    let out = client.embed(&EmbeddingRequest::new(vec![text.to_string()]).with_dimensions(8)).expect("embed");
    assert_eq!(out.vectors.len(), 1);
    out.vectors.into_iter().next().unwrap_or_default()
}

#[test]
fn blocking_client_lives_and_dies_inside_an_async_runtime() {
    let server = MockServer::start(MockConfig::instant()).expect("mock starts");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(async {
        // Created and used under block_in_place, then dropped by the async task (the bug).
        let c = tokio::task::block_in_place(|| {
            let c = client(&server);
            assert_eq!(embed_one(&c, "机器学习"), mock_embedding("test-model", "机器学习", 8));
            c
        });
        // Called straight from async code (no block_in_place): must not start a nested runtime.
        assert_eq!(embed_one(&c, "law"), mock_embedding("test-model", "law", 8));
        let reply = c.chat(&ChatRequest::new(vec![Message::user("hello")])).expect("chat");
        assert!(!reply.response.text().is_empty());
        drop(c);

        // Shared by spawned tasks; the last owner drops it inside a task.
        let shared = std::sync::Arc::new(tokio::task::block_in_place(|| client(&server)));
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..4 {
            let c = shared.clone();
            tasks.spawn(async move { tokio::task::block_in_place(|| embed_one(&c, &format!("task {i}"))) });
        }
        drop(shared);
        let mut n = 0;
        while let Some(v) = tasks.join_next().await {
            assert_eq!(v.expect("task finished").len(), 8);
            n += 1;
        }
        assert_eq!(n, 4);
    });
    // And outside any runtime, as before.
    let c = client(&server);
    assert_eq!(embed_one(&c, "plain"), mock_embedding("test-model", "plain", 8));
    assert_eq!(server.requests().len(), 8);
}
