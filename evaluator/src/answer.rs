//! Answer parsing and the answer metrics of the official evaluator (spec §2–§4): numbers,
//! structured answers, option choice, Token-F1, SMAPE, Accuracy@10%, and the finance
//! answer-kind rule.

use std::{borrow::Cow, collections::HashMap, fmt};

use crate::{
    pyjson::{DecodeError, Dict, Py, loads, py_str},
    pytext::{digit_value, is_space, is_word, nfkc, normalized, normalized_opt, strip, text},
};

/// `number(value)`: JSON numbers as they are, strings only when the whole text is a plain
/// number (optional sign, optional `1,234` grouping, optional fraction, optional `%`, `x`, `×`
/// or `倍`). Booleans, null and prose are unparseable.
pub fn number(value: &Py) -> Option<f64> {
    match value {
        Py::Null | Py::Bool(_) => None,
        Py::Int(i) => Some(i.to_f64()),
        Py::Float(f) => Some(*f),
        Py::Str(s) => number_text(s),
        // str() of a list or dict starts with a bracket and can never match.
        other => number_text(&py_str(other)),
    }
}

/// `number()` of text (`None` for an absent value).
pub fn number_opt(value: Option<&Py>) -> Option<f64> {
    value.and_then(number)
}

/// The string branch of `number()`.
pub fn number_text(s: &str) -> Option<f64> {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let skip_space = |i: &mut usize| {
        while *i < chars.len() && is_space(chars[*i]) {
            *i += 1;
        }
    };
    skip_space(&mut i);
    let mut literal = String::new();
    if i < chars.len() && (chars[i] == '+' || chars[i] == '-') {
        literal.push(chars[i]);
        i += 1;
    }
    // Integer part: the maximal run of digits and commas; commas must group by three.
    let start = i;
    while i < chars.len() && (digit_value(chars[i]).is_some() || chars[i] == ',') {
        i += 1;
    }
    let run = &chars[start..i];
    if run.is_empty() {
        return None;
    }
    if run.contains(&',') {
        let groups: Vec<&[char]> = run.split(|&c| c == ',').collect();
        let first_ok = (1..=3).contains(&groups[0].len());
        if !first_ok || groups[1..].iter().any(|g| g.len() != 3) {
            return None;
        }
    }
    push_digits(&mut literal, run.iter().filter(|&&c| c != ','));
    if i < chars.len() && chars[i] == '.' {
        let frac_start = i + 1;
        let mut j = frac_start;
        while j < chars.len() && digit_value(chars[j]).is_some() {
            j += 1;
        }
        if j == frac_start {
            return None;
        }
        literal.push('.');
        push_digits(&mut literal, chars[frac_start..j].iter());
        i = j;
    }
    skip_space(&mut i);
    if i < chars.len() && matches!(chars[i], '%' | 'x' | 'X' | '×' | '倍') {
        i += 1;
    }
    skip_space(&mut i);
    if i != chars.len() {
        return None;
    }
    literal.parse().ok()
}

fn push_digits<'a>(out: &mut String, digits: impl Iterator<Item = &'a char>) {
    for &c in digits {
        if let Some(d) = digit_value(c).and_then(|d| char::from_digit(d, 10)) {
            out.push(d);
        }
    }
}

/// Why an answer is not a JSON object; displayed exactly as the Python exception text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonObjectError {
    /// No `{ ... }` span in the text.
    NoBraces,
    /// The span parsed, but to something other than an object.
    NotAnObject,
    /// The span is not valid JSON (Python's decoder message).
    Decode(DecodeError),
}

impl fmt::Display for JsonObjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoBraces => f.write_str("answer is not a JSON object"),
            Self::NotAnObject => f.write_str("answer JSON is not an object"),
            Self::Decode(e) => e.fmt(f),
        }
    }
}

/// `json_object(value)`: an object as is; otherwise the text (fence line dropped) from the first
/// `{` to the last `}`, parsed as JSON, which must give an object.
pub fn json_object(value: &Py) -> Result<Cow<'_, Dict>, JsonObjectError> {
    if let Py::Dict(d) = value {
        return Ok(Cow::Borrowed(d));
    }
    let full = text(value);
    let mut raw: &str = strip(&full);
    const FENCE: &str = "```";
    if raw.starts_with(FENCE) {
        raw = raw.split_once('\n').map_or("", |(_, rest)| rest);
        if let Some(body) = raw.strip_suffix(FENCE) {
            raw = strip(body);
        }
    }
    let (Some(start), Some(end)) = (raw.find('{'), raw.rfind('}')) else {
        return Err(JsonObjectError::NoBraces);
    };
    if end <= start {
        return Err(JsonObjectError::NoBraces);
    }
    match loads(&raw[start..=end]).map_err(JsonObjectError::Decode)? {
        Py::Dict(d) => Ok(Cow::Owned(d)),
        _ => Err(JsonObjectError::NotAnObject),
    }
}

/// `choice(answer, gold)`: for option golds (a–d) the first letter A–D of the upper-cased
/// normalised answer that has no Latin letter on either side; otherwise the normalised answer
/// when it equals the normalised gold.
pub fn choice(answer: &Py, gold: &Py) -> Option<String> {
    let expected = normalized(gold);
    let value = normalized(answer);
    if matches!(expected.as_str(), "a" | "b" | "c" | "d") {
        let upper: Vec<char> = value.to_uppercase().chars().collect();
        // After NFKC and case folding the only letters `[A-Z]` (IGNORECASE) can meet are ASCII.
        let latin = |i: usize| upper.get(i).is_some_and(char::is_ascii_alphabetic);
        for (i, c) in upper.iter().enumerate() {
            if ('A'..='D').contains(c) && !(i > 0 && latin(i - 1)) && !latin(i + 1) {
                return Some(c.to_ascii_lowercase().to_string());
            }
        }
        return None;
    }
    (value == expected).then_some(value)
}

/// Accuracy for the categorical kind: 1.0 when `choice` equals the normalised gold.
pub fn choice_accuracy(answer: &Py, gold: &Py) -> f64 {
    let expected = normalized(gold);
    if choice(answer, gold).is_some_and(|c| c == expected) { 1.0 } else { 0.0 }
}

/// Token-F1 tokens: NFKC, lower-case, non-word characters to spaces, articles dropped.
pub fn f1_tokens(value: &Py) -> Vec<String> {
    let lowered = nfkc(&text(value)).to_lowercase();
    let cleaned: String = lowered.chars().map(|c| if is_word(c) || is_space(c) { c } else { ' ' }).collect();
    cleaned.split(is_space).filter(|t| !t.is_empty() && !matches!(*t, "a" | "an" | "the")).map(str::to_string).collect()
}

/// Token-F1 (science): multiset overlap of [`f1_tokens`].
pub fn token_f1(prediction: &Py, reference: &Py) -> f64 {
    let pred = f1_tokens(prediction);
    let gold = f1_tokens(reference);
    if pred.is_empty() && gold.is_empty() {
        return 1.0;
    }
    if pred.is_empty() || gold.is_empty() {
        return 0.0;
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in &gold {
        *counts.entry(t).or_default() += 1;
    }
    let mut overlap = 0usize;
    for t in &pred {
        if let Some(n) = counts.get_mut(t.as_str()) {
            if *n > 0 {
                *n -= 1;
                overlap += 1;
            }
        }
    }
    if overlap == 0 {
        return 0.0;
    }
    harmonic_f1(overlap as f64 / pred.len() as f64, overlap as f64 / gold.len() as f64)
}

/// F1, the harmonic mean of precision and recall; 0 when both are 0 (token, evidence-set and
/// BERTScore F1 all reduce this way).
pub fn harmonic_f1(precision: f64, recall: f64) -> f64 {
    if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) }
}

/// SMAPE on the 0–200 scale; 0 when both sides are zero.
pub fn smape(prediction: f64, reference: f64) -> f64 {
    let denominator = prediction.abs() + reference.abs();
    if denominator == 0.0 { 0.0 } else { 200.0 * (prediction - reference).abs() / denominator }
}

/// Relaxed Accuracy@10%: relative error ≤ 0.1 (inclusive, f64); exact match when gold is 0.
pub fn accuracy_10(prediction: f64, reference: f64) -> f64 {
    let hit =
        if reference == 0.0 { prediction == 0.0 } else { (prediction - reference).abs() / reference.abs() <= 0.1 };
    if hit { 1.0 } else { 0.0 }
}

/// How a finance descriptive (non-statistic) or predictive answer is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnswerKind {
    Numeric,
    Categorical,
    ShortAnswer,
}

impl AnswerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Numeric => "numeric",
            Self::Categorical => "categorical",
            Self::ShortAnswer => "short_answer",
        }
    }
}

const LABELS: &[&str] = &[
    "a",
    "b",
    "c",
    "d",
    "yes",
    "no",
    "true",
    "false",
    "是",
    "否",
    "未披露",
    "无法判断",
    "持续下降",
    "持续上升",
    "波动较大",
    "无明显变化",
];

/// `第 N 梯队` (tier N), spaces allowed around the digits.
fn is_tier_label(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('第') else { return false };
    let Some(rest) = rest.strip_suffix("梯队") else { return false };
    let core = rest.trim_matches(is_space);
    !core.is_empty() && core.chars().all(|c| digit_value(c).is_some())
}

/// `answer_kind(task)`: numeric when the gold parses as a number, categorical by the label,
/// instruction and type rules, short answer otherwise.
pub fn answer_kind(ground_truth: &Py, instruction: Option<&Py>, task_type: Option<&str>) -> AnswerKind {
    if number(ground_truth).is_some() {
        return AnswerKind::Numeric;
    }
    let gold = normalized(ground_truth);
    if LABELS.contains(&gold.as_str()) || is_tier_label(&gold) {
        return AnswerKind::Categorical;
    }
    let instruction = normalized_opt(instruction);
    if ["只返回一个选项", "return only one option", "choose one option"].iter().any(|x| instruction.contains(x))
    {
        return AnswerKind::Categorical;
    }
    let categorical = matches!(task_type, Some("text_evidence" | "change_detection"))
        || (matches!(task_type, Some("mixed_numeric_text" | "multi_period_trend"))
            && gold.chars().count() <= 12
            && !gold.contains(' ')
            && number(ground_truth).is_none());
    if categorical { AnswerKind::Categorical } else { AnswerKind::ShortAnswer }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Py {
        Py::Str(v.into())
    }

    #[test]
    fn tier_labels() {
        assert!(
            is_tier_label("第2梯队")
                && is_tier_label("第 12 梯队")
                && !is_tier_label("第梯队")
                && !is_tier_label("第二梯队")
        );
    }

    #[test]
    fn hand_computed_edges() {
        // Full-width digits and a full-width comma-free grouping parse; prose never does.
        assert_eq!(number(&s("１２,３４５")), Some(12345.0));
        assert_eq!(number(&s(" -1,234.50 倍 ")), Some(-1234.5));
        assert_eq!(number(&s("5 %")), Some(5.0));
        assert_eq!(number(&s("5 % ")), Some(5.0));
        assert_eq!(number(&s("5,")), None);
        assert_eq!(number(&s("1,234,56")), None);
        assert_eq!(number(&s("+")), None);
        assert_eq!(number(&Py::List(vec![])), None);
        // Accuracy@10%: 1.1 vs 1 misses by f64 rounding; zero gold needs an exact zero.
        assert_eq!(accuracy_10(1.1, 1.0), 0.0);
        assert_eq!(accuracy_10(0.0, 0.0), 1.0);
        assert_eq!(accuracy_10(1e-300, 0.0), 0.0);
        // SMAPE: opposite signs give 200.
        assert_eq!(smape(-5.0, 5.0), 200.0);
        assert_eq!(smape(95.0, 100.0), 200.0 * 5.0 / 195.0);
    }
}
