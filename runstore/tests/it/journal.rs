use std::{
    io::Write,
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use anser_runstore::{Error, Journal, Retained, read_journal, read_journal_by_key, retain_lines, rewrite_journal};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Rec {
    id: u64,
    text: String,
}

fn rec(id: u64) -> Rec {
    Rec { id, text: format!("record {id} with \"quotes\"\nand a newline, 中文") }
}

/// A journal `j.jsonl` in a fresh folder holding `rec(0)` … `rec(n - 1)`: (folder, path, journal).
fn journal_of(n: u64) -> (tempfile::TempDir, PathBuf, Journal) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("j.jsonl");
    let mut j = Journal::open(&path).expect("open");
    for i in 0..n {
        j.append(&rec(i)).expect("append");
    }
    (dir, path, j)
}

#[test]
fn append_then_read_in_order() {
    let (_dir, path, _j) = journal_of(5);
    let got = read_journal::<Rec>(&path).expect("read");
    assert_eq!(got.records, (0..5).map(rec).collect::<Vec<_>>());
    assert_eq!((got.torn_bytes, got.duplicates), (0, 0));
    assert_eq!(std::fs::read_to_string(&path).expect("read").lines().count(), 5);
}

#[test]
fn missing_journal_is_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    let got = read_journal::<Rec>(&dir.path().join("none.jsonl")).expect("read");
    assert!(got.records.is_empty());
}

#[test]
fn torn_last_line_is_ignored_then_cut_before_appending() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("j.jsonl");
    let mut j = Journal::open(&path).expect("open");
    j.append(&rec(0)).expect("append");
    drop(j);
    // A crash half-way through the second record: a prefix of its line, no newline.
    let line = serde_json::to_string(&rec(1)).expect("json");
    let torn = &line.as_bytes()[..line.len() / 2];
    std::fs::OpenOptions::new().append(true).open(&path).expect("open").write_all(torn).expect("write");

    let got = read_journal::<Rec>(&path).expect("read");
    assert_eq!(got.records, vec![rec(0)]);
    assert_eq!(got.torn_bytes, torn.len());

    let mut j = Journal::open(&path).expect("reopen");
    assert_eq!(j.torn_bytes_removed(), torn.len() as u64);
    j.append(&rec(1)).expect("append");
    let got = read_journal::<Rec>(&path).expect("read");
    assert_eq!(got.records, vec![rec(0), rec(1)]);
    assert_eq!(got.torn_bytes, 0);
}

#[test]
fn a_complete_but_full_record_without_newline_is_still_torn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("j.jsonl");
    std::fs::write(&path, serde_json::to_string(&rec(7)).expect("json")).expect("write");
    let got = read_journal::<Rec>(&path).expect("read");
    assert!(got.records.is_empty(), "an unterminated line may be a prefix of a longer record");
    assert!(got.torn_bytes > 0);
}

#[test]
fn corrupt_complete_line_is_an_error_with_line_number() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("j.jsonl");
    let good = serde_json::to_string(&rec(0)).expect("json");
    std::fs::write(&path, format!("{good}\nnot json\n{good}\n")).expect("write");
    let err = read_journal::<Rec>(&path).expect_err("corrupt");
    assert!(matches!(err, Error::CorruptJournal { line: 2, .. }), "{err}");
    assert!(err.to_string().contains("j.jsonl"), "{err}");
}

#[test]
fn by_key_yields_each_record_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("j.jsonl");
    let mut j = Journal::open(&path).expect("open");
    for r in [rec(1), rec(2), Rec { id: 1, text: "second copy".into() }, rec(3)] {
        j.append(&r).expect("append");
    }
    let got = read_journal_by_key::<Rec, _, _>(&path, |r| r.id).expect("read");
    assert_eq!(got.records, vec![rec(1), rec(2), rec(3)]);
    assert_eq!(got.duplicates, 1);
}

/// Child side of `survives_kill_9`: appends records until killed. A no-op in a normal test run.
#[test]
fn kill9_child_writer() {
    let Some(path) = std::env::var_os("RUNSTORE_KILL9_JOURNAL") else { return };
    let mut j = Journal::open(Path::new(&path)).expect("open");
    let padding = "x".repeat(8 * 1024);
    for id in 0.. {
        j.append(&Rec { id, text: padding.clone() }).expect("append");
    }
}

#[test]
fn survives_kill_9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("j.jsonl");
    let exe = std::env::current_exe().expect("test binary");
    let mut child = Command::new(exe)
        .args(["--exact", "journal::kill9_child_writer", "--nocapture", "--test-threads=1"])
        .env("RUNSTORE_KILL9_JOURNAL", &path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn writer");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) < 200 * 1024 {
        assert!(std::time::Instant::now() < deadline, "writer made no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reap");

    let got = read_journal::<Rec>(&path).expect("read after kill");
    let ids: Vec<u64> = got.records.iter().map(|r| r.id).collect();
    assert!(ids.len() >= 20, "only {} records", ids.len());
    assert_eq!(ids, (0..ids.len() as u64).collect::<Vec<_>>(), "records lost, duplicated or reordered");

    let next = ids.len() as u64;
    let mut j = Journal::open(&path).expect("reopen");
    j.append(&rec(next)).expect("append after crash");
    let again = read_journal::<Rec>(&path).expect("read again");
    assert_eq!(again.records.len(), ids.len() + 1);
    assert_eq!(again.records.last(), Some(&rec(next)));
    assert_eq!(again.torn_bytes, 0);
}

#[test]
fn rewrite_replaces_the_records_atomically() {
    let (dir, path, j) = journal_of(4);
    drop(j);
    rewrite_journal(&path, &[rec(0), rec(2)]).expect("rewrite");
    assert_eq!(read_journal::<Rec>(&path).expect("read").records, vec![rec(0), rec(2)]);
    let mut j = Journal::open(&path).expect("reopen");
    j.append(&rec(9)).expect("append");
    assert_eq!(read_journal::<Rec>(&path).expect("read").records, vec![rec(0), rec(2), rec(9)]);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into())
        .collect();
    assert_eq!(names, vec!["j.jsonl".to_string()], "no temporary file left");
}

#[test]
fn retain_lines_drops_refused_and_torn_lines_and_leaves_clean_files_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.jsonl");
    assert_eq!(retain_lines(&path, |_| true).expect("missing file"), Retained::default());
    assert!(!path.exists(), "a missing file stays missing");
    std::fs::write(&path, "{\"k\":1}\n{\"k\":2}\n\n{\"k\":3}\n{\"k\":4").expect("write");
    let stats = retain_lines(&path, |l| !l.ends_with(b"2}")).expect("retain");
    assert_eq!(stats, Retained { kept: 2, dropped: 1, torn_bytes: 6 });
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "{\"k\":1}\n{\"k\":3}\n");
    let modified = std::fs::metadata(&path).expect("meta").modified().expect("mtime");
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(retain_lines(&path, |_| true).expect("retain"), Retained { kept: 2, dropped: 0, torn_bytes: 0 });
    assert_eq!(std::fs::metadata(&path).expect("meta").modified().expect("mtime"), modified, "not rewritten");
}
