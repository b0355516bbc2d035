//! Measures the client's own overhead against the loopback mock server (zero delay) on this
//! machine: sequential and concurrent chat round trips, cache hits, cache-key hashing of a
//! large RAG-sized request, and token estimation throughput on mixed Chinese/English text.
//! The data is synthetic and generated here (no files, no network beyond 127.0.0.1).
//! Run: `cargo bench -p anser-llm --bench client` (add `-- --quick` for a short run).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anser_llm::mock::{MockConfig, MockServer};
use anser_llm::{
    ApiKey, CacheMode, ChatRequest, Client, ClientOptions, EndpointConfig, Message, ResponseCache, estimate_tokens,
};

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

fn report(name: &str, mut samples: Vec<Duration>, total: Duration) {
    samples.sort();
    println!(
        "{name:<44} n={:<5} p50={:.3} ms  p99={:.3} ms  throughput={:.0}/s",
        samples.len(),
        percentile(&samples, 0.5),
        percentile(&samples, 0.99),
        samples.len() as f64 / total.as_secs_f64()
    );
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

fn main() -> anser_llm::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let n = if quick { 100 } else { 1000 };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let server = MockServer::start(MockConfig::instant())?;
    let endpoint = EndpointConfig::new(&server.base_url(), "bench", ApiKey::new("sk-bench"))?;
    let client = Arc::new(Client::new(endpoint.clone(), ClientOptions::default())?);

    // Sequential round trips with distinct prompts.
    let t0 = Instant::now();
    let mut samples = Vec::with_capacity(n);
    for i in 0..n {
        let req = ChatRequest::new(vec![Message::user(format!("question {i}"))]);
        let t = Instant::now();
        runtime.block_on(client.chat(&req))?;
        samples.push(t.elapsed());
    }
    report("chat round trip, sequential", samples, t0.elapsed());

    // 8 concurrent callers sharing one client.
    let t0 = Instant::now();
    let samples = runtime.block_on(async {
        let mut handles = Vec::new();
        for w in 0..8 {
            let c = client.clone();
            handles.push(tokio::spawn(async move {
                let mut s = Vec::new();
                for i in 0..n / 8 {
                    let req = ChatRequest::new(vec![Message::user(format!("worker {w} question {i}"))]);
                    let t = Instant::now();
                    c.chat(&req).await?;
                    s.push(t.elapsed());
                }
                Ok::<_, anser_llm::Error>(s)
            }));
        }
        let mut all = Vec::new();
        for h in handles {
            all.extend(h.await.map_err(|e| anser_llm::Error::Setup(e.to_string()))??);
        }
        Ok::<_, anser_llm::Error>(all)
    })?;
    report("chat round trip, 8 concurrent", samples, t0.elapsed());

    // Cache hits of a RAG-sized prompt (40k mixed characters, about 14.5k estimated tokens).
    let dir = tempfile::tempdir()?;
    let cache = ResponseCache::open(dir.path(), CacheMode::ReadWrite)?;
    let cached = Client::new(endpoint, ClientOptions { cache: Some(cache), ..ClientOptions::default() })?;
    let context = mixed_text(40_000);
    let big = ChatRequest::new(vec![Message::system("Answer from the context."), Message::user(context.clone())]);
    println!("RAG-sized prompt: {} chars, {} estimated tokens", context.chars().count(), estimate_tokens(&context));
    runtime.block_on(cached.chat(&big))?;
    let t0 = Instant::now();
    let mut samples = Vec::new();
    for _ in 0..n / 4 {
        let t = Instant::now();
        let out = runtime.block_on(cached.chat(&big))?;
        assert!(out.cached);
        samples.push(t.elapsed());
    }
    report("cache hit, 40k-char prompt (key + read)", samples, t0.elapsed());

    let body = big.body("bench")?;
    let t0 = Instant::now();
    let mut samples = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        std::hint::black_box(ResponseCache::key("chat", "http://h/v1", &body));
        samples.push(t.elapsed());
    }
    report("cache key, 40k-char request", samples, t0.elapsed());

    let text = mixed_text(1_000_000);
    let bytes = text.len();
    let t0 = Instant::now();
    let reps = if quick { 5 } else { 20 };
    let mut tokens = 0;
    for _ in 0..reps {
        tokens = std::hint::black_box(estimate_tokens(&text));
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "estimate_tokens: {tokens} tokens per 1M mixed chars, {:.0} MB/s ({:.1} M chars/s)",
        bytes as f64 * reps as f64 / secs / 1e6,
        1e6 * reps as f64 / secs / 1e6
    );
    Ok(())
}
