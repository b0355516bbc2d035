//! FinAuditing plans: find the fact the query names in `filing_facts`, the DQC rule whose
//! `target_concepts` list its concept in `dqc_rules`, and apply the rule's logic as the rule
//! table states it — no rule id is known to this code:
//!
//! - `$A != $B + $C (…)`: the expected value of A is B + C of the same filing, period and (empty)
//!   dimensions;
//! - `sum($child * weight)`: the expected value is the weighted sum of the children of the
//!   fact's concept in the filing's own summation-item relationships (`filing_relationships`);
//! - `$fact < 0`: the concept cannot be negative; the expected value is the absolute amount.
//!
//! The fact is located by the filing tag and CIK the query names (filing ids are
//! `<tag>-<period end>`), the concept qname and the period dates. Evidence is the fact itself.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::{column_strings, lit};
use crate::{Result, tools::sql::GuardedDb};

/// A computed FinAuditing answer.
#[derive(Debug)]
pub struct AuditPlan {
    pub answer: Value,
    pub evidence: Vec<Value>,
    pub plan: Value,
}

fn re(pattern: &str) -> regex::Regex {
    regex::Regex::new(pattern).expect("static regex")
}

/// One non-dimensional fact of a filing and period.
#[derive(Debug, Clone)]
struct Fact {
    id: String,
    value: f64,
}

/// The period a query names: an instant ("as of 2021-12-31") or a duration (two dates).
#[derive(Debug, Clone, PartialEq)]
enum Period {
    Instant(String),
    Duration(String, String),
}

impl Period {
    fn sql(&self) -> String {
        match self {
            Period::Instant(d) => format!("instant_date = {}", lit(d)),
            Period::Duration(s, e) => format!("start_date = {} AND end_date = {}", lit(s), lit(e)),
        }
    }
}

fn period_of(query: &str, filing_date: Option<&str>) -> Option<Period> {
    let dates: Vec<String> = re(r"\b\d{4}-\d{2}-\d{2}\b").find_iter(query).map(|m| m.as_str().to_string()).collect();
    let lower = query.to_lowercase();
    // The filing's own date (document period end) is not the fact's period.
    let own: Vec<&String> = dates.iter().filter(|d| Some(d.as_str()) != filing_date).collect();
    if lower.contains(" to ") || lower.contains(" through ") {
        if let [s, e, ..] = dates.as_slice() {
            return Some(Period::Duration(s.clone(), e.clone()));
        }
    }
    if let Some(at) = lower.find("as of ") {
        if let Some(m) = re(r"\d{4}-\d{2}-\d{2}").find(&query[at..]) {
            return Some(Period::Instant(m.as_str().to_string()));
        }
    }
    match own.as_slice() {
        [s, e, ..] => Some(Period::Duration((*s).clone(), (*e).clone())),
        [d] => Some(Period::Instant((*d).clone())),
        [] => filing_date.map(|d| Period::Instant(d.to_string())),
    }
}

fn fact(db: &GuardedDb, filing: &str, concept: &str, period: &Period) -> Result<Option<Fact>> {
    let rows = column_strings(
        db,
        &format!(
            "SELECT fact_id, value FROM filing_facts WHERE filing_id = {} AND concept = {} AND {} \
             AND (dimensions IS NULL OR dimensions IN ('', '{{}}')) AND is_nil = 0 ORDER BY document_order",
            lit(filing),
            lit(concept),
            period.sql()
        ),
    )?;
    Ok(rows.into_iter().find_map(|r| match r.as_slice() {
        [id, v] => v.trim().parse::<f64>().ok().map(|value| Fact { id: id.clone(), value }),
        _ => None,
    }))
}

/// Plan and answer one FinAuditing task; `None` when the query does not name a known fact.
pub fn solve(db: &GuardedDb, query: &str) -> Result<Option<AuditPlan>> {
    let Some(concept) = re(r"\b[a-z][a-z0-9-]*:[A-Za-z][A-Za-z0-9]*\b").find(query).map(|m| m.as_str().to_string())
    else {
        return Ok(None);
    };
    let filings: Vec<String> = column_strings(db, "SELECT DISTINCT filing_id FROM filing_facts")?
        .into_iter()
        .filter_map(|r| r.into_iter().next())
        .collect();
    let words: BTreeSet<String> =
        re(r"[A-Za-z0-9]+").find_iter(query).map(|m| m.as_str().to_ascii_lowercase()).collect();
    let compact_dates: BTreeSet<String> = re(r"\b(\d{4})-(\d{2})-(\d{2})\b")
        .captures_iter(query)
        .map(|c| format!("{}{}{}", &c[1], &c[2], &c[3]))
        .collect();
    let mut candidates: Vec<(&String, bool)> = filings
        .iter()
        .filter_map(|f| {
            let (tag, date) = f.rsplit_once('-')?;
            words.contains(&tag.to_ascii_lowercase()).then(|| (f, compact_dates.contains(date)))
        })
        .collect();
    candidates.sort_by_key(|(f, dated)| (!*dated, (*f).clone()));
    let cik = re(r"(?i)\bCIK\s*(\d+)").captures(query).map(|c| c[1].trim_start_matches('0').to_string());
    let mut chosen = None;
    for (f, _) in &candidates {
        if let Some(cik) = &cik {
            let rows = column_strings(
                db,
                &format!(
                    "SELECT value FROM filing_facts WHERE filing_id = {} AND concept = 'dei:EntityCentralIndexKey'",
                    lit(f)
                ),
            )?;
            if rows.iter().flatten().any(|v| v.trim_start_matches('0') != cik.as_str()) {
                continue;
            }
        }
        chosen = Some((*f).clone());
        break;
    }
    let Some(filing) = chosen else { return Ok(None) };
    let filing_date = filing
        .rsplit_once('-')
        .and_then(|(_, d)| (d.len() == 8).then(|| format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..])));
    let Some(period) = period_of(query, filing_date.as_deref()) else { return Ok(None) };
    let Some(target) = fact(db, &filing, &concept, &period)? else { return Ok(None) };

    let rules = column_strings(db, "SELECT rule_id, rule_logic, target_concepts FROM dqc_rules ORDER BY rule_id")?;
    let prefix = concept.split_once(':').map_or("", |(p, _)| p);
    for r in &rules {
        let [rule_id, logic, targets] = r.as_slice() else { continue };
        let listed = match serde_json::from_str::<Value>(targets) {
            Ok(Value::Array(a)) => a.iter().any(|t| t.as_str() == Some(concept.as_str())),
            _ => false,
        };
        if !listed {
            continue;
        }
        let (expected, how) = if logic.contains("sum($child") {
            let children = column_strings(
                db,
                &format!(
                    "SELECT child_concept, weight FROM filing_relationships WHERE filing_id = {} AND parent_concept = {} \
                     AND arcrole LIKE '%summation-item' ORDER BY order_value",
                    lit(&filing),
                    lit(&concept)
                ),
            )?;
            let mut sum = 0.0;
            let mut used = Vec::new();
            for c in &children {
                let [child, weight] = c.as_slice() else { continue };
                let Ok(w) = weight.parse::<f64>() else { continue };
                let Some(f) = fact(db, &filing, child, &period)? else { continue };
                sum += w * f.value;
                used.push(child.clone());
            }
            if used.is_empty() {
                continue;
            }
            (sum, json!({"calculation_children": used}))
        } else if let Some(caps) = re(r"^\$(\w+)\s*!=\s*([^(]+)").captures(logic) {
            let mut sum = 0.0;
            let mut used = Vec::new();
            let mut complete = true;
            for t in re(r"([+-]?)\s*\$(\w+)").captures_iter(&caps[2]) {
                let sign = if &t[1] == "-" { -1.0 } else { 1.0 };
                let name = format!("{prefix}:{}", &t[2]);
                match fact(db, &filing, &name, &period)? {
                    Some(f) => {
                        sum += sign * f.value;
                        used.push(name);
                    }
                    None => complete = false,
                }
            }
            if !complete || used.is_empty() {
                continue;
            }
            (sum, json!({"terms": used}))
        } else if logic.contains("< 0") {
            (target.value.abs(), json!({"absolute_value_of": target.value}))
        } else {
            continue;
        };
        let expected =
            if expected.fract() == 0.0 && expected.abs() < 9.0e15 { json!(expected as i64) } else { json!(expected) };
        return Ok(Some(AuditPlan {
            answer: json!({"applied_rule": rule_id, "expected_value": expected}),
            evidence: vec![json!({"FACT_id": target.id, "type": "filing_fact"})],
            plan: json!({"filing": filing, "concept": concept, "period": format!("{period:?}"), "rule": rule_id,
                "logic": logic, "applied": how, "reported": target.value}),
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_skip_the_filing_date() {
        let q = "check us-gaap:X for fact period 2022-07-01 to 2023-06-30 (document period end 2023-06-30)";
        assert_eq!(period_of(q, Some("2023-06-30")), Some(Period::Duration("2022-07-01".into(), "2023-06-30".into())));
        let q = "us-gaap:Assets as of 2021-12-31 by the filer (document period end 2021-12-31)";
        assert_eq!(period_of(q, Some("2021-12-31")), Some(Period::Instant("2021-12-31".into())));
        assert_eq!(period_of("no dates", Some("2020-03-31")), Some(Period::Instant("2020-03-31".into())));
    }
}
