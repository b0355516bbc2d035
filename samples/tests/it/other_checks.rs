//! Rules, capital regulation and science: evidence exists and the ground truth follows from it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::common::{db, number_after, s, sample, tasks};

fn jsonl(rel: &str) -> Vec<Value> {
    std::fs::read_to_string(sample().corpus_dir().join(rel))
        .expect("jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

#[test]
fn zh_rule_evidence_exists_and_is_not_newer_than_the_facts() {
    let rules = jsonl("finance/zh/regulatory_rules.jsonl");
    let pairs: BTreeSet<(String, String)> =
        rules.iter().map(|r| (s(&r["law_name"]).to_string(), s(&r["item"]).to_string())).collect();
    for t in tasks("finance/zh/prescriptive.json") {
        let q = s(&t["query"]);
        // Years of the dates in the question (`2023年5月8日`).
        let years: Vec<i64> = q
            .match_indices('年')
            .filter_map(|(k, _)| {
                q[..k].chars().rev().take(4).collect::<String>().chars().rev().collect::<String>().parse().ok()
            })
            .collect();
        let latest = *years.iter().max().expect("a dated fact");
        for e in t["evidence"].as_array().expect("list") {
            let (law, item) = (s(&e["law"]), s(&e["item"]));
            assert!(pairs.contains(&(law.to_string(), item.to_string())), "{law} {item}");
            let revision = number_after(law, "（").expect("revision year") as i64;
            assert!(revision <= latest, "{}: {law} is newer than the facts ({latest})", t["id"]);
        }
    }
}

#[test]
fn regbench_cites_existing_paragraphs_and_market_risk_conclusions_follow_the_numbers() {
    let conn = db("finance/en/12_CFR_Part_217.sqlite");
    for t in tasks("finance/en/prescriptive.json").iter().filter(|t| t["type"] == "RegBench") {
        for e in t["evidence"].as_array().expect("list") {
            let n: i64 = conn
                .query_row("SELECT count(*) FROM regulation_paragraphs WHERE paragraph_id = ?1", [s(&e["id"])], |r| {
                    r.get(0)
                })
                .expect("query");
            assert_eq!(n, 1, "{e}");
        }
        let q = s(&t["query"]);
        if q.contains("market risk") {
            let total = number_after(q, "total assets of $").expect("total");
            let ta = number_after(q, "trading assets of $").expect("assets");
            let tl = number_after(q, "trading liabilities of $").expect("liabilities");
            let sum = ((ta + tl) * 10.0).round() / 10.0;
            let applies = sum >= 1.0 || sum / total >= 0.10;
            let gt = s(&t["ground_truth"]);
            assert_eq!(gt.contains("does not apply"), !applies, "{q}\n{gt}");
        }
    }
}

#[test]
fn science_evidence_is_eligible_and_the_synthesis_follows_from_the_abstracts() {
    let articles: BTreeMap<u64, Value> =
        jsonl("science/articles.jsonl").into_iter().map(|a| (a["ID"].as_u64().expect("ID"), a)).collect();
    let designs = [
        ("randomized controlled trial", "randomized controlled trials"),
        ("prospective cohort study", "prospective cohort studies"),
        ("cross-sectional study", "cross-sectional studies"),
        ("case-control study", "case-control studies"),
    ];
    for file in ["science/descriptive.json", "science/predictive.json"] {
        for t in tasks(file) {
            let q = s(&t["query"]);
            let at = q.find("up to ").expect("cutoff") + "up to ".len();
            let cutoff: i64 = q[at..at + 4].parse().expect("cutoff year");
            let mut design_counts = BTreeMap::new();
            let mut directions = [0usize; 3];
            for e in t["evidence"].as_array().expect("list") {
                let a = &articles[&e["id"].as_u64().expect("id")];
                let year: i64 = s(&a["year"]).parse().expect("year");
                assert!(year <= cutoff, "{}: article {} published {year}", t["id"], e["id"]);
                let abs = s(&a["abstract"]);
                assert!(!abs.contains("mice"), "{}: animal study in evidence", t["id"]);
                if let Some((_, plural)) = designs.iter().find(|(d, _)| abs.contains(d)) {
                    *design_counts.entry(*plural).or_insert(0) += 1;
                }
                if abs.contains("significantly reduced") || abs.contains("associated with lower") {
                    directions[0] += 1;
                } else if abs.contains("did not significantly change") || abs.contains("was not associated") {
                    directions[1] += 1;
                } else if abs.contains(" increased ") || abs.contains("associated with higher") {
                    directions[2] += 1;
                }
            }
            let gt = s(&t["ground_truth"]);
            match t["type"].as_str() {
                Some("dominant_category") => {
                    let top = design_counts.iter().max_by_key(|(_, n)| **n).map(|(d, _)| *d).expect("designs");
                    assert_eq!(gt, top, "{}", t["id"]);
                }
                Some("effect_direction") | Some("association_direction") => {
                    let winner = (0..3).max_by_key(|&k| directions[k]).expect("directions");
                    let word = ["reduces", "no", "increases"];
                    let alt = ["lower", "no consistent", "higher"];
                    assert!(
                        gt.contains(word[winner]) || gt.contains(alt[winner]),
                        "{}: {gt} vs {directions:?}",
                        t["id"]
                    );
                }
                _ => {}
            }
        }
    }
}
