//! `compare` on run directories: intersection of selections, dropped counts, baseline choice,
//! the JSON shape, the rendered tables and the errors.

use anser_evaluator::Metric;
use anser_reports::{RunScores, StatsParams, StatsParamsBuilder, compare, compare::verdict};
use serde_json::Value;

use crate::fixture::{fixture_dir, scored, variant};

/// The fixture vs a variant that answers two more tasks correctly and drops one task.
fn pair(tmp: &std::path::Path) -> (anser_reports::RunData, anser_reports::RunData) {
    let better = variant(tmp, "better", |results, selection| {
        for r in results.iter_mut() {
            match r["id"].as_str() {
                Some("finance_zh_predictive_1") => r["answer"] = "A".into(),
                Some("legal_zh_descriptive_1") => r["answer"] = "2".into(),
                _ => {}
            }
        }
        results.retain(|r| r["id"] != "science_predictive_1");
        selection.retain(|r| r["id"] != "science_predictive_1");
    });
    (scored(&fixture_dir()), scored(&better))
}

#[test]
fn intersection_dropped_tasks_and_json_shape() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (base, better) = pair(tmp.path());
    let runs = [RunScores::of(&base).expect("scores"), RunScores::of(&better).expect("scores")];
    let c = compare(&runs, None, &StatsParams::default()).expect("compares");
    assert_eq!(c.baseline, "run_fixture");
    assert_eq!(c.common_tasks, 17);
    assert_eq!(
        c.dropped,
        [("run_fixture".to_string(), vec!["science_predictive_1".to_string()]), ("better".to_string(), vec![])]
    );
    assert!(c.groups.iter().all(|g| g.group != "science_en_predictive"), "a group with no common task is gone");

    let json = c.to_json();
    let keys: Vec<&str> = json.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["groups", "dropped_tasks"]);
    assert_eq!(json["dropped_tasks"], serde_json::json!({"run_fixture": 1, "better": 0}));
    let cell = &json["groups"]["finance_zh_predictive"]["Accuracy"];
    assert_eq!(
        cell["run_fixture"],
        serde_json::json!({"mean": 0.0, "n": 1, "delta": null, "ci95": null, "p_value": null})
    );
    assert_eq!(cell["better"]["mean"], 1.0);
    assert_eq!(cell["better"]["delta"], 1.0);
    assert_eq!(cell["better"]["ci95"], serde_json::json!([1.0, 1.0]));
    // One non-zero pair: the two sign vectors give ±1, P(T ≥ 1) = ½ → p = 1 (Holm keeps it).
    assert_eq!(cell["better"]["p_value"], 1.0);
    for (group, metrics) in json["groups"].as_object().expect("groups") {
        for (metric, runs) in metrics.as_object().expect("metrics") {
            for (run, v) in runs.as_object().expect("runs") {
                let keys: Vec<&str> = v.as_object().expect("cell").keys().map(String::as_str).collect();
                assert_eq!(keys, ["mean", "n", "delta", "ci95", "p_value"], "{group}/{metric}/{run}");
            }
        }
    }
    // Legal zh descriptive: MAE was unavailable for the unparseable answer, so no pair exists
    // there; Accuracy@10% (not finance: null stays null) likewise.
    let mae = &json["groups"]["legal_zh_descriptive"]["MAE"];
    assert_eq!(mae["run_fixture"]["n"], 0);
    assert_eq!(mae["better"]["n"], 1);
    assert_eq!(mae["better"]["delta"], Value::Null);
}

#[test]
fn baseline_flag_and_rendering() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (base, better) = pair(tmp.path());
    let runs = [RunScores::of(&base).expect("scores"), RunScores::of(&better).expect("scores")];
    let c = compare(&runs, Some("better"), &StatsParams::default()).expect("compares");
    assert_eq!(c.runs, ["better", "run_fixture"]);
    let row = c
        .groups
        .iter()
        .find(|g| g.group == "finance_zh_predictive")
        .and_then(|g| g.metrics.iter().find(|m| m.metric == Metric::Accuracy));
    let cell = &row.expect("row").cells[1];
    assert_eq!(cell.delta, Some(-1.0));
    assert_eq!(verdict(Metric::Accuracy, cell, 0.05), "", "one pair is never significant");

    let text = c.render(false);
    assert!(
        text.starts_with(
            "baseline: better · 17 tasks selected by every run · dropped tasks: better 0, run_fixture 1\n"
        ),
        "{text}"
    );
    assert!(text.contains("finance_zh_predictive (1 tasks)"), "{text}");
    assert!(text.contains("better (baseline)") && text.contains("95% CI") && text.contains("p (Holm)"));
    assert!(text.contains("[-1.0000, -1.0000]"), "{text}");
    let md = c.render(true);
    assert!(md.contains("### finance_zh_predictive (1 tasks)") && md.contains("| metric | run | mean |"), "{md}");
}

#[test]
fn errors_name_the_problem() {
    let base = scored(&fixture_dir());
    let one = [RunScores::of(&base).expect("scores")];
    let e = compare(&one, None, &StatsParams::default()).expect_err("one run");
    assert!(e.to_string().contains("at least two run directories"), "{e}");
    let twice = [RunScores::of(&base).expect("scores"), RunScores::of(&base).expect("scores")];
    let e = compare(&twice, None, &StatsParams::default()).expect_err("same name");
    assert!(e.to_string().contains("two runs are named \"run_fixture\""), "{e}");
    let tmp = tempfile::tempdir().expect("tempdir");
    let other = scored(&variant(tmp.path(), "other", |_, _| {}));
    let runs = [RunScores::of(&base).expect("scores"), RunScores::of(&other).expect("scores")];
    let e = compare(&runs, Some("nope"), &StatsParams::default()).expect_err("unknown baseline");
    assert!(e.to_string().contains("--baseline \"nope\" is none of the compared runs (run_fixture, other)"), "{e}");
    let low = StatsParamsBuilder { resamples: 100, ..StatsParamsBuilder::default() }.build();
    assert!(low.is_err_and(|e| e.to_string().contains("resamples must be at least 10000")));
    let unscored = anser_reports::RunData::open(&fixture_dir()).expect("opens");
    let e = RunScores::of(&unscored).expect_err("no evaluation.json");
    assert!(e.to_string().contains("evaluation.json: missing; evaluate the run first"), "{e}");
}

#[test]
fn identical_runs_have_zero_deltas_and_p_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = scored(&fixture_dir());
    let same = scored(&variant(tmp.path(), "same", |_, _| {}));
    let runs = [RunScores::of(&base).expect("scores"), RunScores::of(&same).expect("scores")];
    let c = compare(&runs, None, &StatsParams::default()).expect("compares");
    for cell in c.groups.iter().flat_map(|g| &g.metrics).map(|m| &m.cells[1]) {
        if cell.pairs > 0 {
            assert_eq!((cell.delta, cell.ci95, cell.p_value), (Some(0.0), Some((0.0, 0.0)), Some(1.0)));
        }
    }
}
