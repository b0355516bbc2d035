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
//! Statistics convention: the p-value follows the test the instruction names — "Fisher" gives
//! the raw odds ratio (Haldane–Anscombe +0.5 only with a zero cell) and Fisher's exact p, which
//! is how the generated sample's ground truth is computed. The release's ground truth uses Wald
//! p-values (zh with +0.5 on every cell; see `tools::compute::stats`) although its instruction
//! says Fisher too, so on the release the option can differ where the two tests straddle 0.05;
//! an instruction that names no test gets the release's convention for its language.

use std::collections::{BTreeMap, BTreeSet};

use anser_manifest::{Language, PublicTask};
use serde_json::{Value, json};

use super::{column_strings, lit};
use crate::{
    Result,
    tools::{
        compute::{ComputeRequest, ComputeResult, Convention, Table, compute},
        sql::GuardedDb,
    },
};

/// A computed answer with its evidence and what the plan read from the query.
#[derive(Debug)]
pub struct RelationPlan {
    pub answer: Value,
    pub evidence: Vec<Value>,
    pub plan: Value,
    pub sql: String,
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
    fn sql(self) -> &'static str {
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
            Test::Truthy => match v.to_ascii_lowercase().as_str() {
                "是" | "true" | "1" | "yes" => Some(true),
                "否" | "false" | "0" | "no" => Some(false),
                _ => None,
            },
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
pub fn solve(db: &GuardedDb, task: &PublicTask) -> Result<Option<RelationPlan>> {
    match task.group.language {
        Language::Zh => solve_zh(db, task),
        Language::En => solve_en(db, task),
    }
}

/// Run the cohort SQL (id, x, y) and compute the association.
fn associate(
    db: &GuardedDb,
    task: &PublicTask,
    sql: String,
    x_test: &Test,
    restrict: Option<&Test>,
    plan: Value,
) -> Result<Option<RelationPlan>> {
    let result = db.query_with(&sql, 1_000_000)?;
    let continuous = wants_continuous(task);
    let mut seen = BTreeSet::new();
    let mut rows = Vec::new();
    let mut evidence = Vec::new();
    for r in &result.rows {
        let [id, x, y, rest @ ..] = r.as_slice() else { continue };
        let text = |v: &Value| v.as_str().map(String::from).unwrap_or_else(|| v.to_string());
        let Some(id) = id.as_str() else { continue };
        if let (Some(t), Some(rv)) = (restrict, rest.first()) {
            if t.holds(&text(rv)) != Some(true) {
                continue;
            }
        }
        let Some(xv) = x_test.holds(&text(x)) else { continue };
        let yv = if continuous {
            match text(y).trim().parse::<f64>() {
                Ok(n) => json!(n),
                Err(_) => continue,
            }
        } else {
            match Test::Truthy.holds(&text(y)) {
                Some(b) => json!(b),
                None => continue,
            }
        };
        if !seen.insert(id.to_string()) {
            continue;
        }
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

// ---------------------------------------------------------------------------------------------
// Chinese
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    YesNo,
    Numeric,
    Enum,
}

#[derive(Debug)]
struct ZhKey {
    key: String,
    kind: Kind,
    values: Vec<String>,
}

/// The key without `是否`, a leading `被告` and its unit in parentheses.
fn stem(key: &str) -> String {
    let mut s = key.replacen("是否", "", 1);
    if let Some(at) = s.find(['（', '(']) {
        s.truncate(at);
    }
    s.trim_start_matches("被告").to_string()
}

fn bigrams(s: &str) -> BTreeSet<String> {
    let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

/// One key's match against the (masked) query: weighted score and matched byte spans.
#[derive(Debug, Clone)]
struct ZhMatch {
    idx: usize,
    score: f64,
    spans: Vec<(usize, usize)>,
    enum_value: Option<String>,
    /// The texts say the query describes the 否 side of a yes/no key ("未适用缓刑").
    negative: bool,
}

/// What the decisions say about yes/no keys: for each key, the texts of the cases where it is
/// 是 and where it is 否. A query phrase that paraphrases a key ("案发后主动投案" for 是否自首)
/// shares no characters with the key but does with the texts of its 是 cases.
struct Contrast {
    /// key → (texts with 是, texts with 否)
    texts: BTreeMap<String, (Vec<String>, Vec<String>)>,
}

/// A bigram's share difference below this is noise (≈150 texts per cause in the sample).
const MIN_LIFT: f64 = 0.2;

impl Contrast {
    /// Σ over the query's bigrams of the share difference P(bigram in text | 是) −
    /// P(bigram in text | 否) where it is at least [`MIN_LIFT`], for each direction (是, 否),
    /// with the spans of the bigrams that separate the groups by at least half.
    fn score(&self, key: &str, query: &str) -> (f64, f64, Vec<(usize, usize)>) {
        let Some((yes, no)) = self.texts.get(key) else { return (0.0, 0.0, Vec::new()) };
        if yes.is_empty() || no.is_empty() {
            return (0.0, 0.0, Vec::new());
        }
        let share = |docs: &[String], b: &str| docs.iter().filter(|d| d.contains(b)).count() as f64 / docs.len() as f64;
        let (mut for_yes, mut for_no) = (0.0, 0.0);
        let mut spans = Vec::new();
        for b in bigrams(query) {
            if b.contains(' ') {
                continue;
            }
            let lift = share(yes, &b) - share(no, &b);
            if lift >= MIN_LIFT {
                for_yes += lift;
            } else if lift <= -MIN_LIFT {
                for_no -= lift;
            }
            if lift.abs() >= 0.5 {
                spans.extend(query.match_indices(b.as_str()).map(|(at, s)| (at, at + s.len())));
            }
        }
        (for_yes, for_no, spans)
    }
}

impl Contrast {
    /// Where in the key's 是 decisions the query words matched for the key first appear, as a
    /// share of the text length (0 = start, 1 = end), averaged over the texts that contain them.
    fn lateness(&self, key: &str, query: &str, spans: &[(usize, usize)]) -> f64 {
        let Some((yes, _)) = self.texts.get(key) else { return 0.0 };
        let words: BTreeSet<&str> =
            spans.iter().filter_map(|(s, e)| query.get(*s..*e)).filter(|w| !w.trim().is_empty()).collect();
        let positions: Vec<f64> = yes
            .iter()
            .filter_map(|t| {
                let at = words.iter().filter_map(|w| t.find(w)).min()?;
                Some(at as f64 / t.len().max(1) as f64)
            })
            .collect();
        if positions.is_empty() { 0.0 } else { positions.iter().sum::<f64>() / positions.len() as f64 }
    }
}

fn zh_match(query: &str, keys: &[ZhKey], df: &BTreeMap<String, usize>, contrast: &Contrast, idx: usize) -> ZhMatch {
    let k = &keys[idx];
    let mut score = 0.0;
    let mut spans = Vec::new();
    for b in bigrams(&stem(&k.key)) {
        let hits: Vec<_> = query.match_indices(b.as_str()).collect();
        if !hits.is_empty() {
            score += 1.0 / *df.get(&b).unwrap_or(&1) as f64;
            spans.extend(hits.iter().map(|(at, s)| (*at, at + s.len())));
        }
    }
    let mut enum_value = None;
    let mut negative = false;
    match k.kind {
        Kind::Enum => {
            if let Some(v) =
                k.values.iter().filter(|v| v.chars().count() >= 2 && query.contains(v.as_str())).max_by_key(|v| v.len())
            {
                let at = query.find(v.as_str()).unwrap_or(0);
                spans.push((at, at + v.len()));
                score += 2.0;
                enum_value = Some(v.clone());
            }
        }
        Kind::YesNo => {
            let (yes, no, s) = contrast.score(&k.key, query);
            score += yes.max(no);
            negative = no > yes;
            spans.extend(s);
        }
        Kind::Numeric => {}
    }
    ZhMatch { idx, score, spans, enum_value, negative }
}

/// Replace the chars inside `spans` with spaces, one per byte, so offsets stay comparable.
fn mask(query: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(query.len());
    for (i, c) in query.char_indices() {
        if spans.iter().any(|(s, e)| i >= *s && i < *e) {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// Keys passing `ok`, best first, that match the query at all.
fn ranked(
    query: &str,
    keys: &[ZhKey],
    df: &BTreeMap<String, usize>,
    contrast: &Contrast,
    ok: impl Fn(&ZhKey) -> bool,
) -> Vec<ZhMatch> {
    let mut out: Vec<ZhMatch> = (0..keys.len())
        .filter(|&i| ok(&keys[i]))
        .map(|i| zh_match(query, keys, df, contrast, i))
        .filter(|m| m.score >= 0.75)
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.idx.cmp(&b.idx)));
    out
}

fn start(m: &ZhMatch) -> usize {
    m.spans.iter().map(|s| s.0).min().unwrap_or(0)
}

/// The comparison and number right after one of the key's matched spans.
fn threshold_of(query: &str, m: &ZhMatch) -> Option<(Cmp, f64)> {
    let mut ends: Vec<usize> = m.spans.iter().map(|s| s.1).collect();
    ends.sort_unstable();
    ends.into_iter().find_map(|e| threshold_after(query, e, THRESHOLD_WINDOW_CHARS))
}

/// A numeric key followed by a comparison and a number is a predictor, not an outcome.
fn has_threshold(query: &str, m: &ZhMatch) -> bool {
    threshold_of(query, m).is_some()
}

/// X candidates tried at most (a candidate with one level in the cohort is skipped).
const MAX_X_CANDIDATES: usize = 4;

/// The cause a query names and the dictionary of its feature keys.
struct ZhIndex {
    cause: String,
    keys: Vec<ZhKey>,
    df: BTreeMap<String, usize>,
    contrast: Contrast,
}

impl ZhIndex {
    /// `None` when the query names no cause of action of the corpus.
    fn load(db: &GuardedDb, query: &str) -> Result<Option<ZhIndex>> {
        let anyou = column_strings(db, "SELECT DISTINCT anyou FROM cases WHERE anyou IS NOT NULL")?;
        let Some(cause) = anyou
            .iter()
            .filter_map(|r| r.first())
            .filter(|a| query.contains(a.as_str()))
            .max_by_key(|a| a.chars().count())
            .cloned()
        else {
            return Ok(None);
        };
        let rows = column_strings(
            db,
            &format!(
                "SELECT f.anhao, f.feature_key, f.feature_value FROM case_features f JOIN cases c ON c.anhao = f.anhao \
                 WHERE c.anyou = {} AND f.feature_value IS NOT NULL",
                lit(&cause)
            ),
        )?;
        let texts: BTreeMap<String, String> =
            column_strings(db, &format!("SELECT anhao, wenshu_content FROM cases WHERE anyou = {}", lit(&cause)))?
                .into_iter()
                .filter_map(|r| match r.as_slice() {
                    [id, text] => Some((id.clone(), text.clone())),
                    _ => None,
                })
                .collect();
        let mut by_key: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut contrast = Contrast { texts: BTreeMap::new() };
        for r in &rows {
            let [id, k, v] = r.as_slice() else { continue };
            by_key.entry(k.clone()).or_default().insert(v.clone());
            if let Some(text) = texts.get(id) {
                let entry = contrast.texts.entry(k.clone()).or_default();
                match v.as_str() {
                    "是" => entry.0.push(text.clone()),
                    "否" => entry.1.push(text.clone()),
                    _ => {}
                }
            }
        }
        let keys: Vec<ZhKey> = by_key
            .into_iter()
            .map(|(key, values)| {
                let values: Vec<String> = values.into_iter().collect();
                let kind = if values.iter().all(|v| v == "是" || v == "否") {
                    Kind::YesNo
                } else if values.iter().all(|v| v.trim().parse::<f64>().is_ok()) {
                    Kind::Numeric
                } else {
                    Kind::Enum
                };
                ZhKey { key, kind, values }
            })
            .collect();
        let mut df: BTreeMap<String, usize> = BTreeMap::new();
        for k in &keys {
            for b in bigrams(&stem(&k.key)) {
                *df.entry(b).or_default() += 1;
            }
        }
        Ok(Some(ZhIndex { cause, keys, df, contrast }))
    }
}

/// Score a key needs to become a counting condition (two distinctive bigrams, or one
/// paraphrase whose words separate the key's 是 and 否 texts).
const MIN_CONDITION_SCORE: f64 = 1.5;
/// Conditions read from one counting query at most.
const MAX_CONDITIONS: usize = 5;

/// Chinese counting conditions on feature keys, for the descriptive planner: repeatedly the
/// best-matching key of the still-unexplained query words. Yes/no keys take the side the texts
/// support (是, or 否 for "未适用缓刑"); enum keys need a named value; numeric keys a comparison.
/// Returns SQL clauses over `cases c` (the cause first), or `None` without a cause.
pub(super) fn zh_count_conditions(db: &GuardedDb, query: &str) -> Result<Option<Conditions>> {
    let Some(ZhIndex { cause, keys, df, contrast }) = ZhIndex::load(db, query)? else { return Ok(None) };
    let mut rest = query.replace(cause.as_str(), &" ".repeat(cause.len()));
    let mut used = BTreeSet::new();
    let mut clauses = vec![format!("c.anyou = {}", lit(&cause))];
    let mut described = vec![format!("anyou = {cause}")];
    for _ in 0..MAX_CONDITIONS * 2 {
        if clauses.len() > MAX_CONDITIONS {
            break;
        }
        let Some(m) = ranked(&rest, &keys, &df, &contrast, |k| !used.contains(&k.key)).into_iter().next() else {
            break;
        };
        if m.score < MIN_CONDITION_SCORE {
            break;
        }
        let k = &keys[m.idx];
        used.insert(k.key.clone());
        let exists = |cond: String| {
            format!(
                "EXISTS (SELECT 1 FROM case_features f WHERE f.anhao = c.anhao AND f.feature_key = {} AND {cond})",
                lit(&k.key)
            )
        };
        let clause = match k.kind {
            Kind::YesNo => {
                let want = if m.negative { "否" } else { "是" };
                described.push(format!("{} = {want}", k.key));
                Some(exists(format!("f.feature_value = {}", lit(want))))
            }
            Kind::Enum => m.enum_value.as_ref().map(|v| {
                described.push(format!("{} = {v}", k.key));
                exists(format!("f.feature_value = {}", lit(v)))
            }),
            Kind::Numeric => threshold_of(&rest, &m).map(|(cmp, t)| {
                let op = cmp.sql();
                described.push(format!("{} {op} {t}", k.key));
                exists(format!("CAST(f.feature_value AS REAL) {op} {t}"))
            }),
        };
        clauses.extend(clause);
        rest = mask(&rest, &m.spans);
    }
    Ok(Some(Conditions { clauses, described }))
}

/// Counting conditions: SQL clauses over the case table and what each means (for the trace).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Conditions {
    pub clauses: Vec<String>,
    pub described: Vec<String>,
}

fn solve_zh(db: &GuardedDb, task: &PublicTask) -> Result<Option<RelationPlan>> {
    let query = task.query.as_str();
    let Some(ZhIndex { cause, keys, df, contrast }) = ZhIndex::load(db, query)? else { return Ok(None) };
    let masked = query.replace(cause.as_str(), &" ".repeat(cause.len()));
    let continuous = wants_continuous(task);
    let y = if continuous {
        let numeric = ranked(&masked, &keys, &df, &contrast, |k| k.kind == Kind::Numeric);
        match numeric.iter().find(|m| !has_threshold(&masked, m)) {
            Some(y) => y.clone(),
            None => return Ok(None),
        }
    } else {
        let Some(first) = ranked(&masked, &keys, &df, &contrast, |_| true).into_iter().next() else {
            return Ok(None);
        };
        let rest = mask(&masked, &first.spans);
        let second = ranked(&rest, &keys, &df, &contrast, |k| k.key != keys[first.idx].key).into_iter().next();
        let yes_no = |m: &ZhMatch| keys[m.idx].kind == Kind::YesNo;
        // The outcome is a yes/no key; of two, the one the query marks as the thing decided
        // ("与是否适用缓刑之间"), else the one the decisions state later — judgments give the facts
        // first and the ruling last, so an outcome's words sit at the end of the texts.
        match second {
            Some(second) if yes_no(&first) && yes_no(&second) => {
                let asked = |m: &ZhMatch| masked[..start(m)].trim_end().ends_with("是否");
                let late = |m: &ZhMatch| contrast.lateness(&keys[m.idx].key, &masked, &m.spans);
                if asked(&first) != asked(&second) {
                    if asked(&first) { first } else { second }
                } else if late(&first) >= late(&second) {
                    first
                } else {
                    second
                }
            }
            Some(second) if yes_no(&second) && !yes_no(&first) => second,
            _ if yes_no(&first) => first,
            _ => return Ok(None),
        }
    };
    let yk = &keys[y.idx];
    let rest = mask(&masked, &y.spans);
    let mut last_err = None;
    for x in ranked(&rest, &keys, &df, &contrast, |k| k.key != yk.key).into_iter().take(MAX_X_CANDIDATES) {
        let xk = &keys[x.idx];
        let test = match xk.kind {
            Kind::YesNo => Test::Truthy,
            Kind::Enum => match &x.enum_value {
                Some(v) => Test::Equals(v.clone()),
                None => continue,
            },
            Kind::Numeric => match threshold_of(&rest, &x) {
                Some((cmp, t)) => Test::Compare(cmp, t),
                None => continue,
            },
        };
        let sql = format!(
            "SELECT c.anhao, x.feature_value, y.feature_value FROM cases c \
             JOIN case_features x ON x.anhao = c.anhao AND x.feature_key = {} \
             JOIN case_features y ON y.anhao = c.anhao AND y.feature_key = {} \
             WHERE c.anyou = {} ORDER BY c.anhao",
            lit(&xk.key),
            lit(&yk.key),
            lit(&cause)
        );
        let plan = json!({"cause": cause, "x": xk.key, "x_test": format!("{test:?}"), "y": yk.key,
            "shape": if continuous { "continuous" } else { "binary" }});
        match associate(db, task, sql, &test, None, plan) {
            Ok(Some(p)) => return Ok(Some(p)),
            Ok(None) => {}
            // One X level only in the cohort (e.g. the phrase restates the outcome's scope).
            Err(e @ crate::Error::Statistics(_)) => last_err = Some(e),
            Err(e) => return Err(e),
        }
    }
    match last_err {
        Some(e) => Err(e),
        None => Ok(None),
    }
}

// ---------------------------------------------------------------------------------------------
// English
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Entry {
    kind: String,
    key: String,
    parent: String,
    names: Vec<String>,
    value_type: String,
    allowed: Vec<String>,
}

fn norm(s: &str) -> String {
    s.to_lowercase().replace(['-', '_'], " ")
}

/// Number words a query may spell out.
const NUMBER_WORDS: &[(&str, u32)] = &[
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("fifteen", 15),
    ("twenty", 20),
];

/// A query normalised like the registry names, with numbers in one form: spelled-out numbers
/// as digits, and "N or more …", "no fewer than N", "a minimum of N" as "at least N" (the
/// comparisons mean the same; registry names use one wording).
fn norm_query(query: &str) -> String {
    let mut q = norm(query);
    for (w, n) in NUMBER_WORDS {
        q = regex::Regex::new(&format!(r"\b{w}\b"))
            .map_or(q.clone(), |r| r.replace_all(&q, n.to_string().as_str()).into_owned());
    }
    let or_more = regex::Regex::new(r"\b(\$?[\d,.]+)\s+or\s+more\b").expect("static regex");
    q = or_more.replace_all(&q, "at least $1").into_owned();
    let floor = regex::Regex::new(r"\b(?:no fewer than|no less than|not less than|a minimum of|minimum of)\s+")
        .expect("static regex");
    floor.replace_all(&q, "at least ").into_owned()
}

/// Where an entry's name matches `q` (normalised) and the filler of a `…` placeholder.
fn en_find(q: &str, e: &Entry) -> Option<(usize, usize, Option<String>)> {
    en_find_exact(q, e).or_else(|| en_find_words(q, e))
}

/// Words that carry no meaning of their own in a registry name.
const EN_STOP_WORDS: &[&str] = &[
    "with", "from", "that", "this", "were", "have", "case", "cases", "about", "into", "than", "more", "less", "their",
];

/// A word's stem for matching: its first five letters ("analysis"/"analyze", "allegations"/
/// "alleged" stay apart, "substantive"/"substance" meet).
fn stem5(w: &str) -> String {
    w.chars().take(5).collect()
}

/// A placeholder-free name matched by its content words in any order and form within one
/// stretch of the query ("allegations of excessive force" for "excessive-force allegations"):
/// every content word's stem must occur, within a span of at most three times the name's words.
fn en_find_words(q: &str, e: &Entry) -> Option<(usize, usize, Option<String>)> {
    let words: Vec<(usize, usize, String)> =
        regex::Regex::new(r"[a-z0-9$§]+").ok()?.find_iter(q).map(|m| (m.start(), m.end(), stem5(m.as_str()))).collect();
    for name in e.names.iter().filter(|n| !n.contains('…')) {
        let content: Vec<String> = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 4 && !EN_STOP_WORDS.contains(w))
            .map(stem5)
            .collect();
        if content.len() < 2 {
            continue;
        }
        let hits: Vec<&(usize, usize, String)> = words.iter().filter(|(_, _, w)| content.contains(w)).collect();
        if !content.iter().all(|c| hits.iter().any(|h| &h.2 == c)) {
            continue;
        }
        // The tightest run of query words that holds every content word.
        let mut best: Option<(usize, usize)> = None;
        for (i, first) in hits.iter().enumerate() {
            let mut need: BTreeSet<&String> = content.iter().collect();
            for h in &hits[i..] {
                need.remove(&&h.2);
                if need.is_empty() {
                    let span = (first.0, h.1);
                    if best.is_none_or(|b| span.1 - span.0 < b.1 - b.0) {
                        best = Some(span);
                    }
                    break;
                }
            }
        }
        let (s, end) = best?;
        let span_words = words.iter().filter(|w| w.0 >= s && w.1 <= end).count();
        if span_words <= content.len() * 3 {
            return Some((s, end, None));
        }
    }
    None
}

/// Where a name matches literally (placeholders filled by allowed values or numbers).
fn en_find_exact(q: &str, e: &Entry) -> Option<(usize, usize, Option<String>)> {
    for name in &e.names {
        match name.split_once('…') {
            None => {
                if name.chars().count() >= 4 {
                    if let Some(at) = q.find(name.as_str()) {
                        return Some((at, at + name.len(), None));
                    }
                }
            }
            Some((pre, post)) => {
                let (pre, post) = (pre.trim(), post.trim());
                let pattern = format!(
                    "{}(?P<f>[a-z0-9$.,' -]+?){}",
                    if pre.is_empty() { String::new() } else { format!(r"\b{}\s*", regex::escape(pre)) },
                    if post.is_empty() { r"\b".to_string() } else { format!(r"\s*{}", regex::escape(post)) }
                );
                let Ok(re) = regex::Regex::new(&pattern) else { continue };
                for caps in re.captures_iter(q) {
                    let (Some(all), Some(f)) = (caps.get(0), caps.name("f")) else { continue };
                    // A placeholder at an end of the name captures from the sentence start (or
                    // to its end): keep the allowed value or number next to the fixed words.
                    let raw = f.as_str().trim();
                    let filler = if e.value_type == "number" {
                        let nums: Vec<&str> = number_re().find_iter(raw).map(|m| m.as_str()).collect();
                        let pick = if pre.is_empty() { nums.last() } else { nums.first() };
                        pick.map(|n| n.replace(',', ""))
                    } else {
                        e.allowed.iter().map(|a| norm(a)).find(|a| {
                            raw == a
                                || (pre.is_empty() && raw.ends_with(&format!(" {a}")))
                                || (post.is_empty() && raw.starts_with(&format!("{a} ")))
                        })
                    };
                    if let Some(filler) = filler {
                        return Some((all.start(), all.end(), Some(filler)));
                    }
                }
            }
        }
    }
    None
}

/// The annotation registry with names normalised for matching.
fn registry(db: &GuardedDb) -> Result<Vec<Entry>> {
    let rows = column_strings(
        db,
        "SELECT registry_type, registry_key, COALESCE(parent_key, ''), COALESCE(display_name, ''), \
         COALESCE(aliases_json, '[]'), COALESCE(value_type, ''), COALESCE(allowed_values_json, '[]') \
         FROM annotation_registry",
    )?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            let [kind, key, parent, display, aliases, vt, allowed] = r.as_slice() else { return None };
            // Names get the query's number normalisation so "at least one …" meets "1 or more …".
            let mut names = vec![norm_query(display)];
            if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(aliases) {
                names.extend(a.iter().filter_map(Value::as_str).map(norm_query));
            }
            let allowed = match serde_json::from_str::<Value>(allowed) {
                Ok(Value::Array(a)) => {
                    a.iter().map(|v| v.as_str().map(String::from).unwrap_or(v.to_string())).collect()
                }
                _ => Vec::new(),
            };
            Some(Entry {
                kind: kind.clone(),
                key: key.clone(),
                parent: parent.clone(),
                names,
                value_type: vt.clone(),
                allowed,
            })
        })
        .collect())
}

/// The matter type a query names (longest, then earliest match).
fn matter_of<'e>(q: &str, entries: &'e [Entry]) -> Option<&'e Entry> {
    entries
        .iter()
        .filter(|e| e.kind == "matter_type")
        .filter_map(|e| en_find(q, e).map(|(s, end, _)| (e, s, end)))
        .max_by_key(|(_, s, end)| (end - s, usize::MAX - s))
        .map(|(e, ..)| e)
}

/// The feature value test of a registry entry given the placeholder filler it matched with.
fn entry_test(e: &Entry, filler: &Option<String>) -> Option<Test> {
    match (e.value_type.as_str(), filler) {
        ("boolean", _) => Some(Test::Truthy),
        ("number", Some(f)) => {
            let n: f64 = f.replace(',', "").parse().ok()?;
            // "at least …" placeholders: the registry's own wording carries the comparison.
            let cmp = if e.names.iter().any(|n| n.contains("at least")) { Cmp::Ge } else { Cmp::Gt };
            Some(Test::Compare(cmp, n))
        }
        (_, Some(f)) => e.allowed.iter().find(|a| norm(a) == *f).map(|a| Test::Equals(a.clone())),
        _ => None,
    }
}

/// English counting conditions: the matter type and every feature or outcome of it the query
/// names (booleans true, enum values, "at least N" numbers), as SQL over `case_record c`.
/// `None` when no matter type is named.
pub(super) fn en_count_conditions(db: &GuardedDb, query: &str) -> Result<Option<Conditions>> {
    let q = norm_query(query);
    let entries = registry(db)?;
    let Some(matter) = matter_of(&q, &entries) else { return Ok(None) };
    let mut clauses = vec![format!("c.matter_types_json LIKE {}", lit(&format!("%\"{}\"%", matter.key)))];
    let mut described = vec![format!("matter = {}", matter.key)];
    for e in entries.iter().filter(|e| e.parent == matter.key) {
        let Some((_, _, filler)) = en_find(&q, e) else { continue };
        let Some(test) = entry_test(e, &filler) else { continue };
        let feature = e.key.rsplit('.').next().unwrap_or(&e.key);
        let cond = match &test {
            Test::Truthy => "lower(f.value_text) IN ('true', '1', 'yes')".to_string(),
            Test::Equals(v) => format!("f.value_text = {}", lit(v)),
            Test::Compare(cmp, n) => {
                let op = cmp.sql();
                format!("CAST(COALESCE(f.value_number, f.value_text) AS REAL) {op} {n}")
            }
        };
        clauses.push(format!(
            "EXISTS (SELECT 1 FROM case_feature f WHERE f.case_id = c.case_id AND f.matter_type = {} \
             AND f.feature_key = {} AND f.value_status = 'observed' AND {cond})",
            lit(&matter.key),
            lit(feature)
        ));
        described.push(format!("{} {test:?}", e.key));
    }
    Ok(Some(Conditions { clauses, described }))
}

fn solve_en(db: &GuardedDb, task: &PublicTask) -> Result<Option<RelationPlan>> {
    let q = norm_query(&task.query);
    let entries = registry(db)?;
    let Some(matter) = matter_of(&q, &entries) else { return Ok(None) };
    let children: Vec<&Entry> = entries.iter().filter(|e| e.parent == matter.key).collect();
    let Some((outcome, ostart, oend, _)) = children
        .iter()
        .filter(|e| e.kind == "outcome")
        .filter_map(|e| en_find(&q, e).map(|(s, end, f)| (*e, s, end, f)))
        .max_by_key(|(_, s, end, _)| end - s)
    else {
        return Ok(None);
    };
    let mut features: Vec<(&Entry, usize, Option<String>)> = children
        .iter()
        .filter(|e| e.kind != "outcome" && e.kind != "matter_type")
        .filter_map(|e| en_find(&q, e).map(|(s, end, f)| (*e, s, end, f)))
        .filter(|(_, s, end, _)| *end <= ostart || *s >= oend)
        .map(|(e, s, _, f)| (e, s, f))
        .collect();
    features.sort_by_key(|(_, s, _)| *s);
    // With two features, the one that qualifies the population noun — nearest to the matter
    // type ("Section 1983 cases involving police involvement") — restricts the cohort, and the
    // other is X.
    if let (true, Some((ms, me, _))) = (features.len() >= 2, en_find(&q, matter)) {
        let distance = |at: usize| if at >= me { at - me } else { ms.saturating_sub(at) };
        if let Some(k) = (0..features.len()).min_by_key(|&k| distance(features[k].1)) {
            let scope = features.remove(k);
            features.insert(0, scope);
        }
    }
    let Some((x_entry, _, x_fill)) = features.last().cloned() else { return Ok(None) };
    let Some(x_test) = entry_test(x_entry, &x_fill) else { return Ok(None) };
    let restrict = match features.len() {
        0 | 1 => None,
        _ => {
            let (e, _, f) = &features[0];
            entry_test(e, f).map(|t| (*e, t))
        }
    };
    let feature_name = |e: &Entry| e.key.rsplit('.').next().unwrap_or(&e.key).to_string();
    let value_col = "COALESCE(CAST(json_extract({t}.value_json, '$') AS TEXT), {t}.value_text)";
    let col = |t: &str| value_col.replace("{t}", t);
    let join = |t: &str, e: &Entry| {
        format!(
            " JOIN case_feature {t} ON {t}.case_id = c.case_id AND {t}.matter_type = {} AND {t}.feature_key = {} \
             AND {t}.value_status = 'observed'",
            lit(&matter.key),
            lit(&feature_name(e))
        )
    };
    let mut sql = format!("SELECT c.case_id, {}, {}", col("x"), col("y"));
    if restrict.is_some() {
        sql.push_str(&format!(", {}", col("r")));
    }
    sql.push_str(" FROM case_record c");
    sql.push_str(&join("x", x_entry));
    sql.push_str(&join("y", outcome));
    if let Some((e, _)) = &restrict {
        sql.push_str(&join("r", e));
    }
    sql.push_str(&format!(
        " WHERE c.matter_types_json LIKE {} ORDER BY c.case_id",
        lit(&format!("%\"{}\"%", matter.key))
    ));
    let plan = json!({"matter": matter.key, "outcome": outcome.key, "x": x_entry.key, "x_test": format!("{x_test:?}"),
        "restrict": restrict.as_ref().map(|(e, t)| format!("{} {t:?}", e.key))});
    associate(db, task, sql, &x_test, restrict.as_ref().map(|(_, t)| t), plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_read_cues_before_and_after_numbers() {
        assert_eq!(threshold_after("血液酒精含量超过129mg/100ml与否", 0, 24), Some((Cmp::Gt, 129.0)));
        assert_eq!(threshold_after("死亡人数不低于2人", 0, 24), Some((Cmp::Ge, 2.0)));
        assert_eq!(threshold_after("盗窃金额10000元以上", 0, 24), Some((Cmp::Ge, 10000.0)));
        assert_eq!(threshold_after("a sentence of at least 136 months", 0, 40), Some((Cmp::Ge, 136.0)));
        assert_eq!(threshold_after("刑期为12个月", 0, 24), None);
        assert_eq!(threshold_after("金额不超过5000元", 0, 24), Some((Cmp::Le, 5000.0)));
        assert_eq!(threshold_after("罚金且金额可提取的案件中，血液酒精含量超过129", 0, 10), None);
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

    #[test]
    fn stems_and_masks() {
        assert_eq!(stem("是否超速超载"), "超速超载");
        assert_eq!(stem("刑期（月）"), "刑期");
        assert_eq!(stem("被告是否包括保险公司"), "包括保险公司");
        let q = "交通肇事罪案件";
        assert_eq!(mask(q, &[(0, 6)]), "      肇事罪案件");
    }

    #[test]
    fn english_placeholders_need_allowed_fillers() {
        let e = Entry {
            kind: "structured_feature".into(),
            key: "asylum.country_of_origin".into(),
            parent: "asylum".into(),
            names: vec![norm("… as the country of origin")],
            value_type: "enum".into(),
            allowed: vec!["El Salvador".into(), "China".into()],
        };
        let q = norm("was El Salvador as the country of origin associated");
        assert_eq!(en_find(&q, &e).and_then(|m| m.2), Some("el salvador".into()));
        assert!(en_find(&norm("was Peru as the country of origin"), &e).is_none());
        let n = Entry {
            names: vec![norm("a sentence of at least … months")],
            value_type: "number".into(),
            allowed: vec![],
            ..e
        };
        assert_eq!(
            en_find(&norm("involving a sentence of at least 136 months compare"), &n).map(|m| m.2),
            Some(Some("136".into()))
        );
    }
}
