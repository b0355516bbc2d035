//! Shared helpers: the shared reference folder and the loaded release benchmark.

use std::{path::PathBuf, sync::OnceLock};

use anser_gold::Benchmark;

/// `../shared` (or `$ANSER_SHARED`), or `None` after printing why the caller skips.
pub fn shared(what: &str) -> Option<PathBuf> {
    anser_manifest::shared_dir_or_skip(what)
}

/// The release task files, loaded once per test binary.
pub fn release_benchmark(shared: &std::path::Path) -> &'static Benchmark {
    static BENCH: OnceLock<Benchmark> = OnceLock::new();
    BENCH.get_or_init(|| match Benchmark::load(&shared.join("anser/query")) {
        Ok(b) => b,
        Err(e) => panic!("release task files do not load: {e}"),
    })
}

/// A small synthetic benchmark in a temporary directory: task files in the release layout with
/// hand-made ground truth, so metric values can be computed by hand.
pub struct Synthetic {
    /// Kept so the task files live as long as the benchmark.
    pub _dir: tempfile::TempDir,
    pub bench: Benchmark,
}

/// Task files of the synthetic benchmark (path below query/, JSON text).
pub const SYNTHETIC_TASKS: &[(&str, &str)] = &[
    (
        "legal/zh/descriptive.json",
        r#"[
  {"id": "ld_zero", "type": "sql", "query": "q", "instruction": "", "ground_truth": 0, "evidence": ["（2019）赣0821刑初123号"]},
  {"id": "ld_a", "type": "sql", "query": "q", "instruction": "", "ground_truth": 0, "evidence": []},
  {"id": "ld_b", "type": "sql", "query": "q", "instruction": "", "ground_truth": 0, "evidence": []},
  {"id": "ld_c", "type": "sql", "query": "q", "instruction": "", "ground_truth": 0, "evidence": []},
  {"id": "ld_100", "type": "sql", "query": "q", "instruction": "", "ground_truth": 100, "evidence": ["a", "b"]}
]"#,
    ),
    (
        "legal/en/predictive.json",
        r#"[
  {"id": "lp_or", "type": "structured", "query": "q", "instruction": "", "ground_truth": {"option": "positive", "value": {"n": 10, "odds_ratio": 2.0}}, "evidence": ["cluster_123", "cluster_7"]},
  {"id": "lp_md", "type": "structured", "query": "q", "instruction": "", "ground_truth": {"option": "negative", "value": {"median_difference": -1.5}}, "evidence": ["cluster_5"]}
]"#,
    ),
    (
        "legal/en/prescriptive.json",
        r#"[
  {"id": "le_1", "type": null, "query": "q", "instruction": "", "ground_truth": "The court should affirm.", "evidence": [{"docid": "10002", "type": "precedent_case"}, {"docid": "10003", "type": "precedent_case"}]}
]"#,
    ),
    (
        "finance/zh/descriptive.json",
        r#"[
  {"id": "fs_zero", "type": "statistic", "query": "q", "instruction": "", "ground_truth": 0, "evidence": []},
  {"id": "fs_two", "type": "statistic", "query": "q", "instruction": "", "ground_truth": 2, "evidence": ["600288_2015-12-31_annual", "600288_2016-12-31_annual", "000001_2015-12-31_annual"]},
  {"id": "fk_num", "type": "numeric_fact", "query": "q", "instruction": "", "ground_truth": "12.5%", "evidence": [{"id": "600288_2015-12-31_annual", "type": "financial_report"}]},
  {"id": "fk_tier", "type": "ranking", "query": "q", "instruction": "", "ground_truth": "第3梯队", "evidence": []},
  {"id": "fk_text", "type": "text_summary", "query": "q", "instruction": "", "ground_truth": "营收增长较快，毛利率下降明显", "evidence": []}
]"#,
    ),
    (
        "finance/zh/prescriptive.json",
        r#"[
  {"id": "fp_rule", "type": null, "query": "q", "instruction": "", "ground_truth": "应当披露", "evidence": [{"law": "上海证券交易所股票上市规则（2026年4月修订）", "item": "5.1.1条"}, {"law": "L2", "item": "1条"}]}
]"#,
    ),
    (
        "finance/en/predictive.json",
        r#"[
  {"id": "fe_num", "type": "mixed_numeric_text", "query": "q", "instruction": "", "ground_truth": 5, "evidence": [{"accession": "a1", "type": "financial_report"}, {"accession": "a2", "type": "financial_report"}]}
]"#,
    ),
    (
        "finance/en/prescriptive.json",
        r#"[
  {"id": "fa_zero", "type": "FinAuditing", "query": "q", "instruction": "", "ground_truth": {"applied_rule": "DQC_US_0015", "expected_value": 0}, "evidence": [{"FACT_id": "FACT-1", "type": "filing_fact"}]},
  {"id": "fr_1", "type": "RegBench", "query": "q", "instruction": "", "ground_truth": "Tier 1 capital", "evidence": [{"id": "12CFR217-1", "type": "regulatory_paragraph"}]}
]"#,
    ),
    (
        "science/predictive.json",
        r#"[
  {"id": "sp_1", "type": null, "query": "q", "instruction": "", "ground_truth": "Positive association", "evidence": [{"id": 8367, "type": "article"}, {"id": 8368, "type": "article"}]}
]"#,
    ),
];

impl Synthetic {
    pub fn new() -> Synthetic {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("tempdir: {e}"),
        };
        for (rel, text) in SYNTHETIC_TASKS {
            let path = dir.path().join("query").join(rel);
            std::fs::create_dir_all(path.parent().unwrap_or(dir.path())).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        }
        let bench = Benchmark::load(&dir.path().join("query")).unwrap_or_else(|e| panic!("synthetic benchmark: {e}"));
        Synthetic { _dir: dir, bench }
    }

    /// Evaluate in-memory records.
    pub fn evaluate(
        &self,
        records: serde_json::Value,
        options: &anser_evaluator::EvalOptions,
    ) -> anser_evaluator::Evaluation {
        let serde_json::Value::Array(records) = records else { panic!("records must be an array") };
        let input = anser_evaluator::ResultsInput::Records { source: "records".into(), records };
        anser_evaluator::evaluate(&input, &self.bench, options).unwrap_or_else(|e| panic!("evaluate: {e}"))
    }
}

/// The value of `metric` for task `id`.
pub fn value(e: &anser_evaluator::Evaluation, id: &str, metric: anser_evaluator::Metric) -> Option<Option<f64>> {
    e.details().find(|d| d.id == id).and_then(|d| d.metric(metric))
}

/// Official profile, judge skipped, no corpus.
pub fn official() -> anser_evaluator::EvalOptions {
    anser_evaluator::EvalOptions {
        profile: anser_evaluator::Profile::Official,
        corpus_root: None,
        judge: anser_evaluator::JudgeMode::Skip,
        bertscore: None,
    }
}
