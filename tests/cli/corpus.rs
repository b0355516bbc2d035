//! `anser corpus check`: present/missing routes, schema mismatches, corrupt files.

use serde_json::Value;

use crate::common::{anser, shared, stderr, stdout};

fn check(root: &std::path::Path, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec!["corpus", "check", "--corpus-root", root.to_str().expect("utf8"), "--json"];
    args.extend_from_slice(extra);
    let out = anser(&args);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    (out.status.code(), v)
}

fn status<'a>(v: &'a Value, route: &str) -> &'a str {
    v["routes"].as_array().expect("routes").iter().find(|r| r["route"] == route).expect("route")["status"]
        .as_str()
        .expect("status")
}

#[test]
fn real_rules_file_alone_is_ok_and_nine_routes_missing() {
    let Some(shared) = shared("corpus check on the real rules") else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(tmp.path().join("finance/zh")).expect("mkdir");
    std::fs::copy(
        shared.join("anser/corpus/finance/zh/regulatory_rules.jsonl"),
        tmp.path().join("finance/zh/regulatory_rules.jsonl"),
    )
    .expect("copy");
    let (code, v) = check(tmp.path(), &[]);
    assert_eq!(code, Some(0));
    assert_eq!(status(&v, "finance_zh_rules"), "ok");
    let routes = v["routes"].as_array().expect("routes");
    assert_eq!(routes.iter().filter(|r| r["status"] == "missing").count(), 9);
    let rules = routes.iter().find(|r| r["route"] == "finance_zh_rules").expect("rules");
    assert_eq!(rules["records"], 216);
}

#[test]
fn sqlite_problems_are_reported_not_panicked() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    // A non-SQLite file at a route path.
    std::fs::create_dir_all(root.join("legal/en")).expect("mkdir");
    std::fs::write(root.join("legal/en/precedents.sqlite"), "this is not a database, just text\n".repeat(200))
        .expect("write");
    // A SQLite file missing a column.
    std::fs::create_dir_all(root.join("legal/zh")).expect("mkdir");
    let conn = rusqlite::Connection::open(root.join("legal/zh/legal_wenshu.db")).expect("open");
    conn.execute_batch(
        "CREATE TABLE cases (anhao TEXT PRIMARY KEY, anyou TEXT, wenshuleixing TEXT, fayuanmingcheng TEXT, caipanriqi TEXT, shenpanchengxu TEXT);
         CREATE TABLE case_features (anhao TEXT, feature_key TEXT, feature_value TEXT);
         INSERT INTO cases (anhao) VALUES ('（2024）示0101民初1号');",
    )
    .expect("schema");
    drop(conn);
    let (code, v) = check(root, &[]);
    assert_eq!(code, Some(2));
    assert_eq!(status(&v, "legal_en_precedents"), "unreadable");
    assert_eq!(status(&v, "legal_zh_cases"), "mismatch");
    let wenshu = v["routes"].as_array().expect("routes").iter().find(|r| r["route"] == "legal_zh_cases").expect("r");
    let problems = wenshu["problems"].to_string();
    assert!(problems.contains("wenshu_content"), "{problems}");
    // The text report names the route and the problem too, and --routes narrows the check.
    let out = anser(&["corpus", "check", "--corpus-root", root.to_str().expect("utf8"), "--routes", "legal_zh_cases"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(text.contains("legal_zh_cases") && text.contains("column wenshu_content (TEXT) is missing"), "{text}");
    assert!(!text.contains("legal_en_precedents"));
}

#[test]
fn bad_jsonl_reports_the_first_bad_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(tmp.path().join("science")).expect("mkdir");
    let good = r#"{"ID": 1, "pmid": "1", "title": "t", "abstract": null, "authors": [], "journal": "j", "doi": null, "year": "2020", "sections": [], "pmc_id": null, "fulltext_source": "none"}"#;
    std::fs::write(tmp.path().join("science/articles.jsonl"), format!("{good}\n{{\"ID\": 2}}\n{good}\n"))
        .expect("write");
    let (code, v) = check(tmp.path(), &["--routes", "science_articles"]);
    assert_eq!(code, Some(2));
    let problems = v["routes"][0]["problems"].to_string();
    assert!(problems.contains("line 2") && problems.contains("pmid"), "{problems}");
}

#[test]
fn empty_root_and_missing_root() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, _) = check(tmp.path(), &[]);
    assert_eq!(code, Some(2), "nothing present is not a pass");
    let out = anser(&["corpus", "check", "--corpus-root", "/nonexistent/anser-corpus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/nonexistent/anser-corpus"));
    let out = anser(&["corpus", "check", "--corpus-root", tmp.path().to_str().expect("utf8"), "--routes", "nope"]);
    assert_eq!(out.status.code(), Some(2));
}
