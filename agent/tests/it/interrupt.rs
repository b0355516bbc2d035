//! Ctrl-C while a task is inside `block_in_place`: the run loop must let the task unwind while
//! the runtime is alive. The old loop dropped the runtime at once, so the task woke up after its
//! blocking call in a runtime that was shutting down and panicked at its next timer ("A Tokio
//! 1.x context was found, but it is being shutdown").

use std::{
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use anser_agent::{
    method::{Solved, Solver},
    run::{RunConfig, TaskTrace, run},
};
use anser_manifest::PublicTask;
use anser_runstore::RunName;
use futures_util::{FutureExt, future::BoxFuture};
use serde_json::Value;

/// Counts how the tasks' futures ended: dropped while panicking, or dropped/finished cleanly.
#[derive(Default)]
struct Endings {
    panicked: AtomicUsize,
    clean: AtomicUsize,
}

struct Guard(Arc<Endings>);

impl Drop for Guard {
    fn drop(&mut self) {
        let counter = if std::thread::panicking() { &self.0.panicked } else { &self.0.clean };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

/// Blocks (as retrieval does) while the first task sends SIGINT to this process, then awaits a
/// timer (as the LLM call after retrieval does).
struct SlowRetrieval {
    endings: Arc<Endings>,
    started: AtomicUsize,
}

impl Solver for SlowRetrieval {
    fn name(&self) -> &str {
        "slow-retrieval"
    }

    fn solve<'a>(&'a self, _task: &'a PublicTask, _trace: &'a mut TaskTrace) -> BoxFuture<'a, Solved> {
        async move {
            let _guard = Guard(self.endings.clone());
            let first = self.started.fetch_add(1, Ordering::SeqCst) == 0;
            tokio::task::block_in_place(|| {
                if first {
                    // Let the run loop start listening for Ctrl-C, then interrupt it.
                    std::thread::sleep(Duration::from_millis(200));
                    let pid = std::process::id().to_string();
                    let sent = std::process::Command::new("kill").args(["-INT", &pid]).status();
                    assert!(sent.is_ok_and(|s| s.success()), "cannot send SIGINT");
                }
                std::thread::sleep(Duration::from_millis(400));
            });
            tokio::time::sleep(Duration::from_millis(1)).await;
            Solved::answered(Value::String("1".into()), Vec::new(), Vec::new())
        }
        .boxed()
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_a_blocking_call_unwinds_without_a_panic() {
    // Install tokio's process-wide SIGINT handler first, so the signal can never kill the test
    // binary, whichever runtime listens.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let _ = tokio::time::timeout(Duration::from_millis(1), tokio::signal::ctrl_c()).await;
    });
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/query");
    let tasks = anser_manifest::load_public_tasks(&examples).expect("examples load");
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = RunConfig {
        concurrency: 3,
        ..RunConfig::new(RunName::new("interrupted").expect("name"), tmp.path().to_path_buf(), tasks.clone())
    };
    let endings = Arc::new(Endings::default());
    let solver = Arc::new(SlowRetrieval { endings: endings.clone(), started: AtomicUsize::new(0) });
    let summary = run(&config, solver).expect("an interrupted run is not an error");
    assert!(summary.interrupted, "Ctrl-C was seen");
    assert!(summary.finished_now < tasks.len(), "the run stopped early");
    let started = 3;
    assert_eq!(endings.panicked.load(Ordering::SeqCst), 0, "a task panicked while the runtime shut down");
    assert_eq!(endings.clean.load(Ordering::SeqCst), started, "every started task unwound");
    let journal = std::fs::read_to_string(tmp.path().join("interrupted/results.journal.jsonl")).unwrap_or_default();
    assert_eq!(journal.lines().count(), summary.finished_now, "what finished is journaled");
}
