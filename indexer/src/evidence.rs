//! Where each evidence identifier kind of the manifest comes from, for the units of a route.
//!
//! A unit is read from one table (or JSONL file), but the identifier the scorer expects is not
//! always a column of that table: English case search documents are keyed by `case_id` while
//! tasks are scored on `case_record.cluster_id`; SEC sections by accession while statistic tasks
//! are scored on the filer's CIK. This table says, per evidence kind, which column of which
//! table holds the identifier and how to reach it from a unit.

use serde_json::{Map, Value};

use anser_manifest::{EvidenceKind, EvidenceShape};

/// How a unit obtains the identifier of one evidence kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvidenceSource {
    /// A column of the unit's own row.
    Column(&'static str),
    /// `SELECT value FROM table WHERE key = <unit's key column>`.
    Lookup { table: &'static str, key: &'static str, value: &'static str, unit_key: &'static str },
    /// The `(law_name, item)` pair of the row.
    LawItem { law: &'static str, item: &'static str },
}

/// The source of evidence kind `kind` for units read from `unit_source`, or `None` when such
/// units cannot name that kind (a DQC rule is not a filing fact).
pub fn evidence_source(kind: &str, unit_source: &str) -> Option<EvidenceSource> {
    use EvidenceSource::{Column, LawItem, Lookup};
    Some(match (kind, unit_source) {
        ("anhao", "cases") => Column("anhao"),
        ("cluster_id", "search_document") => {
            Lookup { table: "case_record", key: "case_id", value: "cluster_id", unit_key: "case_id" }
        }
        ("law_article", "law_corpus") => Column("id"),
        ("precedent_case", "documents") => Column("docid"),
        ("financial_report_zh", "report_chunks") => Column("report_id"),
        ("company_stock_code", "report_chunks") => Column("stock_code"),
        ("regulatory_rule", "regulatory_rules") => LawItem { law: "law_name", item: "item" },
        ("financial_report_en", "sections") => Column("accession"),
        ("company_cik", "sections") => {
            Lookup { table: "filings", key: "accession", value: "cik", unit_key: "accession" }
        }
        ("regulatory_paragraph", "regulation_paragraphs") => Column("paragraph_id"),
        ("filing_fact", "filing_facts") => Column("fact_id"),
        ("article", "articles") => Column("ID"),
        _ => return None,
    })
}

/// The evidence item in the shape the scorer expects (`kind.shape`), from the identifier value
/// (or the `(law, item)` pair). Objects are built with sorted keys, as the official baselines
/// write them.
pub fn evidence_item(kind: &EvidenceKind, value: &Value) -> Value {
    match kind.shape {
        EvidenceShape::Bare => value.clone(),
        EvidenceShape::LawItem => value.clone(),
        EvidenceShape::Object => {
            let key = kind.key.clone().unwrap_or_else(|| "id".into());
            let label = kind.type_label.clone().unwrap_or_default();
            let mut pairs = vec![(key, value.clone()), ("type".to_string(), Value::String(label))];
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(pairs.into_iter().collect::<Map<String, Value>>())
        }
    }
}

/// `{"item": item, "law": law}` (sorted keys).
pub fn law_item(law: &str, item: &str) -> Value {
    let mut m = Map::new();
    m.insert("item".into(), Value::String(item.to_string()));
    m.insert("law".into(), Value::String(law.to_string()));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use anser_manifest::{Manifest, Route, TaskGroup};

    use super::*;

    #[test]
    fn every_kind_a_route_serves_has_a_source() {
        let m = Manifest::get();
        for group in TaskGroup::all() {
            let spec = m.group(group);
            for ty in &spec.types {
                let task_type = (ty != "null").then_some(ty.as_str());
                let r = m.resolve("t", group, task_type).expect("resolves");
                let units = &m.route(r.route).units;
                assert!(
                    units.iter().any(|u| evidence_source(&r.evidence.name, &u.source).is_some()),
                    "{group} {ty}: no unit of {} names {}",
                    r.route,
                    r.evidence.name
                );
            }
        }
        // The audit route's DQC rules are not filing facts.
        assert_eq!(evidence_source("filing_fact", "dqc_rules"), None);
        assert_eq!(m.route(Route::FinanceEnAudit).units.len(), 2);
    }

    #[test]
    fn items_have_the_scorers_shapes() {
        let m = Manifest::get();
        let docid = m.evidence_kind("precedent_case").expect("kind");
        assert_eq!(
            serde_json::to_string(&evidence_item(docid, &Value::from("10002"))).expect("json"),
            r#"{"docid":"10002","type":"precedent_case"}"#
        );
        let anhao = m.evidence_kind("anhao").expect("kind");
        assert_eq!(
            evidence_item(anhao, &Value::from("（2024）粤0106刑初1765号")),
            Value::from("（2024）粤0106刑初1765号")
        );
        assert_eq!(serde_json::to_string(&law_item("办法", "6条")).expect("json"), r#"{"item":"6条","law":"办法"}"#);
    }
}
