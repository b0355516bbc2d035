//! A map of values made once per key, with a lock per key: the planner's per-process caches
//! (finance routes, legal dictionaries) read a route on the first task that needs it, and the
//! tasks of that route wait for that read — but a task of another route must not. One global
//! lock held while reading would make it wait too; here the global lock is held only to find
//! or create the key's slot, and the read runs under the slot's own lock.
//!
//! A failed read stores nothing: the next task of the key tries again (and reports its own
//! error), so one task's SQL timeout does not poison the route for the rest of the run.

use std::{
    collections::HashMap,
    hash::Hash,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicUsize, Ordering},
    },
};

/// Values made once per key, each under its own lock.
pub(super) struct OnceMap<K, V> {
    slots: Mutex<HashMap<K, Arc<Mutex<Option<V>>>>>,
    /// How many slots hold a value (read without touching any slot's lock).
    filled: AtomicUsize,
}

impl<K, V> Default for OnceMap<K, V> {
    fn default() -> Self {
        OnceMap { slots: Mutex::default(), filled: AtomicUsize::new(0) }
    }
}

impl<K: Eq + Hash + Clone, V: Clone> OnceMap<K, V> {
    /// The value of `key`, made by `make` if no earlier call made it. Calls for one key wait
    /// for each other (so `make` runs once per key); calls for other keys do not wait for it.
    pub(super) fn get_or_try_make<E>(&self, key: &K, make: impl FnOnce() -> Result<V, E>) -> Result<V, E> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            match slots.get(key) {
                Some(slot) => Arc::clone(slot),
                None => Arc::clone(slots.entry(key.clone()).or_default()),
            }
        };
        let mut value = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(made) = value.as_ref() {
            return Ok(made.clone());
        }
        let made = make()?;
        *value = Some(made.clone());
        self.filled.fetch_add(1, Ordering::Relaxed);
        Ok(made)
    }

    /// How many keys hold a value.
    pub(super) fn len(&self) -> usize {
        self.filled.load(Ordering::Relaxed)
    }

    /// The keys that hold a value or are being made.
    pub(super) fn keys(&self) -> Vec<K> {
        self.slots.lock().map(|s| s.keys().cloned().collect()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use std::{sync::mpsc, thread, time::Duration};

    use super::*;

    #[test]
    fn a_slow_make_of_one_key_does_not_hold_up_another_key() {
        let map: Arc<OnceMap<&str, u32>> = Arc::default();
        let (started_tx, started_rx) = mpsc::channel();
        let (other_done_tx, other_done_rx) = mpsc::channel::<()>();
        let slow = {
            let map = Arc::clone(&map);
            thread::spawn(move || {
                map.get_or_try_make(&"slow", || {
                    started_tx.send(()).expect("signal");
                    // Finishes only once the other key was served: with one lock for every key
                    // the other call would wait for this one, and this wait would time out.
                    other_done_rx.recv_timeout(Duration::from_secs(20)).map(|()| 1).map_err(|e| e.to_string())
                })
            })
        };
        started_rx.recv().expect("the slow make started");
        assert_eq!(map.get_or_try_make(&"fast", || Ok::<_, String>(2)), Ok(2));
        other_done_tx.send(()).expect("signal");
        assert_eq!(slow.join().expect("thread"), Ok(1), "the slow key was not held up by the fast one");
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn a_key_is_made_once_and_a_failure_is_not_kept() {
        let map: OnceMap<u8, u32> = OnceMap::default();
        assert_eq!(map.get_or_try_make(&1, || Err::<u32, &str>("timeout")), Err("timeout"));
        assert_eq!(map.len(), 0);
        assert_eq!(map.get_or_try_make(&1, || Ok::<_, &str>(7)), Ok(7));
        assert_eq!(map.get_or_try_make(&1, || Ok::<_, &str>(8)), Ok(7), "made once");
        assert_eq!(map.len(), 1);
    }
}
