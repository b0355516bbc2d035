//! The tools on the generated sample (crate anser-samples): every SQLite route opens under the
//! guard with the sample's ground-truth rows invisible, every sample task's boundary parses, its
//! gold answers of structured form validate and its gold evidence shapes and exists among the
//! visible rows, and the generator's own statistics (written separately on purpose) agree with
//! the tools' Fisher convention.

use std::sync::OnceLock;

use anser_agent::tools::{
    answer::{AnswerSpec, answer_spec, check_existence, shape_evidence, validate_answer},
    boundary::{self, Boundary},
    compute::stats::{BinaryAssociation, Convention, SplitMix64, TwoByTwo, round6},
    sql::{GuardedDb, SqlParams},
};
use anser_gold::Benchmark;
use anser_manifest::{CorpusFormat, EvidenceMetric, Manifest, Route};
use anser_samples::{SampleOptions, SampleSummary, generate};
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;
use tempfile::TempDir;

/// The small sample, generated once per test run.
pub(crate) fn sample() -> &'static (TempDir, SampleSummary) {
    static SAMPLE: OnceLock<(TempDir, SampleSummary)> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let dir = TempDir::new().expect("tempdir");
        let summary = generate(&SampleOptions::default(), &dir.path().join("sample")).expect("sample generates");
        (dir, summary)
    })
}

fn raw_count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).expect("raw count")
}

#[test]
fn sample_routes_open_and_hide_their_ground_truth() {
    let (_dir, summary) = sample();
    for spec in Manifest::get().routes().filter(|s| s.format == CorpusFormat::Sqlite) {
        let path = summary.corpus_dir().join(&spec.file);
        let db = GuardedDb::open(&path, spec.route, None, SqlParams::default()).expect("sample route opens");
        let schema = db.schema(2).expect("schema");
        assert_eq!(schema.tables.len(), spec.schema.tables.len());
        let Some(ex) = &spec.exclude else { continue };
        let raw = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("raw");
        let hidden =
            raw_count(&raw, &format!("SELECT count(*) FROM {} WHERE {} = '{}'", ex.table, ex.column, ex.value));
        assert!(hidden > 0, "{}: the sample has ground-truth rows", spec.route);
        let visible =
            raw_count(&raw, &format!("SELECT count(*) FROM {} WHERE {} IS NOT '{}'", ex.table, ex.column, ex.value));
        let seen = db.query(&format!("SELECT count(*) FROM {}", ex.table)).expect("count").rows[0][0].clone();
        assert_eq!(seen, Value::from(visible), "{}", spec.route);
        let child = if spec.route == Route::FinanceZhReports { "report_chunks" } else { "sections" };
        let kept = raw_count(
            &raw,
            &format!(
                "SELECT count(*) FROM {child} WHERE {k} IN (SELECT {k} FROM {t} WHERE {c} IS NOT '{v}')",
                k = ex.key,
                t = ex.table,
                c = ex.column,
                v = ex.value
            ),
        );
        let seen = db.query(&format!("SELECT count(*) FROM {child}")).expect("count").rows[0][0].clone();
        assert_eq!(seen, Value::from(kept), "{}: {child}", spec.route);
    }
}

#[test]
fn sample_tasks_parse_validate_and_shape() {
    let (_dir, summary) = sample();
    let bench = Benchmark::load(&summary.query_dir()).expect("sample tasks load");
    let corpus = summary.corpus_dir();
    let mut structured = 0;
    for task in bench.tasks() {
        Boundary::from_task(task).unwrap_or_else(|e| panic!("{e}"));
        let reference = bench.reference(&task.id).expect("reference");
        if !matches!(answer_spec(task), AnswerSpec::Text { .. }) {
            validate_answer(task, &reference.ground_truth)
                .unwrap_or_else(|e| panic!("{}: gold {} rejected: {e}", task.id, reference.ground_truth));
            structured += 1;
        }
        let evidence = reference.evidence.as_array().cloned().unwrap_or_default();
        let mut shaped = shape_evidence(task, &evidence).expect("resolves");
        assert!(shaped.rejected.is_empty(), "{}: {:?}", task.id, shaped.rejected);
        // Population evidence (counted cases, companies) must be visible rows of the route.
        let spec = Manifest::get().route(task.route);
        if shaped.metric == EvidenceMetric::Population && spec.format == CorpusFormat::Sqlite {
            let db = GuardedDb::for_task(&corpus, task, SqlParams::default()).expect("opens");
            check_existence(&mut shaped, &db).expect("checks");
            assert!(shaped.unknown.is_empty(), "{}: {:?}", task.id, &shaped.unknown[..shaped.unknown.len().min(3)]);
        }
    }
    assert!(structured > 0);
}

#[test]
fn generator_statistics_agree_with_the_fisher_convention() {
    let mut rng = SplitMix64::new(11);
    for _ in 0..300 {
        let mut c = [0u64; 4];
        for v in &mut c {
            *v = rng.below(40) as u64;
        }
        if c[0] + c[1] == 0 || c[2] + c[3] == 0 {
            continue;
        }
        let t = TwoByTwo { x1_y1: c[0], x1_y0: c[1], x0_y1: c[2], x0_y0: c[3] };
        let ours = BinaryAssociation::new(t).expect("stats");
        let (or, p) = ours.reported(Convention::RawFisher);
        let theirs = anser_samples::stats::binary_association(c[0], c[1], c[2], c[3]);
        assert_eq!(round6(or), round6(theirs.odds_ratio), "{t:?}");
        assert_eq!(round6(p), round6(theirs.p_value), "{t:?}");
    }
}

#[test]
fn legal_zh_registry_lists_each_keys_most_frequent_values() {
    let (_dir, summary) = sample();
    let path = summary.corpus_dir().join(&Manifest::get().route(Route::LegalZhCases).file);
    let db = GuardedDb::open(&path, Route::LegalZhCases, None, SqlParams::default()).expect("opens");
    let registry = db.schema(0).expect("schema").feature_registry.expect("registry");
    assert!(registry.entries.len() > 10);
    let raw = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("raw");
    for entry in &registry.entries {
        // Independently: one GROUP BY per key, the 8 (TOP_FEATURE_VALUES) most frequent first,
        // ties by value (the sample's values are short, so none is shortened in the report).
        let mut stmt = raw
            .prepare(
                "SELECT feature_value, count(*) FROM case_features WHERE feature_key = ?1 \
                 GROUP BY feature_value ORDER BY count(*) DESC, feature_value LIMIT 8",
            )
            .expect("prepare");
        let want: Vec<(String, u64)> = stmt
            .query_map([&entry.key], |r| Ok((r.get::<_, Option<String>>(0)?, r.get::<_, i64>(1)?)))
            .expect("query")
            .map(|r| r.expect("row"))
            .map(|(v, n)| (v.unwrap_or_else(|| "NULL".into()), n as u64))
            .collect();
        assert_eq!(entry.top_values, want, "{}", entry.key);
    }
}

/// Science tasks state a publication window; articles outside it are neither searchable nor
/// openable (the JSONL counterpart of the SQL views that hide rows after a cutoff).
#[test]
fn science_boundaries_hold_for_search_and_open() {
    use std::{collections::HashMap, sync::Arc};

    use anser_agent::method::{RetrieverSearcher, Searcher, record::open_record};
    use anser_retriever::{Engine, Retriever, SpecRetriever};

    let (dir, _) = sample();
    let root = dir.path().join("sample");
    let corpus = root.join("corpus");
    let bench = Benchmark::load(&root.join("query")).expect("sample tasks");
    let years: HashMap<String, String> = std::fs::read_to_string(corpus.join("science/articles.jsonl"))
        .expect("articles")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| Some((boundary::date_text(&r["ID"])?, boundary::date_text(&r["year"])?)))
        .collect();
    let index_dir = dir.path().join("science-index");
    anser_indexer::build_route(&index_dir, &corpus, Route::ScienceArticles, &Default::default(), None)
        .expect("science index");
    let engine = Arc::new(Engine::new(&index_dir, Some(&corpus)));
    let spec = || "bm25".parse().expect("spec");
    let bounded = RetrieverSearcher::new(SpecRetriever::new(engine.clone(), spec()));
    // Not bound to a task: no boundary.
    let unbounded = SpecRetriever::new(engine, spec());

    let mut checked = 0;
    let mut outside_without_filter = 0;
    for task in bench.tasks().iter().filter(|t| t.route == Route::ScienceArticles) {
        let Some(boundary) = Boundary::from_task(task).expect("boundary parses") else { continue };
        let admitted = |id: &str| years.get(id).is_some_and(|y| boundary.cutoff.admits(y));
        for hit in bounded.search(task, &task.query, 20).expect("search") {
            let id = hit.unit.split(':').next().unwrap_or_default().to_string();
            assert!(admitted(&id), "{}: hit {id} (year {:?}) outside {:?}", task.id, years.get(&id), boundary.cutoff);
            checked += 1;
        }
        for hit in unbounded.search(task.route, &task.query, 20).expect("search") {
            let id = hit.record_id;
            if !admitted(&id) {
                outside_without_filter += 1;
                let err = open_record(&corpus, task, None, &id).expect_err("outside the boundary");
                assert!(err.to_string().contains("information boundary"), "{err}");
            } else {
                assert!(open_record(&corpus, task, None, &id).expect("open").is_some(), "{id}");
            }
        }
    }
    assert!(checked > 0, "bounded searches returned hits");
    assert!(outside_without_filter > 0, "the sample holds out-of-window articles the filter must drop");
}
