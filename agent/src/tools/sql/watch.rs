//! The statement watchdog: one shared deadline per connection, checked by SQLite's progress
//! handler between VM instructions and by the guard's own string functions (`functions`)
//! inside one long call, plus an interrupt handle another thread (the task deadline, Ctrl-C)
//! can use to stop a running statement at once.
//!
//! Why not only `sqlite3_interrupt` from a timer thread: SQLite checks its interrupt flag
//! between VM instructions, and a single built-in call (`instr`, `LIKE`, `replace` over
//! megabytes) is one instruction that can run for minutes. The limit holds because every
//! function that could run long checks this deadline itself; the interrupt handle covers
//! everything else.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use rusqlite::InterruptHandle;

/// Why the running statement was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The statement's own time limit.
    TimeLimit,
    /// The task's deadline (set with `GuardedDb::set_task_deadline`) came first.
    TaskDeadline,
    /// Another thread called [`SqlInterrupt::interrupt`].
    Interrupted,
}

const RUNNING: u8 = 0;

impl Stop {
    fn code(self) -> u8 {
        match self {
            Stop::TimeLimit => 1,
            Stop::TaskDeadline => 2,
            Stop::Interrupted => 3,
        }
    }

    fn from_code(c: u8) -> Option<Stop> {
        match c {
            1 => Some(Stop::TimeLimit),
            2 => Some(Stop::TaskDeadline),
            3 => Some(Stop::Interrupted),
            _ => None,
        }
    }
}

/// Deadline state shared by the connection's progress handler, its functions and
/// [`SqlInterrupt`] handles.
#[derive(Debug)]
pub struct Watch {
    base: Instant,
    /// Nanoseconds after `base` at which the running statement must stop (`u64::MAX`: none).
    deadline_ns: AtomicU64,
    /// What the armed deadline is: the statement limit or the task deadline.
    deadline_kind: AtomicU8,
    /// Set by [`SqlInterrupt::interrupt`]; sticky, so later statements refuse to start.
    cancelled: AtomicBool,
    /// Why the current statement was stopped (`RUNNING` while it was not).
    stopped: AtomicU8,
}

impl Watch {
    pub fn new() -> Arc<Watch> {
        Arc::new(Watch {
            base: Instant::now(),
            deadline_ns: AtomicU64::new(u64::MAX),
            deadline_kind: AtomicU8::new(Stop::TimeLimit.code()),
            cancelled: AtomicBool::new(false),
            stopped: AtomicU8::new(RUNNING),
        })
    }

    fn ns(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX)
    }

    /// Arm the deadline for one statement: `limit` from now, or `task_deadline` if earlier.
    /// Returns the time the statement has, and why it ends then.
    pub fn arm(&self, limit: Duration, task_deadline: Option<Instant>) -> (Duration, Stop) {
        let now = Instant::now();
        let own = now + limit;
        let (at, kind) = match task_deadline {
            Some(t) if t < own => (t, Stop::TaskDeadline),
            _ => (own, Stop::TimeLimit),
        };
        self.stopped.store(RUNNING, Ordering::Relaxed);
        self.deadline_kind.store(kind.code(), Ordering::Relaxed);
        self.deadline_ns.store(self.ns(at), Ordering::Relaxed);
        (at.saturating_duration_since(now), kind)
    }

    /// Disarm after the statement finished.
    pub fn disarm(&self) {
        self.deadline_ns.store(u64::MAX, Ordering::Relaxed);
    }

    /// Whether the running statement must stop now; records why the first time it says so.
    pub fn expired(&self) -> bool {
        if self.cancelled.load(Ordering::Relaxed) {
            self.stopped.store(Stop::Interrupted.code(), Ordering::Relaxed);
            return true;
        }
        if self.ns(Instant::now()) > self.deadline_ns.load(Ordering::Relaxed) {
            self.stopped.store(self.deadline_kind.load(Ordering::Relaxed), Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Whether [`SqlInterrupt::interrupt`] was called.
    pub fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Why the last statement was stopped, if it was.
    pub fn stopped(&self) -> Option<Stop> {
        Stop::from_code(self.stopped.load(Ordering::Relaxed))
    }
}

/// Stops the connection's running statement from another thread (`sqlite3_interrupt`) and
/// refuses every later one; cheap to clone and `Send`.
#[derive(Clone)]
pub struct SqlInterrupt {
    pub(super) watch: Arc<Watch>,
    pub(super) handle: Arc<InterruptHandle>,
}

impl std::fmt::Debug for SqlInterrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqlInterrupt").field("cancelled", &self.watch.cancelled()).finish_non_exhaustive()
    }
}

impl SqlInterrupt {
    /// Stop the running statement (if any) and every later one on this connection.
    pub fn interrupt(&self) {
        self.watch.cancelled.store(true, Ordering::Relaxed);
        self.handle.interrupt();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earlier_of_limit_and_task_deadline_wins() {
        let w = Watch::new();
        let (left, kind) = w.arm(Duration::from_secs(2), None);
        assert_eq!(kind, Stop::TimeLimit);
        assert!(left <= Duration::from_secs(2) && left > Duration::from_millis(1_900));
        assert!(!w.expired() && w.stopped().is_none());
        let soon = Instant::now() + Duration::from_millis(300);
        let (left, kind) = w.arm(Duration::from_secs(2), Some(soon));
        assert_eq!(kind, Stop::TaskDeadline);
        assert!(left <= Duration::from_millis(300));
        let (_, kind) = w.arm(Duration::from_millis(10), Some(Instant::now() + Duration::from_secs(60)));
        assert_eq!(kind, Stop::TimeLimit);
        let (left, kind) = w.arm(Duration::from_secs(2), Some(Instant::now() - Duration::from_millis(5)));
        assert_eq!((left, kind), (Duration::ZERO, Stop::TaskDeadline));
        std::thread::sleep(Duration::from_millis(2));
        assert!(w.expired());
        assert_eq!(w.stopped(), Some(Stop::TaskDeadline));
        w.disarm();
        w.arm(Duration::from_secs(2), None);
        assert_eq!(w.stopped(), None, "arming clears the last reason");
    }
}
