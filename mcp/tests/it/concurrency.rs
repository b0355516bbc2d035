//! Eight `rmcp` clients at once on one Streamable HTTP server: every task is answered exactly
//! once, and the run directory holds all of them.

use std::{collections::BTreeSet, sync::Arc};

use anser_agent::run::read_records;
use tokio_util::sync::CancellationToken;

use crate::support::{connect_http, coordinator, solve_all, sql_tasks};

/// Sessions at once.
const SESSIONS: usize = 8;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_concurrent_http_sessions_answer_every_task_once() {
    let out = tempfile::tempdir().expect("tempdir");
    let tasks = sql_tasks(24);
    assert!(tasks.len() >= 2 * SESSIONS, "enough tasks to share: {}", tasks.len());
    let coord = coordinator(out.path(), "http-8", tasks.clone(), false);
    let cancel = CancellationToken::new();
    let router = anser_mcp::http::router(Some(coord.clone()), None, &cancel);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let server =
        tokio::spawn(anser_mcp::http::serve("127.0.0.1:0".parse().expect("addr"), router, cancel.clone(), |a| {
            let _ = tx.send(a);
        }));
    let addr = rx.await.expect("bound");
    let url = format!("http://{addr}{}", anser_mcp::http::MCP_PATH);
    let barrier = Arc::new(tokio::sync::Barrier::new(SESSIONS));
    let mut sessions = Vec::new();
    for _ in 0..SESSIONS {
        let url = url.clone();
        let barrier = barrier.clone();
        sessions.push(tokio::spawn(async move {
            let client = connect_http(&url).await;
            barrier.wait().await;
            let done = solve_all(&client).await;
            client.cancel().await.expect("closes");
            done
        }));
    }
    let mut all = Vec::new();
    let mut busy = 0;
    for s in sessions {
        let done = s.await.expect("session task");
        busy += usize::from(!done.is_empty());
        all.extend(done);
    }
    cancel.cancel();
    server.await.expect("server task").expect("server ran");
    let unique: BTreeSet<&String> = all.iter().collect();
    assert_eq!(all.len(), tasks.len(), "every task answered once: {all:?}");
    assert_eq!(unique.len(), tasks.len());
    assert!(busy >= 2, "the sessions shared the work ({busy} of {SESSIONS} answered tasks)");
    let records = read_records(coord.run_dir()).expect("journal");
    assert_eq!(records.len(), tasks.len());
    assert!(records.iter().all(|r| r.method == "mcp"));
}
