//! The official LLM-judge prompts (spec §10): the seven templates, which task uses which, and
//! their literal, sequential placeholder rendering.
//!
//! The texts are benchmark data, shipped as `prompts/anser_judge.json` (a verbatim copy of the
//! release's `src/prompts/evaluator.json` plus a `source` field) and embedded at build time, so
//! the official rule "all seven must be non-empty strings, even with --skip-llm-judge" holds by
//! construction and is checked by a test.

use anser_manifest::{Domain, Language, PublicTask, Split, TaskGroup};
use sha2::{Digest, Sha256};

use crate::{Error, Result, pyjson::Py, pytext::text};

/// The prompt file, embedded.
const PROMPTS_JSON: &str = include_str!("../../prompts/anser_judge.json");

/// One of the seven judge templates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JudgeTemplate {
    LegalZh,
    LegalEn,
    FinanceZh,
    FinanceEn,
    FinancePresZh,
    RegBench,
    Science,
}

impl JudgeTemplate {
    pub const ALL: [JudgeTemplate; 7] = [
        JudgeTemplate::LegalZh,
        JudgeTemplate::LegalEn,
        JudgeTemplate::FinanceZh,
        JudgeTemplate::FinanceEn,
        JudgeTemplate::FinancePresZh,
        JudgeTemplate::RegBench,
        JudgeTemplate::Science,
    ];

    /// The key in the prompt file.
    pub fn key(self) -> &'static str {
        match self {
            JudgeTemplate::LegalZh => "legal_zh",
            JudgeTemplate::LegalEn => "legal_en",
            JudgeTemplate::FinanceZh => "finance_zh",
            JudgeTemplate::FinanceEn => "finance_en",
            JudgeTemplate::FinancePresZh => "finance_pres_zh",
            JudgeTemplate::RegBench => "regbench",
            JudgeTemplate::Science => "science",
        }
    }

    /// `prompt_for(task)`: the template a task is judged with, if any.
    pub fn for_task(group: TaskGroup, task_type: Option<&str>) -> Option<JudgeTemplate> {
        let zh = group.language == Language::Zh;
        match (group.domain, group.split) {
            (Domain::Science, _) => Some(JudgeTemplate::Science),
            (Domain::Legal, Split::Prescriptive) => {
                Some(if zh { JudgeTemplate::LegalZh } else { JudgeTemplate::LegalEn })
            }
            (Domain::Legal, _) => None,
            (Domain::Finance, Split::Descriptive | Split::Predictive) => {
                Some(if zh { JudgeTemplate::FinanceZh } else { JudgeTemplate::FinanceEn })
            }
            (Domain::Finance, Split::Prescriptive) if zh => Some(JudgeTemplate::FinancePresZh),
            (Domain::Finance, Split::Prescriptive) => {
                (task_type == Some("RegBench")).then_some(JudgeTemplate::RegBench)
            }
        }
    }
}

/// The seven templates.
#[derive(Debug, Clone)]
pub struct Prompts {
    texts: [String; 7],
    source: String,
    hash: String,
}

impl Prompts {
    /// The embedded official prompts.
    pub fn official() -> Result<Prompts> {
        Prompts::parse(PROMPTS_JSON)
    }

    /// Parse a prompt file: a JSON object with the seven keys as non-empty strings.
    pub fn parse(json: &str) -> Result<Prompts> {
        let value: serde_json::Value = serde_json::from_str(json).map_err(|e| Error::Prompts(e.to_string()))?;
        let object = value.as_object().ok_or_else(|| Error::Prompts("the prompt file must be a JSON object".into()))?;
        let mut invalid = Vec::new();
        let texts = JudgeTemplate::ALL.map(|t| match object.get(t.key()).and_then(|v| v.as_str()) {
            Some(s) if !s.trim().is_empty() => s.to_string(),
            _ => {
                invalid.push(t.key());
                String::new()
            }
        });
        if !invalid.is_empty() {
            return Err(Error::Prompts(format!("missing or invalid LLM-judge prompts: {}", invalid.join(", "))));
        }
        let mut hasher = Sha256::new();
        for (t, s) in JudgeTemplate::ALL.iter().zip(&texts) {
            hasher.update(t.key().as_bytes());
            hasher.update([0]);
            hasher.update(s.as_bytes());
            hasher.update([0]);
        }
        let hash = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let source = object.get("source").and_then(|v| v.as_str()).unwrap_or_default().to_string();
        Ok(Prompts { texts, source, hash })
    }

    pub fn template(&self, t: JudgeTemplate) -> &str {
        &self.texts[t as usize]
    }

    /// Where the texts come from (the file's `source` field).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// SHA-256 over all seven templates (part of the judge cache key).
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// `render_prompt`: `{query}`, `{instruction}`, `{ground_truth}`, `{answer}` replaced
    /// literally, in that order, by `text()` of each value.
    pub fn render(&self, t: JudgeTemplate, task: &PublicTask, gold: &Py, answer: &Py) -> String {
        self.template(t)
            .replace("{query}", &task.query)
            .replace("{instruction}", &task.instruction)
            .replace("{ground_truth}", &text(gold))
            .replace("{answer}", &text(answer))
    }
}
