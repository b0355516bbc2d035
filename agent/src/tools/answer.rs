//! The `answer` tool: checks a final answer against the form the task asks for, shapes the
//! evidence list into the scorer's identifier kind for the task's route, and records whether
//! the two agree (a count equal to the size of the counted population, `n` equal to the
//! cohort's size).
//!
//! The form comes from the task's group, type and wording (never from its reference): the
//! structural shape from the one taxonomy ([`super::answer_shape`]) — integers for counting
//! tasks, the exact JSON of legal predictive and FinAuditing tasks — and, for text, one option
//! where the task lists options or says "return only one option"/"只返回一个选项", a number
//! where it asks for a numeric result, and text within the requested length otherwise
//! ("不超过150字" counts characters, "80-150 words" counts words).

use std::sync::LazyLock;

use anser_manifest::{Domain, EvidenceMetric, EvidenceRecords, Language, Manifest, PublicTask, Split};
pub use anser_record::evidence::{EvidenceCheck, shape_evidence};
use anser_record::evidence::{item_text as as_text, raw_id};
use regex::Regex;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::{
    Error, Result,
    tools::{
        answer_shape::AnswerContract,
        compute::stats::{option_labels, round6},
        sql::GuardedDb,
    },
};

/// Ids per existence-check query.
const EXISTENCE_BATCH: usize = 400;
/// Rejected evidence items listed in an error message.
const LISTED_REJECTIONS: usize = 5;

/// Unit of a length limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LengthUnit {
    /// Non-whitespace characters (字).
    Chars,
    /// Whitespace-separated words.
    Words,
}

/// The form a task's answer must have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum AnswerSpec {
    /// A non-negative integer (counting tasks).
    Integer,
    /// Exactly one of `choices`.
    Choice { choices: Vec<String> },
    /// One number, units allowed (`1.78 %`, `222.46`); `or_undisclosed` also admits 未披露.
    Number { or_undisclosed: bool },
    /// `{"option": label, "value": {…}}` of a legal predictive task.
    LegalRelation { continuous: bool, labels: Vec<String> },
    /// `{"applied_rule": "DQC_…", "expected_value": number}`.
    FinAuditing,
    /// Free text, optionally within a length.
    Text {
        #[serde(skip_serializing_if = "Option::is_none")]
        min: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max: Option<usize>,
        unit: LengthUnit,
    },
}

fn re(p: &str) -> Regex {
    match Regex::new(p) {
        Ok(r) => r,
        // Constant patterns, covered by the unit tests.
        Err(e) => panic!("answer pattern {p:?}: {e}"),
    }
}

static OPTION_LETTER: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[\s|｜（(])([A-H])[.．、]\s?\S"));
static QUOTED_CHOICES: LazyLock<Regex> = LazyLock::new(|| re(r"从“([^”]+)”中选择一个"));
static WORD_RANGE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)(\d+)\s*[-–~]\s*(\d+)\s*words"));
static CHAR_MAX: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:不超过|控制在|不多于|少于)\s*(\d+)\s*(?:个)?字|(\d+)\s*字(?:以内|之内|内)"));
static NUMBER: LazyLock<Regex> = LazyLock::new(|| re(r"[-−]?\d+(?:,\d{3})*(?:\.\d+)?"));
static DQC_RULE: LazyLock<Regex> = LazyLock::new(|| re(r"^DQC_\d{4}$|^DQC_US_\d{4}$"));

fn one_option_asked(text: &str) -> bool {
    let lower = text.to_lowercase();
    text.contains("只返回一个选项")
        || lower.contains("return only one option")
        || lower.contains("choose one option")
        || lower.contains("select the most likely forecast outcome")
}

/// The answer form of a task.
pub fn answer_spec(task: &PublicTask) -> AnswerSpec {
    let g = task.group;
    let text = format!("{}\n{}", task.query, task.instruction);
    // The structural shape comes from the one taxonomy; only text answers are refined here.
    match AnswerContract::of(task) {
        AnswerContract::Integer => return AnswerSpec::Integer,
        AnswerContract::Relation => {
            return AnswerSpec::LegalRelation {
                continuous: task.instruction.contains("median_x1"),
                labels: option_labels(g.language).iter().map(|s| s.to_string()).collect(),
            };
        }
        AnswerContract::RuleValue => return AnswerSpec::FinAuditing,
        AnswerContract::Text => {}
    }
    if g.domain == Domain::Finance && g.split != Split::Prescriptive {
        let undisclosed = task.instruction.contains("未披露");
        if task.instruction.contains("只返回“是”或“否”") || task.query.contains("是/否") {
            let mut choices = vec!["是".to_string(), "否".to_string()];
            if undisclosed {
                choices.push("未披露".into());
            }
            return AnswerSpec::Choice { choices };
        }
        if let Some(c) = QUOTED_CHOICES.captures(&text).and_then(|c| c.get(1)) {
            return AnswerSpec::Choice { choices: c.as_str().split('、').map(|s| s.trim().to_string()).collect() };
        }
        if one_option_asked(&text) {
            let mut letters: Vec<String> = Vec::new();
            for l in OPTION_LETTER.captures_iter(&task.query).filter_map(|c| c.get(1)) {
                if !letters.iter().any(|x| x == l.as_str()) {
                    letters.push(l.as_str().to_string());
                }
            }
            if letters.len() >= 2 {
                return AnswerSpec::Choice { choices: letters };
            }
        }
        let lower = text.to_lowercase();
        if lower.contains("numeric result")
            || lower.contains("numeric forecast value")
            || lower.contains("fill in the")
            || text.contains("数值")
            || text.contains("填空")
        {
            return AnswerSpec::Number { or_undisclosed: undisclosed };
        }
    }
    if let Some(c) = WORD_RANGE.captures(&text) {
        let min = c.get(1).and_then(|m| m.as_str().parse().ok());
        let max = c.get(2).and_then(|m| m.as_str().parse().ok());
        return AnswerSpec::Text { min, max, unit: LengthUnit::Words };
    }
    if let Some(c) = CHAR_MAX.captures(&text) {
        let max = c.get(1).or_else(|| c.get(2)).and_then(|m| m.as_str().parse().ok());
        return AnswerSpec::Text { min: None, max, unit: LengthUnit::Chars };
    }
    let unit = if g.language == Language::Zh { LengthUnit::Chars } else { LengthUnit::Words };
    AnswerSpec::Text { min: None, max: None, unit }
}

/// A checked answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValidatedAnswer {
    pub spec: AnswerSpec,
    /// The answer as results.json should carry it.
    pub answer: String,
    /// Parsed value: the integer, the number, the JSON object.
    #[serde(skip_serializing_if = "Value::is_null")]
    pub parsed: Value,
    /// Length in the limit's unit (text answers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
}

/// The first JSON object in an answer: the object itself, or the span from the first `{` to
/// the last `}` of a string (the evaluator's rule).
fn json_object(answer: &Value) -> Result<Map<String, Value>> {
    if let Value::Object(m) = answer {
        return Ok(m.clone());
    }
    let s = as_text(answer);
    let (Some(a), Some(b)) = (s.find('{'), s.rfind('}')) else {
        return Err(Error::Answer("the answer must be one JSON object".into()));
    };
    if b < a {
        return Err(Error::Answer("the answer must be one JSON object".into()));
    }
    match serde_json::from_str::<Value>(&s[a..=b]) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(Error::Answer("the answer must be one JSON object".into())),
        Err(e) => Err(Error::Answer(format!("the answer is not valid JSON: {e}"))),
    }
}

fn exact_keys(m: &Map<String, Value>, keys: &[&str], what: &str) -> Result<()> {
    let have: Vec<&str> = m.keys().map(String::as_str).collect();
    if have.len() != keys.len() || !keys.iter().all(|k| m.contains_key(*k)) {
        return Err(Error::Answer(format!("{what} must have exactly the keys {keys:?}; it has {have:?}")));
    }
    Ok(())
}

fn number_of(v: &Value, what: &str) -> Result<f64> {
    match v {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
    .ok_or_else(|| Error::Answer(format!("{what} must be a number, not {v}")))
}

fn count_length(text: &str, unit: LengthUnit) -> usize {
    match unit {
        LengthUnit::Chars => text.chars().filter(|c| !c.is_whitespace()).count(),
        LengthUnit::Words => text.split_whitespace().count(),
    }
}

/// Check `answer` against the task's form; the error says what to change.
pub fn validate_answer(task: &PublicTask, answer: &Value) -> Result<ValidatedAnswer> {
    let spec = answer_spec(task);
    let done = |answer: String, parsed: Value, length: Option<usize>, spec: AnswerSpec| ValidatedAnswer {
        spec,
        answer,
        parsed,
        length,
    };
    match &spec {
        AnswerSpec::Integer => {
            let n = match answer {
                Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
                Value::String(s) => s.trim().parse::<i64>().ok(),
                _ => None,
            }
            .filter(|n| *n >= 0)
            .ok_or_else(|| Error::Answer(format!("the answer must be one non-negative integer, not {answer}")))?;
            Ok(done(n.to_string(), json!(n), None, spec))
        }
        AnswerSpec::Choice { choices } => {
            let s = as_text(answer);
            let bare = s.trim_matches(|c: char| c.is_whitespace() || "。.()（）【】[]\"'“”".contains(c));
            let letter_choice = choices.iter().all(|c| c.len() == 1 && c.chars().all(|ch| ch.is_ascii_uppercase()));
            let picked = if letter_choice {
                let up = bare.to_ascii_uppercase();
                let first = up.chars().next().map(String::from).unwrap_or_default();
                let lead_ok = up.len() == 1 || up[1..].starts_with(['.', '．', '、', ')', ' ']);
                choices.iter().find(|c| **c == first && lead_ok).cloned()
            } else {
                choices.iter().find(|c| c.as_str() == bare).cloned()
            };
            let picked = picked.ok_or_else(|| {
                Error::Answer(format!("the answer must be exactly one of {}; got {s:?}", choices.join(", ")))
            })?;
            Ok(done(picked.clone(), Value::String(picked), None, spec))
        }
        AnswerSpec::Number { or_undisclosed } => {
            let s = as_text(answer);
            if *or_undisclosed && s.trim_matches('。') == "未披露" {
                return Ok(done("未披露".into(), Value::Null, None, spec));
            }
            let found: Vec<&str> = NUMBER.find_iter(&s).map(|m| m.as_str()).collect();
            match found.as_slice() {
                [one] => {
                    let v: f64 = one.replace([',', '−'], "").replace('−', "-").parse().unwrap_or(f64::NAN);
                    Ok(done(s.clone(), json!(v), None, spec))
                }
                [] => Err(Error::Answer(format!("the answer must be a number; got {s:?}"))),
                _ => Err(Error::Answer(format!("the answer must be one number only; got {s:?}"))),
            }
        }
        AnswerSpec::LegalRelation { continuous, labels } => {
            let m = json_object(answer)?;
            exact_keys(&m, AnswerContract::Relation.object_keys(), "the answer object")?;
            let option = m.get("option").and_then(Value::as_str).unwrap_or_default();
            if !labels.iter().any(|l| l == option) {
                return Err(Error::Answer(format!("`option` must be one of {}; got {option:?}", labels.join(", "))));
            }
            let Some(Value::Object(value)) = m.get("value") else {
                return Err(Error::Answer("`value` must be an object".into()));
            };
            let keys: &[&str] = if *continuous {
                &["n", "median_x1", "median_x0", "median_difference", "ci95_lower", "ci95_upper"]
            } else {
                &["n", "outcome_rate_x1", "outcome_rate_x0", "odds_ratio", "p_value"]
            };
            exact_keys(value, keys, "`value`")?;
            let mut out = Map::new();
            for k in keys {
                let v = number_of(&value[*k], &format!("`value.{k}`"))?;
                if *k == "n" {
                    if v < 0.0 || v.fract() != 0.0 {
                        return Err(Error::Answer(format!("`value.n` must be a non-negative integer, not {v}")));
                    }
                    out.insert("n".into(), json!(v as u64));
                } else {
                    out.insert((*k).to_string(), json!(round6(v)));
                }
            }
            let obj = json!({"option": option, "value": Value::Object(out)});
            Ok(done(obj.to_string(), obj, None, spec))
        }
        AnswerSpec::FinAuditing => {
            let m = json_object(answer)?;
            exact_keys(&m, AnswerContract::RuleValue.object_keys(), "the answer object")?;
            let rule = m.get("applied_rule").and_then(Value::as_str).map(str::trim).unwrap_or_default();
            if !DQC_RULE.is_match(rule) {
                return Err(Error::Answer(format!(
                    "`applied_rule` must be a DQC rule id like DQC_US_0015; got {rule:?}"
                )));
            }
            let v = number_of(&m["expected_value"], "`expected_value`")?;
            let value = if v.fract() == 0.0 && v.abs() < 9.0e15 { json!(v as i64) } else { json!(v) };
            let obj = json!({"applied_rule": rule, "expected_value": value});
            Ok(done(obj.to_string(), obj, None, spec))
        }
        AnswerSpec::Text { min, max, unit } => {
            let s = as_text(answer);
            if s.is_empty() {
                return Err(Error::Answer("the answer is empty".into()));
            }
            let len = count_length(&s, *unit);
            let unit_name = match unit {
                LengthUnit::Chars => "characters",
                LengthUnit::Words => "words",
            };
            if let Some(max) = max.filter(|m| len > *m) {
                return Err(Error::Answer(format!("the answer has {len} {unit_name}; shorten it to at most {max}")));
            }
            if let Some(min) = min.filter(|m| len < *m) {
                return Err(Error::Answer(format!("the answer has {len} {unit_name}; write at least {min}")));
            }
            Ok(done(s, Value::Null, Some(len), spec))
        }
    }
}

/// Whether answer and evidence agree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Consistency {
    /// Counting task: the count equals the number of distinct population ids.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count_matches_evidence: Option<bool>,
    /// Legal predictive: `value.n` equals the number of distinct cohort ids.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n_matches_evidence: Option<bool>,
    pub evidence_empty: bool,
}

/// A checked final answer with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FinalCheck {
    pub answer: ValidatedAnswer,
    pub evidence: EvidenceCheck,
    pub consistency: Consistency,
}

/// Mark ids that are not among the route's visible records (kinds stored in SQLite only).
pub fn check_existence(check: &mut EvidenceCheck, db: &GuardedDb) -> Result<()> {
    // The table and column that list the kind's ids (manifest data; SQLite kinds only).
    let Some(kind) = Manifest::get().evidence_kind(&check.kind) else {
        return Ok(());
    };
    let Some(EvidenceRecords { table, column }) = &kind.records else {
        return Ok(());
    };
    let ids: Vec<String> = check.items.iter().filter_map(|item| raw_id(kind, item)).collect();
    let mut found = std::collections::HashSet::new();
    for chunk in ids.chunks(EXISTENCE_BATCH) {
        let list: Vec<String> = chunk.iter().map(|s| format!("'{}'", s.replace('\'', "''"))).collect();
        let sql =
            format!("SELECT CAST({column} AS TEXT) FROM {table} WHERE CAST({column} AS TEXT) IN ({})", list.join(","));
        for row in db.query_with(&sql, chunk.len() * 2 + 1)?.rows {
            if let Some(Value::String(s)) = row.into_iter().next() {
                found.insert(s);
            }
        }
    }
    check.unknown = ids.into_iter().filter(|i| !found.contains(i)).collect();
    Ok(())
}

/// Validate the final answer and its evidence together. Malformed evidence is an error (the
/// message lists the first offending items); `db`, when given, also reports ids the route does
/// not show.
pub fn check_final(
    task: &PublicTask,
    answer: &Value,
    evidence: &[Value],
    db: Option<&GuardedDb>,
) -> Result<FinalCheck> {
    let answer = validate_answer(task, answer)?;
    let mut ev = shape_evidence(task, evidence)?;
    if !ev.rejected.is_empty() {
        let listed: Vec<String> =
            ev.rejected.iter().take(LISTED_REJECTIONS).map(|(item, why)| format!("{item}: {why}")).collect();
        return Err(Error::Evidence(format!(
            "{} of {} items are not {} identifiers — {}",
            ev.rejected.len(),
            evidence.len(),
            ev.kind,
            listed.join("; ")
        )));
    }
    if let Some(db) = db {
        check_existence(&mut ev, db)?;
    }
    let distinct = ev.items.len() as u64;
    let population = ev.metric == EvidenceMetric::Population;
    let count_matches_evidence = match (&answer.spec, population) {
        (AnswerSpec::Integer, true) => answer.parsed.as_u64().map(|n| n == distinct),
        _ => None,
    };
    let n_matches_evidence = match &answer.spec {
        AnswerSpec::LegalRelation { .. } => answer.parsed["value"]["n"].as_u64().map(|n| n == distinct),
        _ => None,
    };
    let consistency = Consistency { count_matches_evidence, n_matches_evidence, evidence_empty: ev.items.is_empty() };
    Ok(FinalCheck { answer, evidence: ev, consistency })
}
