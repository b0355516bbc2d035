//! Progress bars with ETA on stderr for the long steps (reading and indexing units, embedding,
//! building the graph); hidden with `--quiet` or when stderr is not a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `len` steps (a spinner when `len` is 0), or a hidden one.
pub fn bar(quiet: bool, len: u64, message: impl Into<String>) -> ProgressBar {
    let pb = if len == 0 { ProgressBar::new_spinner() } else { ProgressBar::new(len) };
    if quiet {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template =
        if len == 0 { "{spinner} {msg} {elapsed}" } else { "{msg:>24} [{bar:30}] {pos}/{len} ({per_sec}, ETA {eta})" };
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(message.into());
    pb
}
