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

/// Chance (out of 256) that a rubric with a positive or zero weight is hit.
pub const CREDIT_HIT_PER_256: u8 = 205;
/// Chance (out of 256) that a penalty rubric (negative weight) is hit.
pub const PENALTY_HIT_PER_256: u8 = 51;

/// A rubric header line; the number may be rendered as a float (`1.0`) when the dataset mixes
/// integer and float rubric numbers.
static RUBRIC_LINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^\*\*Rubric (-?\d+)(?:\.0+)?\*\*[ \t]*$").ok());

/// The rubric ids of `prompt` in order, once each, with whether the rubric's block gives a
/// negative weight; empty when it is not a rubric-judging prompt.
pub(super) fn rubrics(prompt: &str) -> Vec<(i64, bool)> {
    let Some(re) = RUBRIC_LINE.as_ref() else { return Vec::new() };
    let headers: Vec<(usize, usize, Option<i64>)> = re
        .captures_iter(prompt)
        .filter_map(|c| {
            let whole = c.get(0)?;
            Some((whole.start(), whole.end(), c.get(1)?.as_str().parse().ok()))
        })
        .collect();
    let mut out: Vec<(i64, bool)> = Vec::new();
    for (k, &(_, end, id)) in headers.iter().enumerate() {
        let block_end = headers.get(k + 1).map_or(prompt.len(), |h| h.0);
        let Some(id) = id else { continue };
        if out.iter().any(|&(seen, _)| seen == id) {
            continue;
        }
        out.push((id, prompt[end..block_end].contains("rubricWeight: -")));
    }
    out
}

/// The verdict reply for `prompt` under `seed`, or `None` when the prompt lists no rubric.
pub(super) fn verdict_reply(seed: u64, prompt: &str) -> Option<String> {
    let rubrics = rubrics(prompt);
    if rubrics.is_empty() {
        return None;
    }
    let mut hasher = Sha256::new();
    hasher.update(seed.to_be_bytes());
    hasher.update(prompt.as_bytes());
    let prompt_hash = hasher.finalize();
    let results: Vec<Value> = rubrics
        .iter()
        .map(|&(id, penalty)| {
            let mut h = Sha256::new();
            h.update(prompt_hash);
            h.update(id.to_be_bytes());
            let chance = if penalty { PENALTY_HIT_PER_256 } else { CREDIT_HIT_PER_256 };
            let hit = h.finalize()[0] < chance;
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
    fn rubrics_are_read_from_header_lines_only_once_each_with_their_sign() {
        assert_eq!(rubrics(PROMPT), vec![(1, false), (2, true)]);
        assert!(rubrics("Which statute applies? **Rubric 3** inline").is_empty());
    }

    #[test]
    fn verdicts_cover_every_rubric_and_depend_on_the_seed() {
        let reply: Value = serde_json::from_str(&verdict_reply(7, PROMPT).expect("verdict")).expect("json");
        let results = reply["results"].as_array().expect("results");
        let ids: Vec<i64> = results.iter().filter_map(|r| r["rubric_id"].as_i64()).collect();
        assert_eq!(ids, vec![1, 2]);
        assert!(results.iter().all(|r| ["是", "否"].contains(&r["status"].as_str().unwrap_or_default())));
        assert_eq!(verdict_reply(7, PROMPT), verdict_reply(7, PROMPT));
        let many: String = (1..=200).map(|i| format!("**Rubric {i}**\nrubricWeight: +1分\n")).collect();
        assert_ne!(verdict_reply(7, &many), verdict_reply(8, &many));
        let hits = |text: &str| verdict_reply(7, text).expect("verdict").matches("\"是\"").count();
        // 200 draws at 205/256 and at 51/256: far from each other and from 0 and 200.
        let (credit, penalty) = (hits(&many), hits(&many.replace("+1分", "-1分")));
        assert!((130..190).contains(&credit) && (15..70).contains(&penalty), "{credit} {penalty}");
        assert_eq!(verdict_reply(7, "no rubrics here"), None);
    }
}
