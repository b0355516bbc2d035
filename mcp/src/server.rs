//! One MCP session: the tools an external agent calls.
//!
//! `list_tasks` and `next_task` (public fields only: id, type, query, instruction) are free; the
//! other tools are bound to the task the session holds and dispatched through
//! [`ToolBox::execute`] — the built-in agent's dispatch, so an MCP client meets the same SQL
//! guard (read-only, ground-truth and post-cutoff rows hidden by TEMP views), the same
//! retriever binding ([`anser_retriever::Retriever::bind`] inside the searcher) and the same
//! tool-message limits. A session holds one task at a time; its task latency runs from
//! `next_task` to the accepted `submit_answer`. Every call is a trace event with its latency.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anser_agent::{
    method::{Solved, ToolBox, ToolOutcome, add_usage, tool_definitions},
    run::{GenerationStatus, Stage, TaskTrace, finish_task, start_trace},
};
use anser_llm::ToolCall;
use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
};
use serde_json::{Value, json};

use crate::{
    SERVER_NAME, SERVER_VERSION,
    coordinator::{Claim, Coordinator, METHOD},
    usage,
};

/// The tools bound to the held task, by the names the built-in agent uses.
const TASK_TOOLS: [&str; 5] = ["schema", "sql", "compute", "search", "open"];

/// One client connection's handler (cheap to clone; clones share the held task).
#[derive(Debug, Clone)]
pub struct McpSession {
    coordinator: Arc<Coordinator>,
    current: Arc<tokio::sync::Mutex<Option<Current>>>,
    calls: Arc<AtomicUsize>,
}

/// The task a session holds.
#[derive(Debug)]
struct Current {
    claim: Claim,
    tools: ToolBox,
    trace: TaskTrace,
    started: Instant,
    errors: Vec<String>,
}

impl McpSession {
    pub fn new(coordinator: Arc<Coordinator>) -> McpSession {
        McpSession { coordinator, current: Arc::default(), calls: Arc::default() }
    }

    /// Answer one tool call: `Ok(text)` for a result, `Err(text)` for an error the caller can act
    /// on (sent as an MCP tool error).
    pub async fn call(&self, name: &str, args: Value) -> Result<String, String> {
        match name {
            "list_tasks" => Ok(self.coordinator.list().to_string()),
            "next_task" => self.next_task().await,
            "submit_answer" => self.submit(args).await,
            tool if TASK_TOOLS.contains(&tool) => self.task_tool(tool, args).await,
            other => Err(json!({"ok": false, "error": format!("unknown tool {other:?}; call tools/list")}).to_string()),
        }
    }

    async fn next_task(&self) -> Result<String, String> {
        let mut current = self.current.lock().await;
        if let Some(held) = current.as_ref() {
            return Err(error(format!(
                "this session holds task {}; submit_answer for it before asking for the next one",
                held.claim.task.id
            )));
        }
        let Some(claim) = self.coordinator.claim_next() else {
            // None left: an empty result.
            return Ok("{}".into());
        };
        let started = Instant::now();
        let mut trace = start_trace(&claim.task, METHOD);
        let opened = tokio::task::block_in_place(|| self.coordinator.toolbox(&claim.task, started, &mut trace));
        let public = json!({
            "id": claim.task.id, "type": claim.task.task_type,
            "query": claim.task.query, "instruction": claim.task.instruction,
        });
        match opened {
            Ok(tools) => {
                *current = Some(Current { claim, tools, trace, started, errors: Vec::new() });
                Ok(public.to_string())
            }
            Err(e) => {
                // The corpus could not be opened: the task is recorded as a tool error, as
                // `anser run` records it, and the session may ask for the next one.
                let message = e.to_string();
                let solved = Solved::failed(GenerationStatus::ToolError, Vec::new(), message.clone(), None);
                let record = finish_task(&claim.task, METHOD, solved, started.elapsed().as_secs_f64(), &mut trace);
                let id = claim.task.id.clone();
                claim.commit(record, &trace).map_err(|e| error(e.to_string()))?;
                Err(error(format!("task {id} could not be opened and was recorded as tool_error: {message}")))
            }
        }
    }

    async fn task_tool(&self, tool: &str, args: Value) -> Result<String, String> {
        let mut guard = self.current.lock().await;
        let current = guard.as_mut().ok_or_else(|| error("no task held: call next_task first".into()))?;
        match self.execute(current, tool, &args) {
            ToolOutcome::Message(m) if m.starts_with("{\"ok\":false") => {
                current.errors.push(format!("{tool}: {}", m.chars().take(300).collect::<String>()));
                Err(m)
            }
            ToolOutcome::Message(m) => Ok(m),
            ToolOutcome::Final { .. } => Err(error("use submit_answer to submit".into())),
        }
    }

    fn execute(&self, current: &mut Current, tool: &str, args: &Value) -> ToolOutcome {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let call = ToolCall::new(format!("mcp-{n}"), tool, args.to_string());
        tokio::task::block_in_place(|| current.tools.execute(&call, &mut current.trace))
    }

    async fn submit(&self, args: Value) -> Result<String, String> {
        let mut guard = self.current.lock().await;
        let current = guard.as_mut().ok_or_else(|| error("no task held: call next_task first".into()))?;
        let answer_args = answer_arguments(args);
        let (answer, evidence, flags) = match self.execute(current, "answer", &answer_args) {
            ToolOutcome::Final { answer, evidence, flags } => (answer, evidence, flags),
            ToolOutcome::Message(m) => {
                current.errors.push(format!("submit_answer: {}", m.chars().take(300).collect::<String>()));
                return Err(m);
            }
        };
        let Some(mut held) = guard.take() else {
            return Err(error("no task held: call next_task first".into()));
        };
        let usage = fold_proxy_usage(self.coordinator.run_dir(), &held.claim.task.id, &mut held.trace)
            .map_err(|e| error(e.to_string()))?;
        let latency = held.started.elapsed();
        let evidence_count = evidence.len();
        let solved = match self.coordinator.params().deadline() {
            Some(limit) if latency > limit => {
                let mut s = Solved::failed(
                    GenerationStatus::Timeout,
                    Vec::new(),
                    format!("deadline of {:.1} s exceeded", limit.as_secs_f64()),
                    usage,
                );
                held.errors.append(&mut s.errors);
                s.errors = held.errors;
                s
            }
            _ => Solved { answer, evidence, status: GenerationStatus::Ok, errors: held.errors, usage, flags },
        };
        let status = solved.status;
        let flags = solved.flags.clone();
        let id = held.claim.task.id.clone();
        let record = finish_task(&held.claim.task, METHOD, solved, latency.as_secs_f64(), &mut held.trace);
        let latency = record.latency;
        held.claim.commit(record, &held.trace).map_err(|e| error(e.to_string()))?;
        Ok(json!({"ok": true, "task_id": id, "status": status, "evidence": evidence_count, "flags": flags,
                  "latency": latency})
        .to_string())
    }
}

/// `submit_answer`'s arguments in the built-in `answer` tool's names: `retrieved_evidence` (the
/// results-file name) is the `evidence` list.
fn answer_arguments(args: Value) -> Value {
    let Value::Object(mut m) = args else { return args };
    if let Some(e) = m.remove("retrieved_evidence") {
        m.insert("evidence".into(), e);
    }
    Value::Object(m)
}

/// Add the proxy's calls for `task_id` to the trace (`llm_call`, stage `llm`) and sum them.
fn fold_proxy_usage(
    run_dir: &std::path::Path,
    task_id: &str,
    trace: &mut TaskTrace,
) -> crate::Result<Option<anser_llm::Usage>> {
    let mut sum = None;
    for line in usage::read_task(run_dir, task_id)? {
        let started =
            Instant::now().checked_sub(Duration::from_secs_f64(line.seconds.max(0.0))).unwrap_or_else(Instant::now);
        let failed =
            (line.status == 0 || line.status >= 400).then(|| format!("upstream answered HTTP {}", line.status));
        trace.record(
            "llm_call",
            Stage::Llm,
            started,
            line.total_tokens,
            json!({"via": "proxy", "endpoint": line.endpoint, "model": line.model, "prompt_tokens": line.prompt_tokens,
                   "completion_tokens": line.completion_tokens, "estimated": line.estimated, "stream": line.stream,
                   "status": line.status, "proxy_ts": line.ts}),
            failed,
        );
        sum = add_usage(sum, &line.usage());
    }
    Ok(sum)
}

fn error(message: String) -> String {
    json!({"ok": false, "error": message}).to_string()
}

/// The tools offered over MCP: the built-in agent's definitions (its `answer` as
/// `submit_answer`, evidence named `retrieved_evidence`), after `list_tasks` and `next_task`.
pub fn mcp_tools() -> Vec<Tool> {
    let object = |v: Value| -> Arc<JsonObject> {
        match v {
            Value::Object(m) => Arc::new(m),
            _ => Arc::new(JsonObject::new()),
        }
    };
    let mut tools = vec![
        Tool::new(
            "list_tasks",
            "Every task of this run: id, type and state (pending, in_progress, done).",
            object(json!({"type": "object", "properties": {}})),
        ),
        Tool::new(
            "next_task",
            "Take the next unfinished task: its id, type, query and instruction as JSON ({} when none is left). The other tools work on this task until submit_answer accepts an answer.",
            object(json!({"type": "object", "properties": {}})),
        ),
    ];
    for t in tool_definitions(true, true) {
        if t.name == "answer" {
            tools.push(Tool::new(
                "submit_answer",
                "Submit the held task's final answer and its evidence: retrieved_evidence = identifiers of the records used, and/or evidence_from = {result: 'r2', column: 'id'} to take a whole column of a stored SQL result (for counts and cohorts). Checked against the task's answer contract; if rejected, fix and resubmit.",
                object(json!({"type": "object", "properties": {
                    "answer": {},
                    "retrieved_evidence": {"type": "array"},
                    "evidence_from": {"type": "object", "properties": {"result": {"type": "string"}, "column": {"type": "string"}}}
                }, "required": ["answer"]})),
            ));
        } else {
            tools.push(Tool::new(t.name, t.description, object(t.parameters)));
        }
    }
    tools
}

impl ServerHandler for McpSession {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(SERVER_NAME, SERVER_VERSION))
            .with_instructions(
                "ANSER-Bench tools. Call next_task, work on it with schema/sql/compute/search/open, then submit_answer; repeat until next_task returns {}.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(mcp_tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.map(Value::Object).unwrap_or_else(|| json!({}));
        // Over HTTP, a request without a session (the stateless 2026-07-28 revision) gets a fresh
        // handler: it could take a task but never work on it. Say how to connect instead.
        let stateless = context
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some_and(|parts| !parts.headers.contains_key("mcp-session-id"));
        let outcome = if stateless && request.name != "list_tasks" {
            Err(error(
                "this server holds one task per MCP session: connect with a session (an `initialize` handshake, protocol 2025-11-25 or earlier)".into(),
            ))
        } else {
            self.call(&request.name, args).await
        };
        let result = match outcome {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
        };
        Ok(result.into())
    }
}

/// Serve one session over stdin/stdout until the client closes it.
pub async fn serve_stdio(coordinator: Arc<Coordinator>) -> crate::Result<()> {
    use rmcp::ServiceExt;
    let service = McpSession::new(coordinator)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| crate::Error::Internal(format!("MCP session could not start: {e}")))?;
    service.waiting().await.map_err(|e| crate::Error::Internal(format!("MCP session failed: {e}")))?;
    Ok(())
}
