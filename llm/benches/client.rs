//! Measures the client's own overhead against the loopback mock server (zero delay) on this
//! machine: sequential and concurrent chat round trips, cache hits, cache-key hashing of a
//! large RAG-sized request, and token estimation throughput on mixed Chinese/English text.
//! The data is synthetic and generated here (no files, no network beyond 127.0.0.1). divan
//! prints fastest, slowest, median and mean per operation (and bytes/chars per second for the
//! token estimate).
//!
//! Run: `cargo bench -p anser-llm --bench client`.

use std::sync::atomic::{AtomicU64, Ordering};

use anser_llm::mock::{MockConfig, MockServer};
use anser_llm::{
    ApiKey, CacheMode, ChatRequest, Client, ClientOptions, EndpointConfig, Message, ResponseCache, estimate_tokens,
};
use divan::{
    Bencher, black_box,
    counter::{BytesCount, CharsCount},
};

fn main() {
    divan::main();
}

/// Mixed text: 60% Chinese characters, 40% ASCII words, deterministic.
fn mixed_text(chars: usize) -> String {
    let zh: Vec<char> = "机器学习的分布式系统在实际场景中的应用研究报告".chars().collect();
    let en = ["retrieval ", "kernel ", "inference ", "systems ", "evidence "];
    let mut s = String::new();
    let mut i = 0usize;
    while s.chars().count() < chars {
        if i % 5 < 3 {
            s.push(zh[i % zh.len()]);
        } else {
            s.push_str(en[i % en.len()]);
        }
        i += 1;
    }
    s
}

/// A two-worker runtime, a zero-delay mock and its endpoint.
fn mock() -> (tokio::runtime::Runtime, MockServer, EndpointConfig) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let server = MockServer::start(MockConfig::instant()).expect("mock starts");
    let endpoint = EndpointConfig::new(&server.base_url(), "bench", ApiKey::new("sk-bench")).expect("endpoint");
    (runtime, server, endpoint)
}

/// A RAG-sized request: 40k mixed characters of context (about 14.5k estimated tokens).
fn rag_request() -> ChatRequest {
    ChatRequest::new(vec![Message::system("Answer from the context."), Message::user(mixed_text(40_000))])
}

/// One chat round trip with a distinct prompt, by 1 caller or by 8 callers sharing one client.
#[divan::bench(threads = [1, 8], sample_count = 50)]
fn chat_round_trip(bencher: Bencher) {
    let (runtime, _server, endpoint) = mock();
    let client = Client::new(endpoint, ClientOptions::default()).expect("client");
    let next = AtomicU64::new(0);
    bencher.bench(|| {
        let req = ChatRequest::new(vec![Message::user(format!("question {}", next.fetch_add(1, Ordering::Relaxed)))]);
        runtime.block_on(client.chat(&req)).expect("chat")
    });
}

/// A cache hit of the RAG-sized request (key + read).
#[divan::bench(sample_count = 50)]
fn cache_hit_40k_chars(bencher: Bencher) {
    let (runtime, _server, endpoint) = mock();
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = ResponseCache::open(dir.path(), CacheMode::ReadWrite).expect("cache");
    let client =
        Client::new(endpoint, ClientOptions { cache: Some(cache), ..ClientOptions::default() }).expect("client");
    let big = rag_request();
    runtime.block_on(client.chat(&big)).expect("first call fills the cache");
    bencher.bench_local(|| {
        let out = runtime.block_on(client.chat(&big)).expect("chat");
        assert!(out.cached);
        out
    });
}

/// The cache key of the RAG-sized request body.
#[divan::bench]
fn cache_key_40k_chars(bencher: Bencher) {
    let body = rag_request().body("bench").expect("body");
    bencher.bench(|| ResponseCache::key("chat", "http://h/v1", black_box(&body)));
}

/// Token estimation over one million mixed characters (throughput in bytes and characters).
#[divan::bench(sample_count = 20, sample_size = 1)]
fn estimate_tokens_1m_mixed_chars(bencher: Bencher) {
    let text = mixed_text(1_000_000);
    bencher
        .counter(BytesCount::of_str(&text))
        .counter(CharsCount::of_str(&text))
        .bench(|| estimate_tokens(black_box(&text)));
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
