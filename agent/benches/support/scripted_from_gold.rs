//! A mock model SCRIPTED FROM GOLD, for the agent tests and the overhead benchmark: for each task
//! of the generated sample, the tool calls a model that knows the answer (read from the task's
//! `anser_gold::Reference`) would make for the task's group, ending with the `answer` call. Its
//! scores measure the tool loop and the scorer, never a method: nothing here may be reported as
//! a result. Shared by `tests/cli/agent.rs` (which checks the
//! results against the gold) and `agent/benches/overhead.rs` (which times the non-LLM work).
//!
//! - counting (legal descriptive, finance `statistic`): schema → SQL selecting the population →
//!   `answer` with `evidence_from` the SQL result;
//! - legal predictive associations: schema → SQL with one row per cohort case (X, Y) →
//!   `compute` (binary association with the raw odds ratio and Fisher's exact test, or the
//!   cohort size for continuous outcomes) → `answer` with the structured JSON;
//! - finance look-ups (numbers, options, FinAuditing JSON): schema → SQL → (`search` + `open` when
//!   the answer is text) → `answer` with `evidence_from`;
//! - prescriptive and science tasks: `search` → `open` of each record used → `answer` with the
//!   evidence items.
//!
//! The SQL selects the gold ids and the answer is the gold answer: what these scripts exercise is
//! the tool loop, not a model.

use std::collections::BTreeSet;

use anser_agent::tools::answer::{AnswerSpec, answer_spec};
use anser_gold::{Benchmark, Reference};
use anser_llm::{ToolCall, mock::Reply};
use anser_manifest::{Domain, Language, Manifest, PublicTask, Split};
use serde_json::{Value, json};

/// A SQL list of string literals.
pub fn quoted(ids: &[String]) -> String {
    ids.iter().map(|s| format!("'{}'", s.replace('\'', "''"))).collect::<Vec<_>>().join(",")
}

/// The identifier inside a gold evidence item (a scalar or the id key of an object).
pub fn raw_id(item: &Value) -> Option<String> {
    match item {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(m) => {
            ["id", "accession", "cik", "docid", "FACT_id"].iter().find_map(|k| m.get(*k)).and_then(raw_id)
        }
        _ => None,
    }
}

/// The gold evidence items as listed.
pub fn gold_items(reference: &Reference) -> Vec<Value> {
    reference.evidence.as_array().cloned().unwrap_or_default()
}

/// Distinct gold ids in order.
pub fn gold_ids(reference: &Reference) -> Vec<String> {
    let mut seen = BTreeSet::new();
    gold_items(reference).iter().filter_map(raw_id).filter(|id| seen.insert(id.clone())).collect()
}

/// The SQL a model would write to select the records with these ids on the task's route, and
/// the column holding the scorer's identifier; `None` for routes without SQL.
pub fn id_sql(task: &PublicTask, ids: &[String]) -> Option<(String, &'static str)> {
    let kind = Manifest::get().resolve(&task.id, task.group, task.task_type.as_deref()).ok()?.evidence.name.as_str();
    let list = quoted(ids);
    let (sql, column) = match kind {
        "anhao" => (format!("SELECT DISTINCT anhao FROM cases WHERE anhao IN ({list})"), "anhao"),
        "cluster_id" => (format!("SELECT DISTINCT case_id FROM case_record WHERE case_id IN ({list})"), "case_id"),
        "financial_report_zh" => {
            (format!("SELECT report_id FROM reports WHERE report_id IN ({list}) ORDER BY report_id"), "report_id")
        }
        "company_stock_code" => {
            (format!("SELECT DISTINCT stock_code FROM reports WHERE report_id IN ({list})"), "stock_code")
        }
        "financial_report_en" => {
            (format!("SELECT accession, fiscal_year FROM filings WHERE accession IN ({list})"), "accession")
        }
        "company_cik" => (format!("SELECT cik, name FROM companies WHERE CAST(cik AS TEXT) IN ({list})"), "cik"),
        "filing_fact" => {
            (format!("SELECT fact_id, concept, value FROM filing_facts WHERE fact_id IN ({list})"), "fact_id")
        }
        _ => return None,
    };
    Some((sql, column))
}

/// The 2×2 table `[x1y1, x1y0, x0y1, x0y0]` behind a binary gold `value` (its n, outcome rates
/// and odds ratio), or `None` for a continuous outcome. A real model derives X and Y per case
/// from the feature tables; the script rebuilds a table with the gold's counts instead, so the
/// compute tool's statistics can be checked against the generator's.
pub fn cohort_table(value: &Value) -> Option<[u64; 4]> {
    let n = value["n"].as_u64()?;
    let (r1, r0, or) =
        (value["outcome_rate_x1"].as_f64()?, value["outcome_rate_x0"].as_f64()?, value["odds_ratio"].as_f64()?);
    (1..n).find_map(|n1| {
        let n0 = n - n1;
        let a = (r1 * n1 as f64).round() as u64;
        let c = (r0 * n0 as f64).round() as u64;
        let cells = [a, n1.checked_sub(a)?, c, n0.checked_sub(c)?];
        let [fa, fb, fc, fd] = cells.map(|v| v as f64);
        let odds =
            if cells.contains(&0) { (fa + 0.5) * (fd + 0.5) / ((fb + 0.5) * (fc + 0.5)) } else { fa * fd / (fb * fc) };
        // Rounded to six decimals as the sample generator writes the gold values.
        let same = |x: f64, y: f64| (anser_pycompat::round6_scaled(x) - y).abs() < 1e-9;
        (same(fa / n1 as f64, r1) && same(fc / n0 as f64, r0) && same(odds, or)).then_some(cells)
    })
}

/// One row per cohort case with its predictor X and outcome Y, joined to the route's case table
/// so only real cases come back.
pub fn cohort_sql(task: &PublicTask, ids: &[String], [a, b, c, _]: [u64; 4]) -> String {
    let rows: Vec<String> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let i = i as u64;
            let (x, y) = if i < a + b { (1, u8::from(i < a)) } else { (0, u8::from(i - a - b < c)) };
            format!("('{}',{x},{y})", id.replace('\'', "''"))
        })
        .collect();
    let (table, column) =
        if task.group.language == Language::Zh { ("cases", "anhao") } else { ("case_record", "case_id") };
    format!(
        "WITH cohort(id, x, y) AS (VALUES {}) SELECT t.{column} AS {column}, cohort.x AS x, cohort.y AS y \
         FROM cohort JOIN {table} t ON t.{column} = cohort.id",
        rows.join(",")
    )
}

/// Which plan a competent model follows for a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Plan {
    /// Population by SQL, the count as the answer.
    Count,
    /// Cohort by SQL, statistics by compute.
    Association,
    /// Records by SQL (plus search/open for text answers).
    Lookup,
    /// Search and open, then answer with the records used.
    Retrieve,
}

pub fn plan_of(task: &PublicTask) -> Plan {
    let g = task.group;
    match (g.domain, g.split, answer_spec(task)) {
        (Domain::Legal, Split::Descriptive, _) | (_, _, AnswerSpec::Integer) => Plan::Count,
        (Domain::Legal, Split::Predictive, _) => Plan::Association,
        (_, _, AnswerSpec::FinAuditing) => Plan::Lookup,
        (Domain::Finance, Split::Descriptive | Split::Predictive, _) => Plan::Lookup,
        _ => Plan::Retrieve,
    }
}

/// One step calling several tools at once.
pub fn calls(step: usize, calls: Vec<(&str, Value)>) -> Reply {
    Reply::ToolCalls(
        calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, args))| ToolCall::new(format!("s{step}c{i}"), name, args.to_string()))
            .collect(),
    )
}

/// The scripted model turns of one task, and the tools they call in order.
pub fn script_from_gold(task: &PublicTask, reference: &Reference) -> Vec<Reply> {
    let ids = gold_ids(reference);
    let answer = reference.ground_truth.clone();
    let plan = plan_of(task);
    let sql = match plan {
        Plan::Retrieve => None,
        _ => Some(id_sql(task, &ids).unwrap_or_else(|| panic!("{}: no id table for a SQL plan", task.id))),
    };
    let mut steps = Vec::new();
    match (plan, sql) {
        (Plan::Count, Some((sql, column))) | (Plan::Lookup, Some((sql, column))) => {
            steps.push(calls(0, vec![("schema", json!({}))]));
            steps.push(calls(1, vec![("sql", json!({"query": sql}))]));
            if matches!(answer_spec(task), AnswerSpec::Text { .. }) {
                steps.push(calls(2, vec![("search", json!({"query": task.query, "k": 5}))]));
                steps.push(calls(3, vec![("open", json!({"id": ids[0]}))]));
            }
            steps.push(calls(
                9,
                vec![("answer", json!({"answer": answer, "evidence_from": {"result": "r1", "column": column}}))],
            ));
        }
        (Plan::Association, Some((sql, column))) => {
            // Binary outcome: one row per case with X and Y, and the association statistics the
            // instruction asks for (raw odds ratio, two-sided Fisher exact test). Continuous
            // outcome: the cohort size.
            let (sql, request) = match cohort_table(&answer["value"]) {
                Some(cells) => (
                    cohort_sql(task, &ids, cells),
                    json!({"kind": "binary_association", "x": "x", "y": "y", "convention": "raw_fisher"}),
                ),
                None => (
                    sql,
                    json!({"kind": "frame", "ops": [{"op": "group_by", "by": [], "aggs": [{"fn": "count_distinct", "column": column, "as": "n"}]}]}),
                ),
            };
            steps.push(calls(0, vec![("schema", json!({}))]));
            steps.push(calls(1, vec![("sql", json!({"query": sql}))]));
            steps.push(calls(2, vec![("compute", json!({"input": "r1", "request": request}))]));
            steps.push(calls(
                9,
                vec![("answer", json!({"answer": answer, "evidence_from": {"result": "r1", "column": column}}))],
            ));
        }
        _ => {
            steps.push(calls(0, vec![("search", json!({"query": task.query}))]));
            // Law items have no scalar id: `open` takes the {law, item} object itself.
            let mut opened = BTreeSet::new();
            let opens: Vec<(&str, Value)> = gold_items(reference)
                .into_iter()
                .map(|item| raw_id(&item).map_or(item, Value::String))
                .filter(|id| opened.insert(id.to_string()))
                .map(|id| ("open", json!({"id": id})))
                .collect();
            assert!(!opens.is_empty(), "{}: gold evidence to open", task.id);
            steps.push(calls(1, opens));
            steps.push(calls(9, vec![("answer", json!({"answer": answer, "evidence": gold_items(reference)}))]));
        }
    }
    steps
}

pub fn tool_names(replies: &[Reply]) -> Vec<String> {
    replies
        .iter()
        .flat_map(|r| match r {
            Reply::ToolCalls(c) => c.iter().map(|c| c.name.clone()).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The scripted tool calls of a task as an MCP client makes them: (tool, arguments), with the
/// agent's `answer` renamed to `submit_answer` and its `evidence` to `retrieved_evidence`.
pub fn mcp_steps(task: &PublicTask, reference: &Reference) -> Vec<(String, Value)> {
    let mut steps = Vec::new();
    for reply in script_from_gold(task, reference) {
        let Reply::ToolCalls(calls) = reply else { continue };
        for c in calls {
            let mut args: Value = serde_json::from_str(&c.arguments).expect("scripted arguments");
            let name = if c.name == "answer" {
                if let Some(e) = args.as_object_mut().and_then(|m| m.remove("evidence")) {
                    args["retrieved_evidence"] = e;
                }
                "submit_answer".to_string()
            } else {
                c.name.clone()
            };
            steps.push((name, args));
        }
    }
    steps
}

/// The gold itself as result records (answer and evidence of each task), to score like a run.
pub fn gold_records<'t>(bench: &Benchmark, tasks: impl IntoIterator<Item = &'t PublicTask>) -> Vec<Value> {
    tasks
        .into_iter()
        .map(|t| {
            let reference = bench.reference(&t.id).expect("reference");
            json!({"id": t.id, "answer": reference.ground_truth, "retrieved_evidence": reference.evidence})
        })
        .collect()
}
