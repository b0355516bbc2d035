//! Fixture corpora written by the tests (invented text, never copies of ../shared).

use std::sync::Arc;

use anser_indexer::ApiEmbedder;
use anser_llm::{
    ApiKey, EndpointConfig,
    mock::{MockConfig, MockServer},
};
use anser_manifest::{Domain, Language, PublicTask, Route, Split, TaskGroup};

#[path = "../../../indexer/tests/it/law_corpus.rs"]
mod law_corpus;

pub use law_corpus::law_corpus;

/// The loopback mock LLM server and a 16-dimension API embedder on it (the server must outlive
/// the embedder's calls).
pub fn mock_embedder() -> (MockServer, Arc<ApiEmbedder>) {
    let server = MockServer::start(MockConfig::instant()).expect("mock");
    let endpoint = EndpointConfig::new(&server.base_url(), "mock-embed", ApiKey::none()).expect("endpoint");
    let embedder = Arc::new(ApiEmbedder::new(endpoint, Some(16)).expect("embedder"));
    (server, embedder)
}

pub const RULES: &[(&str, &str, &str)] = &[
    ("上市公司信息披露办法", "3条", "上市公司应当在会计年度结束后一个月内披露业绩预告。"),
    ("上市公司信息披露办法", "4条", "业绩预告披露后发现差异较大的，应当及时披露业绩预告更正公告。"),
    ("证券交易所股票上市规则", "7.2条", "上市公司回购股份应当经董事会审议并及时公告回购方案。"),
];

pub const STATUTES: &[(&str, &str, &str)] = &[
    ("民法典", "第一条", "为了保护民事主体的合法权益，调整民事关系，制定本法。"),
    ("公司法", "第十条", "公司回购股份应当经董事会或者股东会决议。"),
];

/// A public task of finance_zh_prescriptive (route finance_zh_rules).
pub fn rules_task() -> PublicTask {
    PublicTask {
        id: "t1".into(),
        group: TaskGroup { domain: Domain::Finance, language: Language::Zh, split: Split::Prescriptive },
        task_type: None,
        query: "公司回购股份需要谁审议？".into(),
        instruction: "请给出依据。".into(),
        route: Route::FinanceZhRules,
        source_file: "finance/zh/prescriptive.json".into(),
    }
}
