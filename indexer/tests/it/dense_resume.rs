//! Dense builds in batches: order kept with several API requests in flight, and a build that
//! fails part-way (an injected embedder fault) resumes from its checkpoint without embedding a
//! finished batch again, ending with the same vectors as an uninterrupted build.

use std::path::{Path, PathBuf};

use anser_indexer::{ApiEmbedder, BuildOptions, DenseParams, build_route, checkpoint::DenseCheckpoint, route_dir};
use anser_llm::{
    ApiKey, EndpointConfig,
    mock::{MockConfig, MockServer},
};
use anser_manifest::Route;

use crate::fixtures::rules_corpus;

type Recording = crate::recording::Recording<ApiEmbedder>;

/// 45 synthetic rules with distinct texts.
fn corpus(root: &Path) {
    let rules: Vec<(String, String, String)> = (0..45)
        .map(|i| {
            (format!("办法{}", i % 7), format!("{i}条"), format!("第{i}条规定：上市公司应当在{i}日内披露事项{i}。"))
        })
        .collect();
    let refs: Vec<(&str, &str, &str)> = rules.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())).collect();
    rules_corpus(root, &refs);
}

/// A mock API server answering with `config`, a temporary folder and the 45-rule corpus in it.
fn setup(config: MockConfig) -> (MockServer, tempfile::TempDir, PathBuf) {
    let server = MockServer::start(config).expect("mock");
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().join("corpus");
    corpus(&root);
    (server, tmp, root)
}

fn embedder(server: &MockServer) -> ApiEmbedder {
    let endpoint = EndpointConfig::new(&server.base_url(), "mock-embed", ApiKey::none()).expect("endpoint");
    ApiEmbedder::new(endpoint, Some(8)).expect("embedder")
}

fn opts(batch: usize, concurrency: usize) -> BuildOptions {
    BuildOptions { dense: DenseParams::new(batch, concurrency).expect("params"), ..BuildOptions::default() }
}

fn vectors(index: &Path) -> Vec<u8> {
    fs_err::read(route_dir(index, Route::FinanceZhRules).join("dense/vectors.f32")).expect("vectors")
}

#[test]
fn concurrent_batches_keep_unit_order() {
    let (server, tmp, root) = setup(MockConfig::instant().with_delay(std::time::Duration::from_millis(5)));
    let (one, four) = (tmp.path().join("one"), tmp.path().join("four"));
    let e = Recording::new(embedder(&server), None);
    let r1 = build_route(&one, &root, Route::FinanceZhRules, &opts(4, 1), Some(&e)).expect("concurrency 1");
    let r4 = build_route(&four, &root, Route::FinanceZhRules, &opts(4, 4), Some(&e)).expect("concurrency 4");
    assert_eq!((r1.dense.embedded_batches, r4.dense.embedded_batches), (12, 12), "45 units in batches of 4");
    assert_eq!(vectors(&one), vectors(&four), "the same vector on the same unit whatever order batches finish in");
    assert!(e.batches().iter().all(|b| b.len() <= 4));
    assert!(e.embed_seconds() > 0.0, "the embedding span is recorded");
    assert!(!DenseCheckpoint::path_for(&one, Route::FinanceZhRules.as_str()).exists(), "removed after the build");
}

#[test]
fn an_interrupted_build_resumes_from_its_checkpoint() {
    let (server, tmp, root) = setup(MockConfig::instant());
    let clean = tmp.path().join("clean");
    build_route(&clean, &root, Route::FinanceZhRules, &opts(4, 1), Some(&embedder(&server))).expect("clean");

    for concurrency in [1, 3] {
        let idx = tmp.path().join(format!("resumed-{concurrency}"));
        let failing = Recording::new(embedder(&server), Some(6));
        let err = build_route(&idx, &root, Route::FinanceZhRules, &opts(4, concurrency), Some(&failing))
            .expect_err("the injected fault stops the build");
        assert!(err.to_string().contains("injected fault"), "{err}");
        assert!(!route_dir(&idx, Route::FinanceZhRules).exists(), "no half-built index in place");
        let finished = failing.batches();
        assert!(finished.len() >= 5, "{concurrency}: {} batches finished before the fault", finished.len());
        let checkpoint = DenseCheckpoint::path_for(&idx, Route::FinanceZhRules.as_str());
        // A crash in the middle of the next record leaves a torn tail; it is dropped.
        let mut bytes = fs_err::read(&checkpoint).expect("checkpoint");
        bytes.extend_from_slice(&[0x41, 0x4e, 0x43, 0x4b, 1, 2, 3]);
        fs_err::write(&checkpoint, bytes).expect("tear");

        let resumed = Recording::new(embedder(&server), None);
        let report = build_route(&idx, &root, Route::FinanceZhRules, &opts(4, concurrency), Some(&resumed))
            .expect("resumed build");
        let again = resumed.batches();
        for batch in &finished {
            assert!(!again.contains(batch), "{concurrency}: finished batch {batch:?} was embedded again");
        }
        assert_eq!(report.dense.resumed_batches as usize, finished.len(), "{concurrency}");
        assert_eq!(report.dense.embedded_batches as usize, 12 - finished.len(), "{concurrency}");
        assert_eq!(again.len() + finished.len(), 12, "{concurrency}: every batch embedded exactly once overall");
        assert_eq!(vectors(&idx), vectors(&clean), "{concurrency}: same vectors as an uninterrupted build");
        assert!(!checkpoint.exists(), "{concurrency}: checkpoint removed once the index is in place");
    }
}

#[test]
fn a_checkpoint_of_another_embedder_is_not_reused() {
    let (server, tmp, root) = setup(MockConfig::instant());
    let idx = tmp.path().join("idx");
    let failing = Recording::new(embedder(&server), Some(4));
    build_route(&idx, &root, Route::FinanceZhRules, &opts(4, 1), Some(&failing)).expect_err("fault");
    // Another dimension is another model: its vectors must not mix with these.
    let endpoint = EndpointConfig::new(&server.base_url(), "mock-embed", ApiKey::none()).expect("endpoint");
    let other = Recording::new(ApiEmbedder::new(endpoint, Some(16)).expect("embedder"), None);
    let report = build_route(&idx, &root, Route::FinanceZhRules, &opts(4, 1), Some(&other)).expect("build");
    assert_eq!((report.dense.resumed_batches, report.dense.embedded_batches), (0, 12));
    assert_eq!(vectors(&idx).len(), 45 * 16 * 4);
}

#[test]
fn a_checkpoint_of_another_numeric_layout_is_not_reused() {
    let (server, tmp, root) = setup(MockConfig::instant());
    let idx = tmp.path().join("idx");
    let failing = Recording::new(embedder(&server), Some(4)).with_layout("threads=1 sessions=1");
    build_route(&idx, &root, Route::FinanceZhRules, &opts(4, 1), Some(&failing)).expect_err("fault");
    assert_eq!(failing.batches().len(), 3, "three batches checkpointed before the fault");
    // Other threads sum floats in another order: the vectors may differ in their low bits, so
    // the checkpoint of the first layout must not be mixed into this build.
    let other = Recording::new(embedder(&server), None).with_layout("threads=2 sessions=1");
    let report = build_route(&idx, &root, Route::FinanceZhRules, &opts(4, 1), Some(&other)).expect("build");
    assert_eq!((report.dense.resumed_batches, report.dense.embedded_batches), (0, 12));
}
