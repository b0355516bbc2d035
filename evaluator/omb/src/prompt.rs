//! The judge prompt. Its text is benchmark data, kept verbatim in
//! `prompts/omb_judge_prompt.txt` (EvalScope 1.14.1's `_JUDGE_PROMPT` followed by the output
//! contract's format requirement; see `prompts/omb_judge_prompt.source.md`). Rendering is one
//! pass over the template: braces inside the question, the answer or a rubric are never
//! substituted again, exactly like Python's `str.format`.

use std::sync::OnceLock;

use crate::record::Rubric;

/// The template as stored (the file ends with one newline that is not part of the prompt).
const TEMPLATE_FILE: &str = include_str!("../../../prompts/omb_judge_prompt.txt");

/// Version tag of the prompt and reply contract; part of every judge cache key.
pub const PROMPT_VERSION: &str = "evalscope-1.14.1/one_million_bench/v1.0";

/// Judge request temperature (EvalScope's judge default, measured).
pub const JUDGE_TEMPERATURE: f64 = 0.0;
/// Judge request `max_tokens` (EvalScope's judge default, measured).
pub const JUDGE_MAX_TOKENS: u32 = 4096;
/// Generation temperature (EvalScope's default, measured; no `max_tokens` is sent).
pub const GENERATION_TEMPERATURE: f64 = 0.0;

const PLACEHOLDERS: [&str; 3] = ["{prompt}", "{model_response}", "{rubrics}"];

/// The judge prompt template (placeholders `{prompt}`, `{model_response}`, `{rubrics}`).
pub fn template() -> &'static str {
    TEMPLATE_FILE.strip_suffix('\n').unwrap_or(TEMPLATE_FILE)
}

/// SHA-256 of the template, recorded in reports and cache keys.
pub fn template_sha256() -> &'static str {
    static SHA: OnceLock<String> = OnceLock::new();
    SHA.get_or_init(|| anser_runstore::sha256_hex(template().as_bytes()))
}

/// The rubric blocks in dataset order: `**Rubric {n}**\nrubricDetail: {d}\nrubricWeight:
/// {w:+d}分`, joined by one blank line.
pub fn render_rubrics(rubrics: &[Rubric]) -> String {
    rubrics
        .iter()
        .map(|r| format!("**Rubric {}**\nrubricDetail: {}\nrubricWeight: {:+}分", r.number_text, r.detail, r.weight))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The complete judge message for one answer.
pub fn judge_prompt(question: &str, answer: &str, rubrics: &[Rubric]) -> String {
    let rubric_text = render_rubrics(rubrics);
    let mut out = String::with_capacity(template().len() + question.len() + answer.len() + rubric_text.len());
    let mut rest = template();
    while let Some((at, which)) =
        PLACEHOLDERS.iter().enumerate().filter_map(|(i, p)| rest.find(p).map(|at| (at, i))).min()
    {
        out.push_str(&rest[..at]);
        out.push_str(match which {
            0 => question,
            1 => answer,
            _ => &rubric_text,
        });
        rest = &rest[at + PLACEHOLDERS[which].len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_has_each_placeholder_once_and_no_other_braces() {
        let t = template();
        for p in PLACEHOLDERS {
            assert_eq!(t.matches(p).count(), 1, "{p}");
        }
        assert_eq!(t.matches('{').count(), 3);
        assert_eq!(t.matches('}').count(), 3);
        assert!(t.starts_with("## 角色与核心任务"));
        assert!(t.ends_with("- \"results\": a list (One judgment for every rubric in the prompt.)"));
    }

    #[test]
    fn substitution_is_single_pass() {
        let r = Rubric {
            id: 1,
            number_text: "1".into(),
            detail: "{model_response}".into(),
            weight: 0,
            weight_raw: 0.0,
            positive: false,
            tag: None,
        };
        let p = judge_prompt("Q {rubrics}", "A {prompt} {model_response}", &[r]);
        assert!(p.contains("### 用户问题（prompt）\nQ {rubrics}\n\n---"));
        assert!(p.contains("### AI回复（modelResponse）\nA {prompt} {model_response}\n\n---"));
        assert!(p.contains("**Rubric 1**\nrubricDetail: {model_response}\nrubricWeight: +0分\n\n---"));
    }
}
