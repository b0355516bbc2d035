//! Finance plans (zh and en reports): look-ups and computations over the structured annual
//! figures, driven by what the database itself lists.
//!
//! The query is read against the corpus's dictionaries:
//! - companies: stock codes, tickers and names of `companies`; populations: the values of its
//!   classification columns (industry, exchange, board; industry/region/size buckets);
//! - metrics: the columns of the figures table. English column names read as words
//!   (`net_operating_cash_flow` → "net operating cash flow"); Chinese labels are learned from the
//!   reports themselves — a label written right before a number (`营业收入8749279719元`) names
//!   the column holding that number for that report;
//! - ratios: a short accounting glossary (gross/net/operating margin, 毛利率, 资产负债率,
//!   费用率) defined over those columns — textbook definitions, not task wording;
//! - years (`2021年`, `FY2021`), comparison cues (超过/低于/above/more than), 最高/最低/top/
//!   bottom, 增长/增速/change and option lists (`A. …`).
//!
//! What is computed depends on the task type: a value, a change, a trend class, the option with
//! the highest/lowest metric, a count or mean over a screened population, a ranking. Text-only
//! types (summaries, risk comparisons) get the reports the query points at as evidence and an
//! answer composed from the figures or, failing that, the caller's extractive fallback. The
//! forward-looking types read the outlook sentence of the latest visible report (its guidance
//! range, its stated direction); the task's cutoff hides later reports.
//!
//! Everything is read through the guarded connection: ground-truth report rows are invisible.
//!
//! Layout, one concern a module: [`data`] loads and looks up, [`glossary`] defines metrics and
//! ratios, [`labels`] learns Chinese labels, [`cues`] reads the query's cues, [`grammar`] parses
//! screening conditions, [`company`] answers about named companies, [`screens`] and
//! [`rankings`] about populations, [`forecast`] about the outlook, [`answer_text`] writes the
//! composed answers.

mod answer_text;
mod company;
mod cues;
mod data;
mod forecast;
mod glossary;
mod grammar;
mod labels;
mod rankings;
mod screens;

use anser_manifest::{PublicTask, Split};
use serde_json::{Value, json};

use company::company_task;
use data::Data;
pub use data::RouteCache;
use forecast::predictive;
use glossary::Metric;
use grammar::merge_ratios;
use screens::{population_task, statistic};

use crate::{Result, tools::sql::GuardedDb};

/// A plan's outcome: an answer when one could be computed, and the evidence.
#[derive(Debug)]
pub struct FinPlan {
    pub answer: Option<String>,
    pub evidence: Vec<Value>,
    pub plan: Value,
}

/// A metric the query names: its byte span in the query, its name, the metric.
type Mention = (usize, usize, String, Metric);

/// Plan and answer one finance reports task; `cache` holds the route's data across tasks.
pub fn solve(db: &GuardedDb, task: &PublicTask, cache: &RouteCache) -> Result<Option<FinPlan>> {
    let data = Data::for_task(cache, db, task.group.language)?;
    let q = task.query.as_str();
    let ty = task.task_type.as_deref().unwrap_or("");
    let companies = data.named_companies(q);
    let years = data.years(q);
    let metrics = merge_ratios(q, data.lang, data.named_metrics(q));
    let plan_base = json!({
        "companies": companies.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        "years": years,
        "metrics": metrics.iter().map(|m| m.2.clone()).collect::<Vec<_>>(),
    });
    let plan = |extra: Value| {
        let mut p = plan_base.clone();
        if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        p
    };
    if task.group.split == Split::Predictive {
        return Ok(predictive(&data, task, &companies, &metrics).map(|(answer, evidence, how)| FinPlan {
            answer,
            evidence,
            plan: plan(how),
        }));
    }
    let out = match ty {
        "statistic" => statistic(&data, q, &years, &metrics),
        "cross_section_screen" | "ranking" | "screening" | "change_detection" if companies.is_empty() => {
            population_task(&data, task, &years, &metrics)
        }
        _ => company_task(&data, task, &companies, &years, &metrics),
    };
    Ok(out.map(|(answer, evidence, how)| FinPlan { answer, evidence, plan: plan(how) }))
}

type Outcome = Option<(Option<String>, Vec<Value>, Value)>;
