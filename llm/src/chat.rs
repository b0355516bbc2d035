//! Chat-completions request and response types in the OpenAI wire format (which vLLM, Ollama
//! and OpenAI all accept): messages of the four roles, function tools and tool calls,
//! `response_format`, sampling fields, and free extra body fields such as `reasoning_effort`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::retry::Attempt;
use crate::usage::Usage;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    /// Text; `None` (JSON null) for an assistant turn that only calls tools.
    #[serde(default)]
    pub content: Option<String>,
    /// Tool calls of an assistant turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a `tool` message: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    fn text(role: Role, content: impl Into<String>) -> Self {
        Self { role, content: Some(content.into()), tool_calls: Vec::new(), tool_call_id: None }
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::text(Role::System, content)
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::text(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::text(Role::Assistant, content)
    }

    /// The result of tool call `call_id`.
    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self { tool_call_id: Some(call_id.into()), ..Self::text(Role::Tool, content) }
    }
}

/// A function tool the model may call; `parameters` is a JSON Schema object.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

impl Tool {
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self { name: name.into(), description: description.into(), parameters }
    }

    fn wire(&self) -> Value {
        json!({"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}})
    }
}

/// A call of a function tool by the model. `arguments` is the JSON text the model produced
/// (it may be invalid JSON: see [`ToolCall::arguments_json`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "WireToolCall", into = "WireToolCall")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl ToolCall {
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Self { id: id.into(), name: name.into(), arguments: arguments.into() }
    }

    /// The arguments parsed as JSON (an error names the tool and what is wrong).
    pub fn arguments_json(&self) -> Result<Value> {
        serde_json::from_str(&self.arguments).map_err(|e| {
            Error::InvalidRequest(format!("arguments of tool call `{}` ({}) are not JSON: {e}", self.name, self.id))
        })
    }
}

#[derive(Serialize, Deserialize)]
struct WireToolCall {
    #[serde(default)]
    id: String,
    #[serde(rename = "type", default = "function_type")]
    kind: String,
    function: WireFunction,
}

#[derive(Serialize, Deserialize)]
struct WireFunction {
    name: String,
    #[serde(default, deserialize_with = "arguments_text")]
    arguments: String,
}

fn function_type() -> String {
    "function".into()
}

/// Accepts arguments as a JSON string (OpenAI) or as an object (some servers).
fn arguments_text<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    })
}

impl From<WireToolCall> for ToolCall {
    fn from(w: WireToolCall) -> Self {
        Self { id: w.id, name: w.function.name, arguments: w.function.arguments }
    }
}

impl From<ToolCall> for WireToolCall {
    fn from(c: ToolCall) -> Self {
        Self { id: c.id, kind: function_type(), function: WireFunction { name: c.name, arguments: c.arguments } }
    }
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    Auto,
    None,
    Required,
    /// This function.
    Function(String),
}

impl ToolChoice {
    fn wire(&self) -> Value {
        match self {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Function(name) => json!({"type": "function", "function": {"name": name}}),
        }
    }
}

/// Output format constraint.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseFormat {
    Text,
    /// Any JSON object (`{"type": "json_object"}`).
    JsonObject,
    /// JSON matching `schema` (`{"type": "json_schema", ...}`).
    JsonSchema {
        name: String,
        schema: Value,
        strict: bool,
    },
}

impl ResponseFormat {
    fn wire(&self) -> Value {
        match self {
            ResponseFormat::Text => json!({"type": "text"}),
            ResponseFormat::JsonObject => json!({"type": "json_object"}),
            ResponseFormat::JsonSchema { name, schema, strict } => {
                json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}})
            }
        }
    }
}

/// One chat-completions request. Build with [`ChatRequest::new`] and the `with_*` methods.
///
/// `max_tokens` is sent as `max_tokens` (vLLM, Ollama, older OpenAI models); for OpenAI
/// reasoning models put `max_completion_tokens` in `extra` instead.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    /// Overrides the endpoint's model for this request.
    pub model: Option<String>,
    pub tools: Vec<Tool>,
    pub tool_choice: Option<ToolChoice>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u32>,
    pub seed: Option<u64>,
    pub stop: Vec<String>,
    pub response_format: Option<ResponseFormat>,
    /// Further top-level body fields, e.g. `reasoning_effort`, `chat_template_kwargs`; they
    /// may not repeat a field set above.
    pub extra: Map<String, Value>,
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>) -> Self {
        Self { messages, ..Self::default() }
    }

    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    pub fn with_temperature(mut self, t: f64) -> Self {
        self.temperature = Some(t);
        self
    }

    pub fn with_max_tokens(mut self, n: u32) -> Self {
        self.max_tokens = Some(n);
        self
    }

    pub fn with_tools(mut self, tools: Vec<Tool>, choice: Option<ToolChoice>) -> Self {
        self.tools = tools;
        self.tool_choice = choice;
        self
    }

    pub fn with_response_format(mut self, format: ResponseFormat) -> Self {
        self.response_format = Some(format);
        self
    }

    pub fn with_extra(mut self, key: impl Into<String>, value: Value) -> Self {
        self.extra.insert(key.into(), value);
        self
    }

    /// The JSON body sent to `/chat/completions` for `default_model` (used unless the request
    /// names its own model). Fails on an empty conversation, out-of-range sampling values,
    /// a tool message without a call id, or an extra field that repeats a known one.
    pub fn body(&self, default_model: &str) -> Result<Value> {
        let invalid = |m: String| Err(Error::InvalidRequest(m));
        if self.messages.is_empty() {
            return invalid("a chat request needs at least one message".into());
        }
        for (i, m) in self.messages.iter().enumerate() {
            if m.role == Role::Tool && m.tool_call_id.is_none() {
                return invalid(format!("message {i} has role tool but no tool_call_id"));
            }
        }
        if let Some(t) = self.temperature.filter(|t| !(0.0..=2.0).contains(t)) {
            return invalid(format!("temperature must be in [0, 2], got {t}"));
        }
        if let Some(p) = self.top_p.filter(|p| !(*p > 0.0 && *p <= 1.0)) {
            return invalid(format!("top_p must be in (0, 1], got {p}"));
        }
        if self.max_tokens == Some(0) {
            return invalid("max_tokens must be at least 1".into());
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model.as_deref().unwrap_or(default_model)));
        body.insert(
            "messages".into(),
            serde_json::to_value(&self.messages).map_err(|e| Error::InvalidRequest(e.to_string()))?,
        );
        if !self.tools.is_empty() {
            body.insert("tools".into(), Value::Array(self.tools.iter().map(Tool::wire).collect()));
        }
        if let Some(c) = &self.tool_choice {
            body.insert("tool_choice".into(), c.wire());
        }
        if let Some(t) = self.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(p) = self.top_p {
            body.insert("top_p".into(), json!(p));
        }
        if let Some(n) = self.max_tokens {
            body.insert("max_tokens".into(), json!(n));
        }
        if let Some(s) = self.seed {
            body.insert("seed".into(), json!(s));
        }
        if !self.stop.is_empty() {
            body.insert("stop".into(), json!(self.stop));
        }
        if let Some(f) = &self.response_format {
            body.insert("response_format".into(), f.wire());
        }
        for (k, v) in &self.extra {
            if body.contains_key(k) || k == "stream" {
                return invalid(format!(
                    "extra field `{k}` repeats a field the request sets (or `stream`, which is not supported)"
                ));
            }
            body.insert(k.clone(), v.clone());
        }
        Ok(Value::Object(body))
    }

    /// The text the prompt-token estimate is computed on: every message's content and tool
    /// calls, plus the tool definitions.
    pub fn prompt_text(&self) -> String {
        let mut s = String::new();
        for m in &self.messages {
            s.push_str(m.content.as_deref().unwrap_or_default());
            for c in &m.tool_calls {
                s.push_str(&c.name);
                s.push_str(&c.arguments);
            }
            s.push('\n');
        }
        for t in &self.tools {
            s.push_str(&t.wire().to_string());
        }
        s
    }
}

/// The first choice of a chat-completions response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub id: Option<String>,
    /// The model the server says answered.
    pub model: Option<String>,
    pub content: Option<String>,
    /// Reasoning text (`reasoning_content` or `reasoning`), when the server returns it.
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<String>,
    pub system_fingerprint: Option<String>,
}

impl ChatResponse {
    /// The reply text, empty when the model only called tools.
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or_default()
    }

    /// The assistant message to append to the conversation before sending tool results.
    pub fn to_message(&self) -> Message {
        Message {
            role: Role::Assistant,
            content: self.content.clone(),
            tool_calls: self.tool_calls.clone(),
            tool_call_id: None,
        }
    }

    /// Parses a response body; the error says what is missing.
    pub fn parse(body: &Value) -> std::result::Result<Self, String> {
        if let Some(err) = body.get("error").filter(|e| !e.is_null()) {
            return Err(format!("the body is an error object: {}", crate::error::error_message(err)));
        }
        let choice = body
            .get("choices")
            .and_then(Value::as_array)
            .ok_or("no `choices` array")?
            .first()
            .ok_or("`choices` is empty")?;
        let message = choice.get("message").ok_or("choices[0] has no `message`")?;
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let tool_calls = match message.get("tool_calls") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => Vec::<ToolCall>::deserialize(v).map_err(|e| format!("choices[0].message.tool_calls: {e}"))?,
        };
        let content = text(message.get("content"));
        if content.is_none() && tool_calls.is_empty() && !matches!(message.get("content"), Some(Value::Null)) {
            return Err("choices[0].message has neither `content` nor `tool_calls`".into());
        }
        Ok(Self {
            id: text(body.get("id")),
            model: text(body.get("model")),
            content,
            reasoning: text(message.get("reasoning_content")).or_else(|| text(message.get("reasoning"))),
            tool_calls,
            finish_reason: text(choice.get("finish_reason")),
            system_fingerprint: text(body.get("system_fingerprint")),
        })
    }

    /// The text the completion-token estimate is computed on: content, reasoning, tool calls.
    pub fn completion_text(&self) -> String {
        let mut s = String::new();
        s.push_str(self.text());
        s.push_str(self.reasoning.as_deref().unwrap_or_default());
        for c in &self.tool_calls {
            s.push_str(&c.name);
            s.push_str(&c.arguments);
        }
        s
    }
}

/// A finished chat call: the response, its usage, and how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatOutcome {
    pub response: ChatResponse,
    /// Provider counts, or estimates marked `estimated`.
    pub usage: Usage,
    /// Every HTTP attempt (empty for a cache hit).
    pub attempts: Vec<Attempt>,
    /// Answered from the response cache.
    pub cached: bool,
    /// Content address of the request (see [`crate::ResponseCache::key`]).
    pub cache_key: String,
    /// Wall time of the whole call including retries and waits, milliseconds.
    pub latency_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_has_wire_format_and_rejects_conflicts() {
        let req = ChatRequest::new(vec![Message::system("s"), Message::user("u")])
            .with_temperature(0.0)
            .with_max_tokens(16)
            .with_response_format(ResponseFormat::JsonObject)
            .with_tools(vec![Tool::new("sql", "run SQL", json!({"type": "object"}))], Some(ToolChoice::Auto))
            .with_extra("reasoning_effort", json!("low"));
        let body = req.body("m1").expect("valid");
        assert_eq!(
            body,
            json!({
                "model": "m1",
                "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
                "tools": [{"type": "function", "function": {"name": "sql", "description": "run SQL", "parameters": {"type": "object"}}}],
                "tool_choice": "auto", "temperature": 0.0, "max_tokens": 16,
                "response_format": {"type": "json_object"}, "reasoning_effort": "low"
            })
        );
        assert!(req.clone().with_extra("model", json!("x")).body("m").is_err());
        assert!(ChatRequest::new(vec![]).body("m").is_err());
        assert!(ChatRequest::new(vec![Message::user("u")]).with_temperature(3.0).body("m").is_err());
    }

    #[test]
    fn tool_calls_round_trip_through_the_wire_format() {
        let mut m = Message::assistant("");
        m.content = None;
        m.tool_calls = vec![ToolCall::new("c1", "sql", r#"{"q":"select 1"}"#)];
        let v = serde_json::to_value(&m).expect("serialises");
        assert_eq!(
            v,
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "sql", "arguments": "{\"q\":\"select 1\"}"}}]})
        );
        let back: Message = serde_json::from_value(v).expect("parses");
        assert_eq!(back, m);
        assert_eq!(back.tool_calls[0].arguments_json().expect("json")["q"], "select 1");
    }

    #[test]
    fn parse_reports_what_is_missing() {
        assert_eq!(ChatResponse::parse(&json!({})).expect_err("bad"), "no `choices` array");
        assert_eq!(ChatResponse::parse(&json!({"choices": []})).expect_err("bad"), "`choices` is empty");
        let ok = ChatResponse::parse(&json!({"choices": [{"message": {"role": "assistant", "content": "hi",
            "reasoning_content": "think"}, "finish_reason": "stop"}], "model": "m"}))
        .expect("ok");
        assert_eq!(
            (ok.text(), ok.reasoning.as_deref(), ok.finish_reason.as_deref()),
            ("hi", Some("think"), Some("stop"))
        );
        // Arguments given as an object are kept as JSON text.
        let tc = ChatResponse::parse(&json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"id": "a", "function": {"name": "f", "arguments": {"x": 1}}}]}}]}))
        .expect("ok");
        assert_eq!(tc.tool_calls[0].arguments, r#"{"x":1}"#);
    }
}
