//! The query folder loads with the manifest's task loader: all 14 groups, every type the
//! release uses, ids in the release's style, keys in the release order.

use std::collections::BTreeSet;

use anser_gold::Benchmark;
use anser_manifest::{Manifest, TaskCounts, TaskGroup};

use crate::common::{sample, tasks};

#[test]
fn benchmark_loads_all_groups_and_types() {
    let bench = Benchmark::load(&sample().query_dir()).expect("sample tasks load");
    let counts = TaskCounts::of(bench.tasks());
    assert_eq!(counts.groups.len(), 14);
    for group in TaskGroup::all() {
        let spec = Manifest::get().group(group);
        let got = counts.groups.get(&group.name()).unwrap_or_else(|| panic!("{group} has no tasks"));
        assert!(got.count >= 10, "{group}: {} tasks", got.count);
        let want: BTreeSet<&str> = spec.types.iter().map(String::as_str).collect();
        let have: BTreeSet<&str> = got.types.keys().map(String::as_str).collect();
        assert_eq!(have, want, "{group}: types");
        assert_eq!(sample().tasks.get(&group.name()), Some(&got.count));
    }
    for t in bench.tasks() {
        let r = bench.reference(&t.id).expect("reference");
        assert!(!r.ground_truth.is_null(), "{}: no ground truth", t.id);
        assert!(r.evidence.is_array(), "{}: evidence", t.id);
        assert!(!t.instruction.is_empty(), "{}: instruction", t.id);
    }
}

#[test]
fn records_use_release_keys_and_ids() {
    for (file, prefix) in [
        ("legal/zh/descriptive.json", "legal_zh_descriptive_"),
        ("finance/en/prescriptive.json", "finance_en_prescriptive_"),
        ("science/predictive.json", "science_predictive_"),
    ] {
        for (k, t) in tasks(file).iter().enumerate() {
            let keys: Vec<&str> = t.as_object().expect("object").keys().map(String::as_str).collect();
            assert_eq!(keys, ["id", "type", "query", "instruction", "evidence", "ground_truth"], "{file}");
            assert_eq!(t["id"], format!("{prefix}{}", k + 1));
        }
    }
}

#[test]
fn predictive_instructions_state_an_information_cutoff() {
    for t in tasks("finance/zh/predictive.json") {
        let ins = t["instruction"].as_str().expect("instruction");
        assert!(ins.contains("截至") && ins.contains("不得使用"), "{ins}");
    }
    for t in tasks("finance/en/predictive.json") {
        let ins = t["instruction"].as_str().expect("instruction");
        assert!(ins.contains("Use only information available"), "{ins}");
    }
}

#[test]
fn ground_truth_shapes_follow_the_release() {
    for t in tasks("legal/zh/descriptive.json").iter().chain(&tasks("legal/en/descriptive.json")) {
        assert_eq!(t["ground_truth"].as_u64(), Some(t["evidence"].as_array().expect("list").len() as u64));
    }
    for t in tasks("finance/en/descriptive.json").iter().filter(|t| t["type"] == "statistic") {
        assert_eq!(t["ground_truth"].as_u64(), Some(t["evidence"].as_array().expect("list").len() as u64));
    }
    for t in tasks("finance/zh/descriptive.json").iter().filter(|t| t["type"] != "statistic") {
        assert!(t["ground_truth"].is_string());
    }
    for t in tasks("legal/zh/predictive.json") {
        let v = &t["ground_truth"]["value"];
        let keys: Vec<&str> = v.as_object().expect("value").keys().map(String::as_str).collect();
        assert!(
            keys == ["n", "outcome_rate_x1", "outcome_rate_x0", "odds_ratio", "p_value"]
                || keys == ["n", "median_x1", "median_x0", "median_difference", "ci95_lower", "ci95_upper"],
            "{keys:?}"
        );
        assert!(["正向关联", "负向关联", "无明确关联"].contains(&t["ground_truth"]["option"].as_str().unwrap_or("")));
        assert_eq!(v["n"].as_u64(), Some(t["evidence"].as_array().expect("list").len() as u64));
    }
    for t in tasks("finance/zh/prescriptive.json").iter().chain(&tasks("legal/en/prescriptive.json")) {
        assert!(t["type"].is_null());
    }
    for t in tasks("finance/zh/prescriptive.json") {
        for e in t["evidence"].as_array().expect("list") {
            let keys: Vec<&str> = e.as_object().expect("object").keys().map(String::as_str).collect();
            assert_eq!(keys, ["law", "item"]);
        }
    }
}
