//! One session over the `rmcp` client: scripted solving lands in the run directory as `anser run`
//! writes it; the session is held to one task, its route, its boundary and read-only SQL.

use anser_agent::run::{JOURNAL_FILE, METADATA_FILE, RESULTS_FILE, ResultRecord, read_records};
use anser_manifest::{CorpusFormat, Manifest, boundary};
use rusqlite::{Connection, OpenFlags};
use serde_json::json;

use crate::support::{bench, call, connect, coordinator, fresh_run, read_json, sample, solve_all, sql_tasks, trace};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripted_client_solves_tasks_into_a_run_directory_like_anser_run() {
    let (_out, tasks, coord) = fresh_run("mcp-run", 4);
    let client = connect(&coord).await;
    let tools: Vec<String> =
        client.list_all_tools().await.expect("tools").into_iter().map(|t| t.name.to_string()).collect();
    for want in ["list_tasks", "next_task", "schema", "sql", "compute", "search", "open", "submit_answer"] {
        assert!(tools.iter().any(|t| t == want), "{want} offered: {tools:?}");
    }
    let done = solve_all(&client).await;
    assert_eq!(done, tasks.iter().map(|t| t.id.clone()).collect::<Vec<_>>());
    client.cancel().await.expect("client closes");

    let run_dir = coord.run_dir().to_path_buf();
    let records = read_records(&run_dir).expect("journal");
    assert_eq!(records.len(), tasks.len());
    let results: Vec<ResultRecord> =
        serde_json::from_value(read_json(&run_dir.join(RESULTS_FILE))).expect("results.json records");
    assert_eq!(results.len(), tasks.len(), "results.json rewritten at each submit");
    for r in &results {
        assert_eq!(r.method, "mcp");
        assert_eq!(serde_json::to_value(r.generation_status).expect("status"), json!("ok"), "{}: {:?}", r.id, r.errors);
        let reference = bench().reference(&r.id).expect("reference");
        if reference.ground_truth.is_number() || reference.ground_truth.is_string() {
            assert!(!r.retrieved_evidence.is_empty(), "{}: evidence recorded", r.id);
        }
        assert!(r.stages.sql.calls >= 2, "{}: schema + sql counted in the sql stage: {:?}", r.id, r.stages);
        assert!(r.latency > 0.0);
    }
    // Every tool call is a trace event with its latency, between the task's start and end.
    let lines = trace(&run_dir);
    for t in &tasks {
        let events: Vec<&serde_json::Value> = lines.iter().filter(|l| l["task_id"] == t.id.as_str()).collect();
        assert_eq!(events.first().map(|e| e["event"].clone()), Some(json!("task_start")));
        assert_eq!(events.last().map(|e| e["event"].clone()), Some(json!("task_end")));
        let calls: Vec<&&serde_json::Value> = events.iter().filter(|e| e["event"] == "tool_call").collect();
        assert!(calls.len() >= 3, "{}: tool calls traced", t.id);
        assert!(calls.iter().all(|e| e["seconds"].as_f64().is_some_and(|s| s >= 0.0)));
        assert_eq!(events[0]["detail"]["method"], "mcp");
    }
    let metadata = read_json(&run_dir.join(METADATA_FILE));
    assert_eq!(metadata["settings"]["method"], "mcp");
    assert!(run_dir.join(JOURNAL_FILE).is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_holds_one_task_and_an_abandoned_task_goes_back_to_the_queue() {
    let (_out, tasks, coord) = fresh_run("one-at-a-time", 2);
    let first = connect(&coord).await;
    let (err, text) = call(&first, "sql", json!({"query": "SELECT 1"})).await;
    assert!(err && text.contains("next_task first"), "{text}");
    let (err, text) = call(&first, "next_task", json!({})).await;
    assert!(!err, "{text}");
    let held: serde_json::Value = serde_json::from_str(&text).expect("task");
    assert_eq!(held["id"], tasks[0].id.as_str());
    let (err, text) = call(&first, "next_task", json!({})).await;
    assert!(err && text.contains(tasks[0].id.as_str()), "a second next_task is refused: {text}");
    let (err, text) = call(&first, "submit_answer", json!({"answer": ""})).await;
    assert!(err && text.contains("empty"), "an empty answer is rejected: {text}");
    let listed = call(&first, "list_tasks", json!({})).await.1;
    assert!(listed.contains("in_progress"), "{listed}");

    // A second session gets the other task while the first holds its own.
    let second = connect(&coord).await;
    let (_, text) = call(&second, "next_task", json!({})).await;
    assert!(text.contains(tasks[1].id.as_str()), "{text}");
    // The first session ends without submitting: its task is free again, nothing was recorded.
    first.cancel().await.expect("closes");
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let third = connect(&coord).await;
    let (_, text) = call(&third, "next_task", json!({})).await;
    assert!(text.contains(tasks[0].id.as_str()), "the abandoned task is handed out again: {text}");
    assert_eq!(coord.finished(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_cannot_write_attach_or_reach_another_route() {
    let (_out, tasks, coord) = fresh_run("guard", 1);
    let client = connect(&coord).await;
    call(&client, "next_task", json!({})).await;
    let spec = Manifest::get().route(tasks[0].route);
    let table = &spec.schema.tables[0].name;
    for statement in [
        format!("DELETE FROM {table}"),
        format!("DROP TABLE {table}"),
        "CREATE TABLE pwned(x)".to_string(),
        format!("UPDATE {table} SET rowid = rowid"),
        "PRAGMA writable_schema = ON".to_string(),
    ] {
        let (err, text) = call(&client, "sql", json!({"query": statement})).await;
        assert!(err, "{statement}: refused, got {text}");
    }
    // Another route's file cannot be attached, and its tables do not exist here.
    let other = Manifest::get()
        .routes()
        .find(|s| s.format == CorpusFormat::Sqlite && s.route != tasks[0].route)
        .expect("another SQLite route");
    let other_path = sample().2.join(&other.file);
    let (err, text) =
        call(&client, "sql", json!({"query": format!("ATTACH DATABASE '{}' AS o", other_path.display())})).await;
    assert!(err, "ATTACH refused: {text}");
    let foreign = other.schema.tables.iter().find(|t| !spec.schema.tables.iter().any(|s| s.name == t.name));
    if let Some(foreign) = foreign {
        let (err, text) = call(&client, "sql", json!({"query": format!("SELECT * FROM {}", foreign.name)})).await;
        assert!(err, "{}: another route's table is unreachable: {text}", foreign.name);
    }
    // The corpus file is unchanged.
    let raw =
        Connection::open_with_flags(sample().2.join(&spec.file), OpenFlags::SQLITE_OPEN_READ_ONLY).expect("raw open");
    let n: i64 = raw.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).expect("count");
    assert!(n > 0, "{table} still has its rows");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_cannot_read_past_the_tasks_boundary_or_ground_truth_rows() {
    // A predictive task on a dated SQLite route: rows after its cutoff exist in the file.
    let task = bench()
        .tasks()
        .iter()
        .find(|t| {
            boundary::dated_table(t.route).is_some()
                && boundary::Boundary::from_task(t).ok().flatten().is_some()
                && Manifest::get().route(t.route).format == CorpusFormat::Sqlite
        })
        .expect("a sample task with a boundary on a dated route")
        .clone();
    let dated = boundary::dated_table(task.route).expect("dated");
    let cutoff = boundary::Boundary::from_task(&task).expect("parses").expect("boundary").cutoff;
    let outside = format!("SELECT count(*) FROM {} WHERE NOT ({})", dated.table, cutoff.sql_predicate(dated));
    let spec = Manifest::get().route(task.route);
    let raw =
        Connection::open_with_flags(sample().2.join(&spec.file), OpenFlags::SQLITE_OPEN_READ_ONLY).expect("raw open");
    let raw_outside: i64 = raw.query_row(&outside, [], |r| r.get(0)).expect("raw count");
    assert!(raw_outside > 0, "{}: the file holds records past the cutoff", task.id);

    let out = tempfile::tempdir().expect("tempdir");
    let coord = coordinator(out.path(), "boundary", vec![task.clone()], false);
    let client = connect(&coord).await;
    call(&client, "next_task", json!({})).await;
    let (err, text) = call(&client, "sql", json!({"query": outside})).await;
    assert!(!err, "{text}");
    let seen: serde_json::Value = serde_json::from_str(&text).expect("sql JSON");
    assert_eq!(seen["rows"][0][0], 0, "no record past the cutoff is visible: {text}");
    if let Some(ex) = &spec.exclude {
        let q = format!("SELECT count(*) FROM {} WHERE {} = '{}'", ex.table, ex.column, ex.value);
        let raw_gt: i64 = raw.query_row(&q, [], |r| r.get(0)).expect("raw");
        let (_, text) = call(&client, "sql", json!({"query": q})).await;
        let seen: serde_json::Value = serde_json::from_str(&text).expect("sql JSON");
        assert!(raw_gt > 0);
        assert_eq!(seen["rows"][0][0], 0, "ground-truth rows hidden: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_continues_with_the_unfinished_tasks() {
    let out = tempfile::tempdir().expect("tempdir");
    let tasks = sql_tasks(3);
    {
        let coord = coordinator(out.path(), "resumed", tasks.clone(), false);
        let client = connect(&coord).await;
        let (_, text) = call(&client, "next_task", json!({})).await;
        assert!(text.contains(tasks[0].id.as_str()));
        let task = &tasks[0];
        for (name, args) in crate::support::mcp_script(task) {
            let (err, text) = call(&client, &name, args).await;
            assert!(!err, "{text}");
        }
        client.cancel().await.expect("closes");
    }
    let coord = coordinator(out.path(), "resumed", tasks.clone(), true);
    assert_eq!(coord.finished(), 1);
    let client = connect(&coord).await;
    let done = solve_all(&client).await;
    assert_eq!(done, vec![tasks[1].id.clone(), tasks[2].id.clone()]);
    let records = read_records(coord.run_dir()).expect("journal");
    assert_eq!(records.len(), 3, "each task recorded once");
}
