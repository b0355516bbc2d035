//! Where the read-only reference material (`../shared`: release task files, golden outputs,
//! models) lives, and how tests treat a missing prerequisite.
//!
//! On a developer's fresh clone a test whose prerequisite (../shared, ONNX Runtime, Chromium,
//! python3) is missing skips with a one-line reason, so `cargo test` passes there. Under CI
//! (`CI=true`) the same absence is a failure: a check that silently passes without its input
//! proves nothing, and CI always has ../shared and installs the rest.

use std::path::PathBuf;

/// `$ANSER_SHARED`, else `../shared` next to the workspace root; `None` when it is absent.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("ANSER_SHARED") {
        Some(d) => PathBuf::from(d),
        // This crate sits one level below the workspace root.
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    };
    dir.join("anser").is_dir().then_some(dir)
}

/// Whether this process runs under CI (`CI` set to anything but empty, `0` or `false`).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// A prerequisite of `what` is missing (`reason` says which and how to get it): print a one-line
/// skip reason, or panic under CI, where a missing prerequisite is a failure.
///
/// # Panics
/// Under CI (`CI=true`), always.
pub fn missing_prerequisite(what: &str, reason: &str) {
    if under_ci() {
        panic!("{what}: {reason} (CI=true: a missing prerequisite fails the check instead of skipping it)");
    }
    eprintln!("skipped {what}: {reason}");
}

/// `shared_dir()`, or a skip reason naming `what` needed it (a failure under CI).
pub fn shared_dir_or_skip(what: &str) -> Option<PathBuf> {
    let dir = shared_dir();
    if dir.is_none() {
        missing_prerequisite(what, "../shared not found (set ANSER_SHARED to the shared reference folder)");
    }
    dir
}
