//! Legal predictive plans: read the cohort, the predictor X and the outcome Y off the corpus's own
//! dictionaries, build the eligible cohort with guarded SQL (under the task's cutoff, which the
//! connection applies), and compute the association with the compute tool.
//!
//! - Chinese: the cause of action is the longest `cases.anyou` value the query names; X and Y are
//!   feature keys of `case_features` recorded for that cause, matched by weighted character
//!   bigrams of the key's stem (the key without `是否`, `被告` and its unit) — a bigram shared by
//!   many keys weighs less, and the cause's own name is masked first so "交通肇事罪" does not
//!   vote for "是否肇事逃逸". Yes/no keys give X = 是; enum keys need a value named in the query;
//!   numeric keys need a comparison cue and a number (超过 129, 不低于 3, 10以上). Of two yes/no
//!   keys, the outcome is the one the query asks about with 是否, else the one whose words the
//!   decisions state later (facts come first in a judgment, the ruling last).
//! - English: the matter type, the outcome and the features are `annotation_registry` entries;
//!   display names with a `…` placeholder are matched as patterns whose filler must be an
//!   allowed enum value or a number. With two features named, the one that qualifies the
//!   population (nearest to the matter type's mention) restricts the cohort and the other is X.
//! - The shape (2×2 or two-sample) is what the instruction asks for: medians → continuous.
//!
//! The cohort is every case of the cause/matter with both X and Y recorded; it is the evidence.
//!
//! Layout: this module holds what both languages share (tests of a predictor value, comparison
//! cues and thresholds, the cohort → association step); [`zh`] and [`en`] read their corpus's
//! dictionaries, for these plans and for the descriptive planner's counting conditions, through
//! [`cache`], which keeps them per route and set of hiding conditions for the whole process.
//!
//! Statistics convention: the p-value follows the test the instruction names — "Fisher" gives
//! the raw odds ratio (Haldane–Anscombe +0.5 only with a zero cell) and Fisher's exact p, which
//! is how the generated sample's ground truth is computed. The release's ground truth uses Wald
//! p-values (zh with +0.5 on every cell; see `tools::compute::stats`) although its instruction
//! says Fisher too, so on the release the option can differ where the two tests straddle 0.05;
//! an instruction that names no test gets the release's convention for its language.

mod cache;
mod count;
mod en;
mod zh;

use anser_manifest::{Language, PublicTask};
use serde_json::{Value, json};

pub use cache::LegalCache;
pub(super) use cache::Reader;
pub(super) use count::{Clause, ValueTest, count_sql};
use count::{Cohort, EN_COHORT_VALUE, Join};
pub(super) use en::en_count_conditions;
pub(super) use zh::zh_count_conditions;

use crate::{
    Result,
    tools::compute::{ComputeRequest, ComputeResult, Convention, Table, compute},
};

/// A computed answer with its evidence and what the plan read from the query.
#[derive(Debug)]
pub struct RelationPlan {
    pub answer: Value,
    pub evidence: Vec<Value>,
    pub plan: Value,
    pub sql: String,
}

/// Counting conditions over the case table and what each means (for the trace).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Conditions {
    pub clauses: Vec<Clause>,
    pub described: Vec<String>,
}

/// How a predictor value becomes X = 1.
#[derive(Debug, Clone, PartialEq)]
enum Test {
    /// Yes/no or boolean feature: X = 1 when true.
    Truthy,
    /// Enum feature: X = 1 when the value equals this one.
    Equals(String),
    /// Numeric feature: X = 1 when the comparison holds.
    Compare(Cmp, f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmp {
    Gt,
    Ge,
    Lt,
    Le,
}

impl Cmp {
    /// Whether `x` compares so with `t`.
    pub(super) fn holds(self, x: f64, t: f64) -> bool {
        match self {
            Cmp::Gt => x > t,
            Cmp::Ge => x >= t,
            Cmp::Lt => x < t,
            Cmp::Le => x <= t,
        }
    }

    /// The SQL operator.
    pub(super) fn sql(self) -> &'static str {
        match self {
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
        }
    }
}

impl Test {
    fn holds(&self, v: &str) -> Option<bool> {
        let v = v.trim();
        match self {
            Test::Truthy => {
                let is = |words: [&str; 4]| words.iter().any(|w| v.eq_ignore_ascii_case(w));
                if is(["是", "true", "1", "yes"]) {
                    Some(true)
                } else if is(["否", "false", "0", "no"]) {
                    Some(false)
                } else {
                    None
                }
            }
            Test::Equals(want) => (!v.is_empty()).then(|| v == want),
            Test::Compare(cmp, t) => {
                let x: f64 = v.parse().ok()?;
                Some(cmp.holds(x, *t))
            }
        }
    }
}

/// Characters after the end of a key's match in which its comparison and number must appear
/// ("超过129mg", "在10000元以上" — the unit after the number is outside the window's concern).
const THRESHOLD_WINDOW_CHARS: usize = 10;

/// A comparison cue and its number right after `from` in `text` ("超过129", "at least 136").
pub(super) fn threshold_after(text: &str, from: usize, window_chars: usize) -> Option<(Cmp, f64)> {
    // Only the words right after the key: a number further on belongs to something else.
    let rest = text.get(from..)?;
    let window = rest.char_indices().nth(window_chars).map_or(rest.len(), |(end, _)| end);
    // The first number in the window that carries a comparison ("较2020年…超过2个百分点").
    number_re().find_iter(rest).take_while(|m| m.start() < window).find_map(|m| {
        cue_of(rest, m.start(), m.end()).and_then(|cmp| Some((cmp, m.as_str().replace(',', "").parse().ok()?)))
    })
}

/// The comparison written just before the number at `start..end` of `rest`, or 以上/以下 after it.
fn cue_of(rest: &str, start: usize, end: usize) -> Option<Cmp> {
    static CUES: &[(&str, Cmp)] = &[
        ("不低于", Cmp::Ge),
        ("不少于", Cmp::Ge),
        ("不超过", Cmp::Le),
        ("不高于", Cmp::Le),
        ("至少", Cmp::Ge),
        ("达到", Cmp::Ge),
        ("超过", Cmp::Gt),
        ("高于", Cmp::Gt),
        ("高出", Cmp::Gt),
        ("大于", Cmp::Gt),
        ("多于", Cmp::Gt),
        ("低于", Cmp::Lt),
        ("少于", Cmp::Lt),
        ("小于", Cmp::Lt),
        ("不足", Cmp::Lt),
        ("未达到", Cmp::Lt),
        ("at least", Cmp::Ge),
        ("no fewer than", Cmp::Ge),
        ("fewer than", Cmp::Lt),
        ("greater than", Cmp::Gt),
        ("higher than", Cmp::Gt),
        ("lower than", Cmp::Lt),
        ("no less than", Cmp::Ge),
        ("at most", Cmp::Le),
        ("no more than", Cmp::Le),
        ("more than", Cmp::Gt),
        ("exceeded", Cmp::Gt),
        ("exceeds", Cmp::Gt),
        ("over", Cmp::Gt),
        ("above", Cmp::Gt),
        ("less than", Cmp::Lt),
        ("below", Cmp::Lt),
        ("under", Cmp::Lt),
    ];
    let before = &rest[..start];
    // The unit may sit between the number and 以上/以下 ("10000元以上", "5个百分点以上").
    let after: String = rest[end..].chars().take(10).collect();
    let cue = CUES
        .iter()
        .filter_map(|(c, cmp)| before.rfind(c).map(|at| (at + c.len(), c.len(), *cmp)))
        .max_by_key(|(end, len, _)| (*end, *len))
        .filter(|(end, ..)| before[*end..].chars().count() <= 3)
        .map(|(.., cmp)| cmp);
    let cmp = cue.or_else(|| {
        let a = after.trim_start();
        let unit_then = |w: &str| a.find(w).is_some_and(|at| a[..at].chars().count() <= 4);
        if unit_then("以上") || a.starts_with("or more") {
            Some(Cmp::Ge)
        } else if unit_then("以下") || a.starts_with("or less") {
            Some(Cmp::Le)
        } else {
            None
        }
    })?;
    Some(cmp)
}

fn number_re() -> &'static regex::Regex {
    static RE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"-?\d[\d,]*(?:\.\d+)?").expect("static regex"));
    &RE
}

/// Whether the instruction asks for the two-sample (median) shape.
fn wants_continuous(task: &PublicTask) -> bool {
    task.instruction.contains("median")
}

/// The statistics convention the instruction asks for (module docs).
fn convention_of(task: &PublicTask) -> Convention {
    if task.instruction.to_lowercase().contains("fisher") {
        Convention::RawFisher
    } else {
        Convention::release(task.group.language)
    }
}

/// Plan and answer one legal predictive task; `None` when the query does not map.
pub(super) fn solve(reader: &Reader, task: &PublicTask) -> Result<Option<RelationPlan>> {
    match task.group.language {
        Language::Zh => zh::solve_zh(reader, task),
        Language::En => en::solve_en(reader, task),
    }
}

/// Compute the association over the cohort rows (id, x, y[, restricting value]) that `sql`
/// stands for. A NULL value, as in SQL, passes no test: its row is not eligible.
fn associate(
    task: &PublicTask,
    sql: String,
    cohort: &Cohort<'_>,
    x_test: &Test,
    restrict: Option<&Test>,
    plan: Value,
) -> Result<Option<RelationPlan>> {
    let continuous = wants_continuous(task);
    // The first eligible row of each case counts. A case's rows are adjacent (the cohort is in
    // id order), so a case already counted is the one counted last.
    let mut last: Option<&str> = None;
    let mut rows = Vec::new();
    let mut evidence = Vec::new();
    for (id, values) in cohort.rows() {
        let [x, y, rest @ ..] = values else { continue };
        if let (Some(t), Some(rv)) = (restrict, rest.first()) {
            if rv.and_then(|v| t.holds(v)) != Some(true) {
                continue;
            }
        }
        let Some(xv) = x.and_then(|v| x_test.holds(v)) else { continue };
        let yv = if continuous {
            match y.and_then(|v| v.trim().parse::<f64>().ok()) {
                Some(n) => json!(n),
                None => continue,
            }
        } else {
            match y.and_then(|v| Test::Truthy.holds(v)) {
                Some(b) => json!(b),
                None => continue,
            }
        };
        if last == Some(id) {
            continue;
        }
        last = Some(id);
        evidence.push(Value::String(id.to_string()));
        rows.push(vec![json!(xv), yv]);
    }
    let table = Table { columns: vec!["x".into(), "y".into()], rows };
    let request = if continuous {
        ComputeRequest::ContinuousAssociation { x: "x".into(), y: "y".into(), bootstrap: None }
    } else {
        ComputeRequest::BinaryAssociation { x: "x".into(), y: "y".into(), convention: Some(convention_of(task)) }
    };
    let answer = match compute(&table, &request, task.group.language)? {
        ComputeResult::BinaryAssociation { answer, .. } | ComputeResult::ContinuousAssociation { answer, .. } => {
            json!({"option": answer.option, "value": answer.value})
        }
        ComputeResult::Frame { .. } => return Ok(None),
    };
    Ok(Some(RelationPlan { answer, evidence, plan, sql }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_read_cues_before_and_after_numbers() {
        let cases = [
            ("血液酒精含量超过129mg/100ml与否", 24, Some((Cmp::Gt, 129.0))),
            ("死亡人数不低于2人", 24, Some((Cmp::Ge, 2.0))),
            ("盗窃金额10000元以上", 24, Some((Cmp::Ge, 10000.0))),
            ("a sentence of at least 136 months", 40, Some((Cmp::Ge, 136.0))),
            ("刑期为12个月", 24, None),
            ("金额不超过5000元", 24, Some((Cmp::Le, 5000.0))),
            ("罚金且金额可提取的案件中，血液酒精含量超过129", 10, None),
        ];
        for (text, window, want) in cases {
            assert_eq!(threshold_after(text, 0, window), want, "{text}");
        }
    }

    #[test]
    fn tests_map_values_to_x() {
        assert_eq!(Test::Truthy.holds("是"), Some(true));
        assert_eq!(Test::Truthy.holds("false"), Some(false));
        assert_eq!(Test::Truthy.holds("未知"), None);
        assert_eq!(Test::Equals("住宅".into()).holds("住宅"), Some(true));
        assert_eq!(Test::Compare(Cmp::Gt, 0.0).holds("0"), Some(false));
        assert_eq!(Test::Compare(Cmp::Ge, 136.0).holds("136.0"), Some(true));
        assert_eq!(Test::Compare(Cmp::Ge, 136.0).holds(""), None);
    }
}
