//! `anser mcp` (stdio) and `anser serve --mcp` (Streamable HTTP) driven by a client nobody here
//! wrote: the official Python MCP SDK (`tests/cli/data/mcp_client.py`, in `.venv-mcp`, which
//! `.ci/run` creates). The client replays tool calls SCRIPTED FROM GOLD
//! (`agent/benches/support/scripted_from_gold.rs`: schema/sql/compute/search/open, then the
//! gold answer and evidence) for tasks of every plan on the indexed sample; `anser eval` then
//! scores the run directory the server wrote, and each task gets the gold's own scores.

use std::{
    collections::BTreeMap,
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::Arc,
};

use anser_evaluator::{EvalOptions, JudgeMode, Profile, ResultsInput};
use anser_gold::Benchmark;
use anser_manifest::PublicTask;
use serde_json::{Value, json};

use crate::agent::scripted_from_gold::{Plan, gold_records, mcp_steps, plan_of};
use crate::common::{IndexedSample, anser, metrics_by_id, stderr, stdout};

/// The venv's Python with the `mcp` package, or `None` after the skip reason (a failure under CI).
fn python_with_mcp() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv-mcp/bin/python");
    let ok =
        python.is_file() && Command::new(&python).args(["-c", "import mcp"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        anser_manifest::missing_prerequisite(
            "MCP tests with the official Python SDK",
            ".venv-mcp with the mcp package not found (python3 -m venv .venv-mcp && .venv-mcp/bin/pip install mcp; .ci/run does this)",
        );
        return None;
    }
    Some(python)
}

fn client_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/data/mcp_client.py")
}

/// The first sample tasks of each plan (count, look-up, association, retrieval).
fn chosen_tasks(bench: &Benchmark) -> Vec<PublicTask> {
    let mut by_plan: BTreeMap<Plan, Vec<PublicTask>> = BTreeMap::new();
    for t in bench.tasks() {
        let plan = by_plan.entry(plan_of(t)).or_default();
        if plan.len() < 2 {
            plan.push(t.clone());
        }
    }
    let mut chosen: Vec<PublicTask> = by_plan.into_values().flatten().collect();
    // Selection (file) order, the order next_task hands them out.
    let order: BTreeMap<&str, usize> = bench.tasks().iter().enumerate().map(|(i, t)| (t.id.as_str(), i)).collect();
    chosen.sort_by_key(|t| order[t.id.as_str()]);
    chosen
}

/// The script the Python client replays: task id → [[tool, arguments], ...] in MCP names.
fn write_script(bench: &Benchmark, tasks: &[PublicTask], path: &Path) {
    let mut script = serde_json::Map::new();
    for t in tasks {
        let reference = bench.reference(&t.id).expect("reference");
        let steps = mcp_steps(t, reference).into_iter().map(|(name, args)| json!([name, args])).collect();
        script.insert(t.id.clone(), Value::Array(steps));
    }
    std::fs::write(path, Value::Object(script).to_string()).expect("script written");
}

fn run_flags(fixture: &IndexedSample, out: &Path, name: &str, ids: &str) -> Vec<String> {
    [
        "--run-name",
        name,
        "--benchmark-dir",
        fixture.benchmark_dir(),
        "--corpus-root",
        fixture.corpus_root(),
        "--index-dir",
        fixture.index_dir(),
        "--output-dir",
        out.to_str().expect("utf8"),
        "--retriever",
        "bm25",
        "--ids",
        ids,
    ]
    .iter()
    .map(ToString::to_string)
    .collect()
}

/// `anser eval` on the run directory; every task gets the score the gold answer gets.
fn check_scores(fixture: &IndexedSample, bench: &Benchmark, run_dir: &Path, tasks: &[PublicTask]) {
    let o = anser(&["eval", run_dir.to_str().expect("utf8"), "--benchmark-dir", fixture.benchmark_dir()]);
    assert!(o.status.success(), "anser eval: {}", stderr(&o));
    let evaluation: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("evaluation.json")).expect("evaluation.json"))
            .expect("json");
    let details = metrics_by_id(&evaluation);
    assert_eq!(details.len(), tasks.len());
    let options = EvalOptions {
        profile: Profile::Card,
        corpus_root: Some(fixture.corpus.clone()),
        judge: JudgeMode::Skip,
        bertscore: None,
    };
    let gold = anser_evaluator::evaluate(
        &ResultsInput::Records { source: "gold".into(), records: gold_records(bench, tasks) },
        bench,
        &options,
    )
    .expect("gold evaluates");
    let mut compared = 0;
    for g in gold.details() {
        for (metric, want) in &g.metrics {
            let Some(want) = want else { continue };
            let got = details[g.id.as_str()][metric.name()].as_f64().expect("metric");
            assert!((got - want).abs() < 1e-9, "{}: {} = {got}, the gold scores {want}", g.id, metric.name());
            compared += 1;
        }
    }
    assert!(compared >= tasks.len(), "metrics compared: {compared}");
}

fn check_run(run_dir: &Path, tasks: &[PublicTask], transport: &str) {
    let metadata: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("metadata.json")).expect("metadata")).expect("json");
    assert_eq!(metadata["settings"]["method"], "mcp");
    assert_eq!(metadata["extra"]["tool_server"]["name"], "anser-mcp");
    assert_eq!(metadata["extra"]["tool_server"]["transport"], transport);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run_dir.join("results.json")).expect("results")).expect("json");
    let ids: Vec<&str> = results.as_array().expect("array").iter().map(|r| r["id"].as_str().expect("id")).collect();
    assert_eq!(ids, tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>());
    assert!(results.as_array().expect("array").iter().all(|r| r["generation_status"] == "ok" && r["method"] == "mcp"));
}

/// What a Python client run starts from: the venv's Python, the indexed sample, the chosen tasks
/// (and their ids, comma-separated), the script written for them and the runs folder.
struct ClientRun {
    python: PathBuf,
    fixture: Arc<IndexedSample>,
    bench: Benchmark,
    tasks: Vec<PublicTask>,
    ids: String,
    tmp: tempfile::TempDir,
    script: PathBuf,
    out: PathBuf,
}

/// `None` after the skip reason when the venv is missing (a failure under CI).
fn client_run() -> Option<ClientRun> {
    let python = python_with_mcp()?;
    let fixture = IndexedSample::get();
    let bench = Benchmark::load(&fixture.query).expect("sample loads");
    let tasks = chosen_tasks(&bench);
    let ids = tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>().join(",");
    let tmp = tempfile::tempdir().expect("tempdir");
    let script = tmp.path().join("script.json");
    write_script(&bench, &tasks, &script);
    let out = tmp.path().join("runs");
    Some(ClientRun { python, fixture, bench, tasks, ids, tmp, script, out })
}

#[test]
fn python_sdk_client_solves_sample_tasks_over_stdio_and_the_run_scores_like_the_gold() {
    let Some(ClientRun { python, fixture, bench, tasks, ids, tmp: _tmp, script, out }) = client_run() else { return };
    assert!(tasks.len() >= 6, "tasks of every plan: {}", tasks.len());
    let mut args = vec!["stdio".to_string(), script.display().to_string(), env!("CARGO_BIN_EXE_anser").to_string()];
    args.push("mcp".into());
    args.extend(run_flags(&fixture, &out, "py-stdio", &ids));
    let o = Command::new(&python).arg(client_script()).args(&args).output().expect("python runs");
    assert!(o.status.success(), "python client: {}\n{}", stdout(&o), stderr(&o));
    let report: Value = serde_json::from_str(stdout(&o).trim()).expect("client report");
    assert_eq!(report["done"], json!(tasks.iter().map(|t| t.id.clone()).collect::<Vec<_>>()));
    let run_dir = out.join("py-stdio");
    check_run(&run_dir, &tasks, "stdio");
    check_scores(&fixture, &bench, &run_dir, &tasks);
}

#[test]
fn python_sdk_client_solves_sample_tasks_over_streamable_http() {
    let Some(ClientRun { python, fixture, bench, tasks, ids, tmp: _tmp, script, out }) = client_run() else { return };
    let mut server = Command::new(env!("CARGO_BIN_EXE_anser"))
        .args(["serve", "--mcp", "--port", "0"])
        .args(run_flags(&fixture, &out, "py-http", &ids))
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("server starts");
    let mut lines = BufReader::new(server.stderr.take().expect("stderr")).lines();
    let url = loop {
        let line = lines.next().expect("server announces its address").expect("stderr line");
        if let Some(url) = line.strip_prefix("anser serve: MCP at ") {
            break url.to_string();
        }
    };
    let o = Command::new(&python)
        .arg(client_script())
        .args(["http", script.to_str().expect("utf8"), &url])
        .output()
        .expect("python runs");
    // SIGINT stops the server like Ctrl-C.
    let _ = Command::new("kill").args(["-INT", &server.id().to_string()]).status();
    let mut status = None;
    for _ in 0..300 {
        status = server.try_wait().expect("server status");
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let Some(status) = status else {
        let _ = server.kill();
        panic!("anser serve did not stop within 30 s of SIGINT");
    };
    assert!(o.status.success(), "python client: {}\n{}", stdout(&o), stderr(&o));
    assert!(status.success(), "server exit: {status:?}");
    let report: Value = serde_json::from_str(stdout(&o).trim()).expect("client report");
    assert_eq!(report["done"], json!(tasks.iter().map(|t| t.id.clone()).collect::<Vec<_>>()));
    let run_dir = out.join("py-http");
    check_run(&run_dir, &tasks, "streamable-http");
    check_scores(&fixture, &bench, &run_dir, &tasks);
}
