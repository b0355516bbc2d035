//! Data loading: companies, annual reports (figures and text) and metric names read once per
//! task through the guarded connection (ground-truth reports and reports after a stated cutoff
//! are invisible), and the look-ups of the query against them — named companies, the screened
//! population, named metrics, years.

use std::collections::{BTreeMap, BTreeSet};

use anser_manifest::{EvidenceKind, Language, Manifest};
use serde_json::{Value, json};

use super::{
    Mention,
    glossary::{Metric, ratio_glossary},
    labels::learn_zh_labels,
};
use crate::{
    Result,
    method::offline::{column_strings, re},
    tools::sql::GuardedDb,
};

#[derive(Debug, Clone)]
pub(super) struct Company {
    pub(super) key: String,
    pub(super) name: String,
    /// Stock code or tickers.
    pub(super) codes: Vec<String>,
    /// Classification values (industry, exchange, board / buckets).
    pub(super) attrs: Vec<String>,
}

#[derive(Debug, Clone)]
pub(super) struct Report {
    pub(super) company: String,
    pub(super) year: i32,
    pub(super) id: String,
    pub(super) vals: BTreeMap<String, f64>,
    pub(super) text: String,
}

pub(super) struct Data {
    pub(super) lang: Language,
    pub(super) companies: Vec<Company>,
    pub(super) reports: Vec<Report>,
    /// Metric names (lower-case for English), longest first.
    pub(super) metrics: Vec<(String, Metric)>,
    /// Classification values seen in `companies`.
    pub(super) attr_values: BTreeSet<String>,
}

fn text_of(v: &Value) -> String {
    v.as_str().map(String::from).unwrap_or_else(|| v.to_string())
}

impl Data {
    pub(super) fn load(db: &GuardedDb, lang: Language) -> Result<Data> {
        let (companies_sql, figures_sql, id_col) = match lang {
            Language::Zh => (
                "SELECT stock_code, company_name, stock_code, COALESCE(industry, ''), COALESCE(exchange, ''), \
                 COALESCE(board, '') FROM companies",
                "SELECT f.*, r.report_year AS anser_year, COALESCE(r.full_text, '') AS anser_text FROM financial_fields f \
                 JOIN reports r ON r.report_id = f.report_id WHERE r.report_type = 'annual'",
                "report_id",
            ),
            Language::En => (
                "SELECT CAST(cik AS TEXT), name, tickers_json, COALESCE(industry_bucket, ''), \
                 COALESCE(region_bucket, ''), COALESCE(size_bucket, '') FROM companies",
                "SELECT f.*, fl.fiscal_year AS anser_year, \
                 (SELECT group_concat(s.section_name || ' — ' || replace(s.text, char(10), ' '), char(10)) FROM sections s WHERE s.accession = f.accession) AS anser_text \
                 FROM financial_facts f JOIN filings fl ON fl.accession = f.accession WHERE fl.form LIKE '10-K%'",
                "accession",
            ),
        };
        let mut companies = Vec::new();
        let mut attr_values = BTreeSet::new();
        for r in column_strings(db, companies_sql)? {
            let [key, name, codes, a, b, c] = r.as_slice() else { continue };
            let codes = match serde_json::from_str::<Value>(codes) {
                Ok(Value::Array(a)) => a.iter().map(text_of).collect(),
                _ => vec![codes.clone()],
            };
            let attrs: Vec<String> = [a, b, c].into_iter().filter(|v| !v.is_empty()).cloned().collect();
            attr_values.extend(attrs.iter().cloned());
            companies.push(Company { key: key.clone(), name: name.clone(), codes, attrs });
        }
        let result = db.query_with(figures_sql, 1_000_000)?;
        // The figures query names the company column as the companies table stores the id.
        let company_col = evidence_kind(lang, Population::Companies).records.as_ref().map_or("", |r| r.column.as_str());
        let mut reports = Vec::new();
        let mut numeric_cols = BTreeSet::new();
        for row in &result.rows {
            let mut vals = BTreeMap::new();
            let (mut company, mut year, mut id, mut text) = (String::new(), None, String::new(), String::new());
            for (c, v) in result.columns.iter().zip(row) {
                match c.as_str() {
                    "anser_year" => year = v.as_i64().map(|y| y as i32),
                    "anser_text" => text = text_of(v),
                    c if c == id_col => id = text_of(v),
                    c if c == company_col => company = text_of(v),
                    "missing_rate" | "report_period" | "currency" | "basic_eps" => {}
                    c => {
                        if let Some(n) = v.as_f64() {
                            vals.insert(c.to_string(), n);
                            numeric_cols.insert(c.to_string());
                        }
                    }
                }
            }
            if let Some(year) = year {
                reports.push(Report { company, year, id, vals, text });
            }
        }
        let mut metrics: Vec<(String, Metric)> =
            ratio_glossary(lang).into_iter().map(|(n, m)| (n.to_string(), m)).collect();
        match lang {
            Language::En => {
                metrics.extend(numeric_cols.iter().map(|c| (c.replace('_', " "), Metric::Col(c.clone()))));
            }
            Language::Zh => metrics.extend(learn_zh_labels(&reports)),
        }
        metrics.sort_by_key(|(n, _)| std::cmp::Reverse(n.chars().count()));
        Ok(Data { lang, companies, reports, metrics, attr_values })
    }

    pub(super) fn report(&self, company: &str, year: i32) -> Option<&Report> {
        self.reports.iter().find(|r| r.company == company && r.year == year)
    }

    /// A report's evidence item, in the shape the manifest gives its evidence kind.
    pub(super) fn evidence(&self, r: &Report) -> Value {
        evidence_kind(self.lang, Population::Reports).item(&json!(r.id))
    }

    /// A company's evidence item, in the shape the manifest gives its evidence kind.
    pub(super) fn company_evidence(&self, key: &str) -> Value {
        evidence_kind(self.lang, Population::Companies).item(&json!(key))
    }

    /// Companies the query names by code/ticker or name, in query order.
    pub(super) fn named_companies(&self, query: &str) -> Vec<&Company> {
        let lower = query.to_lowercase();
        let mut found: Vec<(usize, &Company)> = Vec::new();
        for c in &self.companies {
            let by_code = c.codes.iter().filter(|k| !k.is_empty()).find_map(|k| {
                let pat = format!(r"[(（]{}[)）]", regex::escape(k));
                regex::Regex::new(&pat).ok()?.find(query).map(|m| m.start())
            });
            let by_name = lower.find(&c.name.to_lowercase());
            if let Some(at) = by_code.or(by_name) {
                found.push((at, c));
            }
        }
        found.sort_by_key(|(at, _)| *at);
        found.into_iter().map(|(_, c)| c).collect()
    }

    /// The population the query screens: companies with every classification value it names.
    pub(super) fn population(&self, query: &str) -> (Vec<&Company>, Vec<String>) {
        let named: Vec<String> = self
            .attr_values
            .iter()
            .filter(|v| match self.lang {
                Language::Zh => v.chars().count() >= 2 && query.contains(v.as_str()),
                Language::En => {
                    regex::Regex::new(&format!(r"\b{}\b", regex::escape(v))).is_ok_and(|p| p.is_match(query))
                }
            })
            .cloned()
            .collect();
        // A value inside a longer named value ("主板" in "科创板主板") is not a separate filter.
        let named: Vec<String> =
            named.iter().filter(|v| !named.iter().any(|o| o != *v && o.contains(v.as_str()))).cloned().collect();
        let pop = self.companies.iter().filter(|c| named.iter().all(|v| c.attrs.contains(v))).collect();
        (pop, named)
    }

    /// Metrics the query names, in query order, without overlaps (longest name wins).
    pub(super) fn named_metrics(&self, query: &str) -> Vec<Mention> {
        let hay = match self.lang {
            Language::Zh => query.to_string(),
            Language::En => query.to_lowercase().replace('-', " "),
        };
        let mut taken: Vec<(usize, usize)> = Vec::new();
        let mut out = Vec::new();
        for (name, m) in &self.metrics {
            for (at, s) in hay.match_indices(name.as_str()) {
                let end = at + s.len();
                if taken.iter().any(|(a, b)| at < *b && end > *a) {
                    continue;
                }
                if self.lang == Language::En {
                    let before_ok = hay[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
                    let after_ok = hay[end..].chars().next().is_none_or(|c| !c.is_alphanumeric());
                    if !(before_ok && after_ok) {
                        continue;
                    }
                }
                taken.push((at, end));
                out.push((at, end, name.clone(), m.clone()));
            }
        }
        out.sort_by_key(|(at, ..)| *at);
        out
    }

    pub(super) fn years(&self, query: &str) -> Vec<i32> {
        let pat = match self.lang {
            Language::Zh => r"(\d{4})(?:年|-\d{4}年|\s*[至到~–-])",
            Language::En => r"(?i)(?:FY|fiscal(?:\s+year)?)\s?'?(\d{4})",
        };
        let mut ys: Vec<i32> = re(pat).captures_iter(query).filter_map(|c| c[1].parse().ok()).collect();
        if ys.is_empty() {
            // A bare year ("in 2022", "2022 annual report").
            ys = re(r"\b((?:19|20)\d{2})\b").captures_iter(query).filter_map(|c| c[1].parse().ok()).collect();
        }
        if self.lang == Language::Zh {
            // "2020-2024年": both ends.
            for c in re(r"(\d{4})\s*[-–至到]\s*(\d{4})").captures_iter(query) {
                ys.extend([&c[1], &c[2]].iter().filter_map(|y| y.parse::<i32>().ok()));
            }
        }
        let mut seen = BTreeSet::new();
        ys.retain(|y| seen.insert(*y));
        ys
    }
}

/// Which population a finance evidence item names.
#[derive(Debug, Clone, Copy)]
enum Population {
    Reports,
    Companies,
}

/// The manifest's evidence kind for a finance population (identity keys and item shape are
/// manifest data, shared with the evaluator, the indexer and the run records).
fn evidence_kind(lang: Language, population: Population) -> &'static EvidenceKind {
    let name = match (lang, population) {
        (Language::Zh, Population::Reports) => "financial_report_zh",
        (Language::Zh, Population::Companies) => "company_stock_code",
        (Language::En, Population::Reports) => "financial_report_en",
        (Language::En, Population::Companies) => "company_cik",
    };
    // The embedded manifest is validated at start-up (and by its unit tests), so these kinds exist.
    Manifest::get().evidence_kind(name).expect("the manifest defines the finance evidence kinds")
}
