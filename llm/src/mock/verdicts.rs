//! Rubric verdicts for judge requests ([`super::MockServer::set_rubric_verdicts`]).
//!
//! A rubric-judging prompt (the $OneMillion-Bench judge prompt of anser and of EvalScope) lists
//! its rubrics as `**Rubric N**` lines. Answering such a request with the same prose as any
//! other would make every judge reply fail the reply contract, so a throughput run would time
//! only transport; this answers it with one JSON object whose `results` name every rubric id of
//! the prompt exactly once, so the client runs its whole scoring path. Whether a rubric is hit
//! depends only on the seed, the prompt text and the rubric id: two clients that send the same
//! prompt get the same verdicts and must score the sample identically.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// A rubric header line; the number may be rendered as a float (`1.0`) when the dataset mixes
/// integer and float rubric numbers.
static RUBRIC_LINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^\*\*Rubric (-?\d+)(?:\.0+)?\*\*[ \t]*$").ok());

/// The rubric ids of `prompt` in order, once each; empty when it is not a rubric-judging prompt.
pub(super) fn rubric_ids(prompt: &str) -> Vec<i64> {
    let Some(re) = RUBRIC_LINE.as_ref() else { return Vec::new() };
    let mut ids: Vec<i64> = Vec::new();
    for id in re.captures_iter(prompt).filter_map(|c| c.get(1)?.as_str().parse().ok()) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// The verdict reply for `prompt` under `seed`, or `None` when the prompt lists no rubric.
pub(super) fn verdict_reply(seed: u64, prompt: &str) -> Option<String> {
    let ids = rubric_ids(prompt);
    if ids.is_empty() {
        return None;
    }
    let mut hasher = Sha256::new();
    hasher.update(seed.to_be_bytes());
    hasher.update(prompt.as_bytes());
    let prompt_hash = hasher.finalize();
    let results: Vec<Value> = ids
        .iter()
        .map(|&id| {
            let mut h = Sha256::new();
            h.update(prompt_hash);
            h.update(id.to_be_bytes());
            let hit = h.finalize()[0] & 1 == 1;
            let (status, why) = if hit {
                ("是", "the response states what this rubric describes")
            } else {
                ("否", "the response does not state what this rubric describes")
            };
            json!({"rubric_id": id, "status": status, "justification": why})
        })
        .collect();
    Some(json!({ "results": results }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "### 评分项（Rubrics）\n**Rubric 1**\nrubricDetail: a\nrubricWeight: +5分\n\n\
                          **Rubric 2.0**\nrubricDetail: **Rubric 9** inline\nrubricWeight: -3分\n\n**Rubric 1**\n";

    #[test]
    fn rubric_ids_are_read_from_header_lines_only_once_each() {
        assert_eq!(rubric_ids(PROMPT), vec![1, 2]);
        assert!(rubric_ids("Which statute applies? **Rubric 3** inline").is_empty());
    }

    #[test]
    fn verdicts_cover_every_rubric_and_depend_on_the_seed() {
        let reply: Value = serde_json::from_str(&verdict_reply(7, PROMPT).expect("verdict")).expect("json");
        let results = reply["results"].as_array().expect("results");
        let ids: Vec<i64> = results.iter().filter_map(|r| r["rubric_id"].as_i64()).collect();
        assert_eq!(ids, vec![1, 2]);
        assert!(results.iter().all(|r| ["是", "否"].contains(&r["status"].as_str().unwrap_or_default())));
        assert_eq!(verdict_reply(7, PROMPT), verdict_reply(7, PROMPT));
        let many = "**Rubric 1**\n".to_string() + &(2..40).map(|i| format!("**Rubric {i}**\n")).collect::<String>();
        assert_ne!(verdict_reply(7, &many), verdict_reply(8, &many));
        assert_eq!(verdict_reply(7, "no rubrics here"), None);
    }
}
