//! 12 CFR Part 217 paragraphs (`finance/en/12_CFR_Part_217.sqlite`) and the RegBench tasks.
//!
//! The paragraphs the tasks apply are written for the sample in plain words after the rule's
//! well-known requirements (minimum ratios of §217.10, the capital conservation buffer table of
//! §217.11, general risk weights of §217.32, advanced-approaches and market-risk applicability
//! thresholds of §217.100 and §217.201); the rest of the table is filler paragraphs in other
//! sections so that retrieval has something to get wrong. Each task gives a bank's figures, and
//! its ground truth is a conclusion plus the required findings, computed from those figures.

use std::path::Path;

use anser_manifest::{Route, TaskGroup};
use serde_json::{Value, json};

use crate::{
    Ctx, DomainOutput, Result,
    db::{DbWriter, t},
    rng::Rng,
    task::{Task, fill, plan_types},
};

/// Minimum ratios of §217.10(a)(1), percent.
pub const MIN_CET1: f64 = 4.5;
pub const MIN_TIER1: f64 = 6.0;
pub const MIN_TOTAL: f64 = 8.0;
pub const MIN_LEVERAGE: f64 = 4.0;

struct Para {
    section: &'static str,
    title: &'static str,
    label: String,
    text: String,
}

fn pid(section: &str, label: &str) -> String {
    let parts: Vec<&str> = label.trim_matches(|c| c == '(' || c == ')').split(")(").collect();
    format!("12CFR217-{}-{}", section, parts.join("-"))
}

fn core() -> Vec<Para> {
    let p = |section, title, label: &str, text: &str| Para {
        section,
        title,
        label: label.to_string(),
        text: text.to_string(),
    };
    vec![
        p(
            "217.10",
            "Minimum capital requirements",
            "(a)(1)",
            "Except as provided in paragraph (d) of this section, a Board-regulated institution must maintain the following minimum capital ratios:",
        ),
        p(
            "217.10",
            "Minimum capital requirements",
            "(a)(1)(i)",
            &format!("A common equity tier 1 capital ratio of {MIN_CET1} percent."),
        ),
        p(
            "217.10",
            "Minimum capital requirements",
            "(a)(1)(ii)",
            &format!("A tier 1 capital ratio of {MIN_TIER1} percent."),
        ),
        p(
            "217.10",
            "Minimum capital requirements",
            "(a)(1)(iii)",
            &format!("A total capital ratio of {MIN_TOTAL} percent."),
        ),
        p(
            "217.10",
            "Minimum capital requirements",
            "(a)(1)(iv)",
            &format!("A leverage ratio of {MIN_LEVERAGE} percent."),
        ),
        p(
            "217.10",
            "Minimum capital requirements",
            "(b)(1)",
            "A Board-regulated institution's common equity tier 1 capital ratio is the ratio of its common equity tier 1 capital to its standardized total risk-weighted assets; its tier 1 capital ratio is tier 1 capital (common equity tier 1 plus additional tier 1 capital) to standardized total risk-weighted assets; its total capital ratio is total capital (tier 1 plus tier 2 capital) to standardized total risk-weighted assets.",
        ),
        p(
            "217.10",
            "Minimum capital requirements",
            "(b)(4)",
            "A Board-regulated institution's leverage ratio is the ratio of its tier 1 capital to its average total consolidated assets, as reported on the institution's regulatory report minus amounts deducted from tier 1 capital.",
        ),
        p(
            "217.11",
            "Capital conservation buffer and countercyclical capital buffer amount",
            "(a)(2)(i)",
            &format!(
                "The capital conservation buffer is the lowest of: the common equity tier 1 capital ratio minus {MIN_CET1} percent; the tier 1 capital ratio minus {MIN_TIER1} percent; and the total capital ratio minus {MIN_TOTAL} percent. If any of these ratios is below its minimum, the buffer is zero."
            ),
        ),
        p(
            "217.11",
            "Capital conservation buffer and countercyclical capital buffer amount",
            "(a)(4)(i)",
            "A Board-regulated institution shall not make distributions or discretionary bonus payments during the current calendar quarter that, in the aggregate, exceed the maximum payout amount.",
        ),
        p(
            "217.11",
            "Capital conservation buffer and countercyclical capital buffer amount",
            "(a)(4)(iv)",
            "Table 1 to §217.11 — maximum payout ratio as a percentage of eligible retained income: capital conservation buffer greater than 2.5 percent: no payout ratio limitation applies; less than or equal to 2.5 percent and greater than 1.875 percent: 60 percent; less than or equal to 1.875 percent and greater than 1.25 percent: 40 percent; less than or equal to 1.25 percent and greater than 0.625 percent: 20 percent; less than or equal to 0.625 percent: 0 percent.",
        ),
        p(
            "217.32",
            "General risk weights",
            "(a)(1)",
            "Exposures to, and the portions of exposures that are directly and unconditionally guaranteed by, the United States government or its agencies receive a zero percent risk weight.",
        ),
        p(
            "217.32",
            "General risk weights",
            "(c)(1)",
            "Exposures to a U.S. government-sponsored enterprise, other than equity exposures or preferred stock, receive a 20 percent risk weight.",
        ),
        p(
            "217.32",
            "General risk weights",
            "(g)(1)",
            "A first-lien residential mortgage exposure that is prudently underwritten and not 90 days or more past due receives a 50 percent risk weight.",
        ),
        p("217.32", "General risk weights", "(f)", "Corporate exposures receive a 100 percent risk weight."),
        p(
            "217.32",
            "General risk weights",
            "(k)(1)",
            "An exposure that is 90 days or more past due or on nonaccrual, other than a sovereign or residential mortgage exposure, receives a 150 percent risk weight on the unguaranteed portion.",
        ),
        p(
            "217.100",
            "Purpose, applicability, and principle of conservatism",
            "(b)(1)",
            "This subpart applies to a Board-regulated institution that has consolidated total assets of $250 billion or more, or consolidated total on-balance sheet foreign exposure of $10 billion or more, as reported on its most recent year-end regulatory report.",
        ),
        p(
            "217.201",
            "Purpose, applicability, and reservation of authority",
            "(b)(1)",
            "This subpart applies to any Board-regulated institution whose aggregate trading assets and trading liabilities, as reported in its most recent quarterly regulatory report, equal 10 percent or more of quarter-end total assets or $1 billion or more.",
        ),
        p(
            "217.201",
            "Purpose, applicability, and reservation of authority",
            "(b)(2)",
            "The Board may apply this subpart to any Board-regulated institution if the Board deems it necessary or appropriate because of the level of market risk of the institution or to ensure safe and sound banking practices.",
        ),
    ]
}

const FILLER_SECTIONS: &[(&str, &str)] = &[
    ("217.2", "Definitions"),
    ("217.20", "Capital components and eligibility criteria for regulatory capital instruments"),
    ("217.22", "Regulatory capital adjustments and deductions"),
    ("217.35", "Cleared transactions"),
    ("217.37", "Collateralized transactions"),
    ("217.42", "Risk-weighted assets for securitization exposures"),
    ("217.52", "Simple risk-weight approach"),
    ("217.63", "Disclosures by Board-regulated institutions"),
    ("217.132", "Counterparty credit risk of repo-style transactions"),
    ("217.173", "Disclosures by certain advanced approaches institutions"),
    ("217.204", "Measure for market risk"),
    ("217.210", "Standardized measurement method for specific risk"),
];

const FILLER_TEXT: &[&str] = &[
    "A Board-regulated institution must maintain written policies and procedures that describe how it identifies, measures and documents {x}.",
    "For purposes of this section, {x} must be measured at least quarterly and reported on the institution's regulatory report.",
    "A Board-regulated institution may not include {x} in its calculation unless the Board has approved the methodology in writing.",
    "The Board may require a Board-regulated institution to hold additional capital against {x} if the institution's exposure is not commensurate with its risk-management capacity.",
    "A Board-regulated institution must publicly disclose qualitative and quantitative information about {x} each calendar quarter.",
];

const FILLER_TOPICS: &[&str] = &[
    "eligible credit derivatives",
    "deferred tax assets arising from temporary differences",
    "mortgage servicing assets",
    "exposures to central counterparties",
    "financial collateral",
    "securitization exposures",
    "equity exposures to investment funds",
    "specific risk add-ons",
    "unsettled transactions",
    "minority interest",
];

/// Generate the regulation table and the RegBench tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let mut rng = Rng::derive(ctx.seed, "finance_en_capital");
    let route = Route::FinanceEnCapitalRules;
    let mut db = DbWriter::in_corpus(corpus, route, &ctx.scale)?;
    let mut paras = core();
    let mut seen: std::collections::BTreeSet<String> = paras.iter().map(|p| pid(p.section, &p.label)).collect();
    let letters = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let romans = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii"];
    let mut n = 0;
    while n < ctx.scale.cfr_extra_paragraphs {
        let (section, title) = *rng.pick(FILLER_SECTIONS);
        let label = format!("({})({})({})", rng.pick(&letters), 1 + rng.below(9), rng.pick(&romans));
        if !seen.insert(pid(section, &label)) {
            continue;
        }
        let topic = *rng.pick(FILLER_TOPICS);
        let text = rng.pick(FILLER_TEXT).replace("{x}", topic);
        paras.push(Para { section, title, label, text });
        n += 1;
    }
    paras.sort_by_cached_key(|p| pid(p.section, &p.label));
    for p in &paras {
        db.insert(
            "regulation_paragraphs",
            &[
                ("paragraph_id", t(pid(p.section, &p.label))),
                ("section_number", t(p.section)),
                ("paragraph_label", t(&p.label)),
                ("section_title", t(p.title)),
                ("text", t(&p.text)),
            ],
        )?;
    }
    let rows = db.finish()?;
    let group: TaskGroup = "finance_en_prescriptive".parse().map_err(crate::Error::bug)?;
    let plan =
        plan_types(&ctx.scale, group, &["RegBench"], ctx.scale.tasks_per_type * 3, ctx.scale.min_tasks_per_group / 2);
    let mut trng = Rng::derive(ctx.seed, "finance_en_capital_tasks");
    let tasks = fill(group, &plan, &mut trng, |_, rng| Some(task(rng)))?;
    Ok(DomainOutput { files: vec![(route, rows)], tasks: vec![(group, tasks)] })
}

fn ev(ids: &[(&str, &str)]) -> Value {
    Value::Array(ids.iter().map(|(s, l)| json!({"id": pid(s, l), "type": "regulatory_paragraph"})).collect())
}

const BANKS: &[&str] = &[
    "Midland Prairie Bancorp",
    "Harbor Federal Trust",
    "Granite State Bank",
    "Riverside Community Bancshares",
    "Lakefront Savings Bank",
    "Summit National Bank",
    "Old Mill Bank & Trust",
    "Bayview Commercial Bank",
];

const INSTRUCTION: &str = "Answer in English using only the supplied 12 CFR Part 217 corpus. State the conclusion first, then list the required findings with every calculation, and cite the controlling paragraphs.";

fn bn(x: f64) -> String {
    format!("${x:.1} billion")
}

fn task(rng: &mut Rng) -> Task {
    let bank = *rng.pick(BANKS);
    let mk = |q: String, gt: String, e: Value| Task::new("RegBench", q, INSTRUCTION, e, json!(gt));
    match rng.below(5) {
        0 => {
            let total = (rng.uniform(4.0, 40.0) * 10.0).round() / 10.0;
            let ta = (rng.uniform(0.1, 1.4) * 10.0).round() / 10.0;
            let tl = (rng.uniform(0.0, 0.6) * 10.0).round() / 10.0;
            let sum = ((ta + tl) * 10.0).round() / 10.0;
            let share = sum / total * 100.0;
            let applies = sum >= 1.0 || share >= 10.0;
            let q = format!(
                "{bank} is a state member bank supervised by the Federal Reserve. Its latest quarterly Call Report shows total assets of {}, trading assets of {} and trading liabilities of {}. Is the bank subject to the market risk capital rule?",
                bn(total),
                bn(ta),
                bn(tl)
            );
            let gt = format!(
                "Conclusion: the market risk capital rule {} to {bank}.\nRequired findings:\n1. Aggregate trading assets and liabilities = {} + {} = {}.\n2. Dollar test: {} is {} $1 billion.\n3. Percentage test: {} / {} = {:.2}% of total assets, {} 10%.\n4. The rule applies if either test is met (12 CFR 217.201(b)(1)).",
                if applies { "applies" } else { "does not apply" },
                bn(ta),
                bn(tl),
                bn(sum),
                bn(sum),
                if sum >= 1.0 { "at or above" } else { "below" },
                bn(sum),
                bn(total),
                share,
                if share >= 10.0 { "at or above" } else { "below" }
            );
            mk(q, gt, ev(&[("217.201", "(b)(1)")]))
        }
        1 => {
            let rwa = rng.range(20, 90) as f64;
            let cet1 = (rwa * rng.uniform(0.035, 0.12) * 100.0).round() / 100.0;
            let at1 = (rwa * rng.uniform(0.0, 0.02) * 100.0).round() / 100.0;
            let t2 = (rwa * rng.uniform(0.0, 0.03) * 100.0).round() / 100.0;
            let avg_assets = (rwa * rng.uniform(1.3, 2.4) * 10.0).round() / 10.0;
            let r_cet1 = cet1 / rwa * 100.0;
            let r_t1 = (cet1 + at1) / rwa * 100.0;
            let r_tot = (cet1 + at1 + t2) / rwa * 100.0;
            let r_lev = (cet1 + at1) / avg_assets * 100.0;
            let checks = [
                ("common equity tier 1 capital ratio", r_cet1, MIN_CET1),
                ("tier 1 capital ratio", r_t1, MIN_TIER1),
                ("total capital ratio", r_tot, MIN_TOTAL),
                ("leverage ratio", r_lev, MIN_LEVERAGE),
            ];
            let failing: Vec<&str> = checks.iter().filter(|c| c.1 < c.2).map(|c| c.0).collect();
            let q = format!(
                "{bank} reports common equity tier 1 capital of {}, additional tier 1 capital of {}, tier 2 capital of {}, standardized total risk-weighted assets of {} and average total consolidated assets of {}. Does it meet every minimum capital ratio?",
                bn(cet1),
                bn(at1),
                bn(t2),
                bn(rwa),
                bn(avg_assets)
            );
            let mut findings: Vec<String> = checks
                .iter()
                .enumerate()
                .map(|(k, (name, v, min))| {
                    format!(
                        "{}. {name} = {v:.2}% versus the {min}% minimum: {}.",
                        k + 1,
                        if v >= min { "met" } else { "not met" }
                    )
                })
                .collect();
            findings.insert(0, String::new());
            let gt = format!(
                "Conclusion: {}\nRequired findings:{}",
                if failing.is_empty() {
                    format!("{bank} meets all four minimum capital ratios.")
                } else {
                    format!("{bank} does not meet the minimum {}.", failing.join(" and the minimum "))
                },
                findings.join("\n")
            );
            mk(
                q,
                gt,
                ev(&[
                    ("217.10", "(a)(1)(i)"),
                    ("217.10", "(a)(1)(ii)"),
                    ("217.10", "(a)(1)(iii)"),
                    ("217.10", "(a)(1)(iv)"),
                ]),
            )
        }
        2 => {
            let r_cet1 = (rng.uniform(5.0, 10.0) * 100.0).round() / 100.0;
            let r_t1 = ((r_cet1 + rng.uniform(0.0, 1.5)) * 100.0).round() / 100.0;
            let r_tot = ((r_t1 + rng.uniform(0.5, 2.5)) * 100.0).round() / 100.0;
            let buffers = [r_cet1 - MIN_CET1, r_t1 - MIN_TIER1, r_tot - MIN_TOTAL];
            let buffer = buffers.iter().copied().fold(f64::INFINITY, f64::min).max(0.0);
            let buffer = (buffer * 1e4).round() / 1e4;
            let payout = if buffer > 2.5 {
                "no payout ratio limitation"
            } else if buffer > 1.875 {
                "a maximum payout ratio of 60 percent"
            } else if buffer > 1.25 {
                "a maximum payout ratio of 40 percent"
            } else if buffer > 0.625 {
                "a maximum payout ratio of 20 percent"
            } else {
                "a maximum payout ratio of 0 percent"
            };
            let q = format!(
                "At quarter end {bank} has a common equity tier 1 capital ratio of {r_cet1:.2}%, a tier 1 capital ratio of {r_t1:.2}% and a total capital ratio of {r_tot:.2}%. What limit, if any, applies to its distributions and discretionary bonus payments this quarter?"
            );
            let gt = format!(
                "Conclusion: {bank} is subject to {payout}.\nRequired findings:\n1. CET1 buffer = {r_cet1:.2}% - {MIN_CET1}% = {:.2}%.\n2. Tier 1 buffer = {r_t1:.2}% - {MIN_TIER1}% = {:.2}%.\n3. Total capital buffer = {r_tot:.2}% - {MIN_TOTAL}% = {:.2}%.\n4. Capital conservation buffer = lowest of these = {buffer:.2}%, which maps to {payout} in Table 1 to §217.11.",
                buffers[0], buffers[1], buffers[2]
            );
            mk(q, gt, ev(&[("217.11", "(a)(2)(i)"), ("217.11", "(a)(4)(iv)")]))
        }
        3 => {
            let items = [
                ("U.S. Treasury securities", 0.0, ("217.32", "(a)(1)")),
                ("GSE debt securities", 20.0, ("217.32", "(c)(1)")),
                ("prudently underwritten first-lien residential mortgages", 50.0, ("217.32", "(g)(1)")),
                ("corporate loans", 100.0, ("217.32", "(f)")),
                ("commercial loans 90 days or more past due", 150.0, ("217.32", "(k)(1)")),
            ];
            let picked = rng.sample_indices(items.len(), 3);
            let amounts: Vec<f64> = picked.iter().map(|_| rng.range(5, 400) as f64 * 10.0).collect();
            let parts: Vec<String> =
                picked.iter().zip(&amounts).map(|(&k, a)| format!("${a:.0} million of {}", items[k].0)).collect();
            let rwa: f64 = picked.iter().zip(&amounts).map(|(&k, a)| a * items[k].1 / 100.0).sum();
            let q = format!(
                "{bank} holds {}. Under the standardized approach's general risk weights, what are the risk-weighted assets of these exposures?",
                parts.join(", ")
            );
            let lines: Vec<String> = picked
                .iter()
                .zip(&amounts)
                .enumerate()
                .map(|(j, (&k, a))| {
                    format!(
                        "{}. {}: ${a:.0} million × {}% = ${:.1} million.",
                        j + 1,
                        items[k].0,
                        items[k].1,
                        a * items[k].1 / 100.0
                    )
                })
                .collect();
            let gt = format!(
                "Conclusion: risk-weighted assets total ${rwa:.1} million.\nRequired findings:\n{}",
                lines.join("\n")
            );
            let cites: Vec<(&str, &str)> = picked.iter().map(|&k| items[k].2).collect();
            mk(q, gt, ev(&cites))
        }
        _ => {
            let total = rng.range(60, 420) as f64;
            let foreign = (rng.uniform(1.0, 18.0) * 10.0).round() / 10.0;
            let applies = total >= 250.0 || foreign >= 10.0;
            let q = format!(
                "{bank}'s most recent year-end regulatory report shows consolidated total assets of ${total:.0} billion and consolidated on-balance sheet foreign exposure of {}. Must it apply the advanced approaches capital framework?",
                bn(foreign)
            );
            let gt = format!(
                "Conclusion: the advanced approaches framework {}.\nRequired findings:\n1. Total assets ${total:.0} billion {} the $250 billion threshold.\n2. Foreign exposure {} {} the $10 billion threshold.\n3. Meeting either threshold triggers applicability (12 CFR 217.100(b)(1)).",
                if applies { "applies" } else { "does not apply" },
                if total >= 250.0 { "meets" } else { "is below" },
                bn(foreign),
                if foreign >= 10.0 { "meets" } else { "is below" }
            );
            mk(q, gt, ev(&[("217.100", "(b)(1)")]))
        }
    }
}
