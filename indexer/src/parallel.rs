//! Running a few pieces of work at once on scoped threads: the BM25 build's segment writers,
//! statistics passes and final file syncs, and a large BM25 query's runs of documents, where each
//! piece is a large share of the work (one per thread), so a thread pool would save nothing but
//! the spawns, and the last piece runs on the calling thread.

use tantivy::TantivyError;

/// A piece of work of [`in_parallel`] panicked: an internal error naming what it was.
#[derive(Debug)]
pub(crate) struct Panicked<'a>(&'a str);

impl std::fmt::Display for Panicked<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} thread panicked", self.0)
    }
}

impl From<Panicked<'_>> for TantivyError {
    fn from(p: Panicked<'_>) -> Self {
        TantivyError::InternalError(p.to_string())
    }
}

impl From<Panicked<'_>> for crate::Error {
    fn from(p: Panicked<'_>) -> Self {
        TantivyError::from(p).into()
    }
}

impl From<Panicked<'_>> for std::io::Error {
    fn from(p: Panicked<'_>) -> Self {
        std::io::Error::other(p.to_string())
    }
}

/// Run `works` at once, all but the last on threads of their own and the last on this one, and
/// return their results in order (a panic becomes an internal error naming `what`).
pub(crate) fn in_parallel<'w, T, E, F>(what: &'w str, works: impl IntoIterator<Item = F>) -> Result<Vec<T>, E>
where
    T: Send,
    E: From<Panicked<'w>> + Send,
    F: FnOnce() -> Result<T, E> + Send,
{
    let mut works: Vec<F> = works.into_iter().collect();
    let Some(last) = works.pop() else { return Ok(Vec::new()) };
    std::thread::scope(|s| {
        let handles: Vec<_> = works.into_iter().map(|w| s.spawn(w)).collect();
        let last = last();
        let mut out = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Panicked(what).into())))
            .collect::<Result<Vec<_>, E>>()?;
        out.push(last?);
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Error, Result};

    #[test]
    fn results_in_order_and_errors_and_panics_reported() {
        let squares = in_parallel("test", (0..5u64).map(|i| move || Ok::<u64, Error>(i * i))).expect("works");
        assert_eq!(squares, vec![0, 1, 4, 9, 16]);
        assert!(in_parallel("test", std::iter::empty::<fn() -> Result<u8>>()).expect("none").is_empty());
        let fail: fn() -> Result<u8> = || Err(Error::Tantivy(TantivyError::InternalError("x".into())));
        let one: fn() -> Result<u8> = || Ok(1);
        assert!(in_parallel("test", [fail, one]).is_err());
        assert!(in_parallel("test", [one, fail]).is_err());
        let boom: fn() -> Result<u8> = || panic!("boom");
        let panicked = in_parallel("stats", [boom, one]);
        assert!(format!("{:?}", panicked.expect_err("panic")).contains("stats thread panicked"));
    }
}
