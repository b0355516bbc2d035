use anser_llm::mock::{MockConfig, MockServer};
use anser_llm::{
    ApiKey, CacheMode, ChatRequest, Client, ClientOptions, EmbeddingRequest, EndpointConfig, Error, Message,
    ResponseCache,
};

use crate::{endpoint, fast_policy};

fn client(server: &MockServer, dir: &std::path::Path, mode: CacheMode, key: &str) -> Client {
    let cache = ResponseCache::open(dir, mode).expect("cache");
    Client::new(endpoint(server, key), ClientOptions { retry: fast_policy(), cache: Some(cache) }).expect("client")
}

fn ask(q: &str) -> ChatRequest {
    ChatRequest::new(vec![Message::user(q)]).with_temperature(0.0)
}

#[tokio::test]
async fn hits_misses_and_strict_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = MockServer::start(MockConfig::instant()).expect("mock");
    let rw = client(&server, dir.path(), CacheMode::ReadWrite, "sk-cache-SECRET");

    let a1 = rw.chat(&ask("alpha")).await.expect("miss");
    assert!(!a1.cached);
    assert_eq!(server.requests().len(), 1);
    let a2 = rw.chat(&ask("alpha")).await.expect("hit");
    assert!(a2.cached && a2.attempts.is_empty());
    assert_eq!(
        (a2.response.clone(), a2.usage, a2.cache_key.clone()),
        (a1.response.clone(), a1.usage, a1.cache_key.clone())
    );
    assert_eq!(server.requests().len(), 1, "a hit sends nothing");
    let b = rw.chat(&ask("beta")).await.expect("other prompt misses");
    assert!(!b.cached);
    let t = rw.chat(&ask("alpha").with_temperature(0.5)).await.expect("other temperature misses");
    assert!(!t.cached);
    assert_eq!(server.requests().len(), 3);

    // The entry is where the key says and never holds the key.
    let path = ResponseCache::open(dir.path(), CacheMode::ReadWrite).expect("cache").path(&a1.cache_key);
    let text = fs_err::read_to_string(&path).expect("entry");
    assert!(text.contains("alpha") && !text.contains("sk-cache-SECRET"));

    let replay = client(&server, dir.path(), CacheMode::Replay, "");
    let r = replay.chat(&ask("alpha")).await.expect("replayed");
    assert!(r.cached);
    assert_eq!(r.response, a1.response);
    let err = replay.chat(&ask("gamma")).await.expect_err("miss in replay");
    assert!(matches!(err, Error::ReplayMiss { .. }), "{err:?}");
    assert!(err.is_user_error());
    let msg = err.to_string();
    assert!(msg.starts_with("replay: no cached response for this chat request (model `test-model`"), "{msg}");
    assert!(msg.contains("run once without --replay"), "{msg}");
    assert_eq!(server.requests().len(), 3, "replay never sends");

    // Another base URL is another key.
    let other = EndpointConfig::new("http://127.0.0.1:9/v1", "test-model", ApiKey::none()).expect("endpoint");
    let cache = ResponseCache::open(dir.path(), CacheMode::Replay).expect("cache");
    let elsewhere = Client::new(other, ClientOptions { retry: fast_policy(), cache: Some(cache) }).expect("client");
    assert!(matches!(elsewhere.chat(&ask("alpha")).await, Err(Error::ReplayMiss { .. })));
}

#[tokio::test]
async fn embeddings_are_cached_per_batch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = MockServer::start(MockConfig::instant()).expect("mock");
    let rw = client(&server, dir.path(), CacheMode::ReadWrite, "");
    let req = EmbeddingRequest::new(vec!["a".into(), "b".into(), "c".into()]).with_batch_size(2);
    let first = rw.embed(&req).await.expect("embed");
    assert_eq!((first.batches, first.cached_batches), (2, 0));
    let replay = client(&server, dir.path(), CacheMode::Replay, "");
    let again = replay.embed(&req).await.expect("replayed");
    assert_eq!((again.batches, again.cached_batches), (2, 2));
    assert_eq!(again.vectors, first.vectors);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn corrupt_entries_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = MockServer::start(MockConfig::instant()).expect("mock");
    let rw = client(&server, dir.path(), CacheMode::ReadWrite, "");
    let out = rw.chat(&ask("alpha")).await.expect("miss");
    let path = ResponseCache::open(dir.path(), CacheMode::ReadWrite).expect("cache").path(&out.cache_key);
    fs_err::write(&path, "{truncated").expect("corrupt");
    let err = rw.chat(&ask("alpha")).await.expect_err("corrupt");
    assert!(err.to_string().contains(&path.display().to_string()) && err.to_string().contains("delete it"), "{err}");
}
