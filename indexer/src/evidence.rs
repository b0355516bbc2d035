//! Where each evidence identifier kind of the manifest comes from, for the units of a route.
//!
//! A unit is read from one table (or JSONL file), but the identifier the scorer expects is not
//! always a column of that table: English case search documents are keyed by `case_id` while
//! tasks are scored on `case_record.cluster_id`; SEC sections by accession while statistic tasks
//! are scored on the filer's CIK. The manifest says, per evidence kind, which column of which
//! table holds the identifier and how to reach it from a unit (`[evidence.KIND] from`).

use anser_manifest::{EvidenceKind, Manifest};
use serde_json::{Map, Value};

/// How a unit obtains the identifier of one evidence kind (the manifest's `from` entries).
pub type EvidenceSource = anser_manifest::EvidenceSource<'static>;

/// The source of evidence kind `kind` for units read from `unit_source`, or `None` when such
/// units cannot name that kind (a DQC rule is not a filing fact). Read from the manifest's
/// `[evidence.KIND] from` entries.
pub fn evidence_source(kind: &str, unit_source: &str) -> Option<EvidenceSource> {
    Manifest::get().evidence_kind(kind)?.source_for(unit_source)
}

/// The evidence item in the shape the scorer expects (`kind.shape`), from the identifier value
/// (or the `(law, item)` pair). Objects are built with sorted keys, as the official baselines
/// write them.
pub fn evidence_item(kind: &EvidenceKind, value: &Value) -> Value {
    kind.item(value)
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
        // The manifest's `from` entries, as this module hard-coded them before they became data.
        use anser_manifest::EvidenceSource::{Column, LawItem, Lookup};
        let expected = [
            ("anhao", "cases", Column("anhao")),
            (
                "cluster_id",
                "search_document",
                Lookup { table: "case_record", key: "case_id", value: "cluster_id", unit_key: "case_id" },
            ),
            ("law_article", "law_corpus", Column("id")),
            ("precedent_case", "documents", Column("docid")),
            ("financial_report_zh", "report_chunks", Column("report_id")),
            ("company_stock_code", "report_chunks", Column("stock_code")),
            ("regulatory_rule", "regulatory_rules", LawItem { law: "law_name", item: "item" }),
            ("financial_report_en", "sections", Column("accession")),
            (
                "company_cik",
                "sections",
                Lookup { table: "filings", key: "accession", value: "cik", unit_key: "accession" },
            ),
            ("regulatory_paragraph", "regulation_paragraphs", Column("paragraph_id")),
            ("filing_fact", "filing_facts", Column("fact_id")),
            ("article", "articles", Column("ID")),
        ];
        for (kind, unit, source) in expected {
            assert_eq!(evidence_source(kind, unit), Some(source), "{kind} from {unit}");
        }
        assert_eq!(evidence_source("company_cik", "documents"), None);
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
