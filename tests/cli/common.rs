//! Helpers shared by the CLI tests: run the binary, find the examples and ../shared.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// Run `anser` with `args`; returns the full output.
pub fn anser(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_anser")).args(args).output().expect("the anser binary runs")
}

/// The bundled example task folder.
pub fn examples_query() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/query")
}

/// The shared reference folder, or `None` (after printing the skip reason).
pub fn shared(what: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("ANSER_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    if dir.join("anser").is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped {what}: ../shared not found (set ANSER_SHARED)");
        None
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Copy a directory tree (test fixtures are built from the bundled examples).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}
