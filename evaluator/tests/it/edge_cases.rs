//! Hand-computed metric values through the whole pipeline on the synthetic benchmark: zero
//! gold, empty sets, unparseable numbers, full-width digits, `cluster_` ids, (law, item)
//! identities, the finance Accuracy@10% zero rule, exact mean vs naive sum.

use anser_evaluator::Metric;
use serde_json::json;

use crate::common::{Synthetic, official, value};

#[test]
fn zero_gold_and_unparseable_numbers() {
    let s = Synthetic::new();
    let e = s.evaluate(
        json!([
            {"id": "ld_zero", "answer": "0", "retrieved_evidence": ["(2019)赣0821刑初123号"]},
            {"id": "ld_100", "answer": "42 cases", "retrieved_evidence": ["a"]},
            {"id": "fs_zero", "answer": "０", "retrieved_evidence": []},
            {"id": "fs_two", "answer": "two", "retrieved_evidence": ["600288", {"stock_code": "000001"}, "999999_2015-12-31_annual"]}
        ]),
        &official(),
    );
    // Zero gold: exact zero is a hit; full-width ０ parses; NFKC makes the case numbers meet.
    assert_eq!(value(&e, "ld_zero", Metric::Accuracy10), Some(Some(1.0)));
    assert_eq!(value(&e, "ld_zero", Metric::Mae), Some(Some(0.0)));
    assert_eq!(value(&e, "ld_zero", Metric::SetF1), Some(Some(1.0)));
    // Legal: unparseable → null (excluded); finance statistic: Accuracy@10% 0.0, MAE null.
    assert_eq!(value(&e, "ld_100", Metric::Accuracy10), Some(None));
    assert_eq!(value(&e, "ld_100", Metric::Mae), Some(None));
    assert_eq!(value(&e, "fs_zero", Metric::Accuracy10), Some(Some(1.0)));
    assert_eq!(value(&e, "fs_two", Metric::Accuracy10), Some(Some(0.0)));
    assert_eq!(value(&e, "fs_two", Metric::Mae), Some(None));
    // Both evidence sets empty → 1.0; company collapsing: gold {600288, 000001}, submitted
    // {600288, 000001, 999999} → P = 2/3, R = 1, F1 = 0.8.
    assert_eq!(value(&e, "fs_zero", Metric::SetPrecision), Some(Some(1.0)));
    assert_eq!(value(&e, "fs_two", Metric::SetPrecision), Some(Some(2.0 / 3.0)));
    assert_eq!(value(&e, "fs_two", Metric::SetRecall), Some(Some(1.0)));
    assert_eq!(value(&e, "fs_two", Metric::SetF1), Some(Some(2.0 * (2.0 / 3.0) / (2.0 / 3.0 + 1.0))));
    // Set metrics with one side empty: ld_100 submitted {a} of {a, b}: P 1, R 0.5.
    assert_eq!(value(&e, "ld_100", Metric::SetRecall), Some(Some(0.5)));
    let d = e.details().find(|d| d.id == "fs_two").map(|d| d.errors.clone());
    assert_eq!(d, Some(vec!["statistical numeric answer is not parseable".to_string()]));
    // The finance zero rule in aggregation: Accuracy@10% counts both finance tasks, the legal
    // null is unavailable.
    let acc = e.metric(Metric::Accuracy10).copied();
    assert_eq!(acc.map(|m| (m.count, m.unavailable)), Some((3, 1)));
    assert_eq!(acc.and_then(|m| m.mean), Some(2.0 / 3.0));
}

#[test]
fn exact_mean_not_naive_sum() {
    let s = Synthetic::new();
    let e = s.evaluate(
        json!([
            {"id": "ld_a", "answer": "0.1"},
            {"id": "ld_b", "answer": 0.2},
            {"id": "ld_c", "answer": "+0.3"}
        ]),
        &official(),
    );
    let mae = e.metric(Metric::Mae).and_then(|m| m.mean);
    assert_eq!(mae, Some(0.2));
    assert_ne!((0.1 + 0.2 + 0.3) / 3.0, 0.2);
    assert!(e.to_json_string().contains("\"mean\": 0.2,"));
}

#[test]
fn cluster_ids_and_structured_answers() {
    let s = Synthetic::new();
    let e = s.evaluate(
        json!([
            {"id": "lp_or", "answer": "```json\n{\"option\": \" POSITIVE \", \"extra\": 1}\n```", "retrieved_evidence": [123, "CLUSTER_0007", "cluster_8", 123.0]},
            {"id": "lp_md", "answer": "{\"option\": \"negative\",}", "retrieved_evidence": ["cluster_5"]}
        ]),
        &official(),
    );
    assert_eq!(value(&e, "lp_or", Metric::RelationAccuracy), Some(Some(1.0)));
    // 123 and CLUSTER_0007 meet the gold; cluster_8 and 123.0 (no integer form) do not.
    assert_eq!(value(&e, "lp_or", Metric::SetPrecision), Some(Some(0.5)));
    assert_eq!(value(&e, "lp_or", Metric::SetRecall), Some(Some(1.0)));
    assert_eq!(value(&e, "lp_md", Metric::RelationAccuracy), Some(None));
    let errors = e.details().find(|d| d.id == "lp_md").map(|d| d.errors.clone()).unwrap_or_default();
    assert_eq!(
        errors,
        [
            "invalid structured legal-predictive answer: Expecting property name enclosed in double quotes: line 1 column 23 (char 22)"
        ]
    );
}

#[test]
fn rule_identities_ranked_metrics_and_finauditing() {
    let s = Synthetic::new();
    let e = s.evaluate(
        json!([
            {"id": "fp_rule", "answer": "x", "retrieved_evidence": [{"law_name": " 上海证券交易所股票上市规则(2026年4月修订) ", "item": "5.1.1条"}, {"id": "other"}]},
            {"id": "fa_zero", "answer": {"applied_rule": "dqc_us_0015", "expected_value": "0"}, "retrieved": [{"FACT_id": "FACT-1"}]},
            {"id": "fr_1", "prediction": "Tier 1", "retrieved_evidence": [{"id": "x"}, {"id": "y"}, {"id": "12CFR217-1"}]},
            {"id": "le_1", "answer": "", "retrieved_evidence": ["10003", 10002]},
            {"id": "sp_1", "answer": "The positive association.", "retrieved_evidence": [{"id": "8367"}]},
            {"id": "fe_num", "answer": "5", "retrieved_evidence": [{"accession": "a2"}]}
        ]),
        &official(),
    );
    // (law, item) identity: law_name with NFKC brackets and spaces meets the gold law.
    assert_eq!(value(&e, "fp_rule", Metric::RecallAt5), Some(Some(0.5)));
    assert_eq!(value(&e, "fp_rule", Metric::RPrecision), Some(Some(0.5)));
    // FinAuditing: rule matches after normalisation; 0 vs 0 → SMAPE 0.
    assert_eq!(value(&e, "fa_zero", Metric::RuleAccuracy), Some(Some(1.0)));
    assert_eq!(value(&e, "fa_zero", Metric::Smape), Some(Some(0.0)));
    assert_eq!(value(&e, "fa_zero", Metric::RPrecision), Some(Some(1.0)));
    // RegBench: the gold id at rank 3: Recall@5 1, R-Precision (g = 1) 0.
    assert_eq!(value(&e, "fr_1", Metric::RecallAt5), Some(Some(1.0)));
    assert_eq!(value(&e, "fr_1", Metric::RPrecision), Some(Some(0.0)));
    // legal_en prescriptive: MRR = 1 (first item hits); the judge is skipped.
    assert_eq!(value(&e, "le_1", Metric::Mrr), Some(Some(1.0)));
    assert_eq!(value(&e, "le_1", Metric::LlmJudge), Some(None));
    // Science: Token-F1 of {positive, association} vs {positive, association} = 1; P@5 = 1/5.
    assert_eq!(value(&e, "sp_1", Metric::TokenF1), Some(Some(1.0)));
    assert_eq!(value(&e, "sp_1", Metric::PrecisionAt5), Some(Some(0.2)));
    assert_eq!(value(&e, "sp_1", Metric::RecallAt5), Some(Some(0.5)));
    // Finance predictive numeric kind: no answer metric at all, Recall@5 only.
    let fe = e.details().find(|d| d.id == "fe_num").map(|d| d.metrics.clone()).unwrap_or_default();
    assert_eq!(fe, vec![(Metric::RecallAt5, Some(0.5))]);
}

#[test]
fn warnings_and_missing_answers() {
    let s = Synthetic::new();
    let e = s.evaluate(
        json!([
            {"id": "sp_1"},
            {"id": "sp_1", "answer": "again"},
            {"id": "nope", "answer": 1},
            {"answer": "no id"},
            {"id": null}
        ]),
        &official(),
    );
    let warnings: Vec<&str> = e.warnings().collect();
    assert_eq!(
        warnings,
        [
            "sp_1: duplicate result id; later record skipped",
            "nope: not found in benchmark",
            "record 4: missing id",
            "None: not found in benchmark"
        ]
    );
    let d = e.details().next().map(|d| (d.errors.clone(), d.metric(Metric::TokenF1)));
    assert_eq!(d, Some((vec!["missing answer".to_string()], Some(Some(0.0)))));
    assert_eq!(e.files[0].submitted_records, 5);
    assert_eq!(e.evaluated_records(), 1);
}
