//! Per-sample reduction.
//!
//! EvalScope: a hit rubric awards `int(weight)` (a penalty subtracts), a miss awards 0;
//! `raw = Σ awarded`, `max = Σ int(weight) over raw weight > 0`,
//! `expert_score = clip(raw / max, 0, 1)`, `pass = 1.0 if expert_score >= 0.7 else 0.0`.
//!
//! Official harness: the same per-rubric points on the raw weight, but a rubric the judge did
//! not answer is NA. "OMB Norm" (the averaged score) is `None` when any rubric is NA; the
//! ExpertScore behind pass/fail counts NA as 0.
//!
//! With several observations (repeats, judges) values are averaged over the repeats of each
//! judge, then over judges, as EvalScope's executor does; the spread is reported alongside.

use serde::{Deserialize, Serialize, Serializer};

use crate::{
    record::Record,
    verdict::{Judgment, OfficialParse},
};

/// The pass threshold on the expert score (inclusive).
pub const PASS_THRESHOLD: f64 = 0.7;

/// Points: integral values serialize as JSON integers (EvalScope's `raw_score` is an int).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Deserialize)]
#[serde(transparent)]
pub struct Points(pub f64);

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

/// One rubric's verdict and points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RubricScore {
    pub rubric_id: i64,
    pub weight: Points,
    /// The judge's status as written; `None` = NA (official mode only).
    pub status: Option<String>,
    pub hit: Option<bool>,
    /// Points awarded; `None` = NA.
    pub awarded: Option<Points>,
    pub justification: Option<String>,
}

/// The reduction of one judge observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleScore {
    /// `clip(raw / max, 0, 1)`; in official mode `None` when a rubric is NA (OMB Norm).
    pub expert_score: Option<f64>,
    /// 1.0 when the (official: NA-as-0) expert score is ≥ 0.7, else 0.0.
    pub pass: f64,
    pub raw_score: Points,
    pub max_score: Points,
    /// Rubrics without a verdict (official mode).
    pub na: usize,
    pub rubrics: Vec<RubricScore>,
}

fn clip01(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

fn pass_of(score: f64) -> f64 {
    if score >= PASS_THRESHOLD { 1.0 } else { 0.0 }
}

/// EvalScope's `reduce` over contract-valid judgments (every rubric id has exactly one).
pub fn score_evalscope(record: &Record, judgments: &[Judgment]) -> SampleScore {
    let max = record.max_score();
    let mut raw = 0i64;
    let rubrics = record
        .rubrics
        .iter()
        .map(|rubric| {
            let judgment = judgments.iter().find(|j| j.rubric_id == rubric.id);
            let hit = judgment.is_some_and(|j| j.hit);
            let awarded = if hit { rubric.weight } else { 0 };
            raw += awarded;
            RubricScore {
                rubric_id: rubric.id,
                weight: Points(rubric.weight as f64),
                status: judgment.map(|j| j.status.clone()),
                hit: Some(hit),
                awarded: Some(Points(awarded as f64)),
                justification: judgment.map(|j| j.justification.clone()),
            }
        })
        .collect();
    let expert = clip01(raw as f64 / max as f64);
    SampleScore {
        expert_score: Some(expert),
        pass: pass_of(expert),
        raw_score: Points(raw as f64),
        max_score: Points(max as f64),
        na: 0,
        rubrics,
    }
}

/// The official harness's scores from what its parser read.
pub fn score_official(record: &Record, parse: &OfficialParse) -> SampleScore {
    let max: f64 = record.rubrics.iter().filter(|r| r.positive).map(|r| r.weight_raw).sum();
    let (mut total, mut clamped, mut na) = (0.0, 0.0, 0usize);
    let rubrics = record
        .rubrics
        .iter()
        .map(|rubric| {
            let w = rubric.weight_raw;
            let verdict = parse.get(rubric.id);
            let awarded = verdict.map(|v| if v.hit && w != 0.0 { w } else { 0.0 });
            match awarded {
                Some(s) => {
                    total += s;
                    clamped += s.clamp(w.min(0.0), w.max(0.0));
                }
                None => na += 1,
            }
            RubricScore {
                rubric_id: rubric.id,
                weight: Points(w),
                status: verdict.map(|v| v.status.clone()),
                hit: verdict.map(|v| v.hit),
                awarded: awarded.map(Points),
                justification: verdict.map(|v| v.justification.clone()),
            }
        })
        .collect();
    let expert_na_as_zero = clip01(total / max);
    SampleScore {
        expert_score: (na == 0).then(|| clip01(clamped / max)),
        pass: pass_of(expert_na_as_zero),
        raw_score: Points(total),
        max_score: Points(max),
        na,
        rubrics,
    }
}

/// Spread of one sample's expert scores over its valid observations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Population standard deviation (EvalScope's `statistics.pstdev`).
    pub std: f64,
    /// max − min.
    pub range: f64,
}

/// Combine per-observation values: mean over the repeats of each judge (in `judges` order),
/// then mean over judges. `values[j]` holds judge `j`'s valid observations; a metric missing
/// from an observation is left out of that metric's means. `None` when no judge has a value.
pub fn combine(values: &[Vec<Option<f64>>]) -> Option<f64> {
    let per_judge: Vec<f64> = values
        .iter()
        .filter_map(|obs| crate::pycompat::py_mean(&obs.iter().flatten().copied().collect::<Vec<_>>()))
        .collect();
    crate::pycompat::py_mean(&per_judge)
}

/// Spread over all valid values; `None` with fewer than two.
pub fn spread(values: &[f64]) -> Option<Spread> {
    if values.len() < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
    let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    Some(Spread { std: var.sqrt(), range: hi - lo })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_means_repeats_then_judges() {
        // Judge A: 0.2, 0.4 → 0.3; judge B: 0.9 → mean(0.3, 0.9) = 0.6.
        let v = combine(&[vec![Some(0.2), Some(0.4)], vec![Some(0.9)]]).expect("value");
        assert!((v - 0.6).abs() < 1e-12);
        assert_eq!(combine(&[vec![None], vec![]]), None);
        let s = spread(&[0.2, 0.4, 0.9]).expect("spread");
        assert!((s.range - 0.7).abs() < 1e-12);
        assert!((s.std - 0.294_392_028_877_595).abs() < 1e-12);
        assert_eq!(spread(&[0.5]), None);
    }
}
