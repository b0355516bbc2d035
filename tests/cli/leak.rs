//! Leak scan for every method: `anser run` with each method (vanilla, sparse, dense, hybrid,
//! retrieval, agent, offline) over every task of the generated sample, each against its own
//! loopback mock so that only that run's requests are scanned.
//!
//! - No outgoing LLM request, no tool result, no answer and no trace line holds a sentence that
//!   only the corpus's ground-truth rows hold (finance reports/filings with `split =
//!   'ground_truth'` and their child rows). Tool results are scanned in the requests that carry
//!   them back to the model; the agent is driven by a mock scripted from the CORPUS (not from the
//!   tasks' gold), which probes like an adversary: every table, a search with the task's query,
//!   SQL aimed at the ground-truth rows' keys and `open` of those keys, so a tool that let a
//!   hidden row through would put it into the next request.
//! - No request holds a gold answer string of 12+ characters that the public inputs and the
//!   visible corpus do not hold.
//! - No method returns a ground-truth row's key as evidence.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
};

use anser_gold::Benchmark;
use anser_llm::mock::{Matcher, MockConfig, MockServer, Reply};
use anser_manifest::{CorpusFormat, Manifest, PublicTask, Route};
use rusqlite::types::ValueRef;
use serde_json::{Value, json};

use crate::common::{IndexedSample, anser_env, stderr, string_leaves};

/// Shortest sentence and gold string the scan looks for.
const MIN_SENTENCE_CHARS: usize = 20;
const MIN_GOLD_CHARS: usize = 12;

/// What the corpus hides and what it shows.
struct CorpusSplit {
    /// Keys (report ids, accessions) of the ground-truth rows.
    hidden_keys: BTreeSet<String>,
    /// Sentences that only ground-truth rows hold.
    hidden_sentences: BTreeSet<String>,
    /// Every visible text cell and JSONL string, newline-joined.
    visible: String,
}

fn cell_text(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(r) => Some(r.to_string()),
        _ => None,
    }
}

fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let ends = matches!(c, '。' | '！' | '？' | '!' | '?' | ';' | '；' | '\n')
            || (c == '.' && chars.peek().is_none_or(|n| n.is_whitespace()));
        if ends {
            let s = current.trim();
            if s.chars().count() >= MIN_SENTENCE_CHARS {
                out.push(s.to_string());
            }
            current.clear();
        } else {
            current.push(c);
        }
    }
    let s = current.trim();
    if s.chars().count() >= MIN_SENTENCE_CHARS {
        out.push(s.to_string());
    }
    out
}

fn split_corpus(corpus: &Path) -> CorpusSplit {
    let mut hidden_keys = BTreeSet::new();
    let mut hidden = BTreeSet::new();
    let mut visible_sentences = BTreeSet::new();
    let mut visible = String::new();
    for route in Route::ALL {
        let spec = Manifest::get().route(route);
        let path = corpus.join(&spec.file);
        match spec.format {
            CorpusFormat::Jsonl => {
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                for line in text.lines().filter(|l| !l.trim().is_empty()) {
                    let mut leaves = Vec::new();
                    string_leaves(&serde_json::from_str(line).expect("jsonl"), &mut leaves);
                    for s in leaves {
                        visible_sentences.extend(sentences(&s));
                        visible.push_str(&s);
                        visible.push('\n');
                    }
                }
            }
            CorpusFormat::Sqlite => {
                let conn = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                    .expect("corpus opens");
                let keys: BTreeSet<String> = match &spec.exclude {
                    Some(ex) => {
                        let sql = format!("SELECT \"{}\" FROM \"{}\" WHERE \"{}\" = ?1", ex.key, ex.table, ex.column);
                        let mut stmt = conn.prepare(&sql).expect("prepare");
                        stmt.query_map([&ex.value], |r| Ok(cell_text(r.get_ref(0)?)))
                            .expect("query")
                            .filter_map(|r| r.expect("row"))
                            .collect()
                    }
                    None => BTreeSet::new(),
                };
                for table in &spec.schema.tables {
                    let key_at = spec
                        .exclude
                        .as_ref()
                        .and_then(|ex| table.columns.iter().position(|c| c.name == ex.key).map(|_| ex.key.clone()));
                    let mut stmt = conn.prepare(&format!("SELECT * FROM \"{}\"", table.name)).expect("prepare");
                    let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
                    let key_index = key_at.and_then(|k| names.iter().position(|n| *n == k));
                    let mut rows = stmt.query([]).expect("query");
                    while let Some(row) = rows.next().expect("row") {
                        let cells: Vec<String> =
                            (0..names.len()).filter_map(|i| row.get_ref(i).ok().and_then(cell_text)).collect();
                        let is_hidden = key_index
                            .and_then(|i| row.get_ref(i).ok().and_then(cell_text))
                            .is_some_and(|k| keys.contains(&k));
                        for cell in cells {
                            if is_hidden {
                                hidden.extend(sentences(&cell));
                            } else {
                                visible_sentences.extend(sentences(&cell));
                                visible.push_str(&cell);
                                visible.push('\n');
                            }
                        }
                    }
                }
                hidden_keys.extend(keys);
            }
        }
    }
    // A key is not a sentence: the prober itself names hidden keys in its calls.
    let hidden_sentences = hidden
        .into_iter()
        .filter(|s| !hidden_keys.contains(s) && !visible_sentences.contains(s) && !visible.contains(s.as_str()))
        .collect();
    CorpusSplit { hidden_keys, hidden_sentences, visible }
}

/// Gold answer strings of 12+ characters that nothing public holds (no task's query or
/// instruction, no visible corpus text).
fn private_gold_strings(bench: &Benchmark, visible: &str) -> BTreeSet<String> {
    let public: String =
        bench.tasks().iter().map(|t| format!("{}\n{}\n", t.query, t.instruction)).collect::<Vec<_>>().concat();
    let mut out = BTreeSet::new();
    for task in bench.tasks() {
        let mut leaves = Vec::new();
        string_leaves(&bench.reference(&task.id).expect("reference").ground_truth, &mut leaves);
        for s in leaves {
            let s = s.trim();
            if s.chars().count() >= MIN_GOLD_CHARS && !public.contains(s) && !visible.contains(s) {
                out.insert(s.to_string());
            }
        }
    }
    out
}

/// The text of a request or file, with JSON strings decoded (so escapes never hide a match).
fn decoded(raw: &str) -> String {
    let mut leaves = Vec::new();
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => string_leaves(&v, &mut leaves),
        Err(_) => leaves.push(raw.to_string()),
    }
    // Tool-call arguments are JSON inside a string: decode them too.
    let nested: Vec<String> = leaves
        .iter()
        .filter(|s| s.trim_start().starts_with('{'))
        .filter_map(|s| serde_json::from_str::<Value>(s).ok())
        .flat_map(|v| {
            let mut inner = Vec::new();
            string_leaves(&v, &mut inner);
            inner
        })
        .collect();
    leaves.extend(nested);
    leaves.join("\n")
}

fn first_hit<'a>(texts: &[String], needles: &'a BTreeSet<String>) -> Option<&'a String> {
    needles.iter().find(|n| texts.iter().any(|t| t.contains(n.as_str())))
}

/// The adversarial corpus prober of one task (scripted from the corpus, not from gold).
fn prober(task: &PublicTask, hidden_keys: &BTreeSet<String>) -> Vec<Reply> {
    let spec = Manifest::get().route(task.route);
    let call = |step: usize, calls: Vec<(&str, Value)>| {
        Reply::ToolCalls(
            calls
                .into_iter()
                .enumerate()
                .map(|(i, (name, args))| anser_llm::ToolCall::new(format!("p{step}c{i}"), name, args.to_string()))
                .collect(),
        )
    };
    let mut steps = vec![call(0, vec![("schema", json!({})), ("search", json!({"query": task.query, "k": 10}))])];
    if spec.format == CorpusFormat::Sqlite {
        let mut probes: Vec<(&str, Value)> = spec
            .schema
            .tables
            .iter()
            .map(|t| ("sql", json!({"query": format!("SELECT * FROM \"{}\" LIMIT 20", t.name)})))
            .collect();
        if let Some(ex) = &spec.exclude {
            let keys: Vec<&String> = hidden_keys.iter().take(5).collect();
            let list = keys.iter().map(|k| format!("'{}'", k.replace('\'', "''"))).collect::<Vec<_>>().join(",");
            for t in spec.schema.tables.iter().filter(|t| t.columns.iter().any(|c| c.name == ex.key)) {
                let sql = format!("SELECT * FROM \"{}\" WHERE \"{}\" IN ({list})", t.name, ex.key);
                probes.push(("sql", json!({"query": sql})));
            }
            probes.extend(keys.iter().map(|k| ("open", json!({"id": k}))));
        }
        steps.push(call(1, probes));
    }
    steps.push(call(2, vec![("answer", json!({"answer": "0", "evidence": []}))]));
    steps
}

#[test]
fn no_method_leaks_ground_truth_rows_or_gold_answers() {
    let fixture = IndexedSample::get();
    let env = fixture.env();
    let bench = Benchmark::load(&fixture.query).expect("sample loads");
    let split = split_corpus(&fixture.corpus);
    let gold = private_gold_strings(&bench, &split.visible);
    eprintln!(
        "leak scan: {} ground-truth keys, {} sentences only they hold, {} private gold strings",
        split.hidden_keys.len(),
        split.hidden_sentences.len(),
        gold.len()
    );
    assert!(!split.hidden_keys.is_empty(), "the sample has ground-truth rows to hide");
    assert!(!split.hidden_sentences.is_empty(), "the scan has hidden sentences to look for");
    // The scanner itself finds a planted sentence (so a pass means something).
    let planted = split.hidden_sentences.iter().next().expect("one").clone();
    let planted_request = json!({"messages": [{"role": "tool", "content": format!("rows: {planted}")}]}).to_string();
    assert!(first_hit(&[decoded(&planted_request)], &split.hidden_sentences).is_some());

    let tmp = tempfile::tempdir().expect("tempdir");
    for method in ["vanilla", "sparse", "dense", "hybrid", "retrieval", "agent", "offline"] {
        let chat = MockServer::start(MockConfig::instant()).expect("mock starts");
        if method == "agent" {
            for task in bench.tasks() {
                let prompt = format!("Task:\n{}\n\nInstruction:\n{}", task.query.trim(), task.instruction.trim());
                chat.script(Matcher::UserContains(prompt), prober(task, &split.hidden_keys));
            }
        }
        let base_url = chat.base_url();
        let name = format!("leak-{method}");
        // One output folder per method, so no run answers from another's response cache.
        let out_dir = tmp.path().join(method);
        let out = out_dir.to_str().expect("utf8");
        let args = fixture.run_args(method, &name, out).chat(&base_url);
        let o = anser_env(&args.args(&["--no-evaluate", "--concurrency", "4"]).strs(), &env);
        assert!(o.status.success(), "anser run --method {method}: {}", stderr(&o));
        let run_dir = out_dir.join(&name);

        let requests: Vec<String> =
            chat.requests().iter().filter(|r| r.path.ends_with("/chat/completions")).map(|r| decoded(&r.raw)).collect();
        let calls_llm = !matches!(method, "retrieval" | "offline");
        assert_eq!(!requests.is_empty(), calls_llm, "{method}: {} chat requests", requests.len());
        if method == "agent" {
            let tool_results = chat
                .requests()
                .iter()
                .flat_map(|r| r.body["messages"].as_array().cloned().unwrap_or_default())
                .filter(|m| m["role"] == "tool")
                .count();
            assert!(tool_results > bench.tasks().len(), "{method}: the prober's tool results reached the model");
        }
        let results = std::fs::read_to_string(run_dir.join("results.json")).expect("results");
        let trace = std::fs::read_to_string(run_dir.join("trace.jsonl")).expect("trace");
        let mut outputs = vec![decoded(&results)];
        outputs.extend(trace.lines().map(decoded));

        let everything: Vec<String> = requests.iter().chain(&outputs).cloned().collect();
        if let Some(s) = first_hit(&everything, &split.hidden_sentences) {
            panic!("{method}: a sentence only ground-truth rows hold left the corpus: {s:?}");
        }
        if let Some(s) = first_hit(&requests, &gold) {
            panic!("{method}: a gold answer string reached the model: {s:?}");
        }
        let results: Value = serde_json::from_str(&results).expect("results json");
        for r in results.as_array().expect("array") {
            let mut ids = Vec::new();
            string_leaves(&r["retrieved_evidence"], &mut ids);
            let leaked: BTreeMap<&str, &String> = ids
                .iter()
                .filter(|i| split.hidden_keys.contains(*i))
                .map(|i| (r["id"].as_str().unwrap_or("?"), i))
                .collect();
            assert!(leaked.is_empty(), "{method}: ground-truth rows returned as evidence: {leaked:?}");
        }
    }
}
