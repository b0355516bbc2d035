//! Evidence identity as manifest data: which keys of an evidence object name a record, where
//! each evidence kind's identifiers are stored, and how a retrieval unit reaches them. The
//! answer tool's evidence shaping (anser-record), the evaluator's canonical ids and the
//! indexer's per-unit evidence all read these instead of keeping their own lists.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::{EvidenceKind, EvidenceShape, Manifest, RouteSpec};

/// `[evidence_identity]`: the keys an evidence object names its record by, in the order the
/// official evaluator tries them for every kind (its `_evidence_key` list).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceIdentity {
    pub keys: Vec<String>,
}

/// The table and column that list every identifier of a kind on its (SQLite) route.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceRecords {
    pub table: String,
    pub column: String,
}

/// `SELECT value FROM table WHERE key = <the unit's key column>`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceLookup {
    pub table: String,
    pub key: String,
    pub value: String,
}

/// The `(law, item)` columns of a rule row.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LawItemColumns {
    pub law: String,
    pub item: String,
}

/// How units read from `unit` (a table or JSONL file) obtain a kind's identifier: exactly one
/// of `column` (a column of the unit's own row), `lookup` or `law_item`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceFrom {
    pub unit: String,
    #[serde(default)]
    pub column: Option<String>,
    #[serde(default)]
    pub lookup: Option<EvidenceLookup>,
    #[serde(default)]
    pub law_item: Option<LawItemColumns>,
}

/// An [`EvidenceFrom`] resolved to its one form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvidenceSource<'m> {
    /// A column of the unit's own row.
    Column(&'m str),
    /// `SELECT value FROM table WHERE key = <unit's unit_key column>`.
    Lookup { table: &'m str, key: &'m str, value: &'m str, unit_key: &'m str },
    /// The `(law_name, item)` pair of the row.
    LawItem { law: &'m str, item: &'m str },
}

impl EvidenceFrom {
    /// The one form this entry has (`parse` checked there is exactly one).
    pub fn source(&self) -> Option<EvidenceSource<'_>> {
        match (&self.column, &self.lookup, &self.law_item) {
            (Some(c), None, None) => Some(EvidenceSource::Column(c)),
            (None, Some(l), None) => {
                Some(EvidenceSource::Lookup { table: &l.table, key: &l.key, value: &l.value, unit_key: &l.key })
            }
            (None, None, Some(li)) => Some(EvidenceSource::LawItem { law: &li.law, item: &li.item }),
            _ => None,
        }
    }
}

impl EvidenceKind {
    /// How units read from `unit_source` reach this kind's identifier, or `None` when such
    /// units cannot name it (a DQC rule is not a filing fact).
    pub fn source_for(&self, unit_source: &str) -> Option<EvidenceSource<'_>> {
        self.from.iter().find(|f| f.unit == unit_source).and_then(EvidenceFrom::source)
    }

    /// The object keys that hold this kind's identifier, in the order they are read: `id`, the
    /// scorer's key, the column that stores the identifier, the unit columns that carry it.
    pub fn id_keys(&self) -> Vec<&str> {
        let from = self.from.iter().filter_map(|f| match f.source()? {
            EvidenceSource::Column(c) => Some(c),
            EvidenceSource::Lookup { value, .. } => Some(value),
            EvidenceSource::LawItem { .. } => None,
        });
        let mut keys: Vec<&str> = Vec::new();
        let candidates = std::iter::once("id")
            .chain(self.key.as_deref())
            .chain(self.records.as_ref().map(|r| r.column.as_str()))
            .chain(from);
        for k in candidates {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys
    }

    /// The evidence item in the shape the scorer expects, from the identifier value (or a
    /// `{"law", "item"}` pair). Objects have sorted keys, as the official baselines write them.
    pub fn item(&self, value: &Value) -> Value {
        match self.shape {
            EvidenceShape::Bare | EvidenceShape::LawItem => value.clone(),
            EvidenceShape::Object => {
                let key = self.key.clone().unwrap_or_else(|| "id".into());
                let label = self.type_label.clone().unwrap_or_default();
                let mut pairs = vec![(key, value.clone()), ("type".to_string(), Value::String(label))];
                pairs.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Object(pairs.into_iter().collect::<Map<String, Value>>())
            }
        }
    }
}

impl Manifest {
    /// The official reading order of identifier keys in an evidence object (all kinds).
    pub fn evidence_keys(&self) -> &[String] {
        &self.identity.keys
    }

    /// Every key any evidence kind's identifier can be found under: the official order first,
    /// then each kind's [`EvidenceKind::id_keys`] (for reading an id without knowing the kind).
    pub fn all_id_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = Vec::new();
        let kinds = self.evidence.values().flat_map(EvidenceKind::id_keys);
        for k in self.identity.keys.iter().map(String::as_str).chain(kinds) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys
    }
}

/// Check a kind's identity data against the routes: every `from` entry has one form and names
/// a unit source some route reads, and `records` names a table and column of a SQLite route.
pub(crate) fn validate_kind(kind: &EvidenceKind, routes: &[&RouteSpec]) -> Result<(), String> {
    let name = &kind.name;
    for f in &kind.from {
        if f.source().is_none() {
            return Err(format!(
                "evidence {name}: `from` unit {} needs exactly one of column, lookup, law_item",
                f.unit
            ));
        }
        if !routes.iter().any(|r| r.units.iter().any(|u| u.source == f.unit)) {
            return Err(format!("evidence {name}: `from` names {}, which no route's unit reads", f.unit));
        }
    }
    if let Some(rec) = &kind.records {
        let stored = routes.iter().any(|r| {
            r.schema.tables.iter().any(|t| t.name == rec.table && t.columns.iter().any(|c| c.name == rec.column))
        });
        if !stored {
            return Err(format!("evidence {name}: `records` names unknown column {}.{}", rec.table, rec.column));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn kind(name: &str) -> &'static EvidenceKind {
        Manifest::get().evidence_kind(name).expect("kind")
    }

    #[test]
    fn identity_keys_per_kind() {
        // The official evaluator's order, which its canonical ids (and the parity tests) rely on.
        assert_eq!(
            Manifest::get().evidence_keys(),
            ["id", "accession", "cik", "FACT_id", "docid", "case_id", "cluster_id"]
        );
        assert_eq!(kind("filing_fact").id_keys(), ["id", "FACT_id", "fact_id"]);
        assert_eq!(kind("company_stock_code").id_keys(), ["id", "stock_code"]);
        assert_eq!(kind("company_cik").id_keys(), ["id", "cik"]);
        assert_eq!(kind("cluster_id").id_keys(), ["id", "cluster_id"]);
        assert_eq!(kind("anhao").id_keys(), ["id", "anhao"]);
        assert_eq!(kind("regulatory_rule").id_keys(), ["id"]);
        let all = Manifest::get().all_id_keys();
        assert_eq!(all[..7], ["id", "accession", "cik", "FACT_id", "docid", "case_id", "cluster_id"]);
        for k in ["stock_code", "fact_id", "anhao", "report_id", "paragraph_id", "ID"] {
            assert!(all.contains(&k), "{k} in {all:?}");
        }
    }

    #[test]
    fn stored_ids_and_unit_sources() {
        let rec = |name: &str| kind(name).records.as_ref().map(|r| (r.table.as_str(), r.column.as_str()));
        assert_eq!(rec("anhao"), Some(("cases", "anhao")));
        assert_eq!(rec("company_cik"), Some(("companies", "cik")));
        assert_eq!(rec("filing_fact"), Some(("filing_facts", "fact_id")));
        assert_eq!(rec("law_article"), None);
        assert_eq!(rec("cluster_id"), None);
        assert_eq!(
            kind("company_cik").source_for("sections"),
            Some(EvidenceSource::Lookup { table: "filings", key: "accession", value: "cik", unit_key: "accession" })
        );
        assert_eq!(kind("filing_fact").source_for("dqc_rules"), None);
    }

    #[test]
    fn items_have_the_scorers_shape() {
        assert_eq!(
            kind("precedent_case").item(&json!("10002")).to_string(),
            r#"{"docid":"10002","type":"precedent_case"}"#
        );
        assert_eq!(kind("anhao").item(&json!("（2024）粤0106刑初1765号")), json!("（2024）粤0106刑初1765号"));
    }

    #[test]
    fn broken_identity_data_is_refused() {
        let manifest = include_str!("../manifest.toml");
        let schema = include_str!("../schema.toml");
        let unknown_unit = manifest.replace(
            r#"from = [{ unit = "cases", column = "anhao" }]"#,
            r#"from = [{ unit = "kases", column = "anhao" }]"#,
        );
        let err = Manifest::parse(&unknown_unit, schema).expect_err("unknown unit");
        assert!(err.to_string().contains("evidence anhao: `from` names kases"), "{err}");
        let two_forms = manifest.replace(
            r#"from = [{ unit = "cases", column = "anhao" }]"#,
            r#"from = [{ unit = "cases", column = "anhao", law_item = { law = "a", item = "b" } }]"#,
        );
        let err = Manifest::parse(&two_forms, schema).expect_err("two forms");
        assert!(err.to_string().contains("needs exactly one of column, lookup, law_item"), "{err}");
        let bad_records = manifest.replace(
            r#"records = { table = "cases", column = "anhao" }"#,
            r#"records = { table = "cases", column = "nope" }"#,
        );
        let err = Manifest::parse(&bad_records, schema).expect_err("bad records");
        assert!(err.to_string().contains("unknown column cases.nope"), "{err}");
    }
}
