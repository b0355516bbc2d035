//! TREC export: canonical ids as the evaluator scores them, ranks and scores, qrels, encoding.

use anser_reports::trec::{export, trec_id};

use crate::fixture::{examples, fixture_dir, scored};

#[test]
fn run_and_qrels_use_canonical_ids() {
    let run = scored(&fixture_dir());
    let out = export(&run, &examples(), None).expect("exports");
    let lines: Vec<&str> = out.run.lines().collect();
    // legal_en descriptive: cluster ids repaired as the evaluator does (`1005` → `cluster_1005`).
    let legal: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with("legal_en_descriptive_1 ")).collect();
    assert_eq!(
        legal,
        [
            "legal_en_descriptive_1 Q0 cluster_1001 1 3 run_fixture",
            "legal_en_descriptive_1 Q0 cluster_1002 2 2 run_fixture",
            "legal_en_descriptive_1 Q0 cluster_1005 3 1 run_fixture",
        ]
    );
    // Objects reduce to their id; the finance_zh rule identity keeps its JSON (no whitespace).
    assert!(lines.contains(&"science_descriptive_1 Q0 7 1 2 run_fixture"));
    assert!(
        out.run.contains(
            "finance_zh_prescriptive_1 Q0 {\"item\":\"5.1.1条\",\"law\":\"示例股票上市规则\"} 1 1 run_fixture"
        )
    );
    assert!(out.qrels.contains("legal_en_descriptive_1 0 cluster_1005 1\n"));
    assert!(out.qrels.contains("finance_en_prescriptive_2 0 FACT-EXAMPLE0001 1\n"));
    assert_eq!(out.judged_tasks, 18, "every example task has gold evidence");
    assert_eq!(out.ranked_tasks + out.empty_tasks, 18);
    assert_eq!(out.empty_tasks, 5);
    for line in out.run.lines() {
        assert_eq!(line.split_whitespace().count(), 6, "{line}");
    }
    for line in out.qrels.lines() {
        assert_eq!(line.split_whitespace().count(), 4, "{line}");
    }
}

#[test]
fn whitespace_and_percent_are_encoded() {
    assert_eq!(trec_id("a b\tc%"), "a%20b%09c%25");
    assert_eq!(trec_id("（2023）示0101民初1号"), "（2023）示0101民初1号");
    assert_eq!(trec_id("a\u{3000}b"), "a%E3%80%80b", "ideographic space is whitespace too");
}

/// Recall@5 and Set Recall recomputed from the two TREC files equal the evaluator's, task by task.
#[test]
fn trec_files_reproduce_the_evaluators_recall() {
    use std::collections::{HashMap, HashSet};

    use anser_evaluator::Metric;

    let run = scored(&fixture_dir());
    let out = export(&run, &examples(), None).expect("exports");
    let mut ranked: HashMap<&str, Vec<(usize, &str)>> = HashMap::new();
    for line in out.run.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        ranked.entry(f[0]).or_default().push((f[3].parse().expect("rank"), f[2]));
    }
    let mut gold: HashMap<&str, HashSet<&str>> = HashMap::new();
    for line in out.qrels.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        gold.entry(f[0]).or_default().insert(f[2]);
    }
    let mut checked = 0;
    for task in &run.scores.as_ref().expect("scores").tasks {
        let mut docs = ranked.get(task.id.as_str()).cloned().unwrap_or_default();
        docs.sort();
        let docs: Vec<&str> = docs.into_iter().map(|(_, d)| d).collect();
        let g = &gold[task.id.as_str()];
        if let Some(want) = task.value(Metric::RecallAt5) {
            let hits = docs.iter().take(5).filter(|d| g.contains(*d)).count();
            assert_eq!(hits as f64 / g.len() as f64, want, "{}", task.id);
            checked += 1;
        }
        if let Some(want) = task.value(Metric::SetRecall) {
            let found: HashSet<&str> = docs.iter().copied().filter(|d| g.contains(d)).collect();
            assert_eq!(found.len() as f64 / g.len() as f64, want, "{}", task.id);
            checked += 1;
        }
    }
    assert_eq!(checked, 18, "every example task has one of the two");
}
