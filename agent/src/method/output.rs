//! Output contracts per task group (the shapes of [`crate::tools::answer_shape`]) and answer
//! extraction from a model's reply.
//!
//! The task's own `instruction` states the format; the contract adds what the evaluator needs to
//! parse it reliably (an integer only; one JSON object of a known shape; a short text) and the
//! extraction turns a chatty reply into that shape without ever inventing content: when the
//! reply does not contain the expected shape, the raw text is kept and the record is flagged
//! unparseable.

use serde_json::Value;

pub use crate::tools::answer_shape::AnswerContract;

impl AnswerContract {
    /// One sentence appended to the prompt so the reply parses (our words, not the release's).
    pub fn reply_rule(self) -> &'static str {
        match self {
            AnswerContract::Integer => "Reply with the final integer only, with no words or units.",
            AnswerContract::Relation => {
                "Reply with one JSON object only: {\"option\": <one of the options in the instruction>, \"value\": {<the statistics the instruction asks for>}}."
            }
            AnswerContract::RuleValue => {
                "Reply with one JSON object only: {\"applied_rule\": <rule id>, \"expected_value\": <number>}."
            }
            AnswerContract::Text => {
                "Reply with the final answer only, in the format and length the instruction requires."
            }
        }
    }
}

/// An answer extracted from a reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    /// The answer to record: a string, or a JSON object for the structured contracts.
    pub answer: Value,
    /// False when the reply did not contain the contract's shape (the raw text is kept).
    pub parsed: bool,
}

/// Extract the answer of `contract` from a model reply.
pub fn extract_answer(contract: AnswerContract, reply: &str) -> Extracted {
    let text = strip_fences(reply.trim());
    match contract {
        AnswerContract::Integer => match find_integer(&text) {
            Some(n) => Extracted { answer: Value::String(n), parsed: true },
            None => Extracted { answer: Value::String(text), parsed: false },
        },
        AnswerContract::Relation | AnswerContract::RuleValue => match find_json_object(&text) {
            Some(obj) if contract.object_keys().iter().all(|k| obj.get(k).is_some()) => {
                Extracted { answer: obj, parsed: true }
            }
            _ => Extracted { answer: Value::String(text), parsed: false },
        },
        AnswerContract::Text => {
            let answer = strip_answer_label(&text).trim().to_string();
            let parsed = !answer.is_empty();
            Extracted { answer: Value::String(answer), parsed }
        }
    }
}

/// Remove one surrounding Markdown code fence (```json ... ```), if any.
fn strip_fences(text: &str) -> String {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("```") {
        let body = rest.split_once('\n').map_or("", |(_, b)| b);
        let body = body.trim_end();
        return body.strip_suffix("```").unwrap_or(body).trim().to_string();
    }
    t.to_string()
}

const ANSWER_LABELS: [&str; 8] =
    ["final answer:", "final answer：", "answer:", "answer：", "答案：", "答案:", "结论：", "结论:"];

fn strip_answer_label(text: &str) -> &str {
    let lower = text.to_lowercase();
    for label in ANSWER_LABELS {
        if lower.starts_with(label) && text.is_char_boundary(label.len()) {
            return &text[label.len()..];
        }
    }
    text
}

/// The integer the reply states: the whole reply, else the first integer of a line labelled as
/// the answer, else the first integer anywhere. Full-width digits count; thousands separators
/// inside a number are dropped.
fn find_integer(text: &str) -> Option<String> {
    let folded: String = text
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32).unwrap_or(c),
            _ => c,
        })
        .collect();
    let labelled = folded.lines().find(|line| {
        let lower = line.trim().to_lowercase();
        ANSWER_LABELS.iter().any(|l| lower.starts_with(l))
    });
    labelled.and_then(first_integer).or_else(|| first_integer(&folded))
}

fn first_integer(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let negative = i > 0 && chars[i - 1] == '-';
            let mut digits = String::new();
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (chars[i] == ',' && i + 1 < chars.len() && chars[i + 1].is_ascii_digit()))
            {
                if chars[i] != ',' {
                    digits.push(chars[i]);
                }
                i += 1;
            }
            // A decimal number is not a count.
            if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                continue;
            }
            let trimmed = digits.trim_start_matches('0');
            let digits = if trimmed.is_empty() { "0".to_string() } else { trimmed.to_string() };
            return Some(if negative { format!("-{digits}") } else { digits });
        }
        i += 1;
    }
    None
}

/// The first balanced `{...}` in the text that parses as a JSON object.
fn find_json_object(text: &str) -> Option<Value> {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(offset) = text[start..].find('{') {
        let open = start + offset;
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            if in_string {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(&text[open..=i]) {
                            return Some(v);
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
        start = open + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn integers_from_chatty_replies() {
        let cases = [
            ("12", Some("12")),
            ("There are 12 qualifying cases.", Some("12")),
            ("In 2023 the court decided...\nAnswer: 7", Some("7")),
            ("答案：１２", Some("12")),
            ("共 1,234 件", Some("1234")),
            ("The rate was 3.5 and the count is 4", Some("4")),
            ("007", Some("7")),
            ("no number here", None),
            ("```\n42\n```", Some("42")),
        ];
        for (reply, want) in cases {
            let got = extract_answer(AnswerContract::Integer, reply);
            match want {
                Some(n) => assert_eq!((got.answer, got.parsed), (json!(n), true), "{reply}"),
                None => assert!(!got.parsed, "{reply}"),
            }
        }
    }

    #[test]
    fn json_objects_with_required_keys() {
        let reply =
            "Here you go:\n```json\n{\"option\": \"positive\", \"value\": {\"n\": 10, \"note\": \"a {brace}\"}}\n```";
        let got = extract_answer(AnswerContract::Relation, reply);
        assert!(got.parsed);
        assert_eq!(got.answer["value"]["n"], 10);
        let got = extract_answer(AnswerContract::RuleValue, "{\"applied_rule\": \"DQC_US_0015\"}");
        assert!(!got.parsed, "a missing key is not the contract");
        let got = extract_answer(AnswerContract::RuleValue, "x {bad} {\"applied_rule\": \"R\", \"expected_value\": 5}");
        assert_eq!(got.answer, json!({"applied_rule": "R", "expected_value": 5}));
    }

    #[test]
    fn text_answers_lose_only_labels() {
        let got = extract_answer(AnswerContract::Text, "Answer: B");
        assert_eq!(got.answer, json!("B"));
        let got = extract_answer(AnswerContract::Text, "   ");
        assert!(!got.parsed);
    }
}
