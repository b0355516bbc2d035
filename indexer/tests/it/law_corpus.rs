//! A JSONL law corpus (`finance_zh_rules`, `legal_zh_statutes`: `id`, `law_name`, `item`,
//! `content`) written from `(law, item, content)` rows. Shared by the indexer's fixtures and the
//! retriever's (`retriever/tests/it/fixtures.rs` includes this file by path).

use std::path::{Path, PathBuf};

use anser_manifest::{Manifest, Route};

/// Write `rows` as the JSONL corpus of `route` under the corpus root `root`; returns the file.
pub fn law_corpus(root: &Path, route: Route, rows: &[(&str, &str, &str)]) -> PathBuf {
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
    file
}
