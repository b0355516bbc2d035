//! Integration tests of anser-mcp: the `rmcp` client against the server in process (duplex pipe
//! and Streamable HTTP) on the generated small sample, and the proxy against loopback upstreams.

#[allow(dead_code)]
#[path = "../../../agent/benches/support/scripted_from_gold.rs"]
mod scripted_from_gold;

mod concurrency;
mod proxy;
mod session;
mod support;
