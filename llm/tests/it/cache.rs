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

/// A corrupt entry costs no answer in read-write mode: the request goes to the server, the
/// problem is counted (and printed once), and the entry is recorded again. Replay mode, which has
/// no server to ask, names the entry.
#[tokio::test]
async fn corrupt_entries_are_skipped_and_rerecorded_but_named_in_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = MockServer::start(MockConfig::instant()).expect("mock");
    let cache = ResponseCache::open(dir.path(), CacheMode::ReadWrite).expect("cache");
    let rw = Client::new(endpoint(&server, ""), ClientOptions { retry: fast_policy(), cache: Some(cache.clone()) })
        .expect("client");
    let out = rw.chat(&ask("alpha")).await.expect("miss");
    let path = cache.path(&out.cache_key);
    for corruption in ["{truncated", r#"{"v": 1, "key": "other", "response": {}}"#, r#"{"v":1}"#] {
        fs_err::write(&path, corruption).expect("corrupt");
        let again = rw.chat(&ask("alpha")).await.expect("a corrupt entry is not a lost answer");
        assert!(!again.cached, "answered by the server");
        assert_eq!(again.response.text(), out.response.text());
    }
    assert_eq!(cache.corrupt_entries(), 3);
    assert_eq!(server.requests().len(), 4);
    let hit = rw.chat(&ask("alpha")).await.expect("re-recorded");
    assert!(hit.cached, "the entry was written again");

    // A body that is valid JSON but not a chat completion is corrupt too.
    fs_err::write(&path, format!(r#"{{"v": 1, "key": "{}", "response": {{"choices": []}}}}"#, out.cache_key))
        .expect("corrupt");
    assert!(!rw.chat(&ask("alpha")).await.expect("answered").cached);
    assert_eq!(cache.corrupt_entries(), 4);

    fs_err::write(&path, "{truncated").expect("corrupt");
    let replay = client(&server, dir.path(), CacheMode::Replay, "");
    let err = replay.chat(&ask("alpha")).await.expect_err("replay cannot ask the server");
    assert!(err.to_string().contains(&path.display().to_string()) && err.to_string().contains("delete it"), "{err}");
}

/// A cache folder that cannot be created costs no answer either: every reply is returned and
/// the failed writes are counted.
#[tokio::test]
async fn an_unwritable_cache_folder_keeps_every_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let blocker = dir.path().join("a-file");
    fs_err::write(&blocker, "not a folder").expect("write");
    let server = MockServer::start(MockConfig::instant()).expect("mock");
    let cache = ResponseCache::open(blocker.join("cache"), CacheMode::ReadWrite).expect("opening writes nothing");
    let rw = Client::new(endpoint(&server, ""), ClientOptions { retry: fast_policy(), cache: Some(cache.clone()) })
        .expect("client");
    for q in ["alpha", "beta", "alpha"] {
        let out = rw.chat(&ask(q)).await.expect("answered although the cache cannot be written");
        assert!(!out.cached);
        assert!(!out.response.text().is_empty());
    }
    let emb = rw.embed(&EmbeddingRequest::new(vec!["x".into()])).await.expect("embedded");
    assert_eq!(emb.vectors.len(), 1);
    assert_eq!(cache.write_failures(), 4);
    assert_eq!(server.requests().len(), 4);
}
