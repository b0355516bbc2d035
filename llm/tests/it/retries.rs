use std::time::{Duration, Instant};

use anser_llm::mock::{Fault, Matcher, MockConfig, Reply, Rule};
use anser_llm::{ChatRequest, Error, Message};

use crate::{fast_policy, fast_policy_with, setup, setup_with};

fn ask() -> ChatRequest {
    ChatRequest::new(vec![Message::user("q")])
}

#[tokio::test]
async fn transient_failures_are_retried_and_every_attempt_is_recorded() {
    let (server, client) = setup(fast_policy());
    server.script(
        Matcher::Any,
        [
            Reply::Fault(Fault::Status(503)),
            Reply::Fault(Fault::Truncated),
            Reply::Fault(Fault::NotJson),
            Reply::text("ok"),
        ],
    );
    let out = client.chat(&ask()).await.expect("fourth attempt succeeds");
    assert_eq!(out.response.text(), "ok");
    let a = &out.attempts;
    assert_eq!(a.len(), 4);
    assert_eq!(a.iter().map(|x| x.attempt).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    assert_eq!(a[0].status, Some(503));
    assert!(a[0].error.as_deref().is_some_and(|e| e.contains("HTTP 503")), "{:?}", a[0]);
    assert!(a[1].error.as_deref().is_some_and(|e| e.contains("cut off")), "{:?}", a[1]);
    assert!(a[2].error.as_deref().is_some_and(|e| e.contains("not JSON")), "{:?}", a[2]);
    assert_eq!((a[3].status, a[3].error.as_deref(), a[3].wait_ms), (Some(200), None, None));
    assert!(a[..3].iter().all(|x| x.wait_ms.is_some_and(|w| w <= 5)), "waits are capped at 5 ms: {a:?}");
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn attempts_are_bounded() {
    let (server, client) = setup(fast_policy_with(|p| p.max_attempts = 3));
    server.add_rule(Rule::new(Matcher::Any).reply(Reply::Fault(Fault::Status(500))).repeat_last());
    let err = client.chat(&ask()).await.expect_err("always 500");
    assert!(matches!(err, Error::Exhausted { .. }), "{err:?}");
    assert_eq!(err.attempts().len(), 3);
    assert_eq!(err.attempts()[2].wait_ms, None, "no wait after the last attempt");
    let msg = err.to_string();
    assert!(msg.contains("failed after 3 attempt(s)") && msg.contains("HTTP 500: mock fault: HTTP 500"), "{msg}");
    assert_eq!(server.requests().len(), 3, "exactly max_attempts requests");
}

#[tokio::test]
async fn non_retryable_statuses_fail_at_once_with_the_server_message() {
    let (server, client) = setup(fast_policy());
    server
        .script(Matcher::Any, [Reply::Raw { status: 400, body: r#"{"error":{"message":"context too long"}}"#.into() }]);
    let err = client.chat(&ask()).await.expect_err("400");
    assert!(matches!(err, Error::Status { status: 400, .. }), "{err:?}");
    assert!(err.to_string().ends_with("answered HTTP 400: context too long"), "{err}");
    assert_eq!(err.attempts().len(), 1);
    assert!(err.is_user_error());
    server.script(Matcher::Any, [Reply::Fault(Fault::Status(401))]);
    let err = client.chat(&ask()).await.expect_err("401");
    assert!(err.to_string().contains("(check the API key)"), "{err}");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn retry_after_seconds_are_honoured_and_capped() {
    let (server, client) = setup(fast_policy());
    server.script(Matcher::Any, [Reply::Fault(Fault::RateLimited { retry_after: "1".into() }), Reply::text("ok")]);
    let t0 = Instant::now();
    let out = client.chat(&ask()).await.expect("second attempt succeeds");
    assert!(t0.elapsed() >= Duration::from_secs(1), "waited {:?}", t0.elapsed());
    assert_eq!(out.attempts[0].status, Some(429));
    assert_eq!(out.attempts[0].retry_after_ms, Some(1000));
    assert_eq!(out.attempts[0].wait_ms, Some(1000), "Retry-After replaces the 1 ms backoff");

    let capped = fast_policy_with(|p| p.max_retry_after = Duration::from_millis(50));
    let (server, client) = setup(capped);
    server.script(Matcher::Any, [Reply::Fault(Fault::RateLimited { retry_after: "3600".into() }), Reply::text("ok")]);
    let t0 = Instant::now();
    let out = client.chat(&ask()).await.expect("capped wait");
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert_eq!((out.attempts[0].retry_after_ms, out.attempts[0].wait_ms), (Some(3_600_000), Some(50)));
}

#[tokio::test]
async fn timeouts_are_retried_within_the_per_call_timeout() {
    let policy = fast_policy_with(|p| p.timeout = Duration::from_millis(300));
    let (server, client) = setup(policy);
    server.script(Matcher::Any, [Reply::Fault(Fault::Hang(Duration::from_secs(10))), Reply::text("late but fine")]);
    let t0 = Instant::now();
    let out = client.chat(&ask()).await.expect("second attempt succeeds");
    assert!(t0.elapsed() < Duration::from_secs(3), "took {:?}", t0.elapsed());
    assert_eq!(out.response.text(), "late but fine");
    let first = &out.attempts[0];
    assert_eq!(first.status, None);
    assert_eq!(first.error.as_deref(), Some("timed out after 0.3 s"));
    assert!(first.latency_ms >= 290.0, "{first:?}");
}

#[tokio::test]
async fn random_faults_at_30_percent_never_retry_without_bound() {
    let faults = anser_llm::mock::FaultInjection::transient(0.3, 42);
    let config = MockConfig::instant().with_faults(Some(faults)).expect("valid mock config");
    let (server, client) = setup_with(config, fast_policy_with(|p| p.max_attempts = 3), "");
    let (mut ok, mut failed) = (0, 0);
    for i in 0..40 {
        match client.chat(&ChatRequest::new(vec![Message::user(format!("q{i}"))])).await {
            Ok(out) => {
                ok += 1;
                assert!(out.attempts.len() <= 3);
            }
            Err(e) => {
                failed += 1;
                assert_eq!(e.attempts().len(), 3, "{e}");
            }
        }
    }
    let reqs = server.requests();
    let faulted = reqs.iter().filter(|r| r.fault.is_some()).count();
    assert_eq!(ok + failed, 40);
    assert!(reqs.len() <= 40 * 3, "{} requests", reqs.len());
    // 30% of the requests, give or take sampling noise of a seeded generator.
    let rate = faulted as f64 / reqs.len() as f64;
    assert!((0.15..=0.45).contains(&rate), "fault rate {rate}");
    assert!(ok >= 36, "with 3 attempts almost every call succeeds: {ok} ok, {failed} failed");
}
