//! Legal ground truth recomputed with hand-written SQL: counts from the feature tables, and the
//! association statistics re-derived from the cohort with an independent Fisher test.

use std::collections::BTreeSet;

use rusqlite::Connection;
use serde_json::Value;

use crate::common::{db, fisher, number_after, r6, s, table_from_rates, tasks};

fn strings(rows: rusqlite::Result<Vec<String>>) -> BTreeSet<String> {
    rows.expect("query").into_iter().collect()
}

fn column(conn: &Connection, sql: &str, args: &[&dyn rusqlite::ToSql]) -> BTreeSet<String> {
    let mut stmt = conn.prepare(sql).expect("prepare");
    strings(stmt.query_map(args, |r| r.get::<_, String>(0)).and_then(Iterator::collect))
}

fn evidence_set(t: &Value) -> BTreeSet<String> {
    t["evidence"].as_array().expect("list").iter().map(|e| s(e).to_string()).collect()
}

/// The evidence of a counting task, checked to be as many items as its ground truth counts.
fn counted_evidence(t: &Value) -> BTreeSet<String> {
    let gold = evidence_set(t);
    assert_eq!(t["ground_truth"].as_u64(), Some(gold.len() as u64), "{}", t["id"]);
    gold
}

/// The cause of action named in a Chinese question (longest match among the corpus's values).
fn anyou_of(conn: &Connection, q: &str) -> String {
    let all = column(conn, "SELECT DISTINCT anyou FROM cases", &[]);
    let mut hits: Vec<&String> = all.iter().filter(|a| q.contains(a.as_str())).collect();
    hits.sort_by_key(|a| std::cmp::Reverse(a.chars().count()));
    hits.first().copied().cloned().unwrap_or_else(|| panic!("no cause of action in {q}"))
}

#[test]
fn zh_counts_match_the_feature_table() {
    let conn = db("legal/zh/legal_wenshu.db");
    let keys = column(&conn, "SELECT DISTINCT feature_key FROM case_features", &[]);
    let mut recomputed = 0;
    for t in tasks("legal/zh/descriptive.json") {
        let q = s(&t["query"]);
        let anyou = anyou_of(&conn, q);
        let gold = counted_evidence(&t);
        let of_anyou = column(&conn, "SELECT anhao FROM cases WHERE anyou = ?1", &[&anyou]);
        assert!(gold.is_subset(&of_anyou), "{q}: evidence outside {anyou}");
        if t["type"] != "sql" {
            continue;
        }
        // Structured conditions, read from the corpus's own feature keys and case columns.
        let mut sets = Vec::new();
        let by_feature = |key: &str, value: &str| {
            column(
                &conn,
                "SELECT c.anhao FROM cases c JOIN case_features f USING (anhao)
                 WHERE c.anyou = ?1 AND f.feature_key = ?2 AND f.feature_value = ?3",
                &[&anyou, &key, &value],
            )
        };
        for key in &keys {
            let name = key.split('（').next().unwrap_or(key);
            let yes_no = key.strip_prefix("是否").filter(|k| !k.is_empty());
            if let Some(rest) = q.split_once(&format!("{key}为")).map(|(_, r)| r) {
                let value: String = rest.chars().take_while(|c| !"的案文？且".contains(*c)).collect();
                sets.push(by_feature(key, &value));
            } else if key != name && (q.contains(&format!("{name}超过")) || q.contains(&format!("{name}不超过"))) {
                let above = !q.contains(&format!("{name}不超过"));
                let th = number_after(q, if above { "超过" } else { "不超过" }).expect("threshold");
                let op = if above { ">" } else { "<=" };
                sets.push(column(
                    &conn,
                    &format!(
                        "SELECT c.anhao FROM cases c JOIN case_features f USING (anhao)
                         WHERE c.anyou = ?1 AND f.feature_key = ?2 AND CAST(f.feature_value AS REAL) {op} ?3"
                    ),
                    &[&anyou, key, &th],
                ));
            } else if let Some(phrase) = yes_no
                && q.contains(phrase)
            {
                sets.push(by_feature(key, "是"));
            }
        }
        for (phrase, key, value) in [
            ("被宣告缓刑", "是否适用缓刑", "是"),
            ("未适用缓刑", "是否适用缓刑", "否"),
            ("诉讼请求获得支持", "诉讼请求是否获得支持", "是"),
            ("诉讼请求被驳回", "诉讼请求是否获得支持", "否"),
        ] {
            if q.contains(phrase) {
                sets.push(by_feature(key, value));
            }
        }
        if let Some(year) = number_after(q, "裁判日期在") {
            sets.push(column(
                &conn,
                "SELECT anhao FROM cases WHERE anyou = ?1 AND caipanriqi LIKE ?2",
                &[&anyou, &format!("{year}-%")],
            ));
        }
        for program in ["一审", "二审"] {
            if q.contains(&format!("审判程序为{program}")) {
                sets.push(column(
                    &conn,
                    "SELECT anhao FROM cases WHERE anyou = ?1 AND shenpanchengxu = ?2",
                    &[&anyou, &program],
                ));
            }
        }
        let parts = q.matches('且').count() + 1;
        if sets.len() == parts {
            let mut it = sets.into_iter();
            let first = it.next().expect("one set");
            let all: BTreeSet<String> = it.fold(first, |acc, s| acc.intersection(&s).cloned().collect());
            assert_eq!(all, gold, "{q}");
            recomputed += 1;
        }
    }
    assert!(recomputed >= 2, "only {recomputed} Chinese counts could be recomputed");
}

/// Outcome key of a binary Chinese question.
fn zh_outcome_key(q: &str) -> &'static str {
    if q.contains("缓刑") {
        "是否适用缓刑"
    } else if q.contains("行政行为") {
        "行政行为是否被撤销或确认违法"
    } else {
        "诉讼请求是否获得支持"
    }
}

fn check_binary(t: &Value, positives: u64) {
    let v = &t["ground_truth"]["value"];
    let n = v["n"].as_u64().expect("n");
    let (r1, r0) = (v["outcome_rate_x1"].as_f64().expect("r1"), v["outcome_rate_x0"].as_f64().expect("r0"));
    let (a, b, c, d) =
        table_from_rates(n, r1, r0, positives).unwrap_or_else(|| panic!("{}: no 2x2 table fits", t["id"]));
    let (fa, fb, fc, fd) = (a as f64, b as f64, c as f64, d as f64);
    let or =
        if a * b * c * d == 0 { ((fa + 0.5) * (fd + 0.5)) / ((fb + 0.5) * (fc + 0.5)) } else { (fa * fd) / (fb * fc) };
    let p = fisher(a, b, c, d);
    assert!((r6(or) - v["odds_ratio"].as_f64().expect("or")).abs() < 2e-6, "{}: OR {or}", t["id"]);
    assert!((r6(p) - v["p_value"].as_f64().expect("p")).abs() < 2e-6, "{}: p {p}", t["id"]);
    let option = s(&t["ground_truth"]["option"]);
    let significant = p < 0.05;
    let expected_positive = significant && or > 1.0;
    let expected_negative = significant && or < 1.0;
    assert_eq!(["positive", "正向关联"].contains(&option), expected_positive, "{}", t["id"]);
    assert_eq!(["negative", "负向关联"].contains(&option), expected_negative, "{}", t["id"]);
}

#[test]
fn zh_binary_associations_recompute_from_the_cohort() {
    let conn = db("legal/zh/legal_wenshu.db");
    let mut checked = 0;
    for t in tasks("legal/zh/predictive.json") {
        if t["ground_truth"]["value"].get("odds_ratio").is_none() {
            let v = &t["ground_truth"]["value"];
            let diff = v["median_x1"].as_f64().expect("m1") - v["median_x0"].as_f64().expect("m0");
            assert!((r6(diff) - v["median_difference"].as_f64().expect("diff")).abs() < 2e-6);
            assert!(v["ci95_lower"].as_f64() <= v["ci95_upper"].as_f64());
            continue;
        }
        let key = zh_outcome_key(s(&t["query"]));
        let mut positives = 0;
        for anhao in evidence_set(&t) {
            let y: String = conn
                .query_row(
                    "SELECT feature_value FROM case_features WHERE anhao = ?1 AND feature_key = ?2",
                    [&anhao, key],
                    |r| r.get(0),
                )
                .expect("outcome recorded for every cohort case");
            positives += u64::from(y == "是");
        }
        check_binary(&t, positives);
        checked += 1;
    }
    assert!(checked >= 1);
}

/// The matter type named in an English question, via the registry's display names.
fn matter_of(conn: &Connection, q: &str) -> String {
    let mut stmt = conn
        .prepare("SELECT registry_key, display_name FROM annotation_registry WHERE registry_type = 'matter_type'")
        .expect("prepare");
    let rows: Vec<(String, String)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).expect("query").map(|r| r.expect("row")).collect();
    rows.into_iter().find(|(_, d)| q.contains(d.as_str())).map(|(k, _)| k).unwrap_or_else(|| panic!("no matter in {q}"))
}

#[test]
fn en_counts_recompute_from_the_registry_and_case_features() {
    let conn = db("legal/en/legal_cases.db");
    let mut recomputed = 0;
    for t in tasks("legal/en/descriptive.json") {
        let q = s(&t["query"]);
        let matter = matter_of(&conn, q);
        let gold = counted_evidence(&t);
        let mut stmt = conn
            .prepare(
                "SELECT registry_key, display_name, value_type FROM annotation_registry
                 WHERE parent_key = ?1 AND registry_type <> 'matter_type'",
            )
            .expect("prepare");
        let feats: Vec<(String, String, String)> = stmt
            .query_map([&matter], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect();
        let mut sets = Vec::new();
        for (key, display, value_type) in feats {
            let feature = key.split_once('.').map_or(key.as_str(), |(_, f)| f).to_string();
            let base = "SELECT case_id FROM case_feature WHERE matter_type = ?1 AND feature_key = ?2 AND value_status = 'observed'";
            match display.split_once('…') {
                None if q.contains(&display) => {
                    sets.push(column(&conn, &format!("{base} AND value_json = 'true'"), &[&matter, &feature]))
                }
                Some((pre, post)) if q.contains(pre) && !pre.is_empty() => {
                    let rest = &q[q.find(pre).expect("prefix") + pre.len()..];
                    let Some(end) = (if post.is_empty() { Some(rest.len()) } else { rest.find(post) }) else {
                        continue;
                    };
                    let raw = rest[..end].split([' ', '?']).next().unwrap_or_default().to_string();
                    let raw = if value_type == "enum" { rest[..end].to_string() } else { raw };
                    if value_type == "number" {
                        let th: f64 = raw.parse().unwrap_or(f64::NAN);
                        sets.push(column(&conn, &format!("{base} AND value_number >= ?3"), &[&matter, &feature, &th]));
                    } else {
                        sets.push(column(&conn, &format!("{base} AND value_text = ?3"), &[&matter, &feature, &raw]));
                    }
                }
                _ => {}
            }
        }
        let want = if t["type"] == "reasoning" { 2 } else { 1 };
        if sets.len() == want {
            let mut it = sets.into_iter();
            let first = it.next().expect("one set");
            let all = it.fold(first, |acc, s| acc.intersection(&s).cloned().collect());
            assert_eq!(all, gold, "{q}");
            recomputed += 1;
        }
    }
    assert!(recomputed >= 3, "only {recomputed} English counts could be recomputed");
}

#[test]
fn en_binary_associations_recompute_from_the_cohort() {
    let conn = db("legal/en/legal_cases.db");
    for t in tasks("legal/en/predictive.json") {
        let matter = matter_of(&conn, s(&t["query"]));
        let outcome: String = conn
            .query_row(
                "SELECT substr(registry_key, length(parent_key) + 2) FROM annotation_registry WHERE registry_type = 'outcome' AND parent_key = ?1",
                [&matter],
                |r| r.get(0),
            )
            .expect("outcome");
        let mut positives = 0;
        for case in evidence_set(&t) {
            let v: String = conn
                .query_row(
                    "SELECT value_json FROM case_feature WHERE case_id = ?1 AND feature_key = ?2",
                    [&case, &outcome],
                    |r| r.get(0),
                )
                .expect("outcome value");
            positives += u64::from(v == "true");
        }
        check_binary(&t, positives);
    }
}

#[test]
fn precedent_answers_are_the_holding_of_the_gold_document() {
    let conn = db("legal/en/precedents.sqlite");
    for t in tasks("legal/en/prescriptive.json") {
        let docid = s(&t["evidence"][0]["docid"]);
        let text: String =
            conn.query_row("SELECT case_text FROM documents WHERE docid = ?1", [docid], |r| r.get(0)).expect("doc");
        let holding = text.split("HOLDING: ").nth(1).expect("holding");
        assert_eq!(holding, s(&t["ground_truth"]), "{}", t["id"]);
    }
}

#[test]
fn statute_evidence_names_existing_articles() {
    let path = crate::common::sample().corpus_dir().join("legal/zh/law_corpus.jsonl");
    let mut by_id = std::collections::BTreeMap::new();
    for line in std::fs::read_to_string(path).expect("jsonl").lines() {
        let v: Value = serde_json::from_str(line).expect("json line");
        by_id.insert(v["id"].as_u64().expect("id"), (v["law_name"].clone(), v["item"].clone()));
    }
    for t in tasks("legal/zh/prescriptive.json") {
        for e in t["evidence"].as_array().expect("list") {
            let (law, item) = by_id.get(&e["id"].as_u64().expect("id")).expect("article exists");
            assert_eq!(&e["law"], law);
            assert_eq!(&e["index"], item);
        }
    }
}
