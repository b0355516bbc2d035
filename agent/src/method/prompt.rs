//! Prompts of the single-stage methods (our own words). The task's query and instruction are
//! passed verbatim; the answer contract adds one sentence so the reply parses; retrieved
//! context, when any, is packed into a token budget.

use anser_llm::estimate_tokens;
use anser_manifest::PublicTask;

use super::output::AnswerContract;

/// System message of vanilla and RAG generation.
pub const SYSTEM_PROMPT: &str = "You answer analytical questions over legal, financial and scientific records. \
Follow the task's instruction exactly, including its output format and any information cutoff. \
When evidence passages are given, rely on them and do not invent records.";

/// One retrieved passage offered to the model.
#[derive(Debug, Clone)]
pub struct Passage<'a> {
    pub label: String,
    pub text: &'a str,
}

/// The user message: query, instruction, the contract's reply rule, and the packed passages.
pub fn user_prompt(task: &PublicTask, passages: Option<&[Passage<'_>]>) -> String {
    let mut out = String::new();
    if let Some(passages) = passages {
        out.push_str("Evidence passages:\n");
        for (i, p) in passages.iter().enumerate() {
            out.push_str(&format!("[{}] ({})\n{}\n\n", i + 1, p.label, p.text.trim()));
        }
    }
    out.push_str("Task:\n");
    out.push_str(task.query.trim());
    out.push_str("\n\nInstruction:\n");
    out.push_str(task.instruction.trim());
    out.push_str("\n\n");
    out.push_str(AnswerContract::of(task).reply_rule());
    out
}

/// Keep passages in rank order while their estimated tokens fit `budget` (CJK char = 1 token,
/// other chars = 1/4, as the official baseline estimates). A passage that does not fit is cut
/// to the remaining budget; passages after it are dropped.
pub fn pack<'a>(passages: Vec<Passage<'a>>, budget: u64) -> (Vec<Passage<'a>>, u64) {
    let mut used = 0u64;
    let mut out = Vec::new();
    for p in passages {
        let cost = estimate_tokens(p.text) + estimate_tokens(&p.label) + 4;
        if used + cost <= budget {
            used += cost;
            out.push(p);
            continue;
        }
        let remaining = budget.saturating_sub(used + estimate_tokens(&p.label) + 4);
        if remaining > 0 {
            let cut = cut_to_tokens(p.text, remaining);
            used += estimate_tokens(cut) + estimate_tokens(&p.label) + 4;
            out.push(Passage { label: p.label, text: cut });
        }
        break;
    }
    (out, used)
}

/// The longest prefix of `text` whose estimated tokens are at most `tokens`.
fn cut_to_tokens(text: &str, tokens: u64) -> &str {
    let (mut lo, mut hi) = (0usize, text.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let mut m = mid;
        while !text.is_char_boundary(m) {
            m -= 1;
        }
        if m <= lo {
            hi = mid - 1;
            continue;
        }
        if estimate_tokens(&text[..m]) <= tokens {
            lo = m;
        } else {
            hi = mid - 1;
        }
    }
    &text[..lo]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_respects_the_budget_in_rank_order() {
        let a = "a".repeat(400); // 100 tokens
        let b = "中".repeat(50); // 50 tokens
        let passages = vec![
            Passage { label: "x".into(), text: &a },
            Passage { label: "y".into(), text: &b },
            Passage { label: "z".into(), text: "tail" },
        ];
        let (packed, used) = pack(passages.clone(), 1000);
        assert_eq!(packed.len(), 3);
        assert_eq!(used, (100 + 1 + 4) + (50 + 1 + 4) + (1 + 1 + 4));
        let (packed, used) = pack(passages, 130);
        // 105 for the first, then 20 tokens of the second fit (label 1 + 4 overhead).
        assert_eq!(packed.len(), 2);
        assert_eq!(packed[1].text.chars().count(), 20);
        assert_eq!(used, 105 + 25);
    }
}
