//! FinAuditing plans: find the fact the query names in `filing_facts`, the DQC rule whose
//! `target_concepts` list its concept in `dqc_rules`, and apply the rule's logic as the rule
//! table states it — no rule id is known to this code:
//!
//! The rule's logic is read as an expression: a left side, a comparison (`!=`, `<>`, `=`, `==`,
//! `<`, `<=`, `>`, `>=`) and a right side, each a signed sum of terms — `$Concept` references
//! (prefix of the target concept), numbers, and `sum(…)` aggregations over the summation-item
//! children of the fact's concept in the filing (`filing_relationships`, with their weights).
//! `$fact`, `$parent`, `$value` or any reference to the target concept itself stand for the fact.
//! The expected value is what makes the relation hold:
//! - an equality/inequality check (`!=`, `=`) is solved for the target as a linear equation;
//! - a sign or bound check (`< 0`, `>= 0`) violated by the reported value gives the value with
//!   its sign corrected (the absolute amount for a sign rule).
//!
//! Text after the expression in parentheses or after words ("for a concept in…") is ignored.
//!
//! The fact is located by the filing tag and CIK the query names (filing ids are
//! `<tag>-<period end>`), the concept qname and the period dates. Evidence is the fact itself.

use std::collections::BTreeSet;

use anser_manifest::{EvidenceKind, Manifest};
use serde_json::{Value, json};

use super::{column_strings, lit, re};
use crate::{Result, tools::sql::GuardedDb};

/// A computed FinAuditing answer.
#[derive(Debug)]
pub struct AuditPlan {
    pub answer: Value,
    pub evidence: Vec<Value>,
    pub plan: Value,
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
    // "2022-07-01 to 2023-06-30", "from … through …": the dates on either side of the word.
    let span = re(r"(\d{4}-\d{2}-\d{2})\s*(?:to|through|until|thru|–|~)\s*(\d{4}-\d{2}-\d{2})");
    if let Some(c) = span.captures(query) {
        return Some(Period::Duration(c[1].to_string(), c[2].to_string()));
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
    for r in &rules {
        let [rule_id, logic, targets] = r.as_slice() else { continue };
        let listed = match serde_json::from_str::<Value>(targets) {
            Ok(Value::Array(a)) => a.iter().any(|t| t.as_str() == Some(concept.as_str())),
            _ => false,
        };
        if !listed {
            continue;
        }
        let Some(rule) = Rule::parse(logic) else { continue };
        let Some((expected, how)) = rule.expected(db, &filing, &concept, &target, &period)? else { continue };
        let expected =
            if expected.fract() == 0.0 && expected.abs() < 9.0e15 { json!(expected as i64) } else { json!(expected) };
        return Ok(Some(AuditPlan {
            answer: json!({"applied_rule": rule_id, "expected_value": expected}),
            evidence: vec![fact_kind().item(&json!(target.id))],
            plan: json!({"filing": filing, "concept": concept, "period": format!("{period:?}"), "rule": rule_id,
                "logic": logic, "applied": how, "reported": target.value}),
        }));
    }
    Ok(None)
}

/// The manifest's evidence kind of an audited fact (its identity key and item shape).
fn fact_kind() -> &'static EvidenceKind {
    // The embedded manifest is validated at start-up (and by its unit tests), so the kind exists.
    Manifest::get().evidence_kind("filing_fact").expect("the manifest defines the filing_fact evidence kind")
}

/// A term of a side of a rule's logic.
#[derive(Debug, Clone, PartialEq)]
enum Term {
    /// `$Name`: a concept of the filing (or the target itself).
    Concept(String),
    /// `sum(…)` over the summation-item children of the target.
    ChildSum,
    Number(f64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Ne,
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A DQC rule's logic: `lhs op rhs`, each side a signed sum of terms.
#[derive(Debug, Clone, PartialEq)]
struct Rule {
    lhs: Vec<(f64, Term)>,
    op: Op,
    rhs: Vec<(f64, Term)>,
}

/// Names that stand for the fact under test rather than another concept.
const SELF_NAMES: &[&str] = &["fact", "parent", "total", "value", "target", "concept", "element"];

impl Rule {
    fn parse(logic: &str) -> Option<Rule> {
        // The first comparison operator outside a sum(...) splits the two sides.
        let ops: &[(&str, Op)] = &[
            ("!=", Op::Ne),
            ("<>", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("==", Op::Eq),
            ("=", Op::Eq),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        let (at, len, op) = ops
            .iter()
            .filter_map(|(t, op)| logic.find(t).map(|at| (at, t.len(), *op)))
            .min_by_key(|(at, len, _)| (*at, usize::MAX - len))?;
        let lhs = side(&logic[..at])?;
        let rhs = side(&logic[at + len..])?;
        (!lhs.is_empty() && !rhs.is_empty()).then_some(Rule { lhs, op, rhs })
    }

    /// The expected value of the target fact under this rule, with what was used; `None` when
    /// the rule does not involve the target or its terms are not all reported.
    fn expected(
        &self,
        db: &GuardedDb,
        filing: &str,
        concept: &str,
        target: &Fact,
        period: &Period,
    ) -> Result<Option<(f64, Value)>> {
        let prefix = concept.split_once(':').map_or("", |(p, _)| p);
        let local = concept.split_once(':').map_or(concept, |(_, n)| n);
        let is_target = |n: &str| n == local || n == concept || SELF_NAMES.contains(&n.to_ascii_lowercase().as_str());
        // lhs − rhs = a·target + b (a linear form in the target).
        let (mut a, mut b) = (0.0, 0.0);
        let mut used = Vec::new();
        for (sign, terms) in [(1.0, &self.lhs), (-1.0, &self.rhs)] {
            for (coef, term) in terms {
                let k = sign * coef;
                match term {
                    Term::Number(n) => b += k * n,
                    Term::Concept(n) if is_target(n) => a += k,
                    Term::Concept(n) => {
                        let name = if n.contains(':') { n.clone() } else { format!("{prefix}:{n}") };
                        let Some(f) = fact(db, filing, &name, period)? else { return Ok(None) };
                        b += k * f.value;
                        used.push(json!(name));
                    }
                    Term::ChildSum => {
                        let children = column_strings(
                            db,
                            &format!(
                                "SELECT child_concept, weight FROM filing_relationships WHERE filing_id = {} \
                                 AND parent_concept = {} AND arcrole LIKE '%summation-item' ORDER BY order_value",
                                lit(filing),
                                lit(concept)
                            ),
                        )?;
                        let mut any = false;
                        for c in &children {
                            let [child, weight] = c.as_slice() else { continue };
                            let Ok(w) = weight.parse::<f64>() else { continue };
                            let Some(f) = fact(db, filing, child, period)? else { continue };
                            b += k * w * f.value;
                            used.push(json!(child));
                            any = true;
                        }
                        if !any {
                            return Ok(None);
                        }
                    }
                }
            }
        }
        if a == 0.0 {
            return Ok(None);
        }
        let expected = match self.op {
            // The relation is an identity (the logic states its breach): solve a·x + b = 0.
            Op::Ne | Op::Eq => -b / a,
            // A bound: the reported value violates it when the comparison holds (for `!=`-style
            // checks the rule states the error condition, so `x < 0` flags a negative amount);
            // the corrected value is the mirror image across the bound.
            // A bound (`< 0`, `>= 0`): the task's fact breaks it, and the corrected amount is
            // the reported one mirrored across the bound (the absolute amount for a sign rule).
            Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let bound = -b / a;
                if target.value == bound {
                    return Ok(None);
                }
                2.0 * bound - target.value
            }
        };
        Ok(Some((expected, json!({"terms": used, "reported": target.value}))))
    }
}

/// A signed sum of terms: `$A + $B - 2 * $C`, `sum($child * weight) over …`, `0`.
fn side(text: &str) -> Option<Vec<(f64, Term)>> {
    // Words after the expression ("(same instant…)", "for a concept in…") end it: see below.
    let expr = text;
    let token = re(r"(?i)([+-]?)\s*(?:(\d+(?:\.\d+)?)\s*\*\s*)?(sum\s*\(|\$([A-Za-z][\w:-]*)|(\d+(?:\.\d+)?))");
    let mut terms = Vec::new();
    let mut pos = 0;
    for c in token.captures_iter(expr) {
        let m = c.get(0)?;
        // Only operators and blanks may sit between terms; anything else ends the expression.
        if !expr[pos..m.start()].trim().is_empty() {
            break;
        }
        let sign = if &c[1] == "-" { -1.0 } else { 1.0 };
        let coef = c.get(2).and_then(|x| x.as_str().parse::<f64>().ok()).unwrap_or(1.0) * sign;
        let term = if c[3].to_ascii_lowercase().starts_with("sum") {
            Term::ChildSum
        } else if let Some(name) = c.get(4) {
            Term::Concept(name.as_str().to_string())
        } else {
            Term::Number(c.get(5)?.as_str().parse().ok()?)
        };
        terms.push((coef, term));
        pos = m.end();
        if matches!(terms.last(), Some((_, Term::ChildSum))) {
            // The aggregation's body is read from the filing, not from the text.
            break;
        }
    }
    Some(terms)
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

    #[test]
    fn rule_logic_reads_as_an_expression() {
        let r = Rule::parse("$Assets <> $Liabilities + $StockholdersEquity").expect("parses");
        assert_eq!(r.op, Op::Ne);
        assert_eq!(r.lhs, vec![(1.0, Term::Concept("Assets".into()))]);
        assert_eq!(r.rhs.len(), 2);
        let r = Rule::parse("$GrossProfit = $Revenues - $CostOfRevenue (duration periods)").expect("parses");
        assert_eq!(r.rhs, vec![(1.0, Term::Concept("Revenues".into())), (-1.0, Term::Concept("CostOfRevenue".into()))]);
        let r = Rule::parse("$value >= 0 where the element is non-negative").expect("parses");
        assert_eq!((r.op, r.rhs.clone()), (Op::Ge, vec![(1.0, Term::Number(0.0))]));
        let r = Rule::parse("$total != SUM($item * weight) across calculation children").expect("parses");
        assert_eq!(r.rhs, vec![(1.0, Term::ChildSum)]);
        assert!(Rule::parse("no expression here").is_none());
    }
}
