use anser_llm::mock::{Matcher, MockConfig, Reply};
use anser_llm::{ChatRequest, Error, Message, ResponseFormat, Role, Tool, ToolChoice, Usage, estimate_tokens};
use serde_json::json;

use crate::{fast_policy, fast_policy_with, setup, setup_with};

#[tokio::test]
async fn request_fields_reach_the_server_and_reported_usage_is_used() {
    let (server, client) = setup(fast_policy());
    let req = ChatRequest::new(vec![
        Message::system("You are terse."),
        Message::user("How many cases? Answer with an integer."),
    ])
    .with_temperature(0.0)
    .with_max_tokens(64)
    .with_response_format(ResponseFormat::JsonObject)
    .with_extra("reasoning_effort", json!("low"));
    let out = client.chat(&req).await.expect("chat");
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.body, req.body("test-model").expect("body"));
    assert_eq!(sent.body["reasoning_effort"], "low");
    assert_eq!(sent.body["response_format"], json!({"type": "json_object"}));
    // Unscripted JSON-mode reply is a JSON object.
    let reply: serde_json::Value = serde_json::from_str(out.response.text()).expect("JSON reply");
    assert!(reply["answer"].is_string());
    assert!(!out.usage.estimated);
    let prompt = estimate_tokens("You are terse.") + estimate_tokens("How many cases? Answer with an integer.");
    assert_eq!(out.usage.prompt_tokens, prompt, "the mock reports its own estimate per message");
    assert_eq!(out.usage.total_tokens, out.usage.prompt_tokens + out.usage.completion_tokens);
    assert_eq!(out.response.model.as_deref(), Some("test-model"));
    assert!(!out.cached);
    assert_eq!(out.attempts.len(), 1);
}

#[tokio::test]
async fn usage_is_estimated_when_the_server_reports_none() {
    let config = MockConfig::instant().with_report_usage(false);
    let (server, client) = setup_with(config, fast_policy(), "");
    server.script(Matcher::Any, [Reply::text("答案是 42")]);
    let req = ChatRequest::new(vec![Message::user("机器学习 is fun")]);
    let out = client.chat(&req).await.expect("chat");
    // Prompt text is "机器学习 is fun\n": 4 CJK + 8 others -> 4 + 2 = 6.
    // Completion "答案是 42": 3 CJK + 3 others -> 3 + 1 = 4.
    assert_eq!(
        out.usage,
        Usage { prompt_tokens: 6, completion_tokens: 4, total_tokens: 10, reasoning_tokens: None, estimated: true }
    );
}

#[tokio::test]
async fn tool_calls_round_trip() {
    let (server, client) = setup(fast_policy());
    server.script(Matcher::ToolResultContains("Paris".into()), [Reply::text("The capital is Paris.")]);
    server.script(
        Matcher::UserContains("capital".into()),
        [Reply::tool_call("call_1", "sql", json!({"query": "SELECT capital FROM countries WHERE name = 'France'"}))],
    );
    let tools = vec![Tool::new(
        "sql",
        "Run a read-only SQL query",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    )];
    let mut req = ChatRequest::new(vec![Message::user("What is the capital of France?")])
        .with_tools(tools, Some(ToolChoice::Auto));
    let first = client.chat(&req).await.expect("tool call");
    assert_eq!(first.response.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(first.response.content, None);
    let call = &first.response.tool_calls[0];
    assert_eq!((call.id.as_str(), call.name.as_str()), ("call_1", "sql"));
    assert_eq!(
        call.arguments_json().expect("JSON arguments")["query"],
        "SELECT capital FROM countries WHERE name = 'France'"
    );

    req.messages.push(first.response.to_message());
    req.messages.push(Message::tool(&call.id, "Paris"));
    let second = client.chat(&req).await.expect("final answer");
    assert_eq!(second.response.text(), "The capital is Paris.");

    let sent = &server.requests()[1].body;
    assert_eq!(sent["tools"][0]["function"]["name"], "sql");
    assert_eq!(sent["tool_choice"], "auto");
    assert_eq!(sent["messages"][1]["tool_calls"][0]["function"]["name"], "sql");
    assert_eq!(sent["messages"][1]["content"], serde_json::Value::Null);
    assert_eq!(sent["messages"][2], json!({"role": "tool", "content": "Paris", "tool_call_id": "call_1"}));
    assert_eq!(req.messages[1].role, Role::Assistant);
}

#[tokio::test]
async fn malformed_bodies_give_clear_errors() {
    let (server, client) = setup(fast_policy_with(|p| p.max_attempts = 2));
    let ask = ChatRequest::new(vec![Message::user("q")]);

    server.script(Matcher::Any, [Reply::Raw { status: 200, body: r#"{"choices": []}"#.into() }]);
    let err = client.chat(&ask).await.expect_err("no choice");
    assert!(matches!(err, Error::Malformed { .. }), "{err:?}");
    assert!(err.to_string().ends_with("returned an unusable response: `choices` is empty"), "{err}");

    server.script(
        Matcher::Any,
        [Reply::Raw { status: 200, body: r#"{"choices": [{"message": {"role": "assistant"}}]}"#.into() }],
    );
    let err = client.chat(&ask).await.expect_err("no content");
    assert!(err.to_string().contains("has neither `content` nor `tool_calls`"), "{err}");

    server.script(Matcher::Any, vec![Reply::Raw { status: 200, body: "<html>oops</html>".into() }; 2]);
    let err = client.chat(&ask).await.expect_err("not JSON twice");
    let msg = err.to_string();
    assert!(
        msg.contains("failed after 2 attempt(s)")
            && msg.contains("response body is not JSON")
            && msg.contains("<html>oops</html>"),
        "{msg}"
    );

    server.script(
        Matcher::Any,
        [Reply::Raw { status: 200, body: r#"{"error": {"message": "model overloaded"}}"#.into() }],
    );
    let err = client.chat(&ask).await.expect_err("error object with 200");
    assert!(err.to_string().contains("model overloaded"), "{err}");
}

#[tokio::test]
async fn invalid_requests_are_rejected_before_sending() {
    let (server, client) = setup(fast_policy());
    let err = client.chat(&ChatRequest::new(vec![])).await.expect_err("empty");
    assert!(err.is_user_error() && err.to_string().contains("at least one message"), "{err}");
    let err = client
        .chat(&ChatRequest::new(vec![Message::user("q")]).with_extra("messages", json!([])))
        .await
        .expect_err("conflict");
    assert!(err.to_string().contains("extra field `messages`"), "{err}");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn one_client_serves_concurrent_calls() {
    let (server, client) = setup(fast_policy());
    let client = std::sync::Arc::new(client);
    let mut tasks = Vec::new();
    for i in 0..16 {
        let c = client.clone();
        tasks.push(tokio::spawn(async move {
            c.chat(&ChatRequest::new(vec![Message::user(format!("question {i}"))])).await
        }));
    }
    for (i, t) in tasks.into_iter().enumerate() {
        let out = t.await.expect("task").expect("chat");
        assert!(out.response.text().contains(&format!("question {i}")), "{}", out.response.text());
    }
    assert_eq!(server.requests().len(), 16);
}

#[test]
fn blocking_client_works_from_synchronous_code() {
    let server = anser_llm::mock::MockServer::start(MockConfig::instant()).expect("mock");
    let client = anser_llm::BlockingClient::new(crate::endpoint(&server, ""), anser_llm::ClientOptions::default())
        .expect("client");
    server.script(Matcher::Any, [Reply::text("sync ok")]);
    let out = client.chat(&ChatRequest::new(vec![Message::user("q")])).expect("chat");
    assert_eq!(out.response.text(), "sync ok");
}
