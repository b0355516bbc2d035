//! Oracle predictions (answer = ground truth, evidence = gold evidence) score at the best value
//! every metric can reach with `anser eval` (judge skipped): 1 for accuracies and set metrics,
//! 0 for MAE, SMAPE and the card's MAE(log OR) / MAE(median difference), R-Precision and MRR 1,
//! and for the ranked top-5 metrics the ceiling the gold list allows (Recall@5 = min(g, 5)/g,
//! Precision@5 = min(g, 5)/5 with g distinct gold ids).

use anser_evaluator::{EvalOptions, JudgeMode, Metric, Profile, ResultsInput, evaluate};
use anser_gold::Benchmark;
use serde_json::json;

use crate::common::sample;

#[test]
fn oracle_predictions_score_perfectly() {
    let bench = Benchmark::load(&sample().query_dir()).expect("tasks");
    let mut records = Vec::new();
    for t in bench.tasks() {
        let r = bench.reference(&t.id).expect("reference");
        records.push(json!({"id": t.id, "answer": r.ground_truth, "retrieved_evidence": r.evidence}));
    }
    for profile in [Profile::Official, Profile::Card] {
        let options =
            EvalOptions { profile, corpus_root: Some(sample().corpus_dir()), judge: JudgeMode::Skip, bertscore: None };
        let input = ResultsInput::Records { source: "oracle".into(), records: records.clone() };
        let eval = evaluate(&input, &bench, &options).expect("evaluate");
        assert_eq!(eval.evaluated_records(), bench.tasks().len());
        assert_eq!(eval.warnings().count(), 0, "{:?}", eval.warnings().collect::<Vec<_>>());
        for d in eval.details() {
            // The card profile's BERTScore needs an encoder; nothing else may fail.
            let errors: Vec<&String> = d.errors.iter().filter(|e| !e.starts_with("BERTScore-F1 unavailable")).collect();
            assert!(errors.is_empty(), "{}: {errors:?}", d.id);
            let g = d.evidence_count.expected as f64;
            for (metric, value) in &d.metrics {
                let best = match metric {
                    Metric::LlmJudge | Metric::BertScoreF1 => {
                        assert!(value.is_none(), "{}: {} without a judge or encoder", d.id, metric.name());
                        continue;
                    }
                    Metric::Mae | Metric::Smape | Metric::MaeLogOr | Metric::MaeMedianDifference => 0.0,
                    Metric::RecallAt5 => g.min(5.0) / g,
                    Metric::PrecisionAt5 => g.min(5.0) / 5.0,
                    _ => 1.0,
                };
                let v = value.unwrap_or_else(|| panic!("{}: {} unavailable", d.id, metric.name()));
                assert!(
                    (v - best).abs() < 1e-12,
                    "{} ({}): {} = {v}, best {best}",
                    d.id,
                    profile.as_str(),
                    metric.name()
                );
            }
        }
    }
}
