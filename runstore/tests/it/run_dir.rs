use anser_runstore::{Error, OpenMode, RunDir, RunName};

#[test]
fn new_run_creates_the_directory_and_refuses_an_existing_one() {
    let root = tempfile::tempdir().expect("tempdir");
    let runs = root.path().join("runs");
    let name = RunName::new("r1").expect("valid");
    let run = RunDir::create(&runs, &name, OpenMode::New).expect("create");
    assert!(run.path().is_dir());
    assert_eq!(run.file("x.json"), runs.join("r1").join("x.json"));
    std::fs::write(run.file("keep.txt"), "finished").expect("write");

    let again = RunDir::create(&runs, &name, OpenMode::New);
    assert!(matches!(again, Err(Error::RunExists { .. })), "{again:?}");
    assert!(again.as_ref().err().is_some_and(Error::is_user_error));
    assert_eq!(std::fs::read_to_string(runs.join("r1/keep.txt")).expect("read"), "finished");

    let resumed = RunDir::create(&runs, &name, OpenMode::Resume).expect("resume");
    assert_eq!(resumed.path(), run.path());
}

#[test]
fn resuming_a_missing_run_fails() {
    let root = tempfile::tempdir().expect("tempdir");
    let name = RunName::new("nope").expect("valid");
    let err = RunDir::create(root.path(), &name, OpenMode::Resume).expect_err("missing");
    assert!(matches!(err, Error::RunMissing { .. }));
    assert!(err.to_string().contains("nope"), "{err}");
    assert!(RunDir::open(root.path(), &name).is_err());
}

#[test]
fn invalid_names_never_reach_the_file_system() {
    for bad in ["..", "../escape", "a/b", ".", ""] {
        let err = bad.parse::<RunName>().expect_err(bad);
        assert!(err.is_user_error());
        assert!(err.to_string().contains("invalid run name"), "{err}");
    }
}
