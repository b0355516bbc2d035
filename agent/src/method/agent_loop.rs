//! `agent`: an LLM drives the tools (schema, sql, compute, search, open, answer) through OpenAI
//! tool calling until it submits an answer that validates, or a budget runs out and it is asked
//! for its final answer without tools.
//!
//! Budgets: steps (model turns), total tokens of the task, and the per-task deadline (the final
//! answer is forced when less than [`AgentParams::force_fraction`] of it remains). A malformed
//! tool call is answered with an error message the model can act on, never a crash, and the
//! conversation sent back carries `{}` as that call's arguments instead of the broken text:
//! strict servers (llama.cpp's `llama-server`) parse every earlier tool call and reject the whole
//! request otherwise. Every step is a trace event with its latency and tokens, by stage.
//!
//! Honest status: the task's `errors` keep every failed tool call in order, whatever the final
//! status; an `answer` whose value is missing, empty or fails the task's contract is rejected
//! (the model may resubmit) and never recorded as `ok`; a task that ends `unparseable` or
//! `empty_response` says why in its `errors`.

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use anser_llm::{ChatRequest, Client, Message, Tool, ToolCall, ToolChoice, Usage};
use anser_manifest::{CorpusFormat, Manifest, PublicTask};
use futures_util::{FutureExt, future::BoxFuture};
use serde_json::{Value, json};

use super::{
    SchemaCache, Solved, Solver, ToolEnv, add_usage,
    output::{AnswerContract, extract_answer},
    search::Searcher,
};
use crate::{
    Error, Result,
    tools::{
        answer::check_final,
        compute::{ComputeRequest, Table, compute},
        sql::{GuardedDb, SqlParams, SqlResult},
    },
    trace::{GenerationStatus, Stage, TaskTrace},
};

/// Default number of model turns per task.
pub const DEFAULT_MAX_STEPS: usize = 12;
/// Default token budget of one task (all its calls).
pub const DEFAULT_MAX_TASK_TOKENS: u64 = 200_000;
/// Default number of SQL rows shown to the model per result (all rows stay usable by reference).
pub const DEFAULT_ROWS_SHOWN: usize = 30;
/// Default maximum characters of one tool message.
pub const DEFAULT_TOOL_MESSAGE_CHARS: usize = 12_000;
/// Force the final answer when less than this fraction of the deadline remains.
pub const DEFAULT_FORCE_FRACTION: f64 = 0.15;
/// Default number of search hits returned to the model.
pub const DEFAULT_SEARCH_K: usize = 8;

/// Default output-token cap per model call.
pub const DEFAULT_MAX_TOKENS_PER_CALL: u32 = 8192;
/// Default sampling temperature (greedy).
pub const DEFAULT_TEMPERATURE: f64 = 0.0;
/// Fewest characters a tool message may be limited to: the truncation note alone takes ~160.
pub const MIN_TOOL_MESSAGE_CHARS: usize = 200;

/// Budgets and limits of the agent, valid by construction: built from an [`AgentParamsBuilder`]
/// (ranges on its fields' docs); read through the getters.
#[derive(Debug, Clone, Default)]
pub struct AgentParams(AgentParamsBuilder);

/// The unchecked budgets and limits of the agent; [`AgentParamsBuilder::build`] checks them.
#[derive(Debug, Clone)]
pub struct AgentParamsBuilder {
    /// Model turns per task (≥ 1; `--max-steps`).
    pub max_steps: usize,
    /// Token budget of one task, all its calls (`--max-task-tokens`).
    pub max_task_tokens: u64,
    /// Output-token cap per call (`--max-tokens`).
    pub max_tokens_per_call: u32,
    /// Sampling temperature (`--temperature`).
    pub temperature: f64,
    /// SQL rows shown to the model per result (≥ 1).
    pub rows_shown: usize,
    /// Most characters of one tool message (≥ [`MIN_TOOL_MESSAGE_CHARS`]).
    pub tool_message_chars: usize,
    /// Force the final answer when less than this fraction of the deadline remains, in [0, 1).
    pub force_fraction: f64,
    /// The per-task deadline (`--deadline`); `None`: no time budget.
    pub deadline: Option<Duration>,
    /// Limits of the SQL tool (valid by construction).
    pub sql: SqlParams,
}

impl Default for AgentParamsBuilder {
    fn default() -> Self {
        AgentParamsBuilder {
            max_steps: DEFAULT_MAX_STEPS,
            max_task_tokens: DEFAULT_MAX_TASK_TOKENS,
            max_tokens_per_call: DEFAULT_MAX_TOKENS_PER_CALL,
            temperature: DEFAULT_TEMPERATURE,
            rows_shown: DEFAULT_ROWS_SHOWN,
            tool_message_chars: DEFAULT_TOOL_MESSAGE_CHARS,
            force_fraction: DEFAULT_FORCE_FRACTION,
            deadline: None,
            sql: SqlParams::default(),
        }
    }
}

impl AgentParamsBuilder {
    /// The parameters, when every field is in its range (the error names the field).
    pub fn build(self) -> Result<AgentParams> {
        if self.max_steps == 0 {
            return Err(Error::Param("--max-steps must be at least 1".into()));
        }
        if self.rows_shown == 0 {
            return Err(Error::Param("rows_shown must be at least 1".into()));
        }
        if self.tool_message_chars < MIN_TOOL_MESSAGE_CHARS {
            return Err(Error::Param(format!(
                "tool_message_chars {} is below {MIN_TOOL_MESSAGE_CHARS}",
                self.tool_message_chars
            )));
        }
        if !(0.0..1.0).contains(&self.force_fraction) {
            return Err(Error::Param(format!("force_fraction {} must be in [0, 1)", self.force_fraction)));
        }
        Ok(AgentParams(self))
    }
}

impl AgentParams {
    /// A builder holding these parameters, to change some of them.
    pub fn to_builder(&self) -> AgentParamsBuilder {
        self.0.clone()
    }

    /// Model turns per task.
    pub fn max_steps(&self) -> usize {
        self.0.max_steps
    }

    /// Token budget of one task.
    pub fn max_task_tokens(&self) -> u64 {
        self.0.max_task_tokens
    }

    /// Output-token cap per call.
    pub fn max_tokens_per_call(&self) -> u32 {
        self.0.max_tokens_per_call
    }

    pub fn temperature(&self) -> f64 {
        self.0.temperature
    }

    /// SQL rows shown to the model per result.
    pub fn rows_shown(&self) -> usize {
        self.0.rows_shown
    }

    /// Most characters of one tool message.
    pub fn tool_message_chars(&self) -> usize {
        self.0.tool_message_chars
    }

    /// Fraction of the deadline reserved for the forced final answer.
    pub fn force_fraction(&self) -> f64 {
        self.0.force_fraction
    }

    /// The per-task deadline.
    pub fn deadline(&self) -> Option<Duration> {
        self.0.deadline
    }

    /// Limits of the SQL tool.
    pub fn sql(&self) -> SqlParams {
        self.0.sql
    }
}

/// The LLM tool-loop method.
#[derive(Debug)]
pub struct AgentMethod {
    client: Client,
    /// Corpus root, retriever, parameters and the run's `schema` message cache.
    env: ToolEnv,
}

impl AgentMethod {
    pub fn new(
        client: Client,
        corpus_root: PathBuf,
        searcher: Option<Arc<dyn Searcher>>,
        params: AgentParams,
    ) -> Result<AgentMethod> {
        Ok(AgentMethod { client, env: ToolEnv::new(corpus_root, searcher, params) })
    }
}

/// The system prompt of a task (our own words): the tools, the route and the contract.
pub fn system_prompt(task: &PublicTask, has_sql: bool, has_search: bool) -> String {
    let spec = Manifest::get().route(task.route);
    let contract = AnswerContract::of(task);
    let mut s = format!(
        "You are an analytical search agent. You answer one task from one corpus: {} ({}).\n\
         Work in steps with the tools, then call `answer` exactly once with the final answer and the evidence.\n",
        task.route, spec.description
    );
    if has_sql {
        s.push_str(
            "- `schema` lists tables, columns, sample values and the feature dictionary; call it first.\n\
             - `sql` runs one read-only SELECT; results are stored as r1, r2, … and you see the first rows.\n\
             - `compute` runs dataframe operations or association statistics on a stored result.\n",
        );
    }
    if has_search {
        s.push_str("- `search` ranks passages of the corpus for a query; `open` shows one whole record by its id.\n");
    }
    s.push_str(
        "- `answer` submits {answer, evidence} (evidence = identifiers of the records you used; for counts and \
         cohorts the whole population, e.g. via evidence_from = {result, column}). If it is rejected, fix and resubmit.\n",
    );
    s.push_str(match contract {
        AnswerContract::Integer => "The answer is one integer: the number of distinct qualifying records; the evidence is all of them.\n",
        AnswerContract::Relation => "The answer is a JSON object {\"option\": ..., \"value\": {...}} with the statistics the instruction lists; compute them with `compute`; the evidence is the whole cohort.\n",
        AnswerContract::RuleValue => "The answer is a JSON object {\"applied_rule\": ..., \"expected_value\": ...}.\n",
        AnswerContract::Text => "The answer is the short text the instruction asks for.\n",
    });
    s.push_str("Respect every information cutoff the task states: the tools already hide later records.");
    s
}

/// The tools offered for a task (OpenAI function definitions; the MCP server offers the same
/// names and schemas).
pub fn tool_definitions(has_sql: bool, has_search: bool) -> Vec<Tool> {
    let mut out = Vec::new();
    if has_sql {
        out.push(Tool::new(
            "schema",
            "Tables, columns with sample values, and the feature dictionary of this corpus.",
            json!({"type": "object", "properties": {}}),
        ));
        out.push(Tool::new(
            "sql",
            "Run one read-only SELECT/WITH statement on this corpus. Returns columns, the first rows and the row count; the full result is stored as r<N>.",
            json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
        ));
        out.push(Tool::new(
            "compute",
            "Compute over a stored SQL result. request.kind is 'frame' (ops: filter/group/count distinct/rates/rank/change), 'binary_association' (x, y columns; 0/1) or 'continuous_association' (x 0/1, y numeric).",
            json!({"type": "object", "properties": {"input": {"type": "string", "description": "a stored result, e.g. r2"}, "request": {"type": "object"}}, "required": ["input", "request"]}),
        ));
    }
    if has_search {
        out.push(Tool::new(
            "search",
            "Rank passages of this corpus for a query. Returns evidence ids, scores and text snippets.",
            json!({"type": "object", "properties": {"query": {"type": "string"}, "k": {"type": "integer", "minimum": 1, "maximum": 50}}, "required": ["query"]}),
        ));
        out.push(Tool::new(
            "open",
            "The whole record behind one evidence id of this corpus.",
            json!({"type": "object", "properties": {"id": {}}, "required": ["id"]}),
        ));
    }
    out.push(Tool::new(
        "answer",
        "Submit the final answer and its evidence. Evidence: a list of ids, and/or evidence_from = {result: 'r2', column: 'anhao'} to take a whole column of a stored result.",
        json!({"type": "object", "properties": {
            "answer": {},
            "evidence": {"type": "array"},
            "evidence_from": {"type": "object", "properties": {"result": {"type": "string"}, "column": {"type": "string"}}}
        }, "required": ["answer"]}),
    ));
    out
}

/// One task's tools, bound to it: its guarded database (TEMP views at its boundary), its stored
/// SQL results, the retriever (bound to the task on every search), the evidence seen. The
/// built-in agent and the MCP server (`anser-mcp`) both dispatch tool calls through
/// [`ToolBox::execute`], so the guards, boundaries and tool-message limits are one
/// implementation.
#[derive(Debug)]
pub struct ToolBox {
    task: PublicTask,
    corpus_root: PathBuf,
    db: Option<GuardedDb>,
    searcher: Option<Arc<dyn Searcher>>,
    results: Vec<SqlResult>,
    params: AgentParams,
    /// Evidence seen through search/open, in order (used when a forced answer names none).
    seen_evidence: Vec<Value>,
    schema_cache: Arc<SchemaCache>,
}

/// A tool message of at most about `limit` bytes that is always valid JSON: a message over the
/// limit is sent as `{"ok", "truncated": true, "total_chars", "partial_json": <its first bytes>}`
/// so the model can tell it was cut (a bare cut would leave it unparseable).
fn shown(v: Value, limit: usize) -> String {
    let s = v.to_string();
    if s.len() <= limit {
        return s;
    }
    let mut cut = limit.saturating_sub(160);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    json!({
        "ok": v.get("ok").and_then(Value::as_bool).unwrap_or(true),
        "truncated": true,
        "total_chars": s.len(),
        "note": "message cut to fit; narrow the query (fewer columns/rows) to see all of it",
        "partial_json": &s[..cut],
    })
    .to_string()
}

/// What executing one tool call produced: a tool message (JSON text; `{"ok":false,...}` for an
/// error the caller can act on), or a validated final answer.
#[derive(Debug, Clone)]
pub enum ToolOutcome {
    Message(String),
    Final { answer: Value, evidence: Vec<Value>, flags: Vec<String> },
}

impl ToolBox {
    /// The tools of `task` (built through [`ToolEnv::toolbox`]): opens its guarded database on a SQLite route (recorded as the
    /// `open_corpus` trace event) with statements bounded by the task's deadline, counted from
    /// `started`.
    pub(super) fn for_task(
        corpus_root: &std::path::Path,
        task: &PublicTask,
        searcher: Option<Arc<dyn Searcher>>,
        params: &AgentParams,
        schema_cache: Arc<SchemaCache>,
        started: Instant,
        trace: &mut TaskTrace,
    ) -> Result<ToolBox> {
        let spec = Manifest::get().route(task.route);
        let db = if spec.format == CorpusFormat::Sqlite {
            let t = Instant::now();
            match GuardedDb::for_task(corpus_root, task, params.sql()) {
                Ok(db) => {
                    // A statement never runs into the time reserved for the forced final answer
                    // (the run loop's timeout cannot fire while a tool call blocks this thread).
                    let reserve = 1.0 - params.force_fraction();
                    db.set_task_deadline(params.deadline().map(|d| started + d.mul_f64(reserve)));
                    trace.record(
                        "open_corpus",
                        Stage::Sql,
                        t,
                        0,
                        json!({"boundary": db.boundary(), "hidden": db.hidden_rules()}),
                        None,
                    );
                    Some(db)
                }
                Err(e) => {
                    trace.record("open_corpus", Stage::Sql, t, 0, json!({}), Some(e.to_string()));
                    return Err(e);
                }
            }
        } else {
            None
        };
        Ok(ToolBox {
            task: task.clone(),
            corpus_root: corpus_root.to_path_buf(),
            db,
            searcher,
            results: Vec::new(),
            params: params.clone(),
            seen_evidence: Vec::new(),
            schema_cache,
        })
    }

    /// Whether the task's route is SQLite (`schema`, `sql`, `compute` are offered).
    pub fn has_sql(&self) -> bool {
        self.db.is_some()
    }

    /// Whether a retriever is configured (`search`, `open` are offered).
    pub fn has_search(&self) -> bool {
        self.searcher.is_some()
    }

    /// The task these tools are bound to.
    pub fn task(&self) -> &PublicTask {
        &self.task
    }

    fn shown(&self, v: Value) -> String {
        shown(v, self.params.tool_message_chars())
    }

    fn result_ref(&self, name: &str) -> Result<&SqlResult> {
        let index: usize =
            name.trim().trim_start_matches('r').parse().map_err(|_| {
                Error::Param(format!("{name:?} is not a stored result; use r1 … r{}", self.results.len()))
            })?;
        self.results
            .get(index.wrapping_sub(1))
            .ok_or_else(|| Error::Param(format!("no stored result {name}; there are {}", self.results.len())))
    }

    /// Execute one tool call synchronously (SQL, compute and retrieval block). Tool names are
    /// those [`tool_definitions`] offers; `answer` validates against the task's contract.
    pub fn execute(&mut self, call: &ToolCall, trace: &mut TaskTrace) -> ToolOutcome {
        let started = Instant::now();
        // Some servers send "" for a call without arguments (e.g. `schema`): that means `{}`.
        let parsed = if call.arguments.trim().is_empty() { Ok(json!({})) } else { call.arguments_json() };
        let args = match parsed {
            Ok(Value::Object(m)) => Value::Object(m),
            Ok(Value::Null) => json!({}),
            Ok(other) => {
                return self.fail(call, trace, started, format!("arguments must be a JSON object, got {other}"));
            }
            Err(e) => {
                return self.fail(call, trace, started, format!("arguments are not valid JSON ({e}); resend the call"));
            }
        };
        let (stage, outcome) = match call.name.as_str() {
            "schema" => (Stage::Sql, self.schema()),
            "sql" => (Stage::Sql, self.sql(&args)),
            "compute" => (Stage::Compute, self.compute(&args)),
            "search" => (Stage::Retrieval, self.search(&args)),
            "open" => (Stage::Retrieval, self.open(&args)),
            "answer" => (Stage::Task, self.answer(&args)),
            other => (Stage::Task, Err(Error::Param(format!("unknown tool {other:?}; use one of the tools offered")))),
        };
        match outcome {
            Ok(o) => {
                let size = match &o {
                    ToolOutcome::Message(m) => m.len(),
                    ToolOutcome::Final { evidence, .. } => evidence.len(),
                };
                trace.record(
                    "tool_call",
                    stage,
                    started,
                    0,
                    json!({"tool": call.name, "arguments": args, "result_chars": size}),
                    None,
                );
                o
            }
            Err(e) => {
                let message = e.to_string();
                trace.record(
                    "tool_call",
                    stage,
                    started,
                    0,
                    json!({"tool": call.name, "arguments": args}),
                    Some(message.clone()),
                );
                ToolOutcome::Message(json!({"ok": false, "error": message}).to_string())
            }
        }
    }

    fn fail(&self, call: &ToolCall, trace: &mut TaskTrace, started: Instant, message: String) -> ToolOutcome {
        trace.record(
            "tool_call",
            Stage::Task,
            started,
            0,
            json!({"tool": call.name, "raw_arguments": call.arguments}),
            Some(message.clone()),
        );
        ToolOutcome::Message(json!({"ok": false, "error": message}).to_string())
    }

    fn db(&self) -> Result<&GuardedDb> {
        self.db.as_ref().ok_or(Error::NotSqlite(self.task.route))
    }

    fn schema(&self) -> Result<ToolOutcome> {
        let db = self.db()?;
        let key = format!("{}|{:?}", db.route(), db.boundary());
        let cached = self.schema_cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&key).cloned();
        if let Some(message) = cached {
            return Ok(ToolOutcome::Message(message));
        }
        let mut report = serde_json::to_value(db.schema(3)?).map_err(|e| Error::Internal(e.to_string()))?;
        if let Value::Object(m) = &mut report {
            m.insert("ok".into(), Value::Bool(true));
        }
        let message = self.shown(report);
        self.schema_cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key, message.clone());
        Ok(ToolOutcome::Message(message))
    }

    fn sql(&mut self, args: &Value) -> Result<ToolOutcome> {
        let query =
            args["query"].as_str().ok_or_else(|| Error::Param("sql needs {\"query\": \"SELECT ...\"}".into()))?;
        let result = self.db()?.query(query)?;
        let name = format!("r{}", self.results.len() + 1);
        let rows: Vec<&Vec<Value>> = result.rows.iter().take(self.params.rows_shown()).collect();
        let message = json!({
            "ok": true, "stored_as": name, "columns": result.columns, "row_count": result.row_count,
            "truncated": result.truncated, "rows_shown": rows.len(), "rows": rows, "boundary": result.boundary,
        });
        self.results.push(result);
        Ok(ToolOutcome::Message(self.shown(message)))
    }

    fn compute(&self, args: &Value) -> Result<ToolOutcome> {
        let input = args["input"].as_str().ok_or_else(|| Error::Param("compute needs \"input\": \"r<N>\"".into()))?;
        let request: ComputeRequest = serde_json::from_value(args["request"].clone())
            .map_err(|e| Error::Param(format!("compute request: {e}")))?;
        let stored = self.result_ref(input)?;
        let table = Table { columns: stored.columns.clone(), rows: stored.rows.clone() };
        let out = compute(&table, &request, self.task.group.language)?;
        Ok(ToolOutcome::Message(self.shown(json!({"ok": true, "result": out}))))
    }

    fn search(&mut self, args: &Value) -> Result<ToolOutcome> {
        let searcher =
            self.searcher.clone().ok_or_else(|| Error::Param("no retriever is configured for this run".into()))?;
        let query = args["query"].as_str().ok_or_else(|| Error::Param("search needs {\"query\": ...}".into()))?;
        let k = args["k"].as_u64().map_or(DEFAULT_SEARCH_K, |k| k.clamp(1, 50) as usize);
        let hits = searcher.search(&self.task, query, k).map_err(Error::Internal)?;
        let shown: Vec<Value> = hits
            .iter()
            .map(|h| json!({"evidence": h.evidence, "score": h.score, "text": h.text.chars().take(600).collect::<String>()}))
            .collect();
        for h in hits {
            if !self.seen_evidence.contains(&h.evidence) {
                self.seen_evidence.push(h.evidence);
            }
        }
        let mut message = json!({"ok": true, "hits": shown});
        if crate::tools::boundary::is_dated(self.task.route)
            && let Some(b) = crate::tools::boundary::Boundary::from_task(&self.task)?
        {
            message["boundary"] = serde_json::to_value(&b.cutoff).unwrap_or(Value::Null);
        }
        Ok(ToolOutcome::Message(self.shown(message)))
    }

    fn open(&self, args: &Value) -> Result<ToolOutcome> {
        let id = crate::method::record::id_text(&args["id"])
            .ok_or_else(|| Error::Param("open needs {\"id\": <evidence id>}".into()))?;
        match crate::method::record::open_record(&self.corpus_root, &self.task, self.db.as_ref(), &id)? {
            Some(record) => Ok(ToolOutcome::Message(self.shown(json!({"ok": true, "record": record})))),
            None => Err(Error::Param(format!("no record {id} in route {}", self.task.route))),
        }
    }

    fn answer(&self, args: &Value) -> Result<ToolOutcome> {
        let answer = args.get("answer").cloned().ok_or_else(|| Error::Answer("`answer` is required".into()))?;
        if is_empty_answer(&answer) {
            return Err(Error::Answer(format!("the answer is empty ({answer}); submit the answer itself")));
        }
        let mut evidence: Vec<Value> = args["evidence"].as_array().cloned().unwrap_or_default();
        if let Some(from) = args.get("evidence_from").filter(|v| v.is_object()) {
            let stored = self.result_ref(from["result"].as_str().unwrap_or_default())?;
            let column = from["column"].as_str().unwrap_or_default();
            let idx = stored.columns.iter().position(|c| c == column).ok_or_else(|| {
                Error::Param(format!("result has no column {column:?}; columns: {}", stored.columns.join(", ")))
            })?;
            if stored.truncated {
                return Err(Error::Param(format!(
                    "result {} was truncated at {} rows; select only the id column so the whole population fits",
                    from["result"], stored.row_count
                )));
            }
            evidence.extend(stored.rows.iter().filter_map(|r| r.get(idx).cloned()).filter(|v| !v.is_null()));
        }
        let check = check_final(&self.task, &answer, &evidence, self.db.as_ref())?;
        let mut flags = Vec::new();
        if check.consistency.count_matches_evidence == Some(false) {
            flags.push("count_differs_from_evidence".to_string());
        }
        if check.consistency.n_matches_evidence == Some(false) {
            flags.push("n_differs_from_evidence".to_string());
        }
        if check.consistency.evidence_empty {
            flags.push("empty_evidence".to_string());
        }
        if !check.evidence.unknown.is_empty() {
            flags.push(format!("unknown_evidence_ids:{}", check.evidence.unknown.len()));
        }
        let answer = if check.answer.parsed.is_object() {
            check.answer.parsed.clone()
        } else {
            Value::String(check.answer.answer.clone())
        };
        Ok(ToolOutcome::Final { answer, evidence: check.evidence.items, flags })
    }
}

impl AgentMethod {
    async fn solve_task(&self, task: &PublicTask, trace: &mut TaskTrace) -> Solved {
        let started = Instant::now();
        let mut state = match self.env.toolbox(task, started, trace) {
            Ok(state) => state,
            Err(e) => return Solved::failed(GenerationStatus::ToolError, Vec::new(), e.to_string(), None),
        };
        let (has_sql, has_search) = (state.has_sql(), state.has_search());
        let tool_defs = tool_definitions(has_sql, has_search);
        let mut messages = vec![
            Message::system(system_prompt(task, has_sql, has_search)),
            Message::user(format!("Task:\n{}\n\nInstruction:\n{}", task.query.trim(), task.instruction.trim())),
        ];
        let mut usage: Option<Usage> = None;
        let mut errors = Vec::new();
        for step in 0..self.env.params().max_steps() {
            if self.out_of_budget(started, usage.as_ref()) {
                trace.note("budget", json!({"step": step, "reason": "forced final answer"}));
                break;
            }
            let request = ChatRequest::new(messages.clone())
                .with_tools(tool_defs.clone(), Some(ToolChoice::Auto))
                .with_temperature(self.env.params().temperature())
                .with_max_tokens(self.env.params().max_tokens_per_call());
            let response = match self.call(&request, step, trace, &mut usage).await {
                Ok(r) => r,
                Err(e) => return failed_after(errors, GenerationStatus::RequestError, state.seen_evidence, e, usage),
            };
            messages.push(history_message(&response));
            if response.tool_calls.is_empty() {
                // A plain reply is taken as the final answer (the model skipped the answer tool).
                return self.final_from_text(task, &state, response.text(), usage, errors);
            }
            for call in &response.tool_calls {
                let outcome = tokio::task::block_in_place(|| state.execute(call, trace));
                match outcome {
                    ToolOutcome::Message(m) => {
                        if m.starts_with("{\"ok\":false") {
                            errors.push(format!(
                                "step {step}: {}: {}",
                                call.name,
                                m.chars().take(300).collect::<String>()
                            ));
                        }
                        messages.push(Message::tool(call.id.clone(), m));
                    }
                    ToolOutcome::Final { answer, evidence, flags } => {
                        return Solved { answer, evidence, status: GenerationStatus::Ok, errors, usage, flags };
                    }
                }
            }
        }
        // Budget exhausted: one last call without tools.
        errors.push("budget exhausted (steps, tokens or time); final answer forced without tools".into());
        messages.push(Message::user(
            "The budget is exhausted. Reply now with one JSON object {\"answer\": ..., \"evidence\": [...]} and nothing else.",
        ));
        let request = ChatRequest::new(messages)
            .with_temperature(self.env.params().temperature())
            .with_max_tokens(self.env.params().max_tokens_per_call());
        match self.call(&request, self.env.params().max_steps(), trace, &mut usage).await {
            Ok(r) => self.final_from_text(task, &state, r.text(), usage, errors),
            Err(e) => failed_after(errors, GenerationStatus::RequestError, state.seen_evidence, e, usage),
        }
    }

    fn out_of_budget(&self, started: Instant, usage: Option<&Usage>) -> bool {
        let params = self.env.params();
        let tokens = usage.is_some_and(|u| u.total_tokens >= params.max_task_tokens());
        let time = params
            .deadline()
            .is_some_and(|d| started.elapsed().as_secs_f64() >= d.as_secs_f64() * (1.0 - params.force_fraction()));
        tokens || time
    }

    async fn call(
        &self,
        request: &ChatRequest,
        step: usize,
        trace: &mut TaskTrace,
        usage: &mut Option<Usage>,
    ) -> std::result::Result<anser_llm::ChatResponse, String> {
        let t = Instant::now();
        match self.client.chat(request).await {
            Ok(outcome) => {
                let u = outcome.usage;
                *usage = add_usage(usage.take(), &u);
                trace.record(
                    "llm_call",
                    Stage::Llm,
                    t,
                    u.total_tokens,
                    json!({"step": step, "model": outcome.response.model, "prompt_tokens": u.prompt_tokens,
                           "completion_tokens": u.completion_tokens, "estimated": u.estimated,
                           "attempts": outcome.attempts.len(), "cached": outcome.cached,
                           "tool_calls": outcome.response.tool_calls.iter().map(|c| c.name.clone()).collect::<Vec<_>>()}),
                    None,
                );
                Ok(outcome.response)
            }
            Err(e) => {
                let message = e.to_string();
                trace.record(
                    "llm_call",
                    Stage::Llm,
                    t,
                    0,
                    json!({"step": step, "attempts": e.attempts().len()}),
                    Some(message.clone()),
                );
                Err(message)
            }
        }
    }

    /// A final answer from a plain reply: `{"answer", "evidence"}` JSON if present (validated
    /// like the `answer` tool: a rejected one makes the task `unparseable` with the reason), else
    /// the contract's extraction with the evidence seen through search.
    fn final_from_text(
        &self,
        task: &PublicTask,
        state: &ToolBox,
        text: &str,
        usage: Option<Usage>,
        mut errors: Vec<String>,
    ) -> Solved {
        let mut flags = vec!["answer_without_tool".to_string()];
        if let Some(Value::Object(obj)) = extract_json_object(text)
            && let Some(raw) = obj.get("answer").cloned()
        {
            match tokio::task::block_in_place(|| state.answer(&Value::Object(obj))) {
                Ok(ToolOutcome::Final { answer, evidence, flags }) => {
                    return Solved { answer, evidence, status: GenerationStatus::Ok, errors, usage, flags };
                }
                Ok(ToolOutcome::Message(_)) => {}
                Err(e) => {
                    errors.push(format!("final reply: answer rejected: {e}"));
                    let answer = match raw {
                        Value::String(s) => Value::String(s),
                        Value::Null => Value::String(String::new()),
                        other => Value::String(other.to_string()),
                    };
                    let status = if is_empty_answer(&answer) {
                        GenerationStatus::EmptyResponse
                    } else {
                        GenerationStatus::Unparseable
                    };
                    if state.seen_evidence.is_empty() {
                        flags.push("empty_evidence".into());
                    }
                    return Solved { answer, evidence: state.seen_evidence.clone(), status, errors, usage, flags };
                }
            }
        }
        let contract = AnswerContract::of(task);
        let extracted = extract_answer(contract, text);
        let status = if extracted.parsed {
            GenerationStatus::Ok
        } else if text.trim().is_empty() {
            errors.push("final reply: the model's reply was empty".into());
            GenerationStatus::EmptyResponse
        } else {
            errors.push(format!(
                "final reply: no {contract:?} answer found in {:?}",
                text.trim().chars().take(200).collect::<String>()
            ));
            GenerationStatus::Unparseable
        };
        if state.seen_evidence.is_empty() {
            flags.push("empty_evidence".into());
        }
        Solved { answer: extracted.answer, evidence: state.seen_evidence.clone(), status, errors, usage, flags }
    }
}

/// The assistant turn as it goes back into the history: a tool call whose arguments are not a
/// JSON object is echoed with `{}` (the tool message answering it carries the error), because
/// strict servers parse the arguments of every earlier call and reject the whole request.
fn history_message(response: &anser_llm::ChatResponse) -> Message {
    let mut message = response.to_message();
    for call in &mut message.tool_calls {
        if call.arguments.trim().is_empty() || !matches!(call.arguments_json(), Ok(Value::Object(_))) {
            call.arguments = "{}".into();
        }
    }
    message
}

/// Whether a submitted answer carries nothing: null, a blank string, an empty object or list.
fn is_empty_answer(answer: &Value) -> bool {
    match answer {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// A failed task that keeps the tool errors met before the failure.
fn failed_after(
    mut errors: Vec<String>,
    status: GenerationStatus,
    evidence: Vec<Value>,
    error: String,
    usage: Option<Usage>,
) -> Solved {
    let mut solved = Solved::failed(status, evidence, error, usage);
    errors.append(&mut solved.errors);
    solved.errors = errors;
    solved
}

fn extract_json_object(text: &str) -> Option<Value> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    serde_json::from_str(text.get(start..=end)?).ok()
}

impl Solver for AgentMethod {
    fn name(&self) -> &str {
        "agent"
    }

    fn solve<'a>(&'a self, task: &'a PublicTask, trace: &'a mut TaskTrace) -> BoxFuture<'a, Solved> {
        self.solve_task(task, trace).boxed()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{AgentParams, AgentParamsBuilder, history_message, is_empty_answer, shown};

    #[test]
    fn agent_params_are_valid_by_construction() {
        let p = AgentParams::default();
        assert_eq!(
            (p.max_steps(), p.max_task_tokens(), p.max_tokens_per_call(), p.rows_shown(), p.tool_message_chars()),
            (12, 200_000, 8192, 30, 12_000)
        );
        assert_eq!((p.temperature(), p.force_fraction(), p.deadline()), (0.0, 0.15, None));
        let b = AgentParamsBuilder::default;
        let built = AgentParamsBuilder { max_steps: 1, force_fraction: 0.0, tool_message_chars: 200, ..b() }
            .build()
            .expect("lower bounds are valid");
        assert_eq!((built.max_steps(), built.force_fraction(), built.tool_message_chars()), (1, 0.0, 200));
        assert_eq!(built.to_builder().build().expect("round trip").max_steps(), 1);
        for (bad, says) in [
            (AgentParamsBuilder { max_steps: 0, ..b() }, "--max-steps must be at least 1"),
            (AgentParamsBuilder { rows_shown: 0, ..b() }, "rows_shown must be at least 1"),
            (AgentParamsBuilder { tool_message_chars: 199, ..b() }, "tool_message_chars 199 is below 200"),
            (AgentParamsBuilder { force_fraction: 1.0, ..b() }, "force_fraction 1 must be in [0, 1)"),
            (AgentParamsBuilder { force_fraction: -0.1, ..b() }, "force_fraction -0.1 must be in [0, 1)"),
            (AgentParamsBuilder { force_fraction: f64::NAN, ..b() }, "force_fraction NaN"),
        ] {
            let msg = bad.build().expect_err("out of range").to_string();
            assert!(msg.contains(says), "{msg}");
        }
    }

    #[test]
    fn history_carries_only_json_object_arguments() {
        let call = |args: &str| anser_llm::ToolCall::new("c", "sql", args);
        let response = anser_llm::ChatResponse {
            id: None,
            model: None,
            content: None,
            reasoning: None,
            tool_calls: vec![call(r#"{"query": "SELECT 1"#), call(""), call("[1]"), call(r#"{"query": "SELECT 2"}"#)],
            finish_reason: Some("tool_calls".into()),
            system_fingerprint: None,
        };
        let sent: Vec<String> = history_message(&response).tool_calls.into_iter().map(|c| c.arguments).collect();
        assert_eq!(sent, ["{}", "{}", "{}", r#"{"query": "SELECT 2"}"#]);
    }

    #[test]
    fn empty_answers_are_recognised() {
        for empty in [json!(null), json!(""), json!("  \n"), json!({}), json!([])] {
            assert!(is_empty_answer(&empty), "{empty}");
        }
        for given in [json!(0), json!(false), json!("0"), json!({"option": "a"}), json!(["x"])] {
            assert!(!is_empty_answer(&given), "{given}");
        }
    }

    #[test]
    fn long_tool_messages_stay_valid_json() {
        let small = json!({"ok": true, "rows": [[1, "a"]]});
        assert_eq!(shown(small.clone(), 1_000), small.to_string());
        let rows: Vec<Value> = (0..500).map(|i| json!([i, "案件编号很长的一行"])).collect();
        let big = json!({"ok": true, "rows": rows});
        let text = shown(big.clone(), 1_000);
        let parsed: Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(parsed["truncated"], true);
        assert_eq!(parsed["ok"], true);
        assert_eq!(parsed["total_chars"], big.to_string().len());
        let partial = parsed["partial_json"].as_str().expect("partial");
        assert!(big.to_string().starts_with(partial) && partial.len() <= 840, "{}", partial.len());
    }
}
