//! Information boundaries end to end, for every dated route and every method that reads the
//! corpus: tasks whose cutoffs are shifted earlier than the sample's own (so the corpus holds
//! records dated after the cutoff that are not ground truth) are run through `anser retrieve`
//! (bm25, dense with the mock's API embeddings, hybrid) and `anser run --method sparse | dense |
//! hybrid | retrieval | offline | agent` (the agent scripted to call `search`, `schema`, `sql`
//! and `open`). No results file, retrieval trace, prompt passage or tool result names a record
//! dated after the cutoff; `anser search` (a route-level search, bound to no task) with the same
//! words does return such records, so each check can fail.
//!
//! Record dates are read here from the raw corpus files, independently of the code under test.

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
};

use anser_indexer::RouteIndex;
use anser_llm::mock::{Matcher, MockConfig, MockServer, Reply};
use anser_manifest::{CorpusFormat, Manifest, Route};
use serde_json::{Value, json};

use crate::common::{IndexedSample, anser_env, stderr, stdout};

#[path = "../../agent/tests/it/raw_years.rs"]
mod raw_years;

/// A dated route: its predictive task file and type, how a cutoff is stated, and raw SQL
/// giving (unit record id, year) and (evidence id, year) of the retrievable records.
struct Dated {
    route: Route,
    file: &'static str,
    task_type: &'static str,
    states: fn(i32) -> String,
    unit_years: &'static str,
    evidence_years: &'static str,
}

const FIN_ZH_YEARS: &str = "SELECT report_id, report_year FROM reports WHERE split IS NOT 'ground_truth'";
const FIN_EN_YEARS: &str = "SELECT accession, fiscal_year FROM filings WHERE split IS NOT 'ground_truth'";
const ZH_CASE_YEARS: &str = "SELECT anhao, CAST(substr(caipanriqi, 1, 4) AS INTEGER) FROM cases";

const DATED: [Dated; 5] = [
    Dated {
        route: Route::FinanceZhReports,
        file: "finance/zh/predictive.json",
        task_type: "multi_period_trend",
        states: |y| format!("以截至{y}年的年报为依据。"),
        unit_years: FIN_ZH_YEARS,
        evidence_years: FIN_ZH_YEARS,
    },
    Dated {
        route: Route::FinanceEnReports,
        file: "finance/en/predictive.json",
        task_type: "multi_period_trend",
        states: |y| format!("An analyst can access only the company's financial records through FY{y}."),
        unit_years: FIN_EN_YEARS,
        evidence_years: FIN_EN_YEARS,
    },
    Dated {
        route: Route::LegalZhCases,
        file: "legal/zh/predictive.json",
        task_type: "semantic",
        states: |y| format!("仅使用{y}年及以前的裁判数据。"),
        unit_years: ZH_CASE_YEARS,
        evidence_years: ZH_CASE_YEARS,
    },
    Dated {
        route: Route::LegalEnCases,
        file: "legal/en/predictive.json",
        task_type: "structured",
        states: |y| format!("Use only information available on or before {y}-12-31."),
        unit_years: "SELECT case_id, decision_year FROM case_record",
        evidence_years: "SELECT cluster_id, decision_year FROM case_record",
    },
    Dated {
        route: Route::ScienceArticles,
        file: "science/predictive.json",
        task_type: "association_direction",
        states: |y| format!("Publication period: from 1990-01-01 through {y}-12-31"),
        unit_years: "",
        evidence_years: "",
    },
];

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// id → year from raw SQL, or from the science JSONL (`ID`, `year`).
fn years(corpus: &Path, route: Route, sql: &str) -> HashMap<String, i32> {
    let path = corpus.join(&Manifest::get().route(route).file);
    if sql.is_empty() {
        return std::fs::read_to_string(&path)
            .expect("jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|r| Some((text_of(&r["ID"])?, text_of(&r["year"])?.get(..4)?.parse().ok()?)))
            .collect();
    }
    raw_years::sql_years(&path, sql)
}

/// One shifted route: the cutoff, record dates, and the tasks written for it.
struct Case {
    route: Route,
    cut: i32,
    unit_years: HashMap<String, i32>,
    evidence_years: HashMap<String, i32>,
    /// (task id, the late unit's words, the late unit's record id).
    tasks: Vec<(String, String, String)>,
}

impl Case {
    fn check_unit(&self, what: &str, record: &str) {
        let y = self.unit_years.get(record).copied();
        assert!(y.is_some_and(|y| y <= self.cut), "{what}: unit of {record} ({y:?}) after the cutoff {}", self.cut);
    }

    fn check_evidence(&self, what: &str, item: &Value) {
        let id = match item {
            Value::Object(m) => ["id", "accession", "docid"].iter().find_map(|k| m.get(*k)).and_then(text_of),
            other => text_of(other),
        };
        let id = id.unwrap_or_else(|| panic!("{what}: evidence {item} has no id"));
        let y = self.evidence_years.get(&id).copied();
        assert!(y.is_some_and(|y| y <= self.cut), "{what}: evidence {id} ({y:?}) after the cutoff {}", self.cut);
    }
}

/// Write the shifted tasks under `bench` and return the cases.
fn shifted_benchmark(fixture: &IndexedSample, bench: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut files: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for d in &DATED {
        let unit_years = years(&fixture.corpus, d.route, d.unit_years);
        let evidence_years = years(&fixture.corpus, d.route, d.evidence_years);
        let mut sorted: Vec<i32> = unit_years.values().copied().collect();
        sorted.sort_unstable();
        let cut = sorted[sorted.len() / 2];
        let index = RouteIndex::open(&fixture.index, d.route, Some(&fixture.corpus)).expect("route index");
        let mut tasks = Vec::new();
        let mut last_record = String::new();
        for unit in index.store.iter().map(|u| u.expect("unit")) {
            if tasks.len() == 2 {
                break;
            }
            if unit.record_id == last_record || unit_years.get(&unit.record_id).is_none_or(|y| *y <= cut) {
                continue;
            }
            last_record.clone_from(&unit.record_id);
            let words: String = unit.text.chars().take(160).collect();
            let id = format!("shifted_{}_{}", d.route, tasks.len());
            // No year of the record's text goes into the task: it states only the cutoff.
            let query = format!("{} {}\n{}", id, words.replace(|c: char| c.is_ascii_digit(), " "), (d.states)(cut));
            files.entry(d.file).or_default().push(json!({
                "id": id, "type": d.task_type, "query": query, "instruction": "Answer briefly.",
            }));
            tasks.push((id, words, unit.record_id.clone()));
        }
        assert_eq!(tasks.len(), 2, "{}: two late records to ask about", d.route);
        cases.push(Case { route: d.route, cut, unit_years, evidence_years, tasks });
    }
    for (file, tasks) in files {
        let path = bench.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, serde_json::to_string_pretty(&tasks).expect("json")).expect("write tasks");
    }
    cases
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The evidence of each record of a results file, by task id.
fn evidence_by_task(path: &Path) -> HashMap<String, Vec<Value>> {
    read_json(path)
        .as_array()
        .expect("results array")
        .iter()
        .map(|r| {
            let id = r["id"].as_str().expect("id").to_string();
            (id, r["retrieved_evidence"].as_array().cloned().unwrap_or_default())
        })
        .collect()
}

fn case_of<'c>(cases: &'c [Case], task: &str) -> &'c Case {
    cases.iter().find(|c| c.tasks.iter().any(|(id, _, _)| id == task)).expect("a shifted task")
}

/// The agent's script for one task: search with the late record's words, the schema and a SQL
/// read of the route's unit records (SQLite routes), open the late record, answer.
fn agent_script(mock: &MockServer, case: &Case, task: &str, words: &str, late: &str) {
    let spec = Manifest::get().route(case.route);
    let unit = &spec.units[0];
    let mut replies = vec![Reply::tool_call("c1", "search", json!({"query": words, "k": 5}))];
    if spec.format == CorpusFormat::Sqlite {
        replies.push(Reply::tool_call("c2", "schema", json!({})));
        let sql = format!("SELECT DISTINCT CAST({} AS TEXT) AS id FROM {} LIMIT 50", unit.id_column, unit.source);
        replies.push(Reply::tool_call("c3", "sql", json!({"query": sql})));
    }
    replies.push(Reply::tool_call("c4", "open", json!({"id": late})));
    replies.push(Reply::tool_call("c5", "answer", json!({"answer": "unknown", "evidence": []})));
    mock.script(Matcher::UserContains(task.to_string()), replies);
}

#[test]
fn no_method_sees_records_after_a_shifted_cutoff_on_any_dated_route() {
    let fixture = IndexedSample::get();
    let env = fixture.env();
    let tmp = tempfile::tempdir().expect("tempdir");
    let bench = tmp.path().join("query");
    let cases = shifted_benchmark(&fixture, &bench);
    let bench_s = bench.to_str().expect("utf8");

    // A route-level search (no task, no boundary) with a late record's words finds late records.
    for case in &cases {
        for (_, words, _) in &case.tasks {
            let o = anser_env(
                &[
                    "search",
                    "--index-dir",
                    fixture.index_dir(),
                    "--corpus-root",
                    fixture.corpus_root(),
                    "--route",
                    case.route.as_str(),
                    "-k",
                    "20",
                    "--json",
                    "--",
                    words,
                ],
                &env,
            );
            assert!(o.status.success(), "anser search: {}", stderr(&o));
            let hits: Value = serde_json::from_str(&stdout(&o)).expect("hits");
            let records: Vec<&str> =
                hits.as_array().expect("array").iter().filter_map(|h| h["record_id"].as_str()).collect();
            let late = records.iter().filter(|r| case.unit_years.get(**r).is_some_and(|y| *y > case.cut)).count();
            assert!(late > 0, "{}: the unbounded search returns records after {}: {records:?}", case.route, case.cut);
        }
    }

    // anser retrieve, three retriever kinds.
    for spec in ["bm25", "dense", "hybrid:bm25+dense@rrf60"] {
        let out = tmp.path().join(format!("retrieve-{}.json", spec.replace([':', '+', '@'], "_")));
        let o = anser_env(
            &[
                "retrieve",
                "--benchmark-dir",
                bench_s,
                "--corpus-root",
                fixture.corpus_root(),
                "--index-dir",
                fixture.index_dir(),
                "--retriever",
                spec,
                "--output",
                out.to_str().expect("utf8"),
            ],
            &env,
        );
        assert!(o.status.success(), "anser retrieve {spec}: {}", stderr(&o));
        let evidence = evidence_by_task(&out);
        assert_eq!(evidence.len(), 10, "{spec}: every shifted task retrieved");
        for (task, items) in &evidence {
            let case = case_of(&cases, task);
            assert!(!items.is_empty(), "{spec}: {task} finds earlier records");
            for item in items {
                case.check_evidence(&format!("retrieve {spec} {task}"), item);
            }
        }
    }

    // anser run, every method that reads the corpus; the chat requests go to a mock of our own.
    let chat = MockServer::start(MockConfig::instant()).expect("mock");
    for method in ["sparse", "dense", "hybrid", "retrieval", "offline", "agent"] {
        chat.clear_requests();
        if method == "agent" {
            for case in &cases {
                for (task, words, late) in &case.tasks {
                    agent_script(&chat, case, task, words, late);
                }
            }
        }
        let out = tmp.path().join("runs");
        let base_url = chat.base_url();
        let args = fixture.run_args(method, method, out.to_str().expect("utf8")).benchmark_dir(bench_s);
        let o = anser_env(&args.chat(&base_url).args(&["--no-evaluate"]).strs(), &env);
        assert!(o.status.success(), "anser run --method {method}: {}", stderr(&o));
        let run_dir = out.join(method);
        let evidence = evidence_by_task(&run_dir.join("results.json"));
        assert_eq!(evidence.len(), 10, "{method}: every shifted task answered");
        for (task, items) in &evidence {
            for item in items {
                case_of(&cases, task).check_evidence(&format!("{method} {task}"), item);
            }
        }
        // The retrieval stage's units in the trace.
        let trace = std::fs::read_to_string(run_dir.join("trace.jsonl")).expect("trace");
        let mut traced = 0;
        for line in trace.lines() {
            let entry: Value = serde_json::from_str(line).expect("trace line");
            let Some(task) = entry["task_id"].as_str() else { continue };
            let case = case_of(&cases, task);
            for unit in entry.pointer("/detail/units").and_then(Value::as_array).into_iter().flatten() {
                let unit = unit.as_str().expect("unit id");
                case.check_unit(&format!("{method} trace {task}"), unit.rsplit_once(':').map_or(unit, |(r, _)| r));
                traced += 1;
            }
        }
        // The passages and tool results the model was sent.
        for request in chat.requests().iter().filter(|r| r.path.ends_with("/chat/completions")) {
            let messages = request.body["messages"].as_array().cloned().unwrap_or_default();
            let user = request.last_user_message().unwrap_or_default();
            let Some(case) = cases.iter().find(|c| c.tasks.iter().any(|(id, _, _)| user.contains(id.as_str()))) else {
                continue;
            };
            for label in user.lines().filter_map(passage_label) {
                case.check_unit(&format!("{method} prompt"), label.rsplit_once(':').map_or(label, |(r, _)| r));
                traced += 1;
            }
            for m in messages.iter().filter(|m| m["role"] == "tool") {
                let content: Value =
                    serde_json::from_str(m["content"].as_str().unwrap_or("null")).expect("tool messages are JSON");
                for hit in content["hits"].as_array().into_iter().flatten() {
                    case.check_evidence(&format!("{method} search tool"), &hit["evidence"]);
                    traced += 1;
                }
                for row in content["rows"].as_array().into_iter().flatten() {
                    let id = row[0].as_str().expect("id text");
                    case.check_unit(&format!("{method} sql tool"), id);
                    traced += 1;
                }
                if content.get("record").is_some() {
                    panic!("{method}: open returned a late record: {content}");
                }
            }
        }
        if method != "offline" {
            assert!(traced > 0, "{method}: something was checked");
        }
    }
}

/// The label of a prompt's passage header line `[1] (<record id>:<chunk>)`.
fn passage_label(line: &str) -> Option<&str> {
    let (n, rest) = line.strip_prefix('[')?.split_once("] (")?;
    n.bytes().all(|b| b.is_ascii_digit()).then_some(())?;
    rest.strip_suffix(')')
}
