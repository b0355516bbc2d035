//! `--profile card`: the official metrics unchanged plus MAE(log OR), MAE(median difference),
//! finance-predictive SMAPE and Precision@5, BERTScore-F1 and Latency.

use anser_evaluator::{EvalOptions, JudgeMode, Metric, Profile};
use serde_json::json;

use crate::common::{Synthetic, official, value};

fn card() -> EvalOptions {
    EvalOptions { profile: Profile::Card, corpus_root: None, judge: JudgeMode::Skip, bertscore: None }
}

fn records() -> serde_json::Value {
    json!([
        {"id": "lp_or", "answer": {"option": "positive", "value": {"odds_ratio": "4.0"}}, "latency": 1.0},
        {"id": "lp_md", "answer": "{\"option\": \"negative\"}", "request_latency_seconds": 2.0, "latency": 99.0},
        {"id": "fe_num", "answer": "4", "retrieved_evidence": [{"accession": "a2"}, {"accession": "zz"}], "latency": 3.0},
        {"id": "sp_1", "answer": "Positive association", "latency": 4.0, "total_tokens": 10},
        {"id": "ld_100", "answer": "110", "latency": null}
    ])
}

#[test]
fn extra_metrics_hand_computed() {
    let s = Synthetic::new();
    let e = s.evaluate(records(), &card());
    // |ln 4 − ln 2| = ln 2; Relation Accuracy is untouched by the legacy metric.
    assert_eq!(value(&e, "lp_or", Metric::MaeLogOr), Some(Some((4.0f64.ln() - 2.0f64.ln()).abs())));
    assert_eq!(value(&e, "lp_or", Metric::RelationAccuracy), Some(Some(1.0)));
    assert_eq!(value(&e, "lp_md", Metric::MaeMedianDifference), Some(None));
    assert_eq!(value(&e, "lp_md", Metric::RelationAccuracy), Some(Some(1.0)));
    let errors = e.details().find(|d| d.id == "lp_md").map(|d| d.errors.clone()).unwrap_or_default();
    assert_eq!(errors, ["MAE(median difference) unavailable: median_difference is not numeric"]);
    // Finance predictive numeric: SMAPE = 200·|4−5|/9; Precision@5 = 1 hit / 5.
    assert_eq!(value(&e, "fe_num", Metric::Smape), Some(Some(200.0 / 9.0)));
    assert_eq!(value(&e, "fe_num", Metric::PrecisionAt5), Some(Some(0.2)));
    assert_eq!(value(&e, "fe_num", Metric::RecallAt5), Some(Some(0.5)));
    // BERTScore-F1 without an encoder: null with the reason, never 0.
    assert_eq!(value(&e, "sp_1", Metric::BertScoreF1), Some(None));
    let errors = e.details().find(|d| d.id == "sp_1").map(|d| d.errors.clone()).unwrap_or_default();
    assert!(errors.iter().any(|m| m.starts_with("BERTScore-F1 unavailable: no encoder given")), "{errors:?}");
    assert_eq!(value(&e, "ld_100", Metric::BertScoreF1), None);
    // Latency: request_latency_seconds before latency; values 1, 2, 3, 4 (ld_100 has null).
    let l = e.efficiency.latency.unwrap_or_else(|| panic!("card reports latency"));
    assert_eq!((l.mean, l.p50, l.p95, l.count, l.unavailable), (Some(2.5), Some(2.5), Some(3.8499999999999996), 4, 1));
    let json = e.to_json_string();
    for needle in [
        "\"profile\": \"card\"",
        "\"Latency\": {",
        "\"unit\": \"seconds\"",
        "\"evaluation_overhead\": {",
        "\"MAE(log OR)\": 0.6931471805599453",
    ] {
        assert!(json.contains(needle), "missing {needle}");
    }
}

#[test]
fn card_is_a_superset_of_official() {
    let s = Synthetic::new();
    let official = s.evaluate(records(), &official());
    let card = s.evaluate(records(), &card());
    for (o, c) in official.details().zip(card.details()) {
        assert_eq!(o.id, c.id);
        assert_eq!(&c.metrics[..o.metrics.len()], &o.metrics[..], "{}: official metrics come first, unchanged", o.id);
        assert_eq!(&c.errors[..o.errors.len()], &o.errors[..]);
        assert!(c.metrics[o.metrics.len()..].iter().all(|(m, _)| !o.metrics.iter().any(|(n, _)| n == m)));
    }
    assert!(!official.to_json_string().contains("Latency"));
    assert_eq!(official.efficiency.latency, None);
}

#[test]
fn bertscore_with_an_encoder() {
    let Some((dir, _)) = crate::bertscore::scorer() else { return };
    let s = Synthetic::new();
    let options = EvalOptions { bertscore: Some(dir.clone()), ..card() };
    let e = s.evaluate(records(), &options);
    let f1 = value(&e, "sp_1", Metric::BertScoreF1).flatten().unwrap_or(f64::NAN);
    assert!((f1 - 1.0).abs() < 1e-5, "identical texts score ~1, got {f1}");
    assert_eq!(e.bertscore_model.as_deref(), Some(dir.display().to_string().as_str()));
    assert_eq!(e.bertscore_overhead.pairs, 1);
}
