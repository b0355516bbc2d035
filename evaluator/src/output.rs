//! evaluation.json (spec §8): the official schema and key order, written as Python's
//! `json.dumps(payload, ensure_ascii=False, indent=2)` plus a newline. The card profile adds
//! `profile`/`bertscore_model` to `evaluator`, a `Latency` row to every `efficiency`, and an
//! `evaluation_overhead` block (judge and BERTScore cost); the official profile adds nothing.

use std::path::Path;

use crate::{
    EVALUATOR_NAME, Evaluation, Profile, Result,
    pyjson::{Dict, DumpStyle, Py, PyInt, dumps},
    report::{Detail, Efficiency, FileReport, MetricSummary},
};

fn int(n: usize) -> Py {
    Py::Int(PyInt::from(n as u64))
}

fn float(x: Option<f64>) -> Py {
    x.map_or(Py::Null, Py::Float)
}

fn string(s: &str) -> Py {
    Py::Str(s.to_string())
}

fn dict<const N: usize>(entries: [(&str, Py); N]) -> Py {
    Py::Dict(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// A metrics summary object.
pub fn metrics_py(metrics: &[MetricSummary]) -> Py {
    Py::Dict(
        metrics
            .iter()
            .map(|m| {
                let mut entry = Dict::new();
                entry.insert("mean", float(m.mean));
                entry.insert("count", int(m.count));
                if m.unavailable > 0 {
                    entry.insert("unavailable", int(m.unavailable));
                }
                (m.metric.name().to_string(), Py::Dict(entry))
            })
            .collect(),
    )
}

/// An efficiency object.
pub fn efficiency_py(e: &Efficiency) -> Py {
    let t = &e.token_usage;
    let mut out = Dict::new();
    out.insert(
        "Token Usage",
        dict([
            ("mean", float(t.mean)),
            ("count", int(t.count)),
            ("unavailable", int(t.unavailable)),
            ("unit", string("tokens")),
        ]),
    );
    if let Some(l) = &e.latency {
        out.insert(
            "Latency",
            dict([
                ("mean", float(l.mean)),
                ("p50", float(l.p50)),
                ("p95", float(l.p95)),
                ("count", int(l.count)),
                ("unavailable", int(l.unavailable)),
                ("unit", string("seconds")),
            ]),
        );
    }
    Py::Dict(out)
}

/// One detail object, keys in the official order.
pub fn detail_py(d: &Detail) -> Py {
    let mut out = Dict::new();
    out.insert("id", string(&d.id));
    out.insert("result_signature", string(&d.result_signature));
    out.insert("benchmark_file", string(&d.benchmark_file));
    out.insert("task_group", string(&d.task_group));
    out.insert("task_type", d.task_type.as_deref().map_or(Py::Null, string));
    out.insert("metrics", Py::Dict(d.metrics.iter().map(|(m, v)| (m.name().to_string(), float(*v))).collect()));
    out.insert("errors", Py::List(d.errors.iter().map(|e| string(e)).collect()));
    if let Some(g) = &d.generation {
        out.insert("generation", Py::Dict(g.clone()));
    }
    if let Some(k) = d.answer_kind {
        out.insert("answer_kind", string(k.as_str()));
    }
    if let Some(j) = &d.llm_judge {
        out.insert("llm_judge", Py::Dict(j.clone()));
    }
    out.insert(
        "evidence_count",
        dict([("expected", int(d.evidence_count.expected)), ("returned", int(d.evidence_count.returned))]),
    );
    Py::Dict(out)
}

/// One file report.
pub fn file_py(f: &FileReport) -> Py {
    let groups = Py::Dict(
        f.by_task_group
            .iter()
            .map(|g| {
                (
                    g.name.clone(),
                    dict([
                        ("count", int(g.count)),
                        ("metrics", metrics_py(&g.metrics)),
                        ("efficiency", efficiency_py(&g.efficiency)),
                    ]),
                )
            })
            .collect(),
    );
    dict([
        ("source_file", string(&f.source_file)),
        ("submitted_records", int(f.submitted_records)),
        ("evaluated_records", int(f.details.len())),
        ("warnings", Py::List(f.warnings.iter().map(|w| string(w)).collect())),
        ("summary", metrics_py(&f.summary)),
        ("efficiency", efficiency_py(&f.efficiency)),
        ("by_task_group", groups),
        ("details", Py::List(f.details.iter().map(detail_py).collect())),
    ])
}

/// The whole payload.
pub fn evaluation_py(e: &Evaluation) -> Py {
    let mut evaluator = Dict::new();
    evaluator.insert("name", string(EVALUATOR_NAME));
    evaluator.insert("model_for_llm_judge", e.judge_model.as_deref().map_or(Py::Null, string));
    let card = e.profile == Profile::Card;
    if card {
        evaluator.insert("profile", string(e.profile.as_str()));
        evaluator.insert("bertscore_model", e.bertscore_model.as_deref().map_or(Py::Null, string));
    }
    let mut out = Dict::new();
    out.insert("evaluator", Py::Dict(evaluator));
    out.insert("input", string(&e.input));
    out.insert("benchmark_dir", string(&e.benchmark_dir));
    out.insert(
        "summary",
        dict([
            ("files", int(e.files.len())),
            ("evaluated_records", int(e.evaluated_records())),
            ("metrics", metrics_py(&e.metrics)),
            ("efficiency", efficiency_py(&e.efficiency)),
        ]),
    );
    if card {
        let j = &e.judge_overhead;
        let b = &e.bertscore_overhead;
        out.insert(
            "evaluation_overhead",
            dict([
                (
                    "llm_judge",
                    dict([
                        ("requests", int(j.requests)),
                        ("cached", int(j.cached)),
                        ("calls", int(j.calls)),
                        ("failed", int(j.failed)),
                        ("prompt_tokens", Py::Int(PyInt::from(j.prompt_tokens))),
                        ("completion_tokens", Py::Int(PyInt::from(j.completion_tokens))),
                        ("total_tokens", Py::Int(PyInt::from(j.total_tokens))),
                        ("tokens_estimated", Py::Bool(j.tokens_estimated)),
                        ("call_seconds", Py::Float(j.call_seconds)),
                        ("wall_seconds", Py::Float(j.wall_seconds)),
                    ]),
                ),
                ("bertscore", dict([("pairs", int(b.pairs)), ("seconds", Py::Float(b.seconds))])),
            ]),
        );
    }
    out.insert("files", Py::List(e.files.iter().map(file_py).collect()));
    Py::Dict(out)
}

impl Evaluation {
    /// The evaluation file's text.
    pub fn to_json_string(&self) -> String {
        let mut s = dumps(&evaluation_py(self), DumpStyle::PRETTY);
        s.push('\n');
        s
    }

    /// Write the evaluation file atomically (`anser_runstore::write_atomic`: unique temporary
    /// file in the same folder, fsync, rename, directory fsync), creating parent directories.
    /// Whether `path` may be replaced at all is the caller's decision (`anser eval` refuses an
    /// input file and, without `--force`, an existing `--output`).
    pub fn write_json(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs_err::create_dir_all(dir)?;
        }
        anser_runstore::write_atomic(path, self.to_json_string().as_bytes()).map_err(|e| std::io::Error::from(e).into())
    }
}
