//! Token accounting per call. Servers usually report usage; when one does not, the client
//! estimates it with the same rule the run loop uses for context packing (a CJK character is
//! one token, any other character a quarter token) and marks the numbers `estimated`, so
//! reports can tell provider counts from guesses.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Token counts of one call (or a sum of calls).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    /// Reasoning ("thinking") tokens, when the server reports them; part of `completion_tokens`.
    pub reasoning_tokens: Option<u64>,
    /// True when some of these numbers are estimates rather than provider counts.
    pub estimated: bool,
}

impl Usage {
    /// Usage as reported in an OpenAI-style `usage` object, or `None` when the server reported
    /// no usable counts (missing, null, or all zero).
    ///
    /// Reads `prompt_tokens`, `completion_tokens`, `total_tokens` (computed when absent) and the
    /// reasoning count from `completion_tokens_details.reasoning_tokens` or a top-level
    /// `reasoning_tokens` (some servers put it there).
    pub fn from_reported(usage: &Value) -> Option<Usage> {
        let obj = usage.as_object()?;
        let get = |k: &str| obj.get(k).and_then(Value::as_u64);
        let prompt = get("prompt_tokens");
        let completion = get("completion_tokens");
        let total = get("total_tokens");
        if prompt.unwrap_or(0) == 0 && completion.unwrap_or(0) == 0 && total.unwrap_or(0) == 0 {
            return None;
        }
        let prompt = prompt.unwrap_or(0);
        let completion = completion.unwrap_or_else(|| total.unwrap_or(0).saturating_sub(prompt));
        let reasoning = obj
            .get("completion_tokens_details")
            .and_then(|d| d.get("reasoning_tokens"))
            .and_then(Value::as_u64)
            .or_else(|| get("reasoning_tokens"));
        Some(Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: total.unwrap_or(prompt + completion),
            reasoning_tokens: reasoning,
            estimated: false,
        })
    }

    /// Estimated usage for a prompt and a completion text (see [`estimate_tokens`]).
    pub fn estimate(prompt_text: &str, completion_text: &str) -> Usage {
        let prompt = estimate_tokens(prompt_text);
        let completion = estimate_tokens(completion_text);
        Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: prompt + completion,
            reasoning_tokens: None,
            estimated: true,
        }
    }

    /// Adds another call's usage (e.g. to total a task's calls). The sum is `estimated` if
    /// either part is; reasoning tokens add up when either part reports them.
    pub fn add(&mut self, other: &Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
        self.reasoning_tokens = match (self.reasoning_tokens, other.reasoning_tokens) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        self.estimated |= other.estimated;
    }
}

/// Estimated token count of `text`: one per CJK character plus a quarter per other character
/// (rounded up), so `"机器学习 is fun"` (4 CJK + 7 others) is 4 + 2 = 6 tokens.
pub fn estimate_tokens(text: &str) -> u64 {
    let (mut cjk, mut other) = (0u64, 0u64);
    for c in text.chars() {
        if is_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

/// True for characters counted as one token each: CJK ideographs (unified, extensions,
/// compatibility), CJK symbols and punctuation, kana, Hangul syllables and full-width forms.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x303F     // CJK symbols and punctuation (。、「」)
        | 0x3040..=0x30FF   // Hiragana, Katakana
        | 0x3400..=0x4DBF   // Extension A
        | 0x4E00..=0x9FFF   // Unified ideographs
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xF900..=0xFAFF   // Compatibility ideographs
        | 0xFF00..=0xFFEF   // Half-/full-width forms (，：（）)
        | 0x20000..=0x3134F // Extensions B..G and compatibility supplement
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn estimate_counts_cjk_as_one_and_others_as_a_quarter_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("a"), 1);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("机器学习"), 4);
        // 4 CJK + " is fun" (7 chars) -> 4 + ceil(7/4) = 6.
        assert_eq!(estimate_tokens("机器学习 is fun"), 6);
        // Full-width punctuation counts as CJK: 你好，世界。 = 6.
        assert_eq!(estimate_tokens("你好，世界。"), 6);
    }

    #[test]
    fn reported_usage_reads_reasoning_and_fills_total() {
        let u = Usage::from_reported(&json!({
            "prompt_tokens": 10, "completion_tokens": 5,
            "completion_tokens_details": {"reasoning_tokens": 3}
        }))
        .expect("usage");
        assert_eq!(
            u,
            Usage {
                prompt_tokens: 10,
                completion_tokens: 5,
                total_tokens: 15,
                reasoning_tokens: Some(3),
                estimated: false
            }
        );
        assert_eq!(Usage::from_reported(&json!({"prompt_tokens": 0, "completion_tokens": 0})), None);
        assert_eq!(Usage::from_reported(&Value::Null), None);
        let u = Usage::from_reported(&json!({"prompt_tokens": 7, "total_tokens": 7})).expect("embeddings usage");
        assert_eq!((u.prompt_tokens, u.completion_tokens, u.total_tokens), (7, 0, 7));
    }

    #[test]
    fn sums_mark_estimates() {
        let mut a = Usage::estimate("abcd", "机");
        assert_eq!((a.prompt_tokens, a.completion_tokens, a.total_tokens), (1, 1, 2));
        a.add(&Usage {
            prompt_tokens: 3,
            completion_tokens: 2,
            total_tokens: 5,
            reasoning_tokens: Some(1),
            estimated: false,
        });
        assert_eq!(
            a,
            Usage {
                prompt_tokens: 4,
                completion_tokens: 3,
                total_tokens: 7,
                reasoning_tokens: Some(1),
                estimated: true
            }
        );
    }
}
