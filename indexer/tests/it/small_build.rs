//! A small route's BM25 index is written without tantivy's writer threads, merges or per-file
//! syncs: by one thread into one segment, or with more threads into one segment per thread when
//! its text is large enough (`PARALLEL_BUILD_BYTES` per segment). Either ranks exactly as the
//! threaded writer's segments do: the same ids and the same scores for every task of the route,
//! as the statistics and the ordinal tie-break make the score independent of how documents fall
//! into segments.

use anser_indexer::{Analyzer, Bm25Params, BuildOptions, RouteIndex, UnitFilter, build_route};
use anser_manifest::{Route, load_public_tasks};
use anser_samples::{SampleOptions, generate};

#[test]
fn small_builds_rank_as_the_threaded_writer() {
    let tmp = tempfile::tempdir().expect("tmp");
    let summary = generate(&SampleOptions::default(), &tmp.path().join("sample")).expect("sample");
    let tasks = load_public_tasks(&summary.query_dir()).expect("tasks");
    for (route, analyzer) in [(Route::FinanceZhReports, Analyzer::ZhBigram), (Route::LegalEnCases, Analyzer::EnStem)] {
        let build = |name: &str, small_build_bytes: usize, threads: usize| {
            let idx = tmp.path().join(name);
            let opts = BuildOptions { analyzers: vec![analyzer], threads, small_build_bytes, ..Default::default() };
            build_route(&idx, &summary.corpus_dir(), route, &opts, None).expect("build");
            RouteIndex::open(&idx, route, None).expect("open")
        };
        let small = build("small", anser_indexer::DEFAULT_SMALL_BUILD_BYTES, 1);
        let (small_bm25, _) = small.bm25(Some(analyzer)).expect("bm25");
        assert_eq!(small_bm25.searcher().segment_readers().len(), 1, "{route}: one segment");
        let parallel = build("parallel", anser_indexer::DEFAULT_SMALL_BUILD_BYTES, 2);
        let (parallel_bm25, _) = parallel.bm25(Some(analyzer)).expect("bm25");
        // The sample's routes have more than `PARALLEL_BUILD_BYTES` of text.
        assert_eq!(parallel_bm25.searcher().segment_readers().len(), 2, "{route}: a segment per thread");
        // How tantivy's two writer threads share the documents is up to the scheduler: on a
        // loaded machine one thread can take them all. Build again (at most five times) until
        // the index has several segments, which is what the comparison is about.
        let threaded = (0..5)
            .map(|attempt| build(&format!("threaded-{attempt}"), 0, 2))
            .find(|index| index.bm25(Some(analyzer)).expect("bm25").0.searcher().segment_readers().len() > 1)
            .unwrap_or_else(|| panic!("{route}: the threaded writer made one segment in five builds"));
        let (threaded_bm25, _) = threaded.bm25(Some(analyzer)).expect("bm25");
        assert_eq!(small_bm25.num_docs(), threaded_bm25.num_docs());
        assert_eq!(small_bm25.num_docs(), parallel_bm25.num_docs());
        let params = Bm25Params::default();
        let mut compared = 0;
        for task in tasks.iter().filter(|t| t.route == route) {
            let q = format!("{}\n{}", task.query, task.instruction);
            let a = small_bm25.search_filtered(&q, 10, &params, &UnitFilter::none()).expect("small");
            let b = threaded_bm25.search_filtered(&q, 10, &params, &UnitFilter::none()).expect("threaded");
            let c = parallel_bm25.search_filtered(&q, 10, &params, &UnitFilter::none()).expect("parallel");
            let key = |v: &[anser_indexer::Scored]| v.iter().map(|s| (s.ord, s.score.to_bits())).collect::<Vec<_>>();
            assert_eq!(key(&a), key(&b), "{route}: {q:?}");
            assert_eq!(key(&a), key(&c), "{route}: {q:?}");
            compared += usize::from(!a.is_empty());
        }
        assert!(compared >= 5, "{route}: {compared} queries with hits");
    }
}
