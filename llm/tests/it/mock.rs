use std::time::{Duration, Instant};

use anser_llm::mock::{Fault, FaultInjection, Matcher, MockConfig, MockServer, Reply, Rule};
use anser_llm::{ChatRequest, Client, ClientOptions, Message};

use crate::{fast_policy, fast_policy_with, setup, setup_with};

#[tokio::test]
async fn unscripted_replies_are_deterministic_and_delayed() {
    let config = MockConfig::default().with_delay(Duration::from_millis(100));
    let (server, client) = setup_with(config, fast_policy(), "");
    let req = ChatRequest::new(vec![Message::user("Which statute applies?")]);
    let t0 = Instant::now();
    let a = client.chat(&req).await.expect("chat");
    assert!(t0.elapsed() >= Duration::from_millis(100), "{:?}", t0.elapsed());
    let b = client.chat(&req).await.expect("chat");
    assert_eq!(a.response.text(), b.response.text());
    assert!(a.response.text().contains("Which statute applies?"));
    let recorded = server.requests();
    assert_eq!(recorded.iter().map(|r| r.seq).collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(recorded[0].last_user_message(), Some("Which statute applies?"));
    assert!(!recorded[0].scripted && recorded[0].fault.is_none());
}

#[tokio::test]
async fn rules_match_in_order_and_fall_through_when_spent() {
    let (server, client) = setup(fast_policy());
    server.add_rule(
        Rule::new(Matcher::user_regex(r"^count\b").expect("regex")).reply(Reply::text("7")).reply(Reply::text("8")),
    );
    server.add_rule(Rule::new(Matcher::UserContains("count".into())).reply(Reply::text("fallback")).repeat_last());
    let ask = |q: &str| ChatRequest::new(vec![Message::user(q)]);
    let texts = [
        client.chat(&ask("count the cases")).await.expect("1").response.text().to_string(),
        client.chat(&ask("count the cases")).await.expect("2").response.text().to_string(),
        client.chat(&ask("count the cases")).await.expect("3").response.text().to_string(),
        client.chat(&ask("please count")).await.expect("4").response.text().to_string(),
    ];
    assert_eq!(texts, ["7", "8", "fallback", "fallback"]);
    assert!(server.requests().iter().all(|r| r.scripted));
    server.clear_rules();
    server.clear_requests();
    let other = client.chat(&ask("count again")).await.expect("unscripted");
    assert!(other.response.text().starts_with("Mock answer"));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn faults_are_recorded_with_the_request() {
    let (server, client) = setup(fast_policy());
    server.script(Matcher::Any, [Reply::Fault(Fault::Status(502)), Reply::Fault(Fault::NotJson)]);
    client.chat(&ChatRequest::new(vec![Message::user("q")])).await.expect("third attempt");
    let faults: Vec<Option<String>> = server.requests().into_iter().map(|r| r.fault).collect();
    assert_eq!(faults, vec![Some("status 502".into()), Some("non-JSON body".into()), None]);
}

#[test]
fn seeded_fault_injection_repeats_exactly() {
    let run = || {
        let config =
            MockConfig::instant().with_faults(Some(FaultInjection::transient(0.3, 11))).expect("valid mock config");
        let server = MockServer::start(config).expect("mock");
        let client = anser_llm::BlockingClient::new(
            crate::endpoint(&server, ""),
            ClientOptions { retry: fast_policy_with(|p| p.max_attempts = 1), cache: None },
        )
        .expect("client");
        (0..30).map(|_| client.chat(&ChatRequest::new(vec![Message::user("q")])).is_ok()).collect::<Vec<bool>>()
    };
    let first = run();
    assert_eq!(first, run());
    let failures = first.iter().filter(|ok| !**ok).count();
    assert!((3..=18).contains(&failures), "{failures} of 30 failed at rate 0.3");
}

#[test]
fn unknown_routes_get_404_and_models_are_listed() {
    let (server, _client) = setup(fast_policy());
    let http = raw_get(&server, "/v1/unknown");
    assert!(http.starts_with("HTTP/1.1 404"), "{http}");
    assert_eq!(server.requests()[0].path, "/v1/unknown");
    let models = raw_get(&server, "/v1/models");
    assert!(models.starts_with("HTTP/1.1 200") && models.contains("mock-llm"), "{models}");
}

#[test]
fn invalid_configs_and_busy_ports_are_errors() {
    let err = MockConfig::instant().with_embedding_dim(0).expect_err("dimension 0").to_string();
    assert!(err.contains("mock embedding_dim"), "{err}");
    assert_eq!(MockConfig::instant().with_embedding_dim(1).expect("dimension 1").embedding_dim(), 1);
    let bad = FaultInjection { rate: 1.5, seed: 0, kinds: vec![Fault::NotJson] };
    let err = MockConfig::instant().with_faults(Some(bad.clone())).expect_err("rate 1.5").to_string();
    assert!(err.contains("mock fault rate"), "{err}");
    let none = FaultInjection { rate: 0.5, seed: 0, kinds: Vec::new() };
    assert!(MockConfig::instant().with_faults(Some(none)).is_err_and(|e| e.to_string().contains("mock fault kinds")));
    let edge = FaultInjection { rate: 1.0, seed: 0, kinds: vec![Fault::NotJson] };
    assert!(MockConfig::instant().with_faults(Some(edge)).is_ok());
    let server = MockServer::start(MockConfig::instant()).expect("starts");
    assert!(server.set_faults(Some(bad)).is_err());
    let c = MockConfig::default();
    assert_eq!(
        (c.delay(), c.embedding_dim(), c.report_usage(), c.model()),
        (Duration::from_millis(20), 16, true, "mock-llm")
    );
    assert!(c.faults().is_none() && c.record_requests() && !MockConfig::server().record_requests());
    let first = MockServer::start(MockConfig::instant()).expect("first");
    let err = MockServer::start_on(first.addr().port(), MockConfig::instant()).expect_err("port in use");
    assert!(err.is_user_error() && err.to_string().contains("cannot listen on 127.0.0.1"), "{err}");
}

/// A plain HTTP/1.1 GET over a TCP socket (the client under test only POSTs).
fn raw_get(server: &MockServer, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(server.addr()).expect("connect");
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    out
}

/// A long-running server (`anser mock-llm`) keeps counters, not a record that grows with every
/// request; the test library's default records.
#[tokio::test]
async fn a_server_config_keeps_no_request_record() {
    let server = MockServer::start(MockConfig::server().with_delay(Duration::ZERO)).expect("mock");
    let client = Client::new(crate::endpoint(&server, ""), ClientOptions::default()).expect("client");
    for i in 0..40 {
        client.chat(&ChatRequest::new(vec![Message::user(format!("q{i}"))])).await.expect("answer");
    }
    server.set_faults(Some(FaultInjection { rate: 1.0, seed: 1, kinds: vec![Fault::Status(400)] })).expect("faults");
    assert!(client.chat(&ChatRequest::new(vec![Message::user("x")])).await.is_err());
    assert_eq!(server.served(), 41);
    assert_eq!(server.faults_injected(), 1);
    assert!(server.requests().is_empty(), "nothing recorded");
    server.set_faults(None).expect("no faults");
    assert!(client.chat(&ChatRequest::new(vec![Message::user("y")])).await.is_ok());
    assert!(server.set_faults(Some(FaultInjection { rate: 2.0, seed: 1, kinds: vec![] })).is_err());

    let recording = MockServer::start(MockConfig::instant()).expect("mock");
    let client = Client::new(crate::endpoint(&recording, ""), ClientOptions::default()).expect("client");
    client.chat(&ChatRequest::new(vec![Message::user("q")])).await.expect("answer");
    assert_eq!(recording.requests().len(), 1);
}
