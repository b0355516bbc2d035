//! The one answer-shape taxonomy: which structural shape a task's final answer has, keyed by the
//! task's group and type. The prompts and the reply parsing (`method::output`) and the answer
//! checks ([`super::answer`]) all read it here, so a group cannot be asked for one shape and
//! checked against another.
//!
//! The shape is structural (a count, the relation object, the rule object, or text); the answer
//! checks refine `Text` further from the task's wording (options, a number, a length).

use anser_manifest::{Domain, PublicTask, Split};
use serde::{Deserialize, Serialize};

/// What shape the final answer of a task must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerContract {
    /// A count (legal descriptive, finance `statistic`).
    Integer,
    /// `{"option": ..., "value": {...}}` (legal predictive).
    Relation,
    /// `{"applied_rule": ..., "expected_value": ...}` (FinAuditing).
    RuleValue,
    /// Everything else: a number, an option letter or a short text, as the instruction says.
    Text,
}

/// The taxonomy: (domain, split, task type — `None` for any) → shape; the first row that
/// matches wins, and a task no row matches answers in text.
const SHAPES: &[(Domain, Split, Option<&str>, AnswerContract)] = &[
    (Domain::Legal, Split::Descriptive, None, AnswerContract::Integer),
    (Domain::Finance, Split::Descriptive, Some("statistic"), AnswerContract::Integer),
    (Domain::Legal, Split::Predictive, None, AnswerContract::Relation),
    (Domain::Finance, Split::Prescriptive, Some("FinAuditing"), AnswerContract::RuleValue),
];

impl AnswerContract {
    /// The contract of a task, from its group and type.
    pub fn of(task: &PublicTask) -> AnswerContract {
        let g = task.group;
        let ty = task.task_type.as_deref();
        SHAPES
            .iter()
            .find(|(domain, split, want, _)| {
                *domain == g.domain && *split == g.split && want.is_none_or(|w| ty == Some(w))
            })
            .map_or(AnswerContract::Text, |row| row.3)
    }

    /// The keys the answer object of a structured contract has, exactly (empty for the others).
    pub fn object_keys(self) -> &'static [&'static str] {
        match self {
            AnswerContract::Relation => &["option", "value"],
            AnswerContract::RuleValue => &["applied_rule", "expected_value"],
            AnswerContract::Integer | AnswerContract::Text => &[],
        }
    }
}
