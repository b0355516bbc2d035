//! Information boundaries on the release's real task wording: no task is ambiguous, only
//! predictive and science tasks get a boundary, and the cutoffs found are the ones the
//! tasks' years imply.

use std::collections::BTreeMap;

use anser_agent::tools::boundary::{Boundary, Cutoff};
use anser_manifest::{Domain, Split};

use crate::release;

#[test]
fn release_tasks_parse_without_ambiguity() {
    let Some(bench) = release("boundaries of release tasks") else { return };
    let mut per_group: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut years: BTreeMap<String, BTreeMap<i32, usize>> = BTreeMap::new();
    for task in bench.tasks() {
        let b = Boundary::from_task(task).unwrap_or_else(|e| panic!("{e}"));
        let entry = per_group.entry(task.group.name()).or_default();
        entry.0 += 1;
        let Some(b) = b else { continue };
        entry.1 += 1;
        assert!(task.group.split == Split::Predictive || task.group.domain == Domain::Science, "{}", task.id);
        assert!(!b.stated_by.is_empty());
        match b.cutoff {
            Cutoff::FiscalYear { last } => *years.entry(task.group.name()).or_default().entry(last).or_default() += 1,
            Cutoff::Dates { ref through, .. } => assert!(through.len() == 10, "{}: {through}", task.id),
        }
    }
    let found = |g: &str| per_group.get(g).map_or(0, |c| c.1);
    // Pinned from the release (see the README section "Agent tools").
    assert_eq!(found("finance_en_predictive"), FINANCE_EN);
    assert_eq!(found("finance_zh_predictive"), FINANCE_ZH);
    assert_eq!(
        found("science_en_predictive") + found("science_en_descriptive"),
        82,
        "all but 'not restricted by date'"
    );
    assert_eq!(found("legal_zh_predictive") + found("legal_en_predictive"), 0);
    assert_eq!(years["finance_en_predictive"].keys().copied().collect::<Vec<_>>(), [2023]);
    assert_eq!(years["finance_zh_predictive"].keys().copied().collect::<Vec<_>>(), [2024, 2025]);
    for (g, (total, with)) in &per_group {
        eprintln!("{g}: {with} of {total} tasks state a cutoff");
    }
}

const FINANCE_EN: usize = 148;
const FINANCE_ZH: usize = 14;
