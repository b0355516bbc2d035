//! Fixture corpora: files written by the tests themselves, never copies of ../shared.

use std::path::{Path, PathBuf};

use anser_indexer::{BuildOptions, BuildReport, Embedder, RouteIndex, build_route};
use anser_manifest::{Manifest, Route};
use rusqlite::Connection;

/// Synthetic regulatory rules (invented text in the release's shape).
pub const RULES: &[(&str, &str, &str)] = &[
    ("上市公司信息披露办法", "3条", "上市公司应当在会计年度结束后一个月内披露业绩预告。"),
    ("上市公司信息披露办法", "4条", "业绩预告披露后发现差异较大的，应当及时披露业绩预告更正公告。"),
    ("证券交易所股票上市规则", "5.1.1条", "上市公司预计年度经营业绩将出现亏损或者扭亏为盈的，应当进行业绩预告。"),
    ("证券交易所股票上市规则", "7.2条", "上市公司回购股份应当经董事会审议并及时公告回购方案。"),
    ("收购管理办法", "14条", "投资者拥有权益的股份达到已发行股份的5%时，应当在3日内编制权益变动报告书。"),
];

/// A temporary folder holding the `RULES` corpus root (`corpus/`) and the path of an index
/// beside it (`idx/`, not built yet): (folder, corpus root, index).
pub fn rules_fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    rules_corpus(&corpus, RULES);
    let idx = tmp.path().join("idx");
    (tmp, corpus, idx)
}

/// Build `route` of the corpus root `corpus` into `idx`, then open the index.
pub fn build_and_open(
    idx: &Path,
    corpus: &Path,
    route: Route,
    opts: &BuildOptions,
    embedder: Option<&dyn Embedder>,
) -> (BuildReport, RouteIndex) {
    let report = build_route(idx, corpus, route, opts, embedder).expect("build");
    (report, RouteIndex::open(idx, route, None).expect("open"))
}

/// Write the rules as a corpus root holding `finance/zh/regulatory_rules.jsonl`.
pub fn rules_corpus(root: &Path, rules: &[(&str, &str, &str)]) -> PathBuf {
    crate::law_corpus::law_corpus(root, Route::FinanceZhRules, rules)
}

/// A temporary folder with an empty SQLite corpus of `route` under `corpus/` and the path of an
/// index beside it (`idx/`, not built yet): (folder, corpus root, index, open connection).
pub fn sqlite_fixture(route: Route) -> (tempfile::TempDir, PathBuf, PathBuf, Connection) {
    let tmp = tempfile::tempdir().expect("tmp");
    let corpus = tmp.path().join("corpus");
    let (_, conn) = sqlite_corpus(&corpus, route);
    let idx = tmp.path().join("idx");
    (tmp, corpus, idx, conn)
}

/// Create an empty SQLite corpus of `route` with the manifest's tables and declared types.
pub fn sqlite_corpus(root: &Path, route: Route) -> (PathBuf, Connection) {
    let spec = Manifest::get().route(route);
    let file = root.join(&spec.file);
    fs_err::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    let conn = Connection::open(&file).expect("open");
    for t in &spec.schema.tables {
        let cols: Vec<String> = t.columns.iter().map(|c| format!("\"{}\" {}", c.name, c.decl_type)).collect();
        let pk: Vec<String> = {
            let mut pk: Vec<_> = t.columns.iter().filter(|c| c.pk > 0).collect();
            pk.sort_by_key(|c| c.pk);
            pk.iter().map(|c| format!("\"{}\"", c.name)).collect()
        };
        let pk = if pk.is_empty() { String::new() } else { format!(", PRIMARY KEY ({})", pk.join(", ")) };
        conn.execute_batch(&format!("CREATE TABLE \"{}\" ({}{pk});", t.name, cols.join(", "))).expect("create");
    }
    (file, conn)
}
