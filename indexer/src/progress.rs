//! Progress bars on stderr for the long steps (reading and indexing units, embedding, building
//! the graph, answering tasks); hidden with `--quiet` or when stderr is not a terminal.
//!
//! Rates and ETAs are our own rather than indicatif's `{per_sec}`/`{eta}`: those extrapolate from
//! the first ticks (a resumed run that starts at task 150 of 170 shows thousands per second,
//! and the first task's time predicts hours), so [`rate_text`] counts only the work done since
//! the bar started and [`eta_text`] shows nothing until enough work is done to mean something.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Wall time before a rate or an ETA is shown.
pub const MIN_ELAPSED_FOR_RATE: Duration = Duration::from_secs(1);
/// Wall time before an ETA is shown.
pub const MIN_ELAPSED_FOR_ETA: Duration = Duration::from_secs(3);
/// Steps done (since the bar started) before an ETA is shown.
pub const MIN_STEPS_FOR_ETA: u64 = 3;
/// Share of the remaining work done before an ETA is shown.
pub const MIN_FRACTION_FOR_ETA: f64 = 0.05;

/// The rate of `done` steps in `elapsed`, per second or per minute (whichever reads as a number
/// ≥ 1), or `-` before there is anything to measure.
pub fn rate_text(done: u64, elapsed: Duration) -> String {
    if done == 0 || elapsed < MIN_ELAPSED_FOR_RATE {
        return "-/s".into();
    }
    let per_sec = done as f64 / elapsed.as_secs_f64();
    if per_sec >= 1.0 { format!("{per_sec:.1}/s") } else { format!("{:.1}/min", per_sec * 60.0) }
}

/// Time left for `remaining` steps at the pace of `done` steps in `elapsed`, as `1h02m`, `4m05s`
/// or `12s`; `-` until at least [`MIN_STEPS_FOR_ETA`] steps and [`MIN_FRACTION_FOR_ETA`] of
/// the work are done and [`MIN_ELAPSED_FOR_ETA`] has passed.
pub fn eta_text(done: u64, remaining: u64, elapsed: Duration) -> String {
    let total = done + remaining;
    let enough = done >= MIN_STEPS_FOR_ETA
        && elapsed >= MIN_ELAPSED_FOR_ETA
        && (total == 0 || done as f64 / total as f64 >= MIN_FRACTION_FOR_ETA);
    if !enough {
        return "-".into();
    }
    let secs = (elapsed.as_secs_f64() * remaining as f64 / done as f64).round() as u64;
    match secs {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

/// A style from `template` with the keys `{rate}` and `{left}` ([`rate_text`], [`eta_text`]),
/// counting only the steps after `start` (the position a resumed bar begins at).
pub fn style(template: &str, start: u64) -> Option<ProgressStyle> {
    let done = move |s: &ProgressState| s.pos().saturating_sub(start);
    ProgressStyle::with_template(template).ok().map(|style| {
        style
            .with_key("rate", move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate_text(done(s), s.elapsed()));
            })
            .with_key("left", move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let remaining = s.len().map_or(0, |len| len.saturating_sub(s.pos()));
                let _ = w.write_str(&eta_text(done(s), remaining, s.elapsed()));
            })
    })
}

/// A bar of `len` steps (a spinner when `len` is 0), or a hidden one.
pub fn bar(quiet: bool, len: u64, message: impl Into<String>) -> ProgressBar {
    let pb = if len == 0 { ProgressBar::new_spinner() } else { ProgressBar::new(len) };
    if quiet {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template =
        if len == 0 { "{spinner} {msg} {elapsed}" } else { "{msg:>24} [{bar:30}] {pos}/{len} ({rate}, ETA {left})" };
    if let Some(style) = style(template, 0) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(message.into());
    pb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_eta_before_it_means_something() {
        let s = Duration::from_secs;
        assert_eq!(eta_text(0, 170, s(30)), "-", "nothing done");
        assert_eq!(eta_text(2, 168, s(30)), "-", "too few steps");
        assert_eq!(eta_text(5, 165, Duration::from_millis(500)), "-", "too early");
        assert_eq!(eta_text(5, 995, s(60)), "-", "under 5 % done");
        assert_eq!(eta_text(10, 90, s(20)), "3m00s");
        assert_eq!(eta_text(50, 50, s(7200)), "2h00m");
        assert_eq!(eta_text(10, 1, s(20)), "2s");
    }

    #[test]
    fn rates_count_only_this_sessions_work_and_read_as_numbers() {
        let s = Duration::from_secs;
        assert_eq!(rate_text(0, s(10)), "-/s");
        assert_eq!(rate_text(150, Duration::from_millis(10)), "-/s", "a resumed bar's first tick");
        assert_eq!(rate_text(30, s(10)), "3.0/s");
        assert_eq!(rate_text(1, s(30)), "2.0/min");
    }
}
