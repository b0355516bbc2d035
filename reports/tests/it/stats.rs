//! The statistics against values computed independently with numpy/scipy
//! (`tests/data/stats_reference.py` → `stats_reference.json`).

use anser_evaluator::Metric;
use anser_reports::{
    RunScores, TaskScores, compare,
    rundir::TaskScore,
    stats::{PMethod, StatsParams, StatsParamsBuilder, bootstrap_ci, holm, mean, sign_flip_p_value},
};
use serde_json::Value;

fn reference() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/stats_reference.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("reference file")).expect("json")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(|x| x.as_f64().expect("number")).collect()
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} is a number"))
}

fn diffs(case: &Value) -> Vec<f64> {
    floats(&case["b"]).iter().zip(floats(&case["a"])).map(|(b, a)| b - a).collect()
}

#[test]
fn means_p_values_and_cis_match_scipy() {
    let params = StatsParams::default();
    let reference = reference();
    let cases = reference["cases"].as_array().expect("cases");
    assert!(cases.len() >= 5);
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let d = diffs(case);
        let close = |got: f64, want: f64, tol: f64, what: &str| {
            assert!((got - want).abs() <= tol, "{name}: {what} = {got}, scipy {want} (tolerance {tol})");
        };
        close(mean(&floats(&case["a"])).expect("mean"), num(case, "mean_a"), 1e-12, "mean a");
        close(mean(&floats(&case["b"])).expect("mean"), num(case, "mean_b"), 1e-12, "mean b");
        close(mean(&d).expect("mean"), num(case, "delta"), 1e-12, "delta");

        let mut rng = params.rng(&[name, "sign-flip"]);
        let (p, method) = sign_flip_p_value(&d, &params, &mut rng);
        let exact = case["p_exact"].as_bool().expect("bool");
        assert_eq!(method == PMethod::Exact, exact, "{name}: exact enumeration iff ≤ 20 non-zero pairs");
        close(p, num(case, "p_value"), num(case, "p_tolerance"), "p-value");

        let mut rng = params.rng(&[name, "bootstrap"]);
        let (lo, hi) = bootstrap_ci(&d, &params, &mut rng).expect("ci");
        let ci = floats(&case["ci95"]);
        close(lo, ci[0], num(case, "ci_tolerance"), "CI low");
        close(hi, ci[1], num(case, "ci_tolerance"), "CI high");
    }
}

#[test]
fn holm_matches_the_reference() {
    for family in reference()["holm"].as_array().expect("families") {
        let got = holm(&floats(&family["p"]));
        for (g, w) in got.iter().zip(floats(&family["adjusted"])) {
            assert!((g - w).abs() < 1e-12, "{got:?} vs {family}");
        }
    }
}

#[test]
fn resampling_is_reproducible_and_seeded() {
    let params = StatsParams::default();
    let d = diffs(&reference()["cases"][3]);
    let run = |p: &StatsParams| {
        let mut rng = p.rng(&["g", "m"]);
        (bootstrap_ci(&d, p, &mut rng), sign_flip_p_value(&d, p, &mut rng))
    };
    assert_eq!(run(&params), run(&params), "same seed, same numbers");
    let other = StatsParamsBuilder { seed: params.seed() + 1, ..params.to_builder() }.build().expect("valid");
    assert_ne!(run(&params).0, run(&other).0, "the seed reaches the bootstrap");
}

/// `compare` over one group whose metrics are the reference cases: means, deltas and raw
/// p-values as scipy, p_value = Holm over the group's metrics.
#[test]
fn compare_applies_holm_across_a_groups_metrics() {
    let reference = reference();
    let cases: Vec<&Value> = reference["cases"].as_array().expect("cases").iter().take(5).collect();
    let metrics = [Metric::Accuracy, Metric::RecallAt5, Metric::TokenF1, Metric::SetF1, Metric::Mae];
    let longest = cases.iter().map(|c| floats(&c["a"]).len()).max().unwrap_or(0);
    let scores = |side: &str| {
        let tasks = (0..longest)
            .map(|i| TaskScore {
                id: format!("t{i}"),
                group: "science_en_descriptive".into(),
                task_type: None,
                metrics: metrics
                    .iter()
                    .zip(&cases)
                    .filter_map(|(m, c)| floats(&c[side]).get(i).map(|v| (*m, Some(*v))))
                    .collect(),
                errors: vec![],
            })
            .collect();
        TaskScores::new(side.into(), tasks)
    };
    let (a, b) = (scores("a"), scores("b"));
    let ids: Vec<String> = (0..longest).map(|i| format!("t{i}")).collect();
    let runs = [
        RunScores { name: "base".into(), selection: ids.clone(), scores: &a },
        RunScores { name: "new".into(), selection: ids, scores: &b },
    ];
    let c = compare(&runs, None, &StatsParams::default()).expect("compares");
    assert_eq!(c.groups.len(), 1);
    let group = &c.groups[0];
    let mut raw = Vec::new();
    for (metric, case) in metrics.iter().zip(&cases) {
        let row = group.metrics.iter().find(|r| r.metric == *metric).expect("metric row");
        let (base, new) = (&row.cells[0], &row.cells[1]);
        assert_eq!(base.n, floats(&case["a"]).len());
        assert!((base.mean.expect("mean") - num(case, "mean_a")).abs() < 1e-12);
        assert!((new.delta.expect("delta") - num(case, "delta")).abs() < 1e-12);
        assert!(base.delta.is_none() && base.ci95.is_none() && base.p_value.is_none());
        let p = new.p_raw.expect("p");
        assert!((p - num(case, "p_value")).abs() <= num(case, "p_tolerance"), "{metric}: {p}");
        raw.push((new.p_value.expect("adjusted"), p));
    }
    let adjusted = holm(&raw.iter().map(|(_, p)| *p).collect::<Vec<_>>());
    for ((got, _), want) in raw.iter().zip(adjusted) {
        assert!((got - want).abs() < 1e-15, "Holm over the group's five metrics");
    }
}
