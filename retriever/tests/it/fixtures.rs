//! Fixture corpora written by the tests (invented text, never copies of ../shared).

use std::path::Path;

use anser_manifest::{Domain, Language, Manifest, PublicTask, Route, Split, TaskGroup};

/// Write `(law, item, content)` rows as the JSONL corpus of `route` under `root`.
pub fn jsonl_corpus(root: &Path, route: Route, rows: &[(&str, &str, &str)]) {
    let file = root.join(&Manifest::get().route(route).file);
    fs_err::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    let lines: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(i, (law, item, content))| {
            serde_json::json!({"id": i + 1, "law_name": law, "item": item, "content": content}).to_string()
        })
        .collect();
    fs_err::write(&file, lines.join("\n") + "\n").expect("write");
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
