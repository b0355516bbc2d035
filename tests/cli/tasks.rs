//! `anser tasks`: counts, selection, strict loading errors, and leakage safety.

use serde_json::Value;

use crate::common::{anser, copy_dir, examples_query, shared, stderr, stdout};

#[test]
fn release_counts_match_the_release_readme() {
    let Some(shared) = shared("release task counts") else { return };
    let dir = shared.join("anser/query");
    let out = anser(&["tasks", "--benchmark-dir", dir.to_str().expect("utf8"), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["total"], 2235);
    let expected = [
        ("legal_zh_descriptive", 200),
        ("legal_zh_predictive", 100),
        ("legal_zh_prescriptive", 100),
        ("legal_en_descriptive", 200),
        ("legal_en_predictive", 95),
        ("legal_en_prescriptive", 57),
        ("finance_zh_descriptive", 300),
        ("finance_zh_predictive", 200),
        ("finance_zh_prescriptive", 100),
        ("finance_en_descriptive", 300),
        ("finance_en_predictive", 200),
        ("finance_en_prescriptive", 300),
        ("science_en_descriptive", 20),
        ("science_en_predictive", 63),
    ];
    assert_eq!(v["groups"].as_object().expect("groups").len(), 14);
    for (group, n) in expected {
        assert_eq!(v["groups"][group]["count"], n, "{group}");
    }
    // Type distributions as in the release README.
    let types = |g: &str| v["groups"][g]["types"].clone();
    assert_eq!(types("legal_zh_descriptive"), serde_json::json!({"reasoning": 50, "semantic": 75, "sql": 75}));
    assert_eq!(types("legal_zh_predictive"), serde_json::json!({"semantic": 59, "structured": 41}));
    assert_eq!(types("legal_zh_prescriptive"), serde_json::json!({"刑事": 39, "民事": 49, "行政": 12}));
    assert_eq!(types("legal_en_predictive"), serde_json::json!({"multi_step": 10, "semantic": 20, "structured": 65}));
    assert_eq!(types("legal_en_prescriptive"), serde_json::json!({"null": 57}));
    assert_eq!(types("finance_en_prescriptive"), serde_json::json!({"FinAuditing": 100, "RegBench": 200}));
    assert_eq!(types("finance_zh_prescriptive"), serde_json::json!({"null": 100}));
    assert_eq!(
        types("finance_en_predictive"),
        serde_json::json!({"mixed_numeric_text": 120, "multi_period_trend": 80})
    );
    assert_eq!(
        types("finance_zh_predictive"),
        serde_json::json!({"mixed_numeric_text": 164, "multi_period_trend": 32, "text_summary": 4})
    );
    assert_eq!(
        types("science_en_descriptive"),
        serde_json::json!({"dominant_category": 9, "main_factors": 8, "study_pattern": 3})
    );
    assert_eq!(
        types("science_en_predictive"),
        serde_json::json!({"association_direction": 25, "diagnostic_performance": 3, "effect_direction": 35})
    );
    assert_eq!(v["groups"]["finance_zh_descriptive"]["types"]["statistic"], 100);
    assert_eq!(v["groups"]["finance_en_descriptive"]["types"]["text_evidence"], 60);
}

#[test]
fn selection_filters_like_the_official_runner() {
    let Some(shared) = shared("release selection") else { return };
    let dir = shared.join("anser/query");
    let dir = dir.to_str().expect("utf8");
    let count = |extra: &[&str]| -> u64 {
        let mut args = vec!["tasks", "--benchmark-dir", dir, "--json"];
        args.extend_from_slice(extra);
        let out = anser(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        v["total"].as_u64().expect("total")
    };
    assert_eq!(
        count(&["--domain", "finance", "--language", "en", "--split", "prescriptive", "--task-type", "RegBench"]),
        200
    );
    assert_eq!(count(&["--domain", "finance", "--task-type", "statistic"]), 200);
    assert_eq!(count(&["--task-type", "null"]), 157);
    assert_eq!(count(&["--task-type", "sql", "--task-type", "semantic"]), 75 * 2 + 75 * 2 + 59 + 20);
    assert_eq!(count(&["--domain", "science", "--limit", "5"]), 5);
    assert_eq!(count(&["--ids", "science_predictive_3,legal_zh_descriptive_1"]), 2);
    let out = anser(&["tasks", "--benchmark-dir", dir, "--language", "zh", "--domain", "science"]);
    assert_eq!(out.status.code(), Some(2), "science is English-only");
}

#[test]
fn empty_selection_and_unknown_ids_are_errors() {
    let dir = examples_query();
    let dir = dir.to_str().expect("utf8");
    let out = anser(&["tasks", "--benchmark-dir", dir, "--domain", "science", "--language", "zh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("matched no tasks"), "{}", stderr(&out));
    let out = anser(&["tasks", "--benchmark-dir", dir, "--ids", "nope_1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope_1"));
}

#[test]
fn bundled_example_lists_all_groups() {
    let dir = examples_query();
    let out = anser(&["tasks", "--benchmark-dir", dir.to_str().expect("utf8"), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["groups"].as_object().expect("groups").len(), 14);
    let table = anser(&["tasks", "--benchmark-dir", dir.to_str().expect("utf8")]);
    assert!(stdout(&table).contains("finance_en_prescriptive"));
}

/// Every malformed task input gives one line naming the file (and record/field) and exit code 2.
#[test]
fn malformed_task_files_are_one_line_errors() {
    type Case = (&'static str, &'static str, &'static str, &'static [&'static str]);
    let cases: &[Case] = &[
        (
            "truncated JSON",
            "legal/zh/descriptive.json",
            "[{\"id\": \"a\", \"query\": ",
            &["descriptive.json", "invalid JSON"],
        ),
        (
            "object instead of array",
            "legal/zh/descriptive.json",
            "{\"id\": \"a\", \"query\": \"q\"}",
            &["expected a JSON array", "an object"],
        ),
        ("empty file", "legal/zh/descriptive.json", "", &["descriptive.json", "empty"]),
        (
            "missing query",
            "legal/zh/descriptive.json",
            "[{\"id\": \"x1\", \"instruction\": \"i\"}]",
            &["record 0", "`query`", "missing"],
        ),
        (
            "empty id",
            "legal/zh/descriptive.json",
            "[{\"id\": \"  \", \"query\": \"q\"}]",
            &["record 0", "`id`", "empty"],
        ),
        (
            "wrong query type",
            "legal/zh/descriptive.json",
            "[{\"id\": \"x1\", \"query\": 5}]",
            &["`query`", "must be a string"],
        ),
        (
            "wrong type type",
            "legal/zh/descriptive.json",
            "[{\"id\": \"x1\", \"query\": \"q\", \"type\": [1]}]",
            &["`type`", "string or null"],
        ),
        (
            "record not an object",
            "legal/zh/descriptive.json",
            "[\"just text\"]",
            &["record 0", "expected a task object"],
        ),
        (
            "duplicate id across files",
            "legal/zh/descriptive.json",
            "[{\"id\": \"finance_zh_descriptive_1\", \"query\": \"q\"}]",
            &["duplicate task id", "finance_zh_descriptive_1"],
        ),
        (
            "unroutable type",
            "finance/en/prescriptive.json",
            "[{\"id\": \"y1\", \"query\": \"q\", \"type\": \"Other\"}]",
            &["y1", "no corpus route"],
        ),
        ("file outside the layout", "legal/zh/extra/descriptive.json", "[]", &["not an ANSER task file path"]),
    ];
    for (name, file, content, needles) in cases {
        let tmp = tempfile::tempdir().expect("tempdir");
        copy_dir(&examples_query(), tmp.path());
        let path = tmp.path().join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, content).expect("write");
        let out = anser(&["tasks", "--benchmark-dir", tmp.path().to_str().expect("utf8")]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: one line expected, got {err}");
        for needle in *needles {
            assert!(err.contains(needle), "{name}: {err:?} lacks {needle:?}");
        }
    }
    let empty = tempfile::tempdir().expect("tempdir");
    let out = anser(&["tasks", "--benchmark-dir", empty.path().to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no task files"), "{}", stderr(&out));
}

/// Leakage: every selection the system writes carries public inputs only.
#[test]
fn selections_never_carry_reference_fields() {
    let dirs = [Some(examples_query()), shared("leakage over the release").map(|s| s.join("anser/query"))];
    for dir in dirs.into_iter().flatten() {
        let bench = anser_manifest::Benchmark::load(&dir).expect("loads");
        for selection in
            [anser_manifest::Selection::default(), anser_manifest::Selection { limit: 3, ..Default::default() }]
        {
            let tasks = selection.apply(bench.tasks()).expect("selects");
            let entries: Vec<anser_manifest::SelectionEntry<'_>> = tasks.iter().map(Into::into).collect();
            let text = serde_json::to_string(&entries).expect("serialises");
            let v: Value = serde_json::from_str(&text).expect("json");
            for entry in v.as_array().expect("array") {
                let keys: Vec<&str> = entry.as_object().expect("object").keys().map(String::as_str).collect();
                assert!(!keys.iter().any(|k| *k == "ground_truth" || *k == "evidence"), "{keys:?}");
            }
            // The public task type itself has no reference fields either.
            let public = serde_json::to_value(&tasks[0]).expect("serialises");
            assert!(public.get("ground_truth").is_none() && public.get("evidence").is_none());
        }
    }
}
