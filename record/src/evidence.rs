//! Evidence shaping: an evidence list as a system (an LLM, the offline planner) wrote it,
//! turned into the identifier kind and JSON shape the scorer expects for the task's route,
//! de-duplicated by identity, with every item that is not such an identifier rejected with a
//! reason. The agent's `answer` tool uses it before accepting a final answer; reports use it to
//! classify failures (malformed evidence) from a run's records alone.

use std::sync::LazyLock;

use anser_manifest::{EvidenceKind, EvidenceMetric, EvidenceShape, Manifest, PublicTask};
use regex::Regex;
use serde::Serialize;
use serde_json::{Value, json};

use crate::Result;

fn re(p: &str) -> Regex {
    match Regex::new(p) {
        Ok(r) => r,
        // Constant patterns, covered by the unit tests.
        Err(e) => panic!("evidence pattern {p:?}: {e}"),
    }
}

/// The text of a JSON value as a model wrote it: a string trimmed, anything else as JSON.
pub fn item_text(item: &Value) -> String {
    match item {
        Value::String(s) => s.trim().to_string(),
        other => other.to_string(),
    }
}

/// The evidence list shaped for the scorer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvidenceCheck {
    /// Evidence kind name of the manifest (`anhao`, `financial_report_zh`, …).
    pub kind: String,
    pub metric: EvidenceMetric,
    /// Items in the scorer's shape, de-duplicated, first occurrence kept.
    pub items: Vec<Value>,
    pub duplicates_removed: usize,
    /// Items that are not identifiers of this kind, with the reason.
    pub rejected: Vec<(String, String)>,
    /// Well-formed ids not found among the route's visible records (when checked).
    pub unknown: Vec<String>,
}

static ANHAO: LazyLock<Regex> = LazyLock::new(|| re(r"^[（(]\d{4}[）)]\S*号\S*$"));
static CLUSTER: LazyLock<Regex> = LazyLock::new(|| re(r"^(?i:cluster_)?(\d+)$"));
static REPORT_ZH: LazyLock<Regex> = LazyLock::new(|| re(r"^(\d{6})_\d{4}-\d{2}-\d{2}_[A-Za-z0-9_-]+$"));
static STOCK: LazyLock<Regex> = LazyLock::new(|| re(r"^\d{6}$"));
static ACCESSION: LazyLock<Regex> = LazyLock::new(|| re(r"^\d{10}-\d{2}-\d{6}$"));
static DIGITS: LazyLock<Regex> = LazyLock::new(|| re(r"^\d+$"));
static PARAGRAPH: LazyLock<Regex> = LazyLock::new(|| re(r"^12CFR217-\S+$"));
static FACT: LazyLock<Regex> = LazyLock::new(|| re(r"^FACT-[0-9A-Za-z]+$"));

/// The identifier of `kind` inside an item: a scalar, or the value of the first of the kind's
/// identity keys an object has ([`EvidenceKind::id_keys`], manifest data).
pub fn raw_id(kind: &EvidenceKind, item: &Value) -> Option<String> {
    match item {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(m) => kind.id_keys().into_iter().find_map(|k| m.get(k)).and_then(|v| raw_id(kind, v)),
        _ => None,
    }
}

/// Shape one item for `kind`: `(identity used for de-duplication, scorer item)`.
fn shape(kind: &EvidenceKind, item: &Value) -> std::result::Result<(String, Value), String> {
    if kind.shape == EvidenceShape::LawItem {
        let Value::Object(m) = item else {
            return Err("expected an object {\"law\": law_name, \"item\": item}".into());
        };
        let law = m.get("law").or_else(|| m.get("law_name")).and_then(Value::as_str).map(str::trim);
        let it = m.get("item").and_then(Value::as_str).map(str::trim);
        return match (law, it) {
            (Some(l), Some(i)) if !l.is_empty() && !i.is_empty() => {
                Ok((format!("{l}\u{1f}{i}"), json!({"law": l, "item": i})))
            }
            _ => Err("expected non-empty `law` (or `law_name`) and `item`".into()),
        };
    }
    let id = raw_id(kind, item).ok_or_else(|| format!("no identifier in the item (keys {:?})", kind.id_keys()))?;
    let object = |v: Value| kind.item(&v);
    match kind.name.as_str() {
        "anhao" if ANHAO.is_match(&id) => Ok((id.clone(), Value::String(id))),
        "cluster_id" => match CLUSTER.captures(&id).and_then(|c| c.get(1)).and_then(|d| d.as_str().parse::<u64>().ok())
        {
            Some(n) => {
                let norm = format!("cluster_{n}");
                Ok((norm.clone(), Value::String(norm)))
            }
            None => Err("expected cluster_<digits>".into()),
        },
        "law_article" | "article" => match id.parse::<i64>() {
            Ok(n) => Ok((n.to_string(), object(json!(n)))),
            Err(_) => Err("expected an integer id".into()),
        },
        "precedent_case" | "company_cik" if DIGITS.is_match(&id) => Ok((id.clone(), object(json!(id)))),
        "financial_report_zh" if REPORT_ZH.is_match(&id) => Ok((id.clone(), object(json!(id)))),
        "company_stock_code" => {
            let code = REPORT_ZH
                .captures(&id)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str().to_string())
                .or_else(|| STOCK.is_match(&id).then(|| id.clone()))
                .ok_or("expected a six-digit stock code or a report id <code>_<period>_<kind>")?;
            Ok((code.clone(), object(json!(code))))
        }
        "financial_report_en" if ACCESSION.is_match(&id) => Ok((id.clone(), object(json!(id)))),
        "regulatory_paragraph" if PARAGRAPH.is_match(&id) => Ok((id.clone(), object(json!(id)))),
        "filing_fact" if FACT.is_match(&id) => Ok((id.clone(), object(json!(id)))),
        other => Err(format!("{id:?} is not a {other} identifier ({})", kind.description)),
    }
}

/// Shape `items` into the scorer's identifier kind of the task's route.
pub fn shape_evidence(task: &PublicTask, items: &[Value]) -> Result<EvidenceCheck> {
    let res = Manifest::get().resolve(&task.id, task.group, task.task_type.as_deref())?;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut rejected = Vec::new();
    let mut duplicates = 0;
    for item in items {
        match shape(res.evidence, item) {
            Ok((identity, shaped)) => {
                if seen.insert(identity) {
                    out.push(shaped);
                } else {
                    duplicates += 1;
                }
            }
            Err(reason) => rejected.push((item_text(item), reason)),
        }
    }
    Ok(EvidenceCheck {
        kind: res.evidence.name.clone(),
        metric: res.evidence_metric,
        items: out,
        duplicates_removed: duplicates,
        rejected,
        unknown: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use anser_manifest::TaskGroup;

    use super::*;

    fn kind(name: &str) -> &'static EvidenceKind {
        Manifest::get().evidence_kind(name).expect("manifest kind")
    }

    #[test]
    fn items_take_the_kinds_shape() {
        let cluster = kind("cluster_id");
        assert_eq!(shape(cluster, &json!("cluster_0123")), Ok(("cluster_123".into(), json!("cluster_123"))));
        assert_eq!(shape(cluster, &json!({"cluster_id": 7})), Ok(("cluster_7".into(), json!("cluster_7"))));
        assert!(shape(cluster, &json!("x7")).is_err());
        let code = kind("company_stock_code");
        assert_eq!(
            shape(code, &json!("600288_2015-12-31_annual")),
            Ok(("600288".into(), json!({"stock_code": "600288", "type": "company"})))
        );
        let rule = kind("regulatory_rule");
        assert_eq!(
            shape(rule, &json!({"law_name": " 办法 ", "item": "6条"})),
            Ok(("办法\u{1f}6条".into(), json!({"law": "办法", "item": "6条"})))
        );
        assert!(shape(rule, &json!("办法 6条")).is_err());
    }

    #[test]
    fn shaping_deduplicates_and_rejects() {
        let m = Manifest::get();
        let group: TaskGroup = "legal_en_descriptive".parse().expect("group");
        let spec = m.group(group);
        let ty = spec.types.first().cloned().unwrap_or_default();
        let task_type = (ty != "null").then_some(ty);
        let route = m.resolve("t1", group, task_type.as_deref()).expect("resolves").route;
        let task = PublicTask {
            id: "t1".into(),
            group,
            task_type,
            query: String::new(),
            instruction: String::new(),
            route,
            source_file: String::new(),
        };
        let check = shape_evidence(&task, &[json!("cluster_1"), json!(1), json!("abc")]).expect("resolves");
        assert_eq!(check.kind, "cluster_id");
        assert_eq!(check.items, [json!("cluster_1")]);
        assert_eq!(check.duplicates_removed, 1);
        assert_eq!(check.rejected.len(), 1);
    }
}
