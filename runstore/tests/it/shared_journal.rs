//! `SharedJournal`: many threads appending at once (group commit) lose no record and tear no
//! line; a torn tail left by a crash is cut before the first append, as `Journal::open` does.

use std::collections::BTreeSet;

use anser_runstore::{SharedJournal, read_journal};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Rec {
    worker: u64,
    n: u64,
    text: String,
}

#[test]
fn concurrent_appends_are_all_on_their_own_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("j.jsonl");
    std::fs::write(&path, "{\"worker\":99,\"n\":0,\"text\":\"kept\"}\n{\"worker\":99,\"n\":1,\"te").expect("torn");
    let journal = SharedJournal::open(&path).expect("open");
    std::thread::scope(|scope| {
        for worker in 0..8u64 {
            let journal = &journal;
            scope.spawn(move || {
                for n in 0..40u64 {
                    let text = format!("worker {worker} record {n} {}", "x".repeat((n * 37 % 500) as usize));
                    journal.append(&Rec { worker, n, text }).expect("append");
                }
            });
        }
    });
    let contents = read_journal::<Rec>(&path).expect("read");
    assert_eq!(contents.torn_bytes, 0);
    assert_eq!(contents.records.len(), 1 + 8 * 40);
    assert_eq!(contents.records[0].text, "kept");
    let seen: BTreeSet<(u64, u64)> = contents.records[1..].iter().map(|r| (r.worker, r.n)).collect();
    assert_eq!(seen.len(), 8 * 40);
    for worker in 0..8u64 {
        let order: Vec<u64> = contents.records.iter().filter(|r| r.worker == worker).map(|r| r.n).collect();
        assert_eq!(order, (0..40).collect::<Vec<_>>(), "a worker's records stay in its order");
    }
}
