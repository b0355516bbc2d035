//! Row filters as TEMP views: the finance ground-truth rows (the manifest's `exclude`, whose rule
//! — the condition, the reason, the tables that follow — `anser_manifest` owns and the indexer
//! shares) and the records after a task's cutoff disappear from every table a query can name.
//!
//! For each filtered table `T` two TEMP views are created before any user SQL runs:
//!
//! ```text
//! temp."anser_<nonce>_T" = SELECT * FROM main."T" WHERE <predicates>     -- internal
//! temp."T"               = SELECT * FROM "anser_<nonce>_T"               -- public, shadows main.T
//! ```
//!
//! Unqualified names resolve to TEMP first, so natural SQL reads the filtered rows. The
//! authorizer (see `guard`) lets `main.T` be read only when the innermost view doing the read
//! is the internal one. Naming the internal view with a per-connection random nonce matters:
//! SQLite reports a CTE's name as the "accessor" too, so `WITH reports AS (SELECT * FROM
//! main.reports)` would pass a check against the public name. Child tables (chunks, fields,
//! facts, sections, features) joined on the parent's key keep only rows whose key is a visible
//! parent — orphans whose parent is unknown are hidden too.

use std::{
    collections::BTreeMap,
    hash::{BuildHasher, Hasher},
    time::{SystemTime, UNIX_EPOCH},
};

use anser_manifest::{RouteSpec, follows_visible_parent};
use serde::Serialize;

use crate::tools::boundary::{Boundary, dated_table};

/// Why rows of a table are hidden; reported in schema output and traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HiddenRule {
    /// The table whose rows the rule tests.
    pub table: String,
    /// The SQL condition a visible row satisfies.
    pub keep_when: String,
    pub reason: String,
    /// Tables whose rows follow the parent through its key (`table.column`).
    pub children: Vec<String>,
}

/// The filters of one connection.
#[derive(Debug, Clone)]
pub struct ViewPlan {
    pub nonce: String,
    pub rules: Vec<HiddenRule>,
    /// Filtered table → its predicates, parents first.
    filtered: Vec<(String, Vec<String>)>,
}

pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A random hex string from the standard library's per-process random hasher keys.
fn nonce() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    h.write_u128(nanos);
    h.write_usize(&h as *const _ as usize);
    format!("{:016x}", h.finish())
}

impl ViewPlan {
    /// The filters a route needs: its ground-truth exclusion and the task's boundary.
    pub fn new(spec: &RouteSpec, boundary: Option<&Boundary>) -> ViewPlan {
        let mut parents: BTreeMap<(String, String), Vec<(String, String)>> = BTreeMap::new();
        if let Some(ex) = &spec.exclude {
            parents.entry((ex.table.clone(), ex.key.clone())).or_default().push((ex.keep_when(), ex.reason()));
        }
        if let (Some(b), Some(dated)) = (boundary, dated_table(spec.route)) {
            parents.entry((dated.table.clone(), dated.key.clone())).or_default().push((
                b.cutoff.sql_predicate(dated),
                format!("records after the task's information cutoff ({})", b.stated_by.join(" / ")),
            ));
        }
        let nonce = nonce();
        let mut rules = Vec::new();
        let mut preds: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        for ((table, key), conds) in &parents {
            let kids = spec.followers(table, key);
            for (cond, reason) in conds {
                rules.push(HiddenRule {
                    table: table.clone(),
                    keep_when: cond.clone(),
                    reason: reason.clone(),
                    children: kids.iter().map(|(t, c)| format!("{t}.{c}")).collect(),
                });
            }
            preds.entry(table.clone()).or_default().extend(conds.iter().map(|(c, _)| c.clone()));
            if !order.contains(table) {
                order.insert(0, table.clone());
            }
            for (kid, col) in kids {
                let parent_view = quote_ident(&format!("anser_{nonce}_{table}"));
                preds.entry(kid.clone()).or_default().push(follows_visible_parent(&col, key, &parent_view));
                if !order.contains(&kid) {
                    order.push(kid);
                }
            }
        }
        let filtered =
            order.into_iter().filter_map(|t| preds.remove(&t).filter(|p| !p.is_empty()).map(|p| (t, p))).collect();
        ViewPlan { nonce, rules, filtered }
    }

    /// The internal view name of a filtered table.
    pub fn internal_name(&self, table: &str) -> String {
        format!("anser_{}_{table}", self.nonce)
    }

    /// Filtered tables, parents before children.
    pub fn filtered_tables(&self) -> impl Iterator<Item = &str> {
        self.filtered.iter().map(|(t, _)| t.as_str())
    }

    /// The statements creating the views, in dependency order.
    pub fn create_statements(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (table, preds) in &self.filtered {
            let internal = quote_ident(&self.internal_name(table));
            // Every filtered table has a predicate on one of its columns. That matters: SQLite
            // reports a FROM item none of whose columns is used with no accessor, which the
            // guard refuses for a filtered main table — a predicate keeps a column in use.
            let cond = preds.join(" AND ");
            out.push(format!("CREATE TEMP VIEW {internal} AS SELECT * FROM main.{} WHERE {cond}", quote_ident(table)));
            out.push(format!("CREATE TEMP VIEW {} AS SELECT * FROM {internal}", quote_ident(table)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use anser_manifest::{Manifest, Route};

    use super::*;
    use crate::tools::boundary::Cutoff;

    #[test]
    fn finance_reports_hide_ground_truth_and_children() {
        let plan = ViewPlan::new(Manifest::get().route(Route::FinanceZhReports), None);
        let tables: Vec<_> = plan.filtered_tables().collect();
        assert_eq!(tables, ["reports", "financial_fields", "report_chunks"]);
        assert_eq!(plan.rules.len(), 1);
        assert_eq!(plan.rules[0].keep_when, "\"split\" IS NOT 'ground_truth'");
        assert_eq!(plan.rules[0].children, ["financial_fields.report_id", "report_chunks.report_id"]);
        let stmts = plan.create_statements();
        assert_eq!(stmts.len(), 6);
        assert!(
            stmts[2]
                .contains(&format!("\"report_id\" IN (SELECT \"report_id\" FROM \"anser_{}_reports\")", plan.nonce))
        );
    }

    #[test]
    fn cutoff_and_ground_truth_combine_on_one_parent() {
        let b = Boundary { cutoff: Cutoff::FiscalYear { last: 2023 }, stated_by: vec!["through FY2023".into()] };
        let plan = ViewPlan::new(Manifest::get().route(Route::FinanceEnReports), Some(&b));
        assert_eq!(plan.rules.len(), 2);
        let stmts = plan.create_statements();
        assert!(stmts[0].contains("\"split\" IS NOT 'ground_truth' AND (COALESCE(fiscal_year"), "{}", stmts[0]);
        let tables: Vec<_> = plan.filtered_tables().collect();
        assert_eq!(tables, ["filings", "financial_facts", "sections"]);
    }

    #[test]
    fn routes_without_filters_have_no_views() {
        assert!(ViewPlan::new(Manifest::get().route(Route::LegalZhCases), None).create_statements().is_empty());
        let b = Boundary { cutoff: Cutoff::FiscalYear { last: 2020 }, stated_by: vec![] };
        let plan = ViewPlan::new(Manifest::get().route(Route::LegalEnCases), Some(&b));
        let tables: Vec<_> = plan.filtered_tables().collect();
        assert_eq!(tables, ["case_record", "case_feature", "opinion_record", "search_document"]);
        assert_ne!(ViewPlan::new(Manifest::get().route(Route::LegalEnCases), None).nonce, plan.nonce);
    }
}
