//! Evidence identities and evidence metrics (spec §5): canonical ids with the group-scoped
//! repairs (company collapsing, the (law, item) rule identity, regulatory row-id lookup, legal-en
//! `cluster_` ids), de-duplicated lists, ranked metrics and set metrics.

use std::{
    collections::{HashMap, HashSet},
    path::{Path, PathBuf},
};

use anser_manifest::{Domain, Language, Manifest, Split, TaskGroup};

use crate::{
    Error, Result,
    pyjson::{Dict, DumpStyle, Py, dumps, loads, py_str, write_json_str},
    pytext::{digit_value, nfkc, split_ws},
};

/// The regulatory-rule file below a corpus root.
pub const RULES_FILE: &str = "finance/zh/regulatory_rules.jsonl";

/// `_evidence_text(v)`: Python `str()`, NFKC, strip, whitespace runs collapsed to one space.
pub fn evidence_text(value: &Py) -> String {
    // Fast path: printable ASCII without spaces is already canonical (most ids).
    if let Py::Str(s) = value {
        if s.bytes().all(|b| b.is_ascii_graphic()) {
            return s.clone();
        }
    }
    let s = py_str(value);
    split_ws(&nfkc(&s)).collect::<Vec<_>>().join(" ")
}

/// `_rule_identity(law, item)`: compact sorted JSON `{"item":…,"law":…}`.
pub fn rule_identity(law: &Py, item: &Py) -> String {
    let mut out = String::from("{\"item\":");
    write_json_str(&mut out, &evidence_text(item));
    out.push_str(",\"law\":");
    write_json_str(&mut out, &evidence_text(law));
    out.push('}');
    out
}

/// Row id → rule identity for `finance/zh/regulatory_rules.jsonl` (spec §5.2 B.2).
#[derive(Debug, Default)]
pub struct RuleIndex {
    by_id: HashMap<String, String>,
}

impl RuleIndex {
    /// Read the rule file below `corpus_root`; a missing file gives an empty index (the
    /// official evaluator then leaves row ids unresolved).
    pub fn load(corpus_root: &Path) -> Result<RuleIndex> {
        let path = corpus_root.join(RULES_FILE);
        if !path.is_file() {
            return Ok(RuleIndex::default());
        }
        let text = fs_err::read_to_string(&path)?;
        Self::parse(&path, &text)
    }

    fn parse(path: &Path, text: &str) -> Result<RuleIndex> {
        let mut by_id = HashMap::new();
        let bad = |line: usize, msg: String| Error::CorpusFile {
            path: PathBuf::from(path),
            message: format!("line {line}: {msg}"),
        };
        for (n, line) in text.split_inclusive('\n').enumerate() {
            if crate::pytext::strip(line).is_empty() {
                continue;
            }
            let row = loads(line).map_err(|e| bad(n + 1, format!("invalid JSON: {e}")))?;
            let field = |key: &str| row.get(key).ok_or_else(|| bad(n + 1, format!("missing field `{key}`")));
            let identity = rule_identity(field("law_name")?, field("item")?);
            by_id.insert(py_str(field("id")?), identity);
        }
        Ok(RuleIndex { by_id })
    }

    /// The rule identity of a row id.
    pub fn lookup(&self, id: &Py) -> Option<&str> {
        self.by_id.get(&evidence_text(id)).map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// Which group-scoped identity repairs apply to a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EvidenceScope {
    /// finance_zh_descriptive `statistic`: report ids collapse to the six-digit stock code.
    pub company: bool,
    /// finance_zh_prescriptive: `{"type": "regulatory_rule", "id": <row id>}` is looked up.
    pub rule_lookup: bool,
    /// legal_en descriptive/predictive: `123`, `cluster_0123` → `cluster_123`.
    pub cluster: bool,
}

impl EvidenceScope {
    pub fn for_task(group: TaskGroup, task_type: Option<&str>) -> EvidenceScope {
        let TaskGroup { domain, language, split } = group;
        EvidenceScope {
            company: domain == Domain::Finance
                && language == Language::Zh
                && split == Split::Descriptive
                && task_type == Some("statistic"),
            rule_lookup: domain == Domain::Finance && language == Language::Zh && split == Split::Prescriptive,
            cluster: domain == Domain::Legal && language == Language::En && split != Split::Prescriptive,
        }
    }
}

/// Canonicalises evidence items for one task.
#[derive(Debug, Clone, Copy)]
pub struct Canonicalizer<'a> {
    pub scope: EvidenceScope,
    pub rules: Option<&'a RuleIndex>,
}

impl Canonicalizer<'_> {
    /// `canonical_evidence(value, task)`.
    pub fn canonical(&self, value: &Py) -> String {
        if self.scope.company {
            match value {
                Py::Dict(d) => {
                    let company =
                        if d.contains_key("stock_code") { d.get("stock_code") } else { d.get("company_code") };
                    if let Some(company) = company.filter(|c| **c != Py::Null) {
                        return evidence_text(company);
                    }
                    if let Some(inner) = first_evidence_key(d) {
                        return self.canonical(inner);
                    }
                }
                other => {
                    let identity = evidence_text(other);
                    if let Some(code) = report_company(&identity) {
                        return code;
                    }
                }
            }
        }
        if let Py::Dict(d) = value {
            let law = if d.contains_key("law") { d.get("law") } else { d.get("law_name") };
            if let (Some(law), Some(item)) = (law.filter(|l| **l != Py::Null), d.get("item")) {
                return rule_identity(law, item);
            }
            if self.scope.rule_lookup && d.get("type").and_then(Py::as_str) == Some("regulatory_rule") {
                let row_id = d.get("id").filter(|id| !matches!(id, Py::Dict(_)));
                if let Some(resolved) = row_id.and_then(|id| self.rules.and_then(|r| r.lookup(id))) {
                    return resolved.to_string();
                }
            }
            if let Some(inner) = first_evidence_key(d) {
                return self.canonical(inner);
            }
            return dumps(value, DumpStyle::TEXT);
        }
        let result = evidence_text(value);
        if self.scope.cluster {
            if let Some(n) = cluster_number(&result) {
                return format!("cluster_{n}");
            }
        }
        result
    }

    /// `evidence_list(value, task)`: canonical ids of a list, first occurrence kept; a non-list
    /// is empty.
    pub fn list(&self, value: Option<&Py>) -> Vec<String> {
        let Some(Py::List(items)) = value else { return Vec::new() };
        let ids: Vec<String> = items.iter().map(|item| self.canonical(item)).collect();
        let keep: Vec<bool> = {
            let mut seen = HashSet::with_capacity(ids.len());
            ids.iter().map(|id| seen.insert(id.as_str())).collect()
        };
        ids.into_iter().zip(keep).filter_map(|(id, keep)| keep.then_some(id)).collect()
    }
}

/// The value of the first identity key a dict has, in the official order (the manifest's
/// `[evidence_identity] keys`).
fn first_evidence_key(d: &Dict) -> Option<&Py> {
    Manifest::get().evidence_keys().iter().find_map(|k| d.get(k))
}

/// `(\d{6})_\d{4}-\d{2}-\d{2}_[A-Za-z0-9_-]+` → the six digits.
fn report_company(identity: &str) -> Option<String> {
    let chars: Vec<char> = identity.chars().collect();
    let digits =
        |range: std::ops::Range<usize>| range.clone().all(|i| chars.get(i).is_some_and(|c| digit_value(*c).is_some()));
    let at = |i: usize, c: char| chars.get(i) == Some(&c);
    let ok = chars.len() >= 19
        && digits(0..6)
        && at(6, '_')
        && digits(7..11)
        && at(11, '-')
        && digits(12..14)
        && at(14, '-')
        && digits(15..17)
        && at(17, '_')
        && chars[18..].iter().all(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-');
    ok.then(|| chars[..6].iter().collect())
}

/// `(?:cluster_)?0*(\d+)` (case-insensitive prefix) → the integer value as text.
fn cluster_number(identity: &str) -> Option<String> {
    let rest = match identity.get(..8) {
        Some(prefix) if prefix.eq_ignore_ascii_case("cluster_") => &identity[8..],
        _ => identity,
    };
    if rest.is_empty() {
        return None;
    }
    let mut digits = String::with_capacity(rest.len());
    for c in rest.chars() {
        digits.push(char::from_digit(digit_value(c)?, 10)?);
    }
    let trimmed = digits.trim_start_matches('0');
    Some(if trimmed.is_empty() { "0".into() } else { trimmed.into() })
}

/// The ranked-list metrics of one submitted list against the gold set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedScores {
    pub recall_at_5: f64,
    pub precision_at_5: f64,
    pub r_precision: f64,
    pub mrr: f64,
}

/// `retrieval_scores(predicted, expected)`.
pub fn retrieval_scores(predicted: &[String], expected: &[String]) -> RankedScores {
    let gold: HashSet<&str> = expected.iter().map(String::as_str).collect();
    let count = gold.len();
    let hits_in = |n: usize| predicted.iter().take(n).filter(|p| gold.contains(p.as_str())).count();
    let hits = hits_in(5);
    RankedScores {
        recall_at_5: if count > 0 { hits as f64 / count as f64 } else { 0.0 },
        precision_at_5: hits as f64 / 5.0,
        r_precision: if count > 0 { hits_in(count) as f64 / count as f64 } else { 0.0 },
        mrr: predicted.iter().position(|p| gold.contains(p.as_str())).map_or(0.0, |i| 1.0 / (i + 1) as f64),
    }
}

/// The set metrics of one submitted list against the gold set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetScores {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// `population_scores(predicted, expected)`: 1.0 everywhere when both sides are empty.
pub fn population_scores(predicted: &[String], expected: &[String]) -> SetScores {
    let pred: HashSet<&str> = predicted.iter().map(String::as_str).collect();
    let gold: HashSet<&str> = expected.iter().map(String::as_str).collect();
    if pred.is_empty() && gold.is_empty() {
        return SetScores { precision: 1.0, recall: 1.0, f1: 1.0 };
    }
    let overlap = pred.intersection(&gold).count() as f64;
    let precision = if pred.is_empty() { 0.0 } else { overlap / pred.len() as f64 };
    let recall = if gold.is_empty() { 0.0 } else { overlap / gold.len() as f64 };
    SetScores { precision, recall, f1: crate::answer::harmonic_f1(precision, recall) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_and_company_patterns() {
        assert_eq!(cluster_number("cluster_0123").as_deref(), Some("123"));
        assert_eq!(cluster_number("CLUSTER_000").as_deref(), Some("0"));
        assert_eq!(cluster_number("٠١٢").as_deref(), Some("12"));
        assert_eq!(cluster_number("cluster_"), None);
        assert_eq!(cluster_number("123.0"), None);
        assert_eq!(cluster_number("clusterx1"), None);
        assert_eq!(report_company("600288_2015-12-31_annual").as_deref(), Some("600288"));
        assert_eq!(report_company("600288_2015-12-31_"), None);
        assert_eq!(report_company("600288_2015-12-31_an nual"), None);
        assert_eq!(report_company("60028_2015-12-31_annual"), None);
    }

    #[test]
    fn rule_file_rows() {
        let text = "{\"id\": 1, \"law_name\": \"法（2025年）\", \"item\": \"6条\"}\n\n{\"id\": \"x\", \"law_name\": \"L\", \"item\": 2}\n";
        let index = RuleIndex::parse(Path::new("rules.jsonl"), text).unwrap_or_default();
        assert_eq!(index.len(), 2);
        assert_eq!(index.lookup(&Py::Str(" 1 ".into())), Some("{\"item\":\"6条\",\"law\":\"法(2025年)\"}"));
        assert_eq!(index.lookup(&Py::Str("x".into())), Some("{\"item\":\"2\",\"law\":\"L\"}"));
        let broken = RuleIndex::parse(Path::new("rules.jsonl"), "{\"id\": 1}\n");
        assert!(broken.is_err_and(|e| e.to_string().contains("line 1: missing field `law_name`")));
    }
}
