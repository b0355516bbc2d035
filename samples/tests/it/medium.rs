//! The medium sample (benchmark scale) passes the schema check and loads; ignored by default
//! because it writes about 280 MiB (run with `cargo test -p anser-samples --test it -- --ignored`).

use anser_gold::Benchmark;
use anser_manifest::{RouteStatus, check_corpus};
use anser_samples::{SampleOptions, Size, generate};

use crate::common::tempdir;

#[test]
#[ignore = "writes ~280 MiB; run explicitly"]
fn medium_sample_meets_the_benchmark_floor() {
    let dir = tempdir();
    let s = generate(&SampleOptions { seed: 3, size: Size::Medium, ..Default::default() }, &dir.path().join("m"))
        .expect("medium sample");
    let report = check_corpus(&s.corpus_dir(), &[]).expect("corpus");
    for r in &report.routes {
        assert_eq!(r.status, RouteStatus::Ok, "{}: {:?}", r.route, r.problems);
    }
    let rows = |route: &str, table: &str| -> u64 {
        report
            .routes
            .iter()
            .find(|r| r.route.as_str() == route)
            .and_then(|r| r.tables.iter().find(|t| t.name == table))
            .map_or(0, |t| t.rows)
    };
    assert!(rows("legal_zh_cases", "cases") >= 20_000);
    assert!(rows("legal_en_cases", "case_record") >= 20_000);
    assert!(rows("finance_zh_reports", "report_chunks") >= 100_000);
    let articles = report.routes.iter().find(|r| r.route.as_str() == "science_articles").and_then(|r| r.records);
    assert!(articles >= Some(10_000));
    let bench = Benchmark::load(&s.query_dir()).expect("tasks");
    assert!(bench.tasks().len() >= 14 * 20);
}
