//! The release size: its task counts equal the real release's files, its row counts follow the
//! corpus card, and a scaled-down release (never the full one: that is for benchmarks) scales
//! every count, keeps the release's text shapes and is byte-identical for a seed.

use std::collections::BTreeMap;

use anser_samples::{DEFAULT_SEED, Error, RELEASE_TASKS, SampleOptions, Scale, Size, generate, release_task_count};
use rusqlite::Connection;
use serde_json::Value;

use crate::{
    common::{sample, tempdir},
    determinism::hashes,
};

/// Small enough for a test (a few seconds), large enough that every count is above its floor.
const FRACTION: f64 = 0.002;

fn release(fraction: f64) -> SampleOptions {
    SampleOptions { seed: DEFAULT_SEED, size: Size::Release, fraction, progress: false }
}

/// Group name of a release task file (`finance/zh/descriptive.json` → `finance_zh_descriptive`).
fn group_of(rel: &str) -> String {
    let parts: Vec<&str> = rel.trim_end_matches(".json").split('/').collect();
    match parts.as_slice() {
        ["science", split] => format!("science_en_{split}"),
        [domain, lang, split] => format!("{domain}_{lang}_{split}"),
        _ => panic!("unexpected task file {rel}"),
    }
}

#[test]
fn release_task_counts_equal_the_release_files() {
    let Some(shared) = anser_manifest::shared_dir_or_skip("release task counts") else { return };
    let query = shared.join("anser/query");
    let mut found: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    for rel in [
        "finance/en/descriptive.json",
        "finance/en/predictive.json",
        "finance/en/prescriptive.json",
        "finance/zh/descriptive.json",
        "finance/zh/predictive.json",
        "finance/zh/prescriptive.json",
        "legal/en/descriptive.json",
        "legal/en/predictive.json",
        "legal/en/prescriptive.json",
        "legal/zh/descriptive.json",
        "legal/zh/predictive.json",
        "legal/zh/prescriptive.json",
        "science/descriptive.json",
        "science/predictive.json",
    ] {
        let text = std::fs::read_to_string(query.join(rel)).expect("release task file");
        let tasks: Vec<Value> = serde_json::from_str(&text).expect("release task JSON");
        let mut types: Vec<(String, usize)> = Vec::new();
        for t in &tasks {
            let ty = t["type"].as_str().unwrap_or("null").to_string();
            match types.iter_mut().find(|(name, _)| *name == ty) {
                Some((_, n)) => *n += 1,
                None => types.push((ty, 1)),
            }
        }
        found.insert(group_of(rel), types);
    }
    let ours: BTreeMap<String, Vec<(String, usize)>> = RELEASE_TASKS
        .iter()
        .map(|(g, types)| (g.to_string(), types.iter().map(|(t, n)| (t.to_string(), *n)).collect()))
        .collect();
    assert_eq!(ours, found);
    assert_eq!(ours.values().flatten().map(|(_, n)| n).sum::<usize>(), 2235);
}

#[test]
fn full_release_counts_follow_the_corpus_card() {
    let r = Scale::RELEASE;
    assert_eq!((r.zh_companies, r.en_companies), (2001, 1000));
    assert_eq!((r.zh_cases, r.en_cases, r.precedents), (18_423, 12_708, 5000));
    assert_eq!(r.science_articles, Some(140_585));
    assert!(r.science_topics * r.articles_per_topic >= 140_585);
    // The rule collections are the cited rows plus extras: the cited rows are what the small
    // sample writes beyond its extras.
    let rows = &sample().corpus_rows;
    let s = Scale::SMALL;
    let total =
        |route: &str, small_extra: usize, release_extra: usize| rows[route] as usize - small_extra + release_extra;
    assert_eq!(total("finance_en_capital_rules", s.cfr_extra_paragraphs, r.cfr_extra_paragraphs), 3329);
    assert_eq!(total("finance_zh_rules", s.zh_rule_extra, r.zh_rule_extra), 216);
    assert_eq!(total("legal_zh_statutes", s.statute_extra, r.statute_extra), 55_348);
}

#[test]
fn a_scaled_release_scales_every_count_and_is_deterministic() {
    let (a, b) = (tempdir(), tempdir());
    let sa = generate(&release(FRACTION), &a.path().join("r")).expect("scaled release");
    let sb = generate(&release(FRACTION), &b.path().join("r")).expect("scaled release again");
    assert_eq!(hashes(&sa.out_dir), hashes(&sb.out_dir), "same seed and fraction, same bytes");
    assert_eq!(sa.fraction, FRACTION);

    // Tasks: the release's types, each scaled (at least one).
    for (group, types) in RELEASE_TASKS {
        let want: usize = types.iter().map(|(t, _)| release_task_count(group, t, FRACTION)).sum();
        assert_eq!(sa.tasks.get(*group).copied(), Some(want), "{group}");
    }
    // Rows that have no floor scale with the fraction.
    let scaled = |n: usize| (n as f64 * FRACTION).round() as u64;
    let r = Scale::RELEASE;
    assert_eq!(sa.corpus_rows["legal_en_precedents"], scaled(r.precedents));
    assert_eq!(sa.corpus_rows["science_articles"], scaled(140_585));
    let small = &sample().corpus_rows;
    let cited = small["legal_zh_statutes"] - Scale::SMALL.statute_extra as u64;
    assert_eq!(sa.corpus_rows["legal_zh_statutes"], cited + scaled(r.statute_extra));

    // Report text at the official chunking: no chunk above 1,200 characters, and the release's
    // ≈ 11.8 chunks per report (the small sample has fewer than 8).
    let db = Connection::open(sa.corpus_dir().join("finance/zh/finance_reports.sqlite")).expect("open");
    let (reports, chunks, longest): (i64, i64, i64) = db
        .query_row(
            "SELECT (SELECT COUNT(*) FROM reports), COUNT(*), MAX(LENGTH(chunk_text)) FROM report_chunks",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .expect("chunk counts");
    assert!(longest <= 1200, "longest chunk {longest}");
    let per_report = chunks as f64 / reports as f64;
    assert!((10.5..12.5).contains(&per_report), "{per_report} chunks per report");

    // Science lengths follow the real sample: median near 1,700 characters, a long tail.
    let text = std::fs::read_to_string(sa.corpus_dir().join("science/articles.jsonl")).expect("articles");
    let mut lens: Vec<usize> = text
        .lines()
        .map(|l| {
            let a: Value = serde_json::from_str(l).expect("article");
            let sections: usize = a["sections"]
                .as_array()
                .map_or(0, |s| s.iter().map(|x| x["text"].as_str().map_or(0, |t| t.chars().count())).sum());
            a["abstract"].as_str().map_or(0, |t| t.chars().count()) + sections
        })
        .collect();
    lens.sort_unstable();
    let median = lens[lens.len() / 2];
    let p90 = lens[lens.len() * 9 / 10];
    assert!((1300..2300).contains(&median), "median article length {median}");
    assert!(p90 > 15_000, "p90 article length {p90}");
}

#[test]
fn fractions_outside_the_unit_interval_or_on_fixed_sizes_are_refused() {
    let dir = tempdir();
    for options in
        [release(0.0), release(1.5), release(f64::NAN), SampleOptions { fraction: 0.5, ..SampleOptions::default() }]
    {
        let err = generate(&options, &dir.path().join("x")).expect_err("refused");
        assert!(matches!(err, Error::Options(_)), "{err}");
        assert!(err.is_user_error());
        assert!(!dir.path().join("x").exists(), "nothing written");
    }
}
