//! The run report on the fixture: the failure taxonomy task by task, the per-stage cost against
//! sums done by hand from the fixture's trace, a snapshot of the text (timings redacted) and the
//! HTML page's self-containment.

use anser_reports::{
    RunData, StatsParams, TextOptions,
    cost::STAGES,
    html::run_page,
    report::build,
    taxonomy::{FailureKind, taxonomy},
};

use crate::fixture::{fixture_dir, scored};

fn kinds_of(t: &anser_reports::taxonomy::Taxonomy, kind: FailureKind) -> (usize, Vec<String>) {
    t.total.kinds.get(&kind).map_or((0, vec![]), |k| (k.count, k.examples.clone()))
}

#[test]
fn taxonomy_classifies_each_outcome() {
    let run = scored(&fixture_dir());
    let t = taxonomy(&run);
    assert!(t.scored);
    assert_eq!(t.total.tasks, 18);
    assert_eq!(kinds_of(&t, FailureKind::Timeout), (1, vec!["finance_en_predictive_1".into()]));
    assert_eq!(kinds_of(&t, FailureKind::LlmError), (1, vec!["finance_zh_descriptive_1".into()]));
    assert_eq!(kinds_of(&t, FailureKind::ToolError), (1, vec!["legal_zh_descriptive_2".into()]));
    // Status unparseable, and an ok answer the evaluator cannot read as a number.
    assert_eq!(kinds_of(&t, FailureKind::Unparseable).0, 2);
    assert!(kinds_of(&t, FailureKind::Unparseable).1.contains(&"legal_zh_descriptive_1".to_string()));
    // A FinAuditing fact id in a RegBench (12 CFR 217) task.
    assert_eq!(kinds_of(&t, FailureKind::WrongRoute), (1, vec!["finance_en_prescriptive_1".into()]));
    assert_eq!(kinds_of(&t, FailureKind::Inconsistent), (1, vec!["finance_en_descriptive_2".into()]));
    // Timeout, LLM error, unparseable reply and tool error (no evidence), and the flagged science task.
    let (empty, _) = kinds_of(&t, FailureKind::EmptyEvidence);
    assert_eq!(empty, 5);
    // The statistic answered 3 instead of 1 (Accuracy@10% 0) and the wrong option B.
    let (wrong, ids) = kinds_of(&t, FailureKind::WrongValue);
    assert_eq!(wrong, 2, "{ids:?}");
    assert!(
        ids.contains(&"finance_zh_predictive_1".to_string()) && ids.contains(&"finance_en_descriptive_2".to_string())
    );
    let group = t.groups.iter().find(|g| g.group == "finance_en_prescriptive").expect("group");
    assert_eq!((group.tasks, group.failed), (2, 1));

    // Without scores, only what the records say.
    let unscored = RunData::open(&fixture_dir()).expect("opens");
    let t = taxonomy(&unscored);
    assert!(!t.scored);
    assert_eq!(kinds_of(&t, FailureKind::WrongValue).0, 0);
    assert_eq!(kinds_of(&t, FailureKind::Unparseable).0, 1);
}

#[test]
fn stage_cost_sums_the_trace() {
    let run = scored(&fixture_dir());
    let report = build(&run, &StatsParams::default()).expect("builds");
    assert!(report.cost.from_trace);
    let task = report.cost.tasks.iter().find(|t| t.id == "finance_en_descriptive_1").expect("task");
    let sql = STAGES.iter().position(|s| *s == anser_record::Stage::Sql).expect("sql");
    assert_eq!(task.stages[sql].calls, 2);
    assert!((task.stages[sql].seconds - 0.032).abs() < 1e-12);
    // finance_en_descriptive: retrieval 0.031 s and 0 s → mean 0.0155, p50 0.0155, p95 0.02945.
    let g = report.cost.groups.iter().find(|g| g.group == "finance_en_descriptive").expect("group");
    let retrieval = &g.stages[0].seconds;
    assert!((retrieval.mean - 0.0155).abs() < 1e-12 && (retrieval.p50 - 0.0155).abs() < 1e-12);
    assert!((retrieval.p95 - 0.02945).abs() < 1e-12, "{retrieval:?}");
    // LLM tokens: 128 per answered task with usage, 0 for the three without.
    let llm = &report.cost.total.stages[3];
    assert!((llm.tokens.mean - 128.0 * 15.0 / 18.0).abs() < 1e-9, "{llm:?}");
    assert_eq!(report.cost.total.tasks, 18);
}

#[test]
fn text_report_snapshot() {
    let run = scored(&fixture_dir());
    let report = build(&run, &StatsParams::default()).expect("builds");
    let text = report.render_text(TextOptions { redact_timings: true });
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_fixture.txt");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &text).expect("write snapshot");
    }
    let expected = std::fs::read_to_string(&path).expect("snapshot exists (UPDATE_SNAPSHOTS=1 writes it)");
    assert_eq!(text, expected, "the text report changed; review and rerun with UPDATE_SNAPSHOTS=1");
    assert!(!text.contains("/nonexistent-corpus") && !text.contains("2027-01-15"), "machine-specific values redacted");
    let full = report.render_text(TextOptions::default());
    assert!(full.contains("created_at: 2027-01-15T10:00:00Z"));
}

#[test]
fn html_page_is_self_contained() {
    let run = scored(&fixture_dir());
    let report = build(&run, &StatsParams::default()).expect("builds");
    let html = run_page(&report).expect("renders");
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    for section in
        ["Metrics by task group", "Latency", "Token usage", "Failure taxonomy", "Per-stage cost", "Run metadata"]
    {
        assert!(html.contains(&format!("<h2>{section}")), "{section} missing");
    }
    assert!(html.matches("<svg").count() >= 5, "charts are inline SVG");
    for external in ["<script", "<link", "src=", "@import", "url("] {
        assert!(!html.contains(external), "external asset: {external}");
    }
    let hrefs = html.match_indices("href=").count();
    assert_eq!(hrefs, 0);
    assert!(html.contains("evidence from a wrong route") && html.contains("finance_en_prescriptive_1"));
    // Every `http` is an SVG namespace declaration, not something to fetch.
    for (i, _) in html.match_indices("http") {
        assert!(
            html[..i].ends_with("xmlns=\"") || html[..i].ends_with("xmlns:xlink=\""),
            "{}",
            &html[i.saturating_sub(40)..i + 40]
        );
    }
}
