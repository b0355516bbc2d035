//! Integration tests of `anser-llm` against its own loopback mock server: retries and their
//! bound, Retry-After, timeouts, malformed bodies, usage, cache and replay, tool calls,
//! embeddings, configuration precedence and key hygiene. Nothing leaves 127.0.0.1.

mod blocking;
mod cache;
mod chat;
mod config;
mod embeddings;
mod mock;
mod retries;

use std::time::Duration;

use anser_llm::mock::{MockConfig, MockServer};
use anser_llm::{ApiKey, Client, ClientOptions, EndpointConfig, RetryPolicy, RetryPolicyBuilder};

/// Retries without real waiting: 1 ms backoff, 5 ms cap, 4 attempts, 5 s timeout.
pub fn fast_policy() -> RetryPolicy {
    fast_policy_with(|_| {})
}

/// [`fast_policy`] with some fields changed by `change`; panics on an invalid test policy.
pub fn fast_policy_with(change: impl FnOnce(&mut RetryPolicyBuilder)) -> RetryPolicy {
    let mut b = RetryPolicyBuilder {
        max_attempts: 4,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(5),
        timeout: Duration::from_secs(5),
        ..RetryPolicyBuilder::default()
    };
    change(&mut b);
    b.build().expect("valid test retry policy")
}

/// A mock without delay and a client for it with `policy` and no cache.
pub fn setup(policy: RetryPolicy) -> (MockServer, Client) {
    setup_with(MockConfig::instant(), policy, "")
}

/// A mock with `config` and a client with `policy` and API key `key`.
pub fn setup_with(config: MockConfig, policy: RetryPolicy, key: &str) -> (MockServer, Client) {
    let server = MockServer::start(config).expect("mock starts");
    let client = Client::new(endpoint(&server, key), ClientOptions { retry: policy, cache: None }).expect("client");
    (server, client)
}

pub fn endpoint(server: &MockServer, key: &str) -> EndpointConfig {
    EndpointConfig::new(&server.base_url(), "test-model", ApiKey::new(key)).expect("endpoint")
}
