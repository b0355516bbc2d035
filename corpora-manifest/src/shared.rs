//! Where the read-only reference material (`../shared`: release task files, golden outputs,
//! models) lives. Tests and CI checks use it when present and skip with a reason otherwise, so
//! that `cargo test` passes on a fresh clone without it.

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

/// `shared_dir()`, or print a one-line skip reason naming `what` needed it.
pub fn shared_dir_or_skip(what: &str) -> Option<PathBuf> {
    let dir = shared_dir();
    if dir.is_none() {
        eprintln!("skipped {what}: ../shared not found (set ANSER_SHARED to the shared reference folder)");
    }
    dir
}
