//! TREC export for trec_eval / ranx users: the ranked evidence of every answered task as a run
//! file (`qid Q0 docno rank score tag`) and the gold evidence as qrels (`qid 0 docno 1`).
//!
//! Document ids are the evaluator's canonical ids ([`anser_evaluator::evidence::Canonicalizer`],
//! with the same group-scoped repairs and the regulatory-rule lookup), so a trec_eval number
//! agrees with what `anser eval` scores. The submitted list is chosen as the evaluator chooses
//! it (`retrieved_evidence`, else `retrieved`; `selected_population` for set-scored tasks).
//! TREC files are whitespace-separated, so whitespace inside an id (and `%`) is percent-encoded
//! the same way in both files; ids stay comparable between the two.

use std::fmt::Write as _;

use anser_evaluator::{
    Benchmark,
    evidence::{Canonicalizer, EvidenceScope, RuleIndex},
    pyjson::Py,
    score::uses_population,
};
use anser_record::{PublicTask, TaskGroup};
use serde_json::Value;

use crate::{Error, Result, rundir::RunData};

/// Run and qrels text of one run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TrecExport {
    pub run: String,
    pub qrels: String,
    /// Tasks written to the run file (with at least one ranked id).
    pub ranked_tasks: usize,
    /// Answered tasks without any evidence.
    pub empty_tasks: usize,
    /// Tasks with gold evidence in the qrels.
    pub judged_tasks: usize,
    /// Result ids that are not in the benchmark (left out of both files).
    pub unknown_ids: Vec<String>,
}

/// Percent-encode whitespace and `%` so an id is one TREC column.
pub fn trec_id(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for c in id.chars() {
        if c == '%' || c.is_whitespace() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Export `run` against the tasks of `bench`; `rules` resolves regulatory-rule row ids.
pub fn export(run: &RunData, bench: &Benchmark, rules: Option<&RuleIndex>) -> Result<TrecExport> {
    let tag = trec_id(&run.name);
    let mut out = TrecExport::default();
    let tasks: std::collections::HashMap<&str, &PublicTask> =
        bench.tasks().iter().map(|t| (t.id.as_str(), t)).collect();
    let mut seen = std::collections::HashSet::new();
    for (i, record) in run.raw_results.iter().enumerate() {
        let Some(id) = record.get("id").and_then(Value::as_str) else {
            return Err(Error::run_file(run.dir.join("results.json"), format!("record {}: no string `id`", i + 1)));
        };
        if !seen.insert(id) {
            continue;
        }
        let (Some(task), Some(reference)) = (tasks.get(id), bench.reference(id)) else {
            out.unknown_ids.push(id.to_string());
            continue;
        };
        let canon = canonicalizer(task.group, task.task_type.as_deref(), rules);
        let qid = trec_id(id);
        let ranked = canon.list(submitted(record, task.group, task.task_type.as_deref()).map(Py::from_serde).as_ref());
        if ranked.is_empty() {
            out.empty_tasks += 1;
        } else {
            out.ranked_tasks += 1;
        }
        let n = ranked.len();
        for (rank, doc) in ranked.iter().enumerate() {
            let _ = writeln!(out.run, "{qid} Q0 {} {} {} {tag}", trec_id(doc), rank + 1, n - rank);
        }
        let gold = canon.list(Some(&Py::from_serde(&reference.evidence)));
        if !gold.is_empty() {
            out.judged_tasks += 1;
        }
        for doc in &gold {
            let _ = writeln!(out.qrels, "{qid} 0 {} 1", trec_id(doc));
        }
    }
    Ok(out)
}

fn canonicalizer<'r>(group: TaskGroup, task_type: Option<&str>, rules: Option<&'r RuleIndex>) -> Canonicalizer<'r> {
    Canonicalizer { scope: EvidenceScope::for_task(group, task_type), rules }
}

/// The list the evaluator scores for a record.
fn submitted<'r>(record: &'r Value, group: TaskGroup, task_type: Option<&str>) -> Option<&'r Value> {
    if uses_population(group, task_type) {
        if let Some(list @ Value::Array(_)) = record.get("selected_population") {
            return Some(list);
        }
    }
    record.get("retrieved_evidence").or_else(|| record.get("retrieved"))
}
