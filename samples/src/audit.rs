//! XBRL audit corpus (`finance/en/audit_rules.sqlite`) and the FinAuditing tasks.
//!
//! Filings report instant (balance sheet) and duration (income statement, cash-flow detail)
//! facts, revenue by product member, and their calculation relationships. Each filing carries a
//! few seeded errors, each caught by exactly one of three rules (their target concepts are
//! disjoint), and the task asks for the rule and the value the fact should have had:
//!
//! - `DQC_US_0015` (non-negative concepts reported negative): expected = |value|;
//! - `DQC_US_0004` (assets must equal liabilities plus equity): expected = Liabilities +
//!   StockholdersEquity of the same instant;
//! - `DQC_US_0126` (calculation inconsistency of a subtotal): expected = Σ weight × child over the
//!   filing's calculation relationships for that parent.
//!
//! The rule texts are written for the sample; they follow the intent of the published Data
//! Quality Committee rules of the same id but are not their text. The other rules of the table
//! are descriptive filler that no task applies.

use std::path::Path;

use anser_manifest::{Route, TaskGroup};
use serde_json::json;

use crate::{
    Ctx, DomainOutput, Result,
    db::{DbWriter, i, r, t},
    rng::Rng,
    task::{Task, fill, plan_types},
};

/// (qname, label, balance, period type).
const CONCEPTS: &[(&str, &str, &str, &str)] = &[
    ("us-gaap:Assets", "Assets", "debit", "instant"),
    ("us-gaap:AssetsCurrent", "Assets, Current", "debit", "instant"),
    ("us-gaap:AssetsNoncurrent", "Assets, Noncurrent", "debit", "instant"),
    (
        "us-gaap:CashAndCashEquivalentsAtCarryingValue",
        "Cash and Cash Equivalents, at Carrying Value",
        "debit",
        "instant",
    ),
    (
        "us-gaap:AccountsReceivableNetCurrent",
        "Accounts Receivable, after Allowance for Credit Loss, Current",
        "debit",
        "instant",
    ),
    ("us-gaap:InventoryNet", "Inventory, Net", "debit", "instant"),
    ("us-gaap:OtherAssetsCurrent", "Other Assets, Current", "debit", "instant"),
    ("us-gaap:Liabilities", "Liabilities", "credit", "instant"),
    ("us-gaap:LiabilitiesCurrent", "Liabilities, Current", "credit", "instant"),
    ("us-gaap:LiabilitiesNoncurrent", "Liabilities, Noncurrent", "credit", "instant"),
    ("us-gaap:StockholdersEquity", "Stockholders' Equity Attributable to Parent", "credit", "instant"),
    ("us-gaap:LiabilitiesAndStockholdersEquity", "Liabilities and Equity", "credit", "instant"),
    ("us-gaap:Revenues", "Revenues", "credit", "duration"),
    ("us-gaap:CostOfRevenue", "Cost of Revenue", "debit", "duration"),
    ("us-gaap:GrossProfit", "Gross Profit", "credit", "duration"),
    ("us-gaap:OperatingExpenses", "Operating Expenses", "debit", "duration"),
    ("us-gaap:OperatingIncomeLoss", "Operating Income (Loss)", "credit", "duration"),
    ("us-gaap:ShareBasedCompensation", "Share-based Payment Arrangement, Noncash Expense", "debit", "duration"),
    ("us-gaap:Depreciation", "Depreciation", "debit", "duration"),
    ("us-gaap:AmortizationOfIntangibleAssets", "Amortization of Intangible Assets", "debit", "duration"),
    (
        "us-gaap:CapitalExpendituresIncurredButNotYetPaid",
        "Capital Expenditures Incurred but Not yet Paid",
        "debit",
        "duration",
    ),
    (
        "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
        "Payments to Acquire Property, Plant, and Equipment",
        "credit",
        "duration",
    ),
];

const NON_NEGATIVE: &[&str] = &[
    "us-gaap:ShareBasedCompensation",
    "us-gaap:Depreciation",
    "us-gaap:AmortizationOfIntangibleAssets",
    "us-gaap:CapitalExpendituresIncurredButNotYetPaid",
    "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
];

/// Calculation subtotals: parent, children with weights.
const CALCS: &[(&str, &[(&str, f64)])] = &[
    ("us-gaap:Assets", &[("us-gaap:AssetsCurrent", 1.0), ("us-gaap:AssetsNoncurrent", 1.0)]),
    (
        "us-gaap:AssetsCurrent",
        &[
            ("us-gaap:CashAndCashEquivalentsAtCarryingValue", 1.0),
            ("us-gaap:AccountsReceivableNetCurrent", 1.0),
            ("us-gaap:InventoryNet", 1.0),
            ("us-gaap:OtherAssetsCurrent", 1.0),
        ],
    ),
    ("us-gaap:Liabilities", &[("us-gaap:LiabilitiesCurrent", 1.0), ("us-gaap:LiabilitiesNoncurrent", 1.0)]),
    ("us-gaap:LiabilitiesAndStockholdersEquity", &[("us-gaap:Liabilities", 1.0), ("us-gaap:StockholdersEquity", 1.0)]),
    ("us-gaap:GrossProfit", &[("us-gaap:Revenues", 1.0), ("us-gaap:CostOfRevenue", -1.0)]),
    ("us-gaap:OperatingIncomeLoss", &[("us-gaap:GrossProfit", 1.0), ("us-gaap:OperatingExpenses", -1.0)]),
];

/// Subtotals whose errors rule 0126 catches (Assets belongs to rule 0004).
const CALC_TARGETS: &[&str] =
    &["us-gaap:AssetsCurrent", "us-gaap:Liabilities", "us-gaap:GrossProfit", "us-gaap:OperatingIncomeLoss"];

struct RuleDef {
    id: String,
    name: &'static str,
    description: String,
    logic: &'static str,
    targets: Vec<&'static str>,
}

fn rules(rng: &mut Rng, extra: usize) -> Vec<RuleDef> {
    let mut out = vec![
        RuleDef {
            id: "DQC_US_0004".into(),
            name: "Assets Equals Liabilities and Equity",
            description: "Total assets reported for an instant must equal the sum of total liabilities and stockholders' equity reported \
                          for the same instant and dimensions. The expected value of Assets is Liabilities plus StockholdersEquity."
                .into(),
            logic: [
                "$Assets != $Liabilities + $StockholdersEquity (same instant, no dimensions)",
                "$Liabilities + $StockholdersEquity <> $Assets for the same instant without dimensions",
            ][rng.below(2)],
            targets: vec!["us-gaap:Assets"],
        },
        RuleDef {
            id: "DQC_US_0015".into(),
            name: "Negative Values",
            description: "The listed concepts represent amounts that cannot be negative. A negative value is a sign error; the \
                          expected value is the absolute amount of the reported fact."
                .into(),
            logic: ["$fact < 0 for a concept in target_concepts", "$value < 0 (sign error on a non-negative concept)"][rng.below(2)],
            targets: NON_NEGATIVE.to_vec(),
        },
        RuleDef {
            id: "DQC_US_0126".into(),
            name: "Calculation Inconsistency",
            description: "A subtotal must equal the weighted sum of its children as defined by the filing's calculation \
                          relationships (filing_relationships, summation-item arcs), for the same period and dimensions. The expected \
                          value is the weighted sum of the children."
                .into(),
            logic: [
                "$parent != sum($child * weight) over summation-item relationships of the filing",
                "$total <> SUM($item * weight) of the calculation children in the filing",
            ][rng.below(2)],
            targets: CALC_TARGETS.to_vec(),
        },
    ];
    let topics = [
        ("Axis with Inappropriate Members", "A member is used on an axis where the taxonomy does not allow it."),
        ("Context Dates After Period of Report", "A fact uses a context ending after the document period end date."),
        (
            "Duplicate Facts with Different Values",
            "Two facts with the same concept and context report different values.",
        ),
        ("Incorrect Use of Extension Element", "An extension element duplicates a standard taxonomy element."),
        ("Missing Required Disclosure", "A disclosure required when a related concept is reported is absent."),
        ("Inconsistent Decimals", "Facts of one concept report incompatible decimals attributes."),
    ];
    for k in 0..extra {
        let (name, desc) = topics[k % topics.len()];
        out.push(RuleDef {
            id: format!("DQC_US_{:04}", 140 + k),
            name,
            description: format!("{desc} Applies to filings under ruleset version {}.", 20 + rng.below(6)),
            logic: "see description",
            targets: vec![],
        });
    }
    out
}

struct Fact {
    id: String,
    concept: &'static str,
    value: f64,
    instant: bool,
    dims: Option<(&'static str, String)>,
}

struct Filing {
    tag: String,
    cik: String,
    end: String,
    start: String,
    facts: Vec<Fact>,
    /// (fact index, rule, expected value)
    errors: Vec<(usize, &'static str, f64)>,
}

fn build_filing(rng: &mut Rng, k: usize) -> Filing {
    let tag: String = (0..rng.range(3, 4)).map(|_| (b'a' + rng.below(26) as u8) as char).collect();
    let tag = format!("{tag}{k}");
    let cik = format!("{:010}", rng.range(1_000, 1_999_999));
    let year = rng.range(2019, 2023);
    let month = *rng.pick(&[3, 6, 9, 12]);
    let end_day = match month {
        6 | 9 => 30,
        _ => 31,
    };
    let end = format!("{year}-{month:02}-{end_day}");
    let start = if month == 12 { format!("{year}-01-01") } else { format!("{}-{:02}-01", year - 1, month + 1) };
    let scale = 1000.0;
    let v = |lo: f64, hi: f64, rng: &mut Rng| (rng.uniform(lo, hi) / scale).round() * scale;
    let cash = v(5e7, 9e8, rng);
    let ar = v(5e7, 6e8, rng);
    let inv = v(1e7, 5e8, rng);
    let oca = v(1e7, 2e8, rng);
    let ac = cash + ar + inv + oca;
    let anc = v(2e8, 4e9, rng);
    let assets = ac + anc;
    let lc = v(1e8, 8e8, rng);
    let lnc = v(1e8, 1.5e9, rng);
    let liabilities = lc + lnc;
    let equity = assets - liabilities;
    let members = [("abc:ProductMember", v(2e8, 2e9, rng)), ("abc:ServiceMember", v(5e7, 8e8, rng))];
    let revenue: f64 = members.iter().map(|m| m.1).sum();
    let cost = (revenue * rng.uniform(0.4, 0.8) / scale).round() * scale;
    let gross = revenue - cost;
    let opex = (gross * rng.uniform(0.3, 0.9) / scale).round() * scale;
    let opinc = gross - opex;
    let mut facts = Vec::new();
    let mut push =
        |concept: &'static str, value: f64, instant: bool, dims: Option<(&'static str, String)>, rng: &mut Rng| {
            facts.push(Fact { id: format!("FACT-{}", rng.hex(24)), concept, value, instant, dims });
            facts.len() - 1
        };
    let mut idx = std::collections::BTreeMap::new();
    for (c, val) in [
        ("us-gaap:CashAndCashEquivalentsAtCarryingValue", cash),
        ("us-gaap:AccountsReceivableNetCurrent", ar),
        ("us-gaap:InventoryNet", inv),
        ("us-gaap:OtherAssetsCurrent", oca),
        ("us-gaap:AssetsCurrent", ac),
        ("us-gaap:AssetsNoncurrent", anc),
        ("us-gaap:Assets", assets),
        ("us-gaap:LiabilitiesCurrent", lc),
        ("us-gaap:LiabilitiesNoncurrent", lnc),
        ("us-gaap:Liabilities", liabilities),
        ("us-gaap:StockholdersEquity", equity),
        ("us-gaap:LiabilitiesAndStockholdersEquity", liabilities + equity),
    ] {
        idx.insert(c, push(c, val, true, None, rng));
    }
    for (c, val) in [
        ("us-gaap:Revenues", revenue),
        ("us-gaap:CostOfRevenue", cost),
        ("us-gaap:GrossProfit", gross),
        ("us-gaap:OperatingExpenses", opex),
        ("us-gaap:OperatingIncomeLoss", opinc),
    ] {
        idx.insert(c, push(c, val, false, None, rng));
    }
    for (m, val) in members {
        push("us-gaap:Revenues", val, false, Some(("srt:ProductOrServiceAxis", m.to_string())), rng);
    }
    for c in NON_NEGATIVE {
        let val = v(1e6, 9e7, rng);
        idx.insert(c, push(c, val, false, None, rng));
    }
    // Seed errors: one or two per filing, each caught by one rule.
    let mut errors = Vec::new();
    let how_many = 1 + rng.below(2);
    let kinds = rng.sample_indices(3, how_many);
    for kind in kinds {
        match kind {
            0 => {
                let c = *rng.pick(NON_NEGATIVE);
                let f = idx[c];
                let expected = facts[f].value;
                facts[f].value = -expected;
                errors.push((f, "DQC_US_0015", expected));
            }
            1 => {
                let f = idx["us-gaap:Assets"];
                let expected = facts[f].value;
                let delta = (rng.uniform(1e6, 5e7) / scale).round() * scale;
                facts[f].value = expected + if rng.chance(0.5) { delta } else { -delta };
                errors.push((f, "DQC_US_0004", expected));
            }
            _ => {
                // Rule 0004 reads Liabilities; never corrupt it in the same filing.
                let targets: Vec<&str> = CALC_TARGETS
                    .iter()
                    .copied()
                    .filter(|c| {
                        !(errors.iter().any(|e: &(usize, &str, f64)| e.1 == "DQC_US_0004")
                            && *c == "us-gaap:Liabilities")
                    })
                    .collect();
                let c = *rng.pick(&targets);
                let f = idx[c];
                let expected = facts[f].value;
                let delta = (rng.uniform(1e6, 3e7) / scale).round() * scale;
                facts[f].value = expected + if rng.chance(0.5) { delta } else { -delta };
                errors.push((f, "DQC_US_0126", expected));
            }
        }
    }
    Filing { tag, cik, end, start, facts, errors }
}

/// Generate the audit corpus and the FinAuditing tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let mut rng = Rng::derive(ctx.seed, "finance_en_audit");
    let rules = rules(&mut rng, 20 + ctx.scale.audit_filings / 10);
    let filings: Vec<Filing> = (0..ctx.scale.audit_filings).map(|k| build_filing(&mut rng, k)).collect();
    let route = Route::FinanceEnAudit;
    let mut db = DbWriter::in_corpus(corpus, route, &ctx.scale)?;
    for rule in &rules {
        db.insert(
            "dqc_rules",
            &[
                ("rule_id", t(&rule.id)),
                ("ruleset_version", t("v24")),
                ("rule_name", t(rule.name)),
                ("status", t("active")),
                ("release_date", t("2023-06-30")),
                ("effective_date", t("2023-09-01")),
                ("description", t(&rule.description)),
                ("rule_logic", t(rule.logic)),
                ("target_concepts", t(json!(rule.targets).to_string())),
                ("messages_json", t(json!({"error": format!("{}: {}", rule.id, rule.name)}).to_string())),
                ("source_files", t(json!([format!("{}.xule", rule.id.to_lowercase())]).to_string())),
            ],
        )?;
    }
    for (qname, label, balance, period) in CONCEPTS {
        let local = qname.trim_start_matches("us-gaap:");
        db.insert(
            "taxonomy_concepts",
            &[
                ("concept_id", t(format!("us-gaap_2023_{local}"))),
                ("taxonomy_year", i(2023)),
                ("qname", t(*qname)),
                ("label", t(*label)),
                ("data_type", t("xbrli:monetaryItemType")),
                ("balance", t(*balance)),
                ("period_type", t(*period)),
                ("abstract", i(0)),
                ("documentation", t(format!("Amount of {}.", label.to_lowercase()))),
                ("labels", t(json!({"terseLabel": label}).to_string())),
                ("references_json", t("[]")),
                ("attributes_json", t("{}")),
            ],
        )?;
    }
    let mut rel = 0;
    for (parent, children) in CALCS {
        for (order, (child, weight)) in children.iter().enumerate() {
            rel += 1;
            db.insert(
                "taxonomy_relationships",
                &[
                    ("relationship_id", t(format!("TREL-{rel:05}"))),
                    ("taxonomy_year", i(2023)),
                    ("relationship_type", t("calculation")),
                    ("parent_concept", t(*parent)),
                    ("child_concept", t(*child)),
                    ("arcrole", t("http://www.xbrl.org/2003/arcrole/summation-item")),
                    ("role", t("http://fasb.org/us-gaap/role/statement/StatementOfFinancialPositionClassified")),
                    ("weight", r(*weight)),
                    ("order_value", r(order as f64 + 1.0)),
                    ("attributes_json", t("{}")),
                ],
            )?;
        }
    }
    for f in &filings {
        let filing_id = format!("{}-{}", f.tag, f.end.replace('-', ""));
        let mut order = 0;
        for (concept, value) in
            [("dei:EntityCentralIndexKey", f.cik.clone()), ("dei:DocumentPeriodEndDate", f.end.clone())]
        {
            order += 1;
            db.insert(
                "filing_facts",
                &[
                    ("fact_id", t(format!("FACT-{}", rng.hex(24)))),
                    ("filing_id", t(&filing_id)),
                    ("document_order", i(order)),
                    ("concept", t(concept)),
                    ("value", t(value)),
                    ("is_nil", i(0)),
                    ("context_id", t(format!("c-{order}"))),
                    ("start_date", t(&f.start)),
                    ("end_date", t(&f.end)),
                    ("dimensions", t("{}")),
                ],
            )?;
        }
        for fact in &f.facts {
            order += 1;
            let dims = match &fact.dims {
                Some((axis, member)) => json!({ *axis: member }).to_string(),
                None => "{}".into(),
            };
            let (start, end, instant) = if fact.instant {
                (None, None, Some(f.end.clone()))
            } else {
                (Some(f.start.clone()), Some(f.end.clone()), None)
            };
            db.insert(
                "filing_facts",
                &[
                    ("fact_id", t(&fact.id)),
                    ("filing_id", t(&filing_id)),
                    ("document_order", i(order)),
                    ("concept", t(fact.concept)),
                    ("value", t(format!("{:.0}", fact.value))),
                    ("is_nil", i(0)),
                    ("unit", t("usd")),
                    ("decimals", t("-3")),
                    ("context_id", t(format!("c-{order}"))),
                    ("start_date", crate::db::opt_t(start)),
                    ("end_date", crate::db::opt_t(end)),
                    ("instant_date", crate::db::opt_t(instant)),
                    ("dimensions", t(dims)),
                ],
            )?;
        }
        let mut rorder = 0;
        for (parent, children) in CALCS {
            for (k, (child, weight)) in children.iter().enumerate() {
                rorder += 1;
                db.insert(
                    "filing_relationships",
                    &[
                        ("relationship_id", t(format!("REL-{}", rng.hex(20)))),
                        ("filing_id", t(&filing_id)),
                        ("document_order", i(rorder)),
                        ("parent_concept", t(*parent)),
                        ("child_concept", t(*child)),
                        ("weight", r(*weight)),
                        ("order_value", r(k as f64 + 1.0)),
                        ("role", t(format!("http://{}.example.com/role/FinancialStatements", f.tag))),
                        ("arcrole", t("http://www.xbrl.org/2003/arcrole/summation-item")),
                        ("attributes_json", t("{}")),
                    ],
                )?;
            }
        }
    }
    let rows = db.finish()?;
    let group: TaskGroup = "finance_en_prescriptive".parse().map_err(crate::Error::bug)?;
    let plan = plan_types(
        &ctx.scale,
        group,
        &["FinAuditing"],
        ctx.scale.tasks_per_type * 3,
        ctx.scale.min_tasks_per_group / 2,
    );
    let mut trng = Rng::derive(ctx.seed, "finance_en_audit_tasks");
    let tasks = fill(group, &plan, &mut trng, |ty, rng| {
        let f = rng.pick(&filings);
        let (fi, rule, expected) = *rng.pick(&f.errors);
        let fact = &f.facts[fi];
        let period = match (fact.instant, rng.below(2)) {
            (true, 0) => format!("as of {}", f.end),
            (true, _) => format!("at {}", f.end),
            (false, 0) => format!("for fact period {} to {}", f.start, f.end),
            (false, _) => format!("for the period from {} through {}", f.start, f.end),
        };
        let q = match rng.below(4) {
            2 => format!(
                "Which DQC rule governs {} {period} reported by CIK {} in filing {} (period ending {}), and what should its value be?",
                fact.concept, f.cik, f.tag, f.end
            ),
            3 => format!(
                "Check {} reported by the company with CIK {} in its {} filing dated {}, {period}, against the DQC rules and give the corrected amount.",
                fact.concept, f.cik, f.tag, f.end
            ),
            0 => format!(
                "Audit {} {period} in the audit-corpus filing identified by CIK {}, filing tag {}, and filing reference date {}.",
                fact.concept, f.cik, f.tag, f.end
            ),
            _ => format!(
                "In the audit corpus, check the value reported for {} {period} by the filer with CIK {} (filing tag {}, document period end {}) against the data-quality rules.",
                fact.concept, f.cik, f.tag, f.end
            ),
        };
        Some(Task::new(
            ty,
            q,
            "Find the DQC rule that governs the specified fact and apply it. Return only a JSON object with exactly two fields: \
             \"applied_rule\" (the DQC rule id) and \"expected_value\" (the value the fact should have, as a JSON number).",
            json!([{"FACT_id": fact.id, "type": "filing_fact"}]),
            json!({"applied_rule": rule, "expected_value": expected as i64}),
        ))
    })?;
    Ok(DomainOutput { files: vec![(route, rows)], tasks: vec![(group, tasks)] })
}
