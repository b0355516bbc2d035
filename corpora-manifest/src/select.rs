//! Task selection with the official runner's meaning: domain, language and split filters, exact
//! `type` matches, then an id list, then a deterministic `--limit` cap, all in file order.

use std::collections::HashSet;

use serde::Serialize;

use crate::{Domain, Error, Language, PublicTask, Result, Split};

/// Selection filters. `None` / empty means "all".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Selection {
    pub domain: Option<Domain>,
    pub language: Option<Language>,
    pub split: Option<Split>,
    /// Exact `type` values; `null` (or Python's `None`) selects tasks whose type is JSON null.
    pub task_types: Vec<String>,
    /// Only these ids (in file order, not in the order given).
    pub ids: Vec<String>,
    /// Keep at most this many tasks after filtering; 0 means no cap.
    pub limit: usize,
}

impl Selection {
    /// Whether one task passes the domain/language/split/type filters.
    pub fn matches(&self, task: &PublicTask) -> bool {
        let g = task.group;
        self.domain.is_none_or(|d| d == g.domain)
            && self.language.is_none_or(|l| l == g.language)
            && self.split.is_none_or(|s| s == g.split)
            && (self.task_types.is_empty()
                || self.task_types.iter().any(|t| match task.task_type.as_deref() {
                    Some(ty) => ty == t,
                    None => t == "null" || t == "None",
                }))
            && (self.ids.is_empty() || self.ids.iter().any(|i| i == &task.id))
    }

    /// Apply the selection. Unknown ids and an empty result are errors.
    pub fn apply(&self, tasks: &[PublicTask]) -> Result<Vec<PublicTask>> {
        if !self.ids.is_empty() {
            let known: HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
            let unknown: Vec<&str> = self.ids.iter().map(String::as_str).filter(|i| !known.contains(i)).collect();
            if !unknown.is_empty() {
                return Err(Error::Selection(format!("unknown task ids in --ids: {}", unknown.join(", "))));
            }
        }
        let mut out: Vec<PublicTask> = tasks.iter().filter(|t| self.matches(t)).cloned().collect();
        if self.limit > 0 {
            out.truncate(self.limit);
        }
        if out.is_empty() {
            return Err(Error::Selection(
                "the selected filters matched no tasks; widen --domain/--language/--split/--task-type".into(),
            ));
        }
        Ok(out)
    }
}

/// One entry of `selection.json`: the public inputs only, as the official runner writes them.
#[derive(Debug, Serialize)]
pub struct SelectionEntry<'a> {
    pub id: &'a str,
    #[serde(rename = "type")]
    pub task_type: Option<&'a str>,
    pub query: &'a str,
    pub instruction: &'a str,
    #[serde(rename = "_benchmark_path")]
    pub benchmark_path: String,
    pub group: String,
    pub route: &'static str,
}

impl<'a> From<&'a PublicTask> for SelectionEntry<'a> {
    fn from(t: &'a PublicTask) -> Self {
        SelectionEntry {
            id: &t.id,
            task_type: t.task_type.as_deref(),
            query: &t.query,
            instruction: &t.instruction,
            benchmark_path: format!("query/{}", t.source_file),
            group: t.group.name(),
            route: t.route.as_str(),
        }
    }
}
