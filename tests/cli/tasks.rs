//! `anser tasks`: counts, selection, strict loading errors, and leakage safety (the run path's
//! loader never parses the reference fields; the crate graph keeps `anser-gold` away from it).

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
        (
            "numeric id",
            "legal/zh/descriptive.json",
            "[{\"id\": 7, \"query\": \"q\"}]",
            &["record 0", "`id`", "must be a string", "\"7\""],
        ),
        (
            "boolean id",
            "legal/zh/descriptive.json",
            "[{\"id\": true, \"query\": \"q\"}]",
            &["record 0", "`id`", "must be a string, found a boolean"],
        ),
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
        let bench = anser_manifest::TaskSet::load(&dir).expect("loads");
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

/// A UTF-8 byte-order mark (as Windows editors write) is accepted: the tasks are the same.
#[test]
fn task_files_with_a_byte_order_mark_load() {
    let tmp = tempfile::tempdir().expect("tempdir");
    copy_dir(&examples_query(), tmp.path());
    let file = tmp.path().join("legal/zh/descriptive.json");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, format!("\u{feff}{text}")).expect("write");
    let counts = |dir: &std::path::Path| -> Value {
        let out = anser(&["tasks", "--benchmark-dir", dir.to_str().expect("utf8"), "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).expect("json")
    };
    assert_eq!(counts(tmp.path()), counts(&examples_query()));
}

/// The run path's loader never builds the reference fields: a `ground_truth` nested deeper than
/// the JSON parser's value limit still loads for `anser tasks` (which only skips over it), while
/// `anser eval`, which reads the reference, reports it.
#[test]
fn the_run_path_never_parses_reference_fields() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let query = tmp.path().join("query");
    copy_dir(&examples_query(), &query);
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let file = query.join("legal/zh/descriptive.json");
    let text = std::fs::read_to_string(&file).expect("read");
    let mut rows: Vec<Value> = serde_json::from_str(&text).expect("json");
    rows[0]["ground_truth"] = Value::String("PLACEHOLDER".into());
    let text = serde_json::to_string(&rows).expect("json").replace("\"PLACEHOLDER\"", &deep);
    std::fs::write(&file, text).expect("write");
    let dir = query.to_str().expect("utf8");

    let out = anser(&["tasks", "--benchmark-dir", dir, "--json"]);
    assert!(out.status.success(), "the public loader skips the reference unparsed: {}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["groups"]["legal_zh_descriptive"]["count"], rows.len());

    let results = tmp.path().join("results.json");
    std::fs::write(&results, "[]").expect("write");
    let out = anser(&["eval", results.to_str().expect("utf8"), "--benchmark-dir", dir, "--skip-llm-judge"]);
    assert_eq!(out.status.code(), Some(2), "the gold loader reads it: {}", stderr(&out));
    assert!(stderr(&out).contains("recursion limit"), "{}", stderr(&out));
}

/// `python3` for the dependency check, or `None` with a skip reason (a failure under `CI=true`).
fn python3(what: &str) -> Option<&'static str> {
    let found = std::process::Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if found {
        return Some("python3");
    }
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{what} needs python3 (CI=true)");
    eprintln!("skipped {what}: python3 not found");
    None
}

fn check_deps(python: &str, args: &[&str]) -> std::process::Output {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-deps.py");
    std::process::Command::new(python).arg(script).args(args).output().expect("check-deps runs")
}

/// A minimal `cargo metadata` document: `edges` are (from, to, kind) with kind null/"dev"/"build".
fn metadata(edges: &[(&str, &str, Option<&str>)]) -> Value {
    let mut names: Vec<&str> = edges.iter().flat_map(|(a, b, _)| [*a, *b]).collect();
    names.sort_unstable();
    names.dedup();
    let id = |n: &str| format!("path+file:///ws/{n}#0.1.0");
    let nodes: Vec<Value> = names
        .iter()
        .map(|n| {
            let deps: Vec<Value> = edges
                .iter()
                .filter(|(a, _, _)| a == n)
                .map(|(_, b, kind)| {
                    serde_json::json!({"name": b.replace('-', "_"), "pkg": id(b), "dep_kinds": [{"kind": kind, "target": null}]})
                })
                .collect();
            serde_json::json!({"id": id(n), "deps": deps})
        })
        .collect();
    let packages: Vec<Value> = names.iter().map(|n| serde_json::json!({"id": id(n), "name": n})).collect();
    serde_json::json!({"packages": packages, "resolve": {"nodes": nodes}})
}

/// The dependency check fails, naming the path, when a run-path crate can reach `anser-gold`
/// through normal or build dependencies, and ignores dev-dependencies (tests scripted from gold).
#[test]
fn dependency_check_fails_when_the_run_path_reaches_gold() {
    let Some(python) = python3("the crate graph check") else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, v: &Value| {
        let path = tmp.path().join(name);
        std::fs::write(&path, v.to_string()).expect("write");
        path.to_str().expect("utf8").to_string()
    };
    let base = [
        ("anser-agent", "anser-retriever", None),
        ("anser-agent", "anser-llm", None),
        ("anser-retriever", "anser-indexer", None),
        ("anser-indexer", "anser-manifest", None),
        ("anser-gold", "anser-manifest", None),
        ("anser-evaluator", "anser-gold", None),
        ("anser-agent", "anser-gold", Some("dev")),
        ("anser-reports", "anser-evaluator", None),
        ("anser-reports", "anser-record", None),
        ("anser-record", "anser-manifest", None),
    ];
    let good = write("good.json", &metadata(&base));
    let out = check_deps(python, &["--metadata", &good]);
    assert!(out.status.success(), "dev-dependencies are allowed: {}", stderr(&out));

    let mut bad_edges = base.to_vec();
    bad_edges.push(("anser-indexer", "anser-evaluator", Some("build")));
    let bad = write("bad.json", &metadata(&bad_edges));
    let out = check_deps(python, &["--metadata", &bad]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("anser-agent -> anser-retriever -> anser-indexer -> anser-evaluator -> anser-gold"), "{err}");
    assert!(err.contains("anser-indexer must not depend on anser-gold"), "{err}");
    assert!(!err.contains("anser-llm must not"), "{err}");

    // Other documented directions can be checked with --forbid.
    let out = check_deps(python, &["--metadata", &good, "--no-defaults", "--forbid", "anser-indexer:anser-agent"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = check_deps(python, &["--metadata", &good, "--no-defaults", "--forbid", "anser-agent:anser-manifest"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

/// The run-record layering: reports and the record crate never reach the agent (the graph before
/// the record crate had reports -> agent), the record crate reaches no engine, and a default
/// build of a library links no test-only code (checked on saved `cargo tree` output).
#[test]
fn dependency_check_enforces_the_record_layering() {
    let Some(python) = python3("the crate graph check") else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| tmp.path().join(name).to_str().expect("utf8").to_string();
    let write = |name: &str, text: &str| std::fs::write(tmp.path().join(name), text).expect("write");
    let layered = [
        ("anser-agent", "anser-record", None),
        ("anser-agent", "polars", None),
        ("anser-agent", "anser-llm", None),
        ("anser-agent", "anser-retriever", None),
        ("anser-retriever", "anser-indexer", None),
        ("anser-llm", "axum", None),
        ("anser-evaluator", "anser-gold", None),
        ("anser-reports", "anser-evaluator", None),
        ("anser-reports", "anser-record", None),
        ("anser-record", "anser-manifest", None),
        ("anser-reports", "anser-agent", Some("dev")),
    ];
    write("good.json", &metadata(&layered).to_string());
    let out = check_deps(python, &["--metadata", &path("good.json")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("default-build rule(s) not checked"), "{}", stdout(&out));

    // The old graph: reports read records through the agent.
    let mut old = layered.to_vec();
    old.push(("anser-reports", "anser-agent", None));
    write("old.json", &metadata(&old).to_string());
    let out = check_deps(python, &["--metadata", &path("old.json")]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("anser-reports must not depend on anser-agent: anser-reports -> anser-agent"));
    assert!(!stderr(&out).contains("anser-record must not"), "{}", stderr(&out));

    let mut heavy = layered.to_vec();
    heavy.push(("anser-record", "anser-runstore", None));
    heavy.push(("anser-runstore", "polars", None));
    write("heavy.json", &metadata(&heavy).to_string());
    let out = check_deps(python, &["--metadata", &path("heavy.json")]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("anser-record must not depend on polars: anser-record -> anser-runstore -> polars"),
        "{}",
        stderr(&out)
    );

    // Default builds, from saved `cargo tree --prefix depth -f {p}` output.
    std::fs::create_dir(tmp.path().join("trees")).expect("mkdir");
    let trees = path("trees");
    let tree = |name: &str, text: &str| std::fs::write(tmp.path().join("trees").join(name), text).expect("write");
    tree("anser-llm.txt", "0anser-llm v0.1.0 (/ws/llm)\n1serde v1.0.0\n1reqwest v0.13.5\n2tokio v1.0.0\n");
    let rule = ["--no-defaults", "--forbid-default", "anser-llm:axum", "--tree-dir", &trees];
    let out = check_deps(python, &[&["--metadata", &path("good.json")][..], &rule].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("1 rule(s) hold"), "{}", stdout(&out));
    tree("anser-llm.txt", "0anser-llm v0.1.0 (/ws/llm)\n1serde v1.0.0\n1axum v0.8.0\n2tokio v1.0.0\n");
    let out = check_deps(python, &[&["--metadata", &path("good.json")][..], &rule].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("default build of anser-llm must not link axum: anser-llm -> axum"),
        "{}",
        stderr(&out)
    );
}

/// The workspace itself: no crate of the run path can reach `anser-gold`, reports and the record
/// crate keep their layering, and default library builds link no test-only code (also run by
/// `.ci/run`).
#[test]
fn this_workspace_keeps_gold_out_of_the_run_path() {
    let Some(python) = python3("the crate graph check") else { return };
    let out = check_deps(python, &[]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
}

/// The module-cycle check finds a cycle between top-level modules (through a `use crate::{..}`
/// group) and passes on this workspace, which had three (`agent::method` <-> `agent::run`,
/// `llm::chat` <-> `llm::client`, `llm::error` <-> `llm::retry`). Also run by `.ci/run`.
#[test]
fn module_cycle_check_finds_cycles_and_this_workspace_has_none() {
    let Some(python) = python3("the module cycle check") else { return };
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-module-cycles.py");
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("src");
    std::fs::create_dir_all(src.join("run")).expect("mkdir");
    std::fs::write(src.join("lib.rs"), "mod method;\nmod run;\nmod trace;\n").expect("write");
    std::fs::write(src.join("trace.rs"), "pub struct TaskTrace;\n").expect("write");
    std::fs::write(src.join("method.rs"), "use crate::trace::TaskTrace;\n// crate::run is not named here\n")
        .expect("write");
    std::fs::write(src.join("run/mod.rs"), "use crate::{\n    trace::TaskTrace,\n    method::Solver,\n};\n")
        .expect("write");
    let run = |dir: &std::path::Path| {
        std::process::Command::new(python).arg(&script).arg(dir).output().expect("check-module-cycles runs")
    };
    let out = run(&src);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    std::fs::write(src.join("method.rs"), "use crate::{run::Stage, trace::TaskTrace};\n").expect("write");
    let out = run(&src);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("method <-> run"), "{}", stdout(&out));

    let out = std::process::Command::new(python).arg(&script).output().expect("check-module-cycles runs");
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
}
