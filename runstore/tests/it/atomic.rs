use anser_runstore::{write_atomic, write_json_atomic};

#[test]
fn replaces_the_file_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.json");
    write_json_atomic(&path, &serde_json::json!({"a": 1})).expect("first");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "{\n  \"a\": 1\n}\n");
    write_atomic(&path, b"second").expect("second");
    assert_eq!(std::fs::read(&path).expect("read"), b"second");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into())
        .collect();
    assert_eq!(names, vec!["report.json".to_string()]);
}

#[test]
fn a_failed_write_keeps_the_old_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("out.json");
    write_atomic(&path, b"old").expect("write");
    // The target is now a directory: the rename fails and the old content must stay intact.
    let target_dir = dir.path().join("sub");
    std::fs::create_dir(&target_dir).expect("mkdir");
    std::fs::write(target_dir.join("inner"), b"x").expect("write inner");
    assert!(write_atomic(&target_dir, b"new").is_err());
    assert_eq!(std::fs::read(&path).expect("read"), b"old");
    let leftovers = std::fs::read_dir(dir.path())
        .expect("ls")
        .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".tmp")));
    assert_eq!(leftovers.count(), 0);
}

#[test]
fn missing_directory_error_names_the_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("no/such/dir/file.json");
    let err = write_atomic(&path, b"x").expect_err("missing dir");
    assert!(err.to_string().contains("no/such/dir"), "{err}");
}
