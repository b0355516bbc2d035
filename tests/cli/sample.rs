//! `anser sample` as a command: the generated corpus passes `anser corpus check`, its tasks
//! cover all 14 groups, re-running is a no-op, and a folder holding something else is never
//! overwritten.

use serde_json::Value;

use crate::common::{anser, stderr, stdout};

#[test]
fn sample_passes_the_corpus_check_and_lists_every_group() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("sample");
    let out_s = out.to_str().expect("utf8");
    let o = anser(&["sample", "--out", out_s, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = anser(&["corpus", "check", "--corpus-root", out.join("corpus").to_str().expect("utf8"), "--json"]);
    assert!(o.status.success(), "corpus check: {}{}", stdout(&o), stderr(&o));
    let o = anser(&["tasks", "--benchmark-dir", out.join("query").to_str().expect("utf8"), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tasks: Value = serde_json::from_str(&stdout(&o)).expect("tasks --json");
    let groups = tasks["groups"].as_object().expect("groups");
    assert_eq!(groups.len(), 14, "{groups:?}");
    for (name, g) in groups {
        assert!(g["count"].as_u64().expect("count") >= 10, "{name}: at least 10 tasks");
    }

    // Same seed and size again: nothing is written, the folder is reported as the same sample.
    let before = std::fs::metadata(out.join("corpus/legal/zh/legal_wenshu.db")).and_then(|m| m.modified()).ok();
    let o = anser(&["sample", "--out", out_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("already holds"), "{}", stdout(&o));
    let after = std::fs::metadata(out.join("corpus/legal/zh/legal_wenshu.db")).and_then(|m| m.modified()).ok();
    assert_eq!(before, after, "an existing sample is not rewritten");

    // Another seed into the same folder is refused.
    let o = anser(&["sample", "--out", out_s, "--seed", "7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("refusing to overwrite"), "{}", stderr(&o));
}

#[test]
fn a_folder_holding_other_files_is_never_overwritten() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let keep = tmp.path().join("notes.txt");
    std::fs::write(&keep, "my notes").expect("write");
    let o = anser(&["sample", "--out", tmp.path().to_str().expect("utf8")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).trim_end().lines().count(), 1, "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&keep).expect("kept"), "my notes");
    assert_eq!(std::fs::read_dir(tmp.path()).expect("dir").count(), 1, "nothing was added");
}

#[test]
fn scale_is_a_fraction_of_the_release_size_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("sample");
    let out_s = out.to_str().expect("utf8");
    for args in [
        ["--size", "small", "--scale", "0.5"],
        ["--size", "release", "--scale", "0"],
        ["--size", "release", "--scale", "2"],
    ] {
        let mut all = vec!["sample", "--out", out_s];
        all.extend(args);
        let o = anser(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--scale"), "{args:?}: {}", stderr(&o));
        assert!(!out.exists(), "{args:?}: nothing written");
    }
}
