//! Aggregation with EvalScope 1.14.1's conventions (its Mean aggregator and report model):
//!
//! 1. subset: mean over the samples that have the metric (excluded samples are in neither the
//!    numerator nor the denominator), then `round(x, 4)`; `num` = that count;
//! 2. category (`CN`, `Global`): `score` = num-weighted mean of the *rounded* subset scores,
//!    rounded; `macro` = plain mean of the rounded subset scores, rounded;
//! 3. overall: the same two formulas over the *rounded category* scores (so `macro` is the mean
//!    of the two categories, not of the ten subsets).
//!
//! A level with no scored sample has `null` scores (EvalScope leaves it out of its report; we
//! keep it, with its excluded count, so the exclusions stay visible).

use serde::{Serialize, Serializer, ser::SerializeMap};

use crate::{
    pycompat::round4,
    subset::{Category, Subset},
};

/// The metric values of one sample (`None` = the sample has no value for that metric).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleValues {
    pub subset: Subset,
    pub expert_score: Option<f64>,
    pub pass: Option<f64>,
}

/// Scores of one level (subset, category or overall).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Level {
    /// Mean expert score (micro for categories and overall), rounded to 4 decimals.
    pub expert_score: Option<f64>,
    /// Mean pass, rounded to 4 decimals.
    pub pass_rate: Option<f64>,
    /// Categories and overall: plain mean of the level below, rounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub macro_expert_score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub macro_pass_rate: Option<f64>,
    /// Samples with an expert score.
    pub scored: usize,
    /// Samples without one (judge reply rejected, transport failure, NA rubric in official mode).
    pub excluded: usize,
    /// Samples counted in the pass rate, when it differs from `scored` (official mode counts
    /// NA rubrics as misses for pass/fail but drops the sample from the expert score).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass_rate_scored: Option<usize>,
}

/// Ordered `(name, level)` pairs, serialized as a JSON object in this order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Levels(pub Vec<(String, Level)>);

impl Levels {
    pub fn get(&self, name: &str) -> Option<&Level> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, l)| l)
    }
}

impl Serialize for Levels {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// The three levels of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Aggregate {
    pub overall: Level,
    pub categories: Levels,
    pub subsets: Levels,
}

/// One metric's (rounded score, num) at a level; `None` when nothing is scored.
type Cell = Option<(f64, usize)>;

fn subset_cell(values: &[f64]) -> Cell {
    crate::pycompat::py_mean(values).map(|m| (round4(m), values.len()))
}

/// (micro, macro, num) over the cells of the level below that have a value.
fn combine_cells(cells: &[Cell]) -> (Cell, Option<f64>) {
    let real: Vec<(f64, usize)> = cells.iter().flatten().copied().collect();
    if real.is_empty() {
        return (None, None);
    }
    let num: usize = real.iter().map(|(_, n)| n).sum();
    let mut weighted = 0.0;
    for (score, n) in &real {
        weighted += score * *n as f64;
    }
    let mut plain = 0.0;
    for (score, _) in &real {
        plain += score;
    }
    (Some((round4(weighted / num as f64), num)), Some(round4(plain / real.len() as f64)))
}

/// Aggregate samples into subsets (in `SUBSET_LIST` order, only subsets with samples),
/// categories (`CN`, `Global`, only those with samples) and overall.
pub fn aggregate(samples: &[SampleValues]) -> Aggregate {
    let differs = samples.iter().any(|s| s.expert_score.is_some() != s.pass.is_some());
    let level = |expert: Cell, pass: Cell, macros: Option<(Option<f64>, Option<f64>)>, total: usize| {
        let scored = expert.map_or(0, |(_, n)| n);
        Level {
            expert_score: expert.map(|(s, _)| s),
            pass_rate: pass.map(|(s, _)| s),
            macro_expert_score: macros.and_then(|m| m.0),
            macro_pass_rate: macros.and_then(|m| m.1),
            scored,
            excluded: total - scored,
            pass_rate_scored: differs.then(|| pass.map_or(0, |(_, n)| n)),
        }
    };
    let mut subsets = Vec::new();
    let mut subset_cells: Vec<(Subset, Cell, Cell, usize)> = Vec::new();
    for subset in Subset::ALL {
        let members: Vec<&SampleValues> = samples.iter().filter(|s| s.subset == subset).collect();
        if members.is_empty() {
            continue;
        }
        let expert: Vec<f64> = members.iter().filter_map(|s| s.expert_score).collect();
        let pass: Vec<f64> = members.iter().filter_map(|s| s.pass).collect();
        let (e, p) = (subset_cell(&expert), subset_cell(&pass));
        subsets.push((subset.key().to_string(), level(e, p, None, members.len())));
        subset_cells.push((subset, e, p, members.len()));
    }
    let mut categories = Vec::new();
    let mut category_cells: Vec<(Cell, Cell)> = Vec::new();
    for category in Category::ALL {
        let below: Vec<&(Subset, Cell, Cell, usize)> =
            subset_cells.iter().filter(|(s, ..)| s.category() == category).collect();
        if below.is_empty() {
            continue;
        }
        let total = below.iter().map(|(.., n)| n).sum();
        let (e, e_macro) = combine_cells(&below.iter().map(|(_, e, _, _)| *e).collect::<Vec<_>>());
        let (p, p_macro) = combine_cells(&below.iter().map(|(_, _, p, _)| *p).collect::<Vec<_>>());
        categories.push((category.name().to_string(), level(e, p, Some((e_macro, p_macro)), total)));
        category_cells.push((e, p));
    }
    let (e, e_macro) = combine_cells(&category_cells.iter().map(|(e, _)| *e).collect::<Vec<_>>());
    let (p, p_macro) = combine_cells(&category_cells.iter().map(|(_, p)| *p).collect::<Vec<_>>());
    Aggregate {
        overall: level(e, p, Some((e_macro, p_macro)), samples.len()),
        categories: Levels(categories),
        subsets: Levels(subsets),
    }
}
