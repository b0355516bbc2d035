//! Statistics against independently computed values: scipy 1.17.1 numbers stored in
//! `data/scipy_stats.json` (generator beside it), and the release's own ground truth — every
//! binary legal predictive task's 2×2 table is rebuilt from its reported n and rates, and the
//! reported odds ratio and p-value must come out exactly under the release convention.

use anser_agent::tools::compute::stats::{
    BinaryAssociation, BootstrapParams, ContinuousAssociation, Convention, TwoByTwo, erfc, fisher_exact_p, median,
    normal_two_sided_p, round6,
};
use anser_manifest::Language;
use serde_json::Value;

use crate::{release, tasks_of};

fn data() -> Value {
    serde_json::from_str(include_str!("data/scipy_stats.json")).expect("scipy data parses")
}

fn table(v: &Value) -> TwoByTwo {
    let t: Vec<u64> = v.as_array().expect("table").iter().map(|x| x.as_u64().expect("count")).collect();
    TwoByTwo { x1_y1: t[0], x1_y0: t[1], x0_y1: t[2], x0_y0: t[3] }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300) || (a - b).abs() < 1e-15
}

#[test]
fn fisher_wald_and_odds_ratios_match_scipy() {
    let d = data();
    let rows = d["tables"].as_array().expect("tables");
    assert!(rows.len() >= 40);
    for row in rows {
        let t = table(&row["table"]);
        let a = BinaryAssociation::new(t).expect("both groups non-empty");
        let f = |k: &str| row[k].as_f64().expect(k);
        assert!(close(fisher_exact_p(&t), f("fisher_p"), 1e-9), "fisher {t:?}: {} vs {}", a.fisher_p, f("fisher_p"));
        assert!(close(a.odds_ratio, f("odds_ratio"), 1e-12), "or {t:?}");
        assert!(close(a.odds_ratio_haldane, f("odds_ratio_haldane"), 1e-12), "or haldane {t:?}");
        assert!(close(a.wald_p, f("wald_p"), 1e-9), "wald {t:?}: {} vs {}", a.wald_p, f("wald_p"));
        assert!(close(a.wald_p_haldane, f("wald_p_haldane"), 1e-9), "wald haldane {t:?}");
        assert_eq!(a.odds_ratio_corrected, t.has_zero_cell());
    }
}

#[test]
fn normal_p_values_and_medians_match_scipy_and_numpy() {
    let d = data();
    for row in d["normal"].as_array().expect("normal") {
        let z = row["z"].as_f64().expect("z");
        let p = row["p"].as_f64().expect("p");
        assert!(close(normal_two_sided_p(z), p, 1e-12), "z={z}: {} vs {p}", normal_two_sided_p(z));
    }
    assert!((erfc(5.0) - 1.537_459_794_428_034_8e-12).abs() < 1e-24);
    for row in d["medians"].as_array().expect("medians") {
        let v: Vec<f64> = row["values"].as_array().expect("values").iter().map(|x| x.as_f64().expect("x")).collect();
        assert_eq!(median(&v), row["median"].as_f64());
    }
}

/// The release's 2×2 tables, rebuilt from n and the two rates: every split whose rates round
/// to the reported ones and whose odds ratio matches under the convention (one table for all
/// but one task, which has several equivalent ones).
fn rebuild(v: &Value, conv: Convention) -> Option<Vec<TwoByTwo>> {
    let n = v["n"].as_u64()?;
    let (r1, r0) = (v["outcome_rate_x1"].as_f64()?, v["outcome_rate_x0"].as_f64()?);
    let target = v["odds_ratio"].as_f64()?;
    let mut found = Vec::new();
    for n1 in 1..n {
        let n0 = n - n1;
        let a = (r1 * n1 as f64).round() as u64;
        let c = (r0 * n0 as f64).round() as u64;
        if a > n1 || c > n0 || round6(a as f64 / n1 as f64) != r1 || round6(c as f64 / n0 as f64) != r0 {
            continue;
        }
        let t = TwoByTwo { x1_y1: a, x1_y0: n1 - a, x0_y1: c, x0_y0: n0 - c };
        let stats = BinaryAssociation::new(t).ok()?;
        if round6(stats.reported(conv).0) == target {
            found.push(t);
        }
    }
    Some(found).filter(|f| !f.is_empty())
}

#[test]
fn release_binary_ground_truth_is_reproduced_exactly() {
    let Some(bench) = release("release binary ground truth") else { return };
    let (mut checked, mut unique) = (0, 0);
    for (file, lang) in [("legal/zh/predictive.json", Language::Zh), ("legal/en/predictive.json", Language::En)] {
        let conv = Convention::release(lang);
        for (task, reference) in tasks_of(bench, file) {
            let gt = &reference.ground_truth;
            let value = &gt["value"];
            if value.get("odds_ratio").is_none() {
                continue;
            }
            let tables = rebuild(value, conv).unwrap_or_else(|| panic!("{}: no table for {value}", task.id));
            unique += usize::from(tables.len() == 1);
            // With several candidate tables (one task), the p-value tells them apart.
            let matching: Vec<_> = tables
                .into_iter()
                .map(|t| BinaryAssociation::new(t).expect("stats"))
                .filter(|s| &s.value(conv) == value)
                .collect();
            assert!(!matching.is_empty(), "{}: no candidate table reproduces {value}", task.id);
            for stats in matching {
                assert_eq!(stats.option(conv, lang), gt["option"].as_str().expect("option"), "{}", task.id);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 130, "35 zh + 95 en binary tasks");
    assert_eq!(unique, 129, "all but legal_en_predictive_59 have one candidate table");
}

#[test]
fn fisher_does_not_reproduce_the_release_p_values() {
    // Documents the finding behind Convention: Fisher's exact test is not what the release used.
    let Some(bench) = release("fisher vs release") else { return };
    let (mut same, mut total) = (0, 0);
    for (_, reference) in tasks_of(bench, "legal/en/predictive.json") {
        let value = &reference.ground_truth["value"];
        if let Some(t) = rebuild(value, Convention::RawWald) {
            total += 1;
            let a = BinaryAssociation::new(t[0]).expect("stats");
            same += usize::from(round6(a.fisher_p) == value["p_value"].as_f64().expect("p"));
        }
    }
    assert_eq!(total, 95);
    assert!(same <= 2, "{same} of {total} agree with Fisher");
}

#[test]
fn release_continuous_options_follow_the_interval() {
    let Some(bench) = release("release continuous options") else { return };
    let mut checked = 0;
    for (task, reference) in tasks_of(bench, "legal/zh/predictive.json") {
        let v = &reference.ground_truth["value"];
        let Some(lo) = v.get("ci95_lower").and_then(Value::as_f64) else { continue };
        let f = |k: &str| v[k].as_f64().expect(k);
        let a = ContinuousAssociation {
            n: v["n"].as_u64().expect("n"),
            n_x1: 0,
            n_x0: 0,
            median_x1: f("median_x1"),
            median_x0: f("median_x0"),
            median_difference: f("median_difference"),
            ci95_lower: lo,
            ci95_upper: f("ci95_upper"),
            ci_method: String::new(),
            bootstrap: BootstrapParams::default(),
        };
        assert_eq!(a.option(Language::Zh), reference.ground_truth["option"].as_str().expect("option"), "{}", task.id);
        assert_eq!(round6(a.median_x1 - a.median_x0), a.median_difference, "{}: difference of medians", task.id);
        checked += 1;
    }
    assert_eq!(checked, 65);
}

#[test]
fn bootstrap_interval_is_deterministic_and_brackets_a_clear_shift() {
    // Two groups of months: x1 around 12, x0 around 6, with spread.
    let x1: Vec<f64> = (0..60).map(|i| 8.0 + (i % 9) as f64).collect();
    let x0: Vec<f64> = (0..80).map(|i| 3.0 + (i % 7) as f64).collect();
    let p = BootstrapParams::default();
    let a = ContinuousAssociation::new(&x1, &x0, &p).expect("ok");
    let b = ContinuousAssociation::new(&x1, &x0, &p).expect("ok");
    assert_eq!(a, b, "same seed, same interval");
    // Hand-computed medians: x1 = 8 + (i mod 9) over 60 values -> 12; x0 = 3 + (i mod 7) over 80 -> 6.
    assert_eq!((a.median_x1, a.median_x0, a.median_difference), (12.0, 6.0, 6.0));
    assert!(a.ci95_lower <= 6.0 && 6.0 <= a.ci95_upper && a.ci95_lower > 0.0);
    assert_eq!(a.option(Language::En), "positive");
    let other = ContinuousAssociation::new(&x1, &x0, &p.with_seed(1)).expect("ok");
    assert!(other.ci95_lower > 0.0);
}
