//! Task records as the release writes them: keys in the order `id, type, query, instruction,
//! evidence, ground_truth`, ids `<domain>_<lang>_<split>_<n>` (`science_<split>_<n>`), one JSON
//! array per group file, pretty-printed with two-space indentation and non-ASCII kept.

use std::path::Path;

use anser_manifest::{Domain, TaskGroup};
use serde::Serialize;
use serde_json::Value;

use crate::{Error, Result};

/// A task before it gets its id (ids are numbered per group file at write time).
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// `None` for the groups whose release tasks have `"type": null`.
    pub task_type: Option<String>,
    pub query: String,
    pub instruction: String,
    pub evidence: Value,
    pub ground_truth: Value,
}

impl Task {
    /// A task of a named type.
    pub fn new(task_type: &str, query: String, instruction: &str, evidence: Value, ground_truth: Value) -> Task {
        Task {
            task_type: Some(task_type.to_string()),
            query,
            instruction: instruction.to_string(),
            evidence,
            ground_truth,
        }
    }

    /// A task of a group whose release tasks have `"type": null`.
    pub fn untyped(query: String, instruction: &str, evidence: Value, ground_truth: Value) -> Task {
        Task { task_type: None, query, instruction: instruction.to_string(), evidence, ground_truth }
    }
}

#[derive(Serialize)]
struct Record<'a> {
    id: String,
    #[serde(rename = "type")]
    task_type: &'a Option<String>,
    query: &'a str,
    instruction: &'a str,
    evidence: &'a Value,
    ground_truth: &'a Value,
}

/// The task file of a group relative to the query folder (`finance/zh/descriptive.json`).
pub fn group_file(group: TaskGroup) -> String {
    if group.domain == Domain::Science {
        format!("science/{}.json", group.split)
    } else {
        format!("{}/{}/{}.json", group.domain, group.language, group.split)
    }
}

/// The release's id prefix of a group (`legal_zh_descriptive`, `science_predictive`).
pub fn id_prefix(group: TaskGroup) -> String {
    if group.domain == Domain::Science { format!("science_{}", group.split) } else { group.name() }
}

/// Write one group's tasks under `query_dir`; returns the number written.
pub fn write_group(query_dir: &Path, group: TaskGroup, tasks: &[Task]) -> Result<usize> {
    let path = query_dir.join(group_file(group));
    if let Some(parent) = path.parent() {
        fs_err::create_dir_all(parent)?;
    }
    let prefix = id_prefix(group);
    let records: Vec<Record<'_>> = tasks
        .iter()
        .enumerate()
        .map(|(n, t)| Record {
            id: format!("{prefix}_{}", n + 1),
            task_type: &t.task_type,
            query: &t.query,
            instruction: &t.instruction,
            evidence: &t.evidence,
            ground_truth: &t.ground_truth,
        })
        .collect();
    let mut bytes = serde_json::to_vec_pretty(&records).map_err(|source| Error::Json { path: path.clone(), source })?;
    bytes.push(b'\n');
    anser_runstore::write_atomic(&path, &bytes).map_err(std::io::Error::from)?;
    Ok(records.len())
}

/// The types to generate for a group, type after type (the release groups tasks by type): every
/// type `per_type` times, more of the first types until there are at least `min_total`.
pub fn type_plan(types: &[&'static str], per_type: usize, min_total: usize) -> Vec<&'static str> {
    let mut counts = vec![per_type.max(1); types.len()];
    let mut k = 0;
    while counts.iter().sum::<usize>() < min_total {
        counts[k % types.len()] += 1;
        k += 1;
    }
    types.iter().zip(counts).flat_map(|(t, n)| std::iter::repeat_n(*t, n)).collect()
}

/// The plan of `group` for `scale`: at release scale the release's types and counts (those of
/// `types`: one group can be filled by two generators), otherwise [`type_plan`].
pub fn plan_types(
    scale: &crate::Scale,
    group: TaskGroup,
    types: &[&'static str],
    per_type: usize,
    min_total: usize,
) -> Vec<&'static str> {
    let Some(fraction) = scale.release else { return type_plan(types, per_type, min_total) };
    let name = group.name();
    crate::scale::RELEASE_TASKS
        .iter()
        .filter(|(g, _)| *g == name)
        .flat_map(|(_, release)| release.iter())
        .filter_map(|(ty, _)| types.iter().find(|t| *t == ty).copied())
        .flat_map(|ty| std::iter::repeat_n(ty, crate::scale::release_task_count(&name, ty, fraction)))
        .collect()
}

/// The descriptive and the predictive group of `domain` (`finance_en`, `legal_zh`, ...): each
/// planned at the context's scale for its types and filled by its generator, both drawing from
/// the domain's own task stream (`<domain>_tasks`), descriptive first.
pub fn descriptive_and_predictive(
    ctx: &crate::Ctx,
    domain: &str,
    (desc_types, descriptive): (&[&'static str], impl FnMut(&'static str, &mut crate::rng::Rng) -> Option<Task>),
    (pred_types, predictive): (&[&'static str], impl FnMut(&'static str, &mut crate::rng::Rng) -> Option<Task>),
) -> Result<Vec<(TaskGroup, Vec<Task>)>> {
    let sc = ctx.scale;
    let mut rng = crate::rng::Rng::derive(ctx.seed, &format!("{domain}_tasks"));
    let desc: TaskGroup = format!("{domain}_descriptive").parse().map_err(Error::bug)?;
    let pred: TaskGroup = format!("{domain}_predictive").parse().map_err(Error::bug)?;
    let plan = plan_types(&sc, desc, desc_types, sc.tasks_per_type, sc.min_tasks_per_group);
    let d = fill(desc, &plan, &mut rng, descriptive)?;
    let plan = plan_types(&sc, pred, pred_types, sc.tasks_per_type, sc.min_tasks_per_group);
    let p = fill(pred, &plan, &mut rng, predictive)?;
    Ok(vec![(desc, d), (pred, p)])
}

/// Attempts per task before a type is declared impossible for the generated data.
pub const MAX_ATTEMPTS: usize = 400;

/// Run `make` for every entry of the plan until it yields a task whose query is new.
pub fn fill(
    group: TaskGroup,
    plan: &[&'static str],
    rng: &mut crate::rng::Rng,
    mut make: impl FnMut(&'static str, &mut crate::rng::Rng) -> Option<Task>,
) -> Result<Vec<Task>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::with_capacity(plan.len());
    for &ty in plan {
        let mut made = None;
        for _ in 0..MAX_ATTEMPTS {
            if let Some(task) = make(ty, rng)
                && seen.insert(task.query.clone())
            {
                made = Some(task);
                break;
            }
        }
        let Some(task) = made else {
            return Err(Error::bug(format!(
                "{group}: no new task of type {ty} after {MAX_ATTEMPTS} attempts; the sample is too small for this type"
            )));
        };
        out.push(task);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_covers_every_type_and_the_minimum() {
        let plan = type_plan(&["a", "b", "c"], 2, 10);
        assert_eq!(plan.len(), 10);
        assert_eq!(plan.iter().filter(|t| **t == "a").count(), 4);
        assert_eq!(plan.iter().filter(|t| **t == "c").count(), 3);
        assert_eq!(&plan[..4], &["a", "a", "a", "a"]);
        assert_eq!(type_plan(&["x"], 3, 1), vec!["x"; 3]);
    }

    #[test]
    fn ids_follow_the_release_style() {
        let g: TaskGroup = "science_en_predictive".parse().expect("group");
        assert_eq!(id_prefix(g), "science_predictive");
        assert_eq!(group_file(g), "science/predictive.json");
        let g: TaskGroup = "finance_zh_prescriptive".parse().expect("group");
        assert_eq!(id_prefix(g), "finance_zh_prescriptive");
        assert_eq!(group_file(g), "finance/zh/prescriptive.json");
    }
}
