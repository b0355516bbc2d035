//! The condition grammar of screening queries: metrics named in the query, joined into ratios
//! ("A divided by B", "A占B的比例") and sums, compared with thresholds (with their units), with
//! each other, or by the gap between their growths.

use anser_manifest::Language;

use super::{
    Mention,
    cues::wants_growth,
    data::Data,
    glossary::{Metric, growth},
};
use crate::method::offline::{
    legal_predictive::{Cmp, threshold_after},
    re,
};

/// A screening condition on one company-year.
#[derive(Debug, Clone)]
pub(super) enum Cond {
    /// metric (or its growth) compared with a number.
    Threshold { metric: Metric, growth: bool, cmp: Cmp, value: f64 },
    /// metric A above metric B.
    Above { a: Metric, b: Metric },
    /// growth(A) − growth(B) above a number of points.
    GrowthGap { a: Metric, b: Metric, points: f64 },
    /// (A + B + …) as a percentage of C compared with a number.
    Share { parts: Vec<Metric>, of: Metric, cmp: Cmp, value: f64 },
}

impl Cond {
    pub(super) fn uses_growth(&self) -> bool {
        matches!(self, Cond::Threshold { growth: true, .. } | Cond::GrowthGap { .. })
    }

    pub(super) fn holds(&self, data: &Data, company: &str, year: i32) -> Option<bool> {
        let cur = data.report(company, year)?;
        let g = |m: &Metric| -> Option<f64> {
            let prev = data.report(company, year - 1)?;
            let (a, b) = (m.value(prev)?, m.value(cur)?);
            if m.is_ratio() { Some(b - a) } else { growth(b, a) }
        };
        match self {
            Cond::Threshold { metric, growth: gr, cmp, value } => {
                let v = if *gr { g(metric)? } else { metric.value(cur)? };
                Some(cmp.holds(v, *value))
            }
            Cond::Above { a, b } => Some(a.value(cur)? > b.value(cur)?),
            Cond::GrowthGap { a, b, points } => Some(g(a)? - g(b)? > *points),
            Cond::Share { parts, of, cmp, value } => {
                let den = of.value(cur)?;
                if den <= 0.0 {
                    return None;
                }
                let num: f64 = parts.iter().map(|m| m.value(cur)).sum::<Option<f64>>()?;
                let v = num / den * 100.0;
                Some(cmp.holds(v, *value))
            }
        }
    }
}

/// Conditions of a screening query, read metric by metric.
pub(super) fn conditions(q: &str, metrics: &[Mention], lang: Language) -> Vec<Cond> {
    let hay = match lang {
        Language::Zh => q.to_string(),
        Language::En => q.to_lowercase().replace('-', " "),
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < metrics.len() {
        let (_, end, _, m) = &metrics[i];
        let next_start = metrics.get(i + 1).map_or(hay.len(), |n| n.0);
        let between = &hay[*end..next_start];
        if let Some((cond, used)) = share_condition(&hay, &metrics[i..], lang) {
            out.push(cond);
            i += used;
            continue;
        }
        if let Some(n) = metrics.get(i + 1) {
            let plain = between.replace("同比", "");
            let gap_cue =
                ["比", "高出", "高于", "超过", "快于", "exceed", "outpace", "faster than", "more than", "above"]
                    .iter()
                    .any(|w| plain.contains(w));
            let above_cue = ["above", "greater than", "higher than", "exceeded", "高于", "大于"]
                .iter()
                .any(|w| between.trim().starts_with(w) || between.trim().ends_with(w));
            // A comparison between the two growths is written between them ("A同比增速高于B…").
            if gap_cue && wants_growth(between) && between.chars().count() <= 12 {
                if let Some((_, points)) = threshold_after(&hay, n.1, 16) {
                    out.push(Cond::GrowthGap { a: m.clone(), b: n.3.clone(), points });
                    i += 2;
                    continue;
                }
            }
            if above_cue && threshold_after(&hay, *end, 6).is_none() {
                out.push(Cond::Above { a: m.clone(), b: n.3.clone() });
                i += 2;
                continue;
            }
        }
        let gr = wants_growth(&between.chars().take(8).collect::<String>());
        if let Some((cmp, value)) = scaled_threshold(&hay, *end, 14) {
            out.push(Cond::Threshold { metric: m.clone(), growth: gr, cmp, value });
        }
        i += 1;
    }
    out
}

/// A comparison and its number after `from`, with the number's unit applied: "超过50亿元" is
/// 5e9, "above $1.5 billion" 1.5e9, "低于30%" stays 30 (percentages compare with ratios).
fn scaled_threshold(hay: &str, from: usize, window_chars: usize) -> Option<(Cmp, f64)> {
    let (cmp, value) = threshold_after(hay, from, window_chars)?;
    let rest = hay.get(from..)?;
    let number = re(r"-?\d[\d,]*(?:\.\d+)?");
    let scale = number.find_iter(rest).find(|m| m.as_str().replace(',', "").parse::<f64>().ok() == Some(value)).map_or(
        1.0,
        |m| {
            let after = rest[m.end()..].trim_start().to_lowercase();
            [
                ("亿", 1e8),
                ("万", 1e4),
                ("千", 1e3),
                ("billion", 1e9),
                ("million", 1e6),
                ("thousand", 1e3),
                ("bn", 1e9),
                ("m ", 1e6),
            ]
            .iter()
            .find(|(u, _)| after.starts_with(u))
            .map_or(1.0, |(_, k)| *k)
        },
    );
    Some((cmp, value * scale))
}

/// Ratios the question defines in words: "A divided by B", "A as a percentage of B", "ratio of A
/// to B", "A/B", "A占B的比例", "A与B之比" become one metric (in percent) at A's place.
pub(super) fn merge_ratios(q: &str, lang: Language, metrics: Vec<Mention>) -> Vec<Mention> {
    let hay = match lang {
        Language::Zh => q.to_string(),
        Language::En => q.to_lowercase().replace('-', " "),
    };
    let cols = |m: &Metric| match m {
        Metric::Col(c) => Some(vec![c.clone()]),
        Metric::Ratio { .. } => None,
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < metrics.len() {
        let a = &metrics[i];
        if let Some(b) = metrics.get(i + 1) {
            let gap = hay.get(a.1..b.0).unwrap_or("").trim();
            let after: String = hay.get(b.1..).unwrap_or("").chars().take(5).collect();
            let before = hay.get(..a.0).unwrap_or("").trim_end();
            let per = matches!(
                gap,
                "divided by"
                    | "as a percentage of"
                    | "as a share of"
                    | "as a percent of"
                    | "relative to"
                    | "/"
                    | "除以"
            ) || (gap == "to" && before.ends_with("ratio of"))
                || (matches!(gap, "占" | "与")
                    && ["的比例", "的比重", "比重", "的百分比", "之比", "的占比"].iter().any(|w| after.starts_with(w)));
            if let (true, Some(num), Some(den)) = (per, cols(&a.3), cols(&b.3)) {
                out.push((a.0, b.1, format!("{} / {}", a.2, b.2), Metric::Ratio { num, den }));
                i += 2;
                continue;
            }
        }
        out.push(a.clone());
        i += 1;
    }
    out
}

/// Words that join metrics into one sum ("goodwill plus intangible assets", "商誉与无形资产").
const SUM_JOINERS: &[&str] =
    &["plus", "+", "and", "together with", "combined with", "加", "与", "和", "及", "、", "加上"];

/// A share condition starting at `metrics[0]`: one or more metrics joined into a sum, then a
/// percentage of a later metric — "A above 5% of B", "A plus B exceeded 25% of C",
/// "A占B的比例超过5%", "A与B合计占C比重不低于15%". Returns the condition and the metrics it used.
fn share_condition(hay: &str, metrics: &[Mention], lang: Language) -> Option<(Cond, usize)> {
    let mut parts = vec![metrics.first()?.3.clone()];
    let mut end = metrics[0].1;
    let mut j = 1;
    while let Some(m) = metrics.get(j) {
        let gap = hay.get(end..m.0)?.trim();
        if !SUM_JOINERS.contains(&gap) {
            break;
        }
        parts.push(m.3.clone());
        end = m.1;
        j += 1;
    }
    let of = metrics.get(j)?;
    let between = hay.get(end..of.0)?;
    let (cmp, value) = match lang {
        // "… above 25% of C": the percentage sits right before "of" and the denominator.
        Language::En => {
            let b = between.trim_end();
            if !b.ends_with(" of") || !b.contains('%') {
                return None;
            }
            threshold_after(hay, end, between.chars().count())?
        }
        // "…占C的比例超过15%": 占 before the denominator, the threshold after it.
        Language::Zh => {
            if !between.contains('占') || between.chars().count() > 6 {
                return None;
            }
            threshold_after(hay, of.1, 12)?
        }
    };
    Some((Cond::Share { parts, of: of.3.clone(), cmp, value }, j + 1))
}

/// The metric a population task is about: the first one not named in an exclusion clause
/// ("excluding companies with missing or zero total revenue", "non-zero total revenue").
pub(super) fn main_metric(q: &str, lang: Language, metrics: &[Mention]) -> Option<Mention> {
    let hay = match lang {
        Language::Zh => q.to_string(),
        Language::En => q.to_lowercase().replace('-', " "),
    };
    let qualified = |at: usize| {
        let from = hay[..at].char_indices().rev().nth(24).map_or(0, |(i, _)| i);
        let before = &hay[from..at];
        ["zero", "missing", "positive", "非零", "缺失"].iter().any(|w| before.contains(w))
    };
    metrics.iter().find(|m| !qualified(m.0)).or(metrics.first()).cloned()
}
