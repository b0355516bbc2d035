//! The `compute` tool: dataframe operations over SQL results ([`frame`]) and the association
//! statistics of legal predictive tasks ([`stats`]).
//!
//! A request names its kind; its input is a [`Table`] (usually an earlier SQL result). For
//! associations the table holds one row per case with a predictor column X (truthy = 1) and an
//! outcome column Y (binary: truthy = 1; continuous: a number); rows with a null X or Y are not
//! eligible and are counted in `dropped_rows`.

pub mod frame;
pub mod stats;

use anser_manifest::Language;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use self::{
    frame::{Agg, AggFn, ChangeKind, Cmp, FrameOp, Table, run_frame},
    stats::{BinaryAssociation, BootstrapParams, ContinuousAssociation, Convention, TwoByTwo},
};
use crate::{Error, Result};

/// What to compute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ComputeRequest {
    /// Dataframe operations applied in order.
    Frame { ops: Vec<FrameOp> },
    /// Binary predictor × binary outcome.
    BinaryAssociation {
        x: String,
        y: String,
        #[serde(default)]
        convention: Option<Convention>,
    },
    /// Binary predictor × continuous outcome.
    ContinuousAssociation {
        x: String,
        y: String,
        #[serde(default)]
        bootstrap: Option<BootstrapParams>,
    },
}

/// The `value` object and `option` label ready for a legal predictive answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerDraft {
    pub option: String,
    pub value: Value,
}

/// What the compute tool returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ComputeResult {
    Frame { table: Table },
    BinaryAssociation { stats: BinaryAssociation, convention: Convention, answer: AnswerDraft, dropped_rows: usize },
    ContinuousAssociation { stats: ContinuousAssociation, answer: AnswerDraft, dropped_rows: usize },
}

/// 1/0, true/false, "1"/"0", "true"/"false", "yes"/"no", "是"/"否"; null → not eligible.
fn truthy(v: &Value) -> Result<Option<bool>> {
    Ok(match v {
        Value::Null => None,
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_f64() {
            Some(1.0) => Some(true),
            Some(0.0) => Some(false),
            _ => return Err(Error::Compute(format!("{n} is not a 0/1 value"))),
        },
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "是" | "y" => Some(true),
            "0" | "false" | "no" | "否" | "n" => Some(false),
            "" => None,
            other => return Err(Error::Compute(format!("{other:?} is not a 0/1 value"))),
        },
        other => return Err(Error::Compute(format!("{other} is not a 0/1 value"))),
    })
}

fn number(v: &Value) -> Result<Option<f64>> {
    Ok(match v {
        Value::Null => None,
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => {
            Some(s.trim().parse().map_err(|_| Error::Compute(format!("outcome {s:?} is not a number")))?)
        }
        other => return Err(Error::Compute(format!("outcome {other} is not a number"))),
    })
}

/// Run one compute request. `language` picks the relation labels and, unless the request
/// names one, the release's statistics convention.
pub fn compute(table: &Table, request: &ComputeRequest, language: Language) -> Result<ComputeResult> {
    match request {
        ComputeRequest::Frame { ops } => Ok(ComputeResult::Frame { table: run_frame(table, ops)? }),
        ComputeRequest::BinaryAssociation { x, y, convention } => {
            let mut pairs = Vec::new();
            let mut dropped = 0;
            for (xv, yv) in table.column(x)?.zip(table.column(y)?) {
                match (truthy(xv)?, truthy(yv)?) {
                    (Some(a), Some(b)) => pairs.push((a, b)),
                    _ => dropped += 1,
                }
            }
            let stats = BinaryAssociation::new(TwoByTwo::from_pairs(pairs))?;
            let convention = convention.unwrap_or(Convention::release(language));
            let answer =
                AnswerDraft { option: stats.option(convention, language).to_string(), value: stats.value(convention) };
            Ok(ComputeResult::BinaryAssociation { stats, convention, answer, dropped_rows: dropped })
        }
        ComputeRequest::ContinuousAssociation { x, y, bootstrap } => {
            let (mut g1, mut g0) = (Vec::new(), Vec::new());
            let mut dropped = 0;
            for (xv, yv) in table.column(x)?.zip(table.column(y)?) {
                match (truthy(xv)?, number(yv)?) {
                    (Some(true), Some(v)) => g1.push(v),
                    (Some(false), Some(v)) => g0.push(v),
                    _ => dropped += 1,
                }
            }
            let params = bootstrap.unwrap_or_default();
            let stats = ContinuousAssociation::new(&g1, &g0, &params)?;
            let answer = AnswerDraft { option: stats.option(language).to_string(), value: stats.value() };
            Ok(ComputeResult::ContinuousAssociation { stats, answer, dropped_rows: dropped })
        }
    }
}
