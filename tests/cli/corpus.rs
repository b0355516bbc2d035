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

/// A generated sample's corpus (ok), for the corruption and fingerprint tests.
fn sample_corpus(dir: &std::path::Path) -> std::path::PathBuf {
    let out = anser(&["sample", "--out", dir.to_str().expect("utf8")]);
    assert!(out.status.success(), "{}", stderr(&out));
    dir.join("corpus")
}

/// The page size a SQLite header declares.
fn page_size(bytes: &[u8]) -> usize {
    match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65_536,
        n => usize::from(n),
    }
}

/// Corrupt SQLite files are reported unreadable (exit 2), not only those whose schema fails to
/// read: `PRAGMA quick_check` runs on every SQLite route.
#[test]
fn corrupt_sqlite_files_are_detected() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let corpus = sample_corpus(&tmp.path().join("sample"));
    let route = "finance_en_reports";
    let file = "finance/en/finance_reports.sqlite";
    let (code, v) = check(&corpus, &["--routes", route]);
    assert_eq!(code, Some(0), "{v}");
    let report = &v["routes"][0];
    assert_eq!(report["integrity"], "ok", "{report}");

    let original = std::fs::read(corpus.join(file)).expect("read");
    let page = page_size(&original);
    let pages = original.len() / page;
    assert!(pages >= 8, "the sample file has {pages} pages; the corruptions need a few");
    let middle = pages / 2 * page;
    type Corruption = (&'static str, Box<dyn Fn(&mut Vec<u8>)>);
    let corruptions: Vec<Corruption> = vec![
        ("truncated to half", Box::new(move |b: &mut Vec<u8>| b.truncate(pages / 2 * page))),
        (
            "page bytes overwritten in the middle",
            Box::new(move |b: &mut Vec<u8>| {
                let mut x: u32 = 0x9e37_79b9;
                for byte in &mut b[middle..middle + page / 2] {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    *byte = x as u8;
                }
            }),
        ),
        // The header's freelist count (bytes 36..40) no longer matches the file.
        ("bad header", Box::new(|b: &mut Vec<u8>| b[36..40].copy_from_slice(&9u32.to_be_bytes()))),
        ("zeroed b-tree page", Box::new(move |b: &mut Vec<u8>| b[middle..middle + page].fill(0))),
    ];
    for (name, corrupt) in corruptions {
        let mut bytes = original.clone();
        corrupt(&mut bytes);
        std::fs::write(corpus.join(file), &bytes).expect("write");
        let (code, v) = check(&corpus, &["--routes", route]);
        let report = &v["routes"][0];
        assert_eq!(code, Some(2), "{name}: {report}");
        assert_eq!(report["status"], "unreadable", "{name}: {report}");
        let problems = report["problems"].as_array().expect("problems");
        assert!(!problems.is_empty(), "{name}: {report}");
        assert!(problems.iter().all(|p| !p.as_str().unwrap_or("\n").contains('\n')), "{name}: one line each: {report}");
    }

    // The check can be skipped (0), and a bad bound is an input error.
    std::fs::write(corpus.join(file), &original).expect("write");
    let (code, v) = check(&corpus, &["--routes", route, "--integrity-timeout", "0"]);
    assert_eq!(code, Some(0));
    assert!(v["routes"][0].get("integrity").is_none(), "{v}");
    let out = anser(&["corpus", "check", "--corpus-root", corpus.to_str().expect("utf8"), "--integrity-timeout", "-1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// An index built from a corpus file whose content changed is refused even when the file kept
/// its size and modification time.
#[test]
fn content_change_with_size_and_mtime_kept_makes_the_index_stale() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let corpus = sample_corpus(&tmp.path().join("sample"));
    let index = tmp.path().join("index");
    let route = "legal_en_precedents";
    let index_args = |extra: &[&str]| {
        let mut args = vec![
            "index",
            "--corpus-root",
            corpus.to_str().expect("utf8"),
            "--index-dir",
            index.to_str().expect("utf8"),
            "--routes",
            route,
            "--quiet",
        ];
        args.extend_from_slice(extra);
        anser(&args)
    };
    let out = index_args(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = index_args(&[]);
    assert!(out.status.success(), "up to date: {}", stderr(&out));

    // Flip one byte in the middle of the file, then restore the modification time.
    let file = corpus.join("legal/en/precedents.sqlite");
    let modified = std::fs::metadata(&file).and_then(|m| m.modified()).expect("mtime");
    let mut bytes = std::fs::read(&file).expect("read");
    let at = bytes.len() / 2;
    bytes[at] ^= 0x20;
    std::fs::write(&file, &bytes).expect("write");
    std::fs::File::options().write(true).open(&file).and_then(|f| f.set_modified(modified)).expect("restore mtime");
    assert_eq!(std::fs::metadata(&file).and_then(|m| m.modified()).expect("mtime"), modified);

    for extra in [&[][..], &["--verify"][..]] {
        let out = index_args(extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("changed content"), "{extra:?}: {}", stderr(&out));
    }
}
