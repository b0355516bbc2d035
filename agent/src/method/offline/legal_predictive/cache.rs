//! The legal plans' dictionary reads, once per process. A counting or association plan reads
//! the route's dictionaries (causes of action, feature keys and values, decision texts, the
//! annotation registry) before the one SQL query that counts or builds its cohort; at release
//! size those reads were most of a legal task's time, and they are the same for every task of
//! a route that sees the same rows.
//!
//! Boundary discipline: what a task may see is decided by the hiding conditions of its own
//! guarded connection (the route's ground-truth exclusion and the task's cutoff, as SQL
//! conditions). A dictionary is cached per route file and set of those conditions, and read
//! through the first connection that has them, so a task only ever gets rows a connection with
//! exactly its own conditions returned; a task with another cutoff gets its own dictionaries.
//! The counting query and the cohort query still run on the task's connection.

use std::{path::PathBuf, sync::Arc};

use anser_manifest::{Language, Route};

use super::{count::CaseTable, en::Entry, zh::ZhIndex};
use crate::{
    Result,
    method::offline::{HidingRules, column_strings, hiding_rules, once_map::OnceMap},
    tools::sql::GuardedDb,
};

/// A route's file, the route, the longest text cell read (the connection's limit shapes the
/// texts) and the hiding rules of the connection.
type ViewKey = (PathBuf, Route, usize, HidingRules);

/// Legal dictionaries read so far in this process, per route and set of hiding rules.
#[derive(Default)]
pub struct LegalCache {
    views: OnceMap<ViewKey, Arc<Dictionaries>>,
}

impl std::fmt::Debug for LegalCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegalCache").field("views", &self.views.len()).finish()
    }
}

/// What connections with one set of hiding rules see of a route's dictionaries.
#[derive(Default)]
pub(in crate::method::offline) struct Dictionaries {
    /// Dictionary query (SQL text) → its rows as strings.
    rows: OnceMap<String, Arc<Vec<Vec<String>>>>,
    /// Cause of action → the Chinese feature index of its cases.
    pub(super) zh_causes: OnceMap<String, Arc<ZhIndex>>,
    /// The English annotation registry, prepared for matching.
    pub(super) en_registry: OnceMap<(), Arc<Vec<Entry>>>,
    /// The cases and their feature rows, for counting.
    cases: OnceMap<(), Arc<CaseTable>>,
}

impl LegalCache {
    /// How many (route, hiding rules) views have been read.
    pub fn len(&self) -> usize {
        self.views.len()
    }

    /// The task's connection with the dictionaries its hiding rules see.
    pub(in crate::method::offline) fn reader<'a>(&self, db: &'a GuardedDb) -> Result<Reader<'a>> {
        let key = (db.path().to_path_buf(), db.route(), db.params().max_cell_chars(), hiding_rules(db));
        let dicts = self.views.get_or_try_make(&key, || Ok::<_, crate::Error>(Arc::default()))?;
        Ok(Reader { db, dicts })
    }
}

/// A task's guarded connection and the cached dictionaries of its view of the route.
pub(in crate::method::offline) struct Reader<'a> {
    /// The task's own connection (for the counting and cohort queries).
    pub(in crate::method::offline) db: &'a GuardedDb,
    pub(super) dicts: Arc<Dictionaries>,
}

impl Reader<'_> {
    /// The rows of a dictionary query as strings, read once per view.
    pub(in crate::method::offline) fn rows(&self, sql: &str) -> Result<Arc<Vec<Vec<String>>>> {
        self.dicts.rows.get_or_try_make(&sql.to_string(), || column_strings(self.db, sql).map(Arc::new))
    }

    /// The cases and feature rows of the view, read once per view.
    pub(in crate::method::offline) fn cases(&self, lang: Language) -> Result<Arc<CaseTable>> {
        self.dicts.cases.get_or_try_make(&(), || {
            match lang {
                Language::Zh => CaseTable::read_zh(self.db),
                Language::En => CaseTable::read_en(self.db),
            }
            .map(Arc::new)
        })
    }
}
