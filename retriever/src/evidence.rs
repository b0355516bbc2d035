//! Hits → the evidence list a results file carries: each hit's identifier of the task's
//! evidence kind, in the scorer's shape, in rank order, de-duplicated by compact JSON (so a
//! record retrieved through several chunks appears once); hits without that identifier are
//! skipped, as the official baselines do.

use std::collections::HashSet;

use serde_json::Value;

use anser_indexer::evidence::evidence_item;
use anser_manifest::EvidenceKind;

use crate::Hit;

/// The de-duplicated evidence items of `hits` for evidence kind `kind`.
pub fn evidence_list(hits: &[Hit], kind: &EvidenceKind) -> Vec<Value> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for hit in hits {
        let Some(value) = hit.evidence.get(&kind.name) else { continue };
        let item = evidence_item(kind, value);
        if seen.insert(item.to_string()) {
            out.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use anser_manifest::Manifest;

    use super::*;

    fn hit(rank: usize, evidence: &[(&str, Value)]) -> Hit {
        Hit {
            rank,
            score: 1.0 / rank as f64,
            ord: rank as u32,
            retrieval_id: format!("r:{rank}"),
            record_id: "r".into(),
            text: String::new(),
            evidence: evidence.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
        }
    }

    #[test]
    fn dedupes_in_rank_order_and_skips_missing() {
        let kind = Manifest::get().evidence_kind("regulatory_paragraph").expect("kind");
        let hits = vec![
            hit(1, &[("regulatory_paragraph", Value::from("12CFR217-2"))]),
            hit(2, &[]),
            hit(3, &[("regulatory_paragraph", Value::from("12CFR217-1"))]),
            hit(4, &[("regulatory_paragraph", Value::from("12CFR217-2"))]),
        ];
        let ev = evidence_list(&hits, kind);
        assert_eq!(
            serde_json::to_string(&ev).expect("json"),
            r#"[{"id":"12CFR217-2","type":"regulatory_paragraph"},{"id":"12CFR217-1","type":"regulatory_paragraph"}]"#
        );
    }
}
