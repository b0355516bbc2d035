use std::time::{Duration, SystemTime};

use anser_runstore::{ChangeKind, Fingerprint, FingerprintSet};

fn set_mtime(path: &std::path::Path, t: SystemTime) {
    let file = std::fs::OpenOptions::new().write(true).open(path).expect("open");
    file.set_modified(t).expect("set mtime");
}

#[test]
fn fingerprint_has_size_mtime_and_hash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("d.jsonl");
    std::fs::write(&path, b"abc").expect("write");
    set_mtime(&path, SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 5));
    let fp = Fingerprint::of(&path).expect("fingerprint");
    assert_eq!(fp.size, 3);
    assert_eq!((fp.mtime_secs, fp.mtime_nanos), (1_700_000_000, 5));
    assert_eq!(fp.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    let json = serde_json::to_string(&fp).expect("json");
    assert_eq!(serde_json::from_str::<Fingerprint>(&json).expect("back"), fp);
}

#[test]
fn diff_names_what_changed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b, c) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"));
    for p in [&a, &b, &c] {
        std::fs::write(p, b"same").expect("write");
        set_mtime(p, SystemTime::UNIX_EPOCH + Duration::from_secs(1_000));
    }
    let before = FingerprintSet::of_files([("a", a.as_path()), ("b", b.as_path()), ("c", c.as_path())]).expect("fp");
    assert!(before.diff(&before.clone()).is_empty());

    std::fs::write(&a, b"changed!").expect("write");
    set_mtime(&b, SystemTime::UNIX_EPOCH + Duration::from_secs(2_000));
    let d = dir.path().join("d");
    std::fs::write(&d, b"new").expect("write");
    let after = FingerprintSet::of_files([("a", a.as_path()), ("b", b.as_path()), ("d", d.as_path())]).expect("fp");

    let diff = before.diff(&after);
    let labels: Vec<(&str, &ChangeKind)> = diff.iter().map(|c| (c.label.as_str(), &c.kind)).collect();
    assert_eq!(labels.len(), 4, "{diff:?}");
    assert!(matches!(labels[0], ("a", ChangeKind::Content { size_before: 4, size_after: 8, .. })));
    assert!(matches!(labels[1], ("b", ChangeKind::MtimeOnly)));
    assert!(matches!(labels[2], ("c", ChangeKind::Removed)));
    assert!(matches!(labels[3], ("d", ChangeKind::Added)));
    assert!(diff[0].to_string().starts_with("a: content changed (size 4 -> 8 bytes"), "{}", diff[0]);

    let content: Vec<String> = before.content_changes(&after).iter().map(|c| c.label.clone()).collect();
    assert_eq!(content, ["a", "c", "d"]);
}
