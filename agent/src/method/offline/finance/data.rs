//! Data loading: companies, annual reports (figures and text) and metric names, and the
//! look-ups of the query against them — named companies, the screened population, named
//! metrics, years.
//!
//! Reading the reports is most of a finance plan's cost at release size (tens of thousands of
//! reports with their full texts), and it is the same for every task of a route except for the
//! task's information boundary. So [`RouteCache`] reads a route once per process, through a
//! guarded connection without a cutoff (ground-truth reports stay invisible: that exclusion is
//! the route's, not the task's), and builds the matchers once (codes, names, classification
//! values). A task gets a [`Data`] view of it: when the task states a cutoff, the report ids
//! its own guarded connection returns (the same TEMP views every other read goes through)
//! select the reports it may use, so nothing past its boundary reaches a plan. Those ids are
//! kept per set of hiding rules (the views' SQL conditions): a later task whose connection
//! hides rows by the very same conditions sees the very same rows.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    path::PathBuf,
    sync::{Arc, Mutex},
};

use anser_manifest::{EvidenceKind, Language, Manifest, Route};
use regex::Regex;
use serde_json::{Value, json};

use super::{
    Mention,
    glossary::{Metric, ratio_glossary},
    labels::{LABEL_SAMPLE, learn_zh_labels},
};
use crate::{
    Result,
    method::offline::{HidingRules, column_strings, hiding_rules, once_map::OnceMap, re},
    tools::{
        boundary::dated_table,
        sql::{GuardedDb, quote_ident},
    },
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

/// Metric names (lower-case for English) and their metrics, longest name first.
type Metrics = Arc<Vec<(String, Metric)>>;

/// Which reports a connection shows (by index into the route's reports) and their metrics.
type View = (Arc<Vec<bool>>, Metrics);

/// Everything a finance route holds for every task, read once: companies, annual reports
/// (ground truth excluded, no cutoff applied) and the look-up structures built from them.
struct RouteData {
    lang: Language,
    companies: Vec<Company>,
    /// Lower-cased company names, parallel to `companies`.
    lower_names: Vec<String>,
    /// Every non-empty stock code or ticker.
    codes: HashSet<String>,
    reports: Vec<Report>,
    /// Report indices of each company, in `reports` order.
    by_company: HashMap<String, Vec<usize>>,
    /// Figures rows without a year (not reports) still name numeric columns: their id and
    /// numeric columns.
    yearless: Vec<(String, BTreeSet<String>)>,
    /// Columns holding a number in some row.
    numeric_cols: BTreeSet<String>,
    /// Classification values seen in `companies`, with the English whole-word matcher.
    attr_values: Vec<(String, Option<Regex>)>,
    /// The metrics when every report is visible.
    metrics: Metrics,
    /// Chinese metrics learned from other samples of reports (a cutoff changes the sample),
    /// keyed by the sampled report indices.
    learned: Mutex<HashMap<Vec<usize>, Metrics>>,
    /// What connections hiding rows by the same rules (table, SQL condition) see: the same
    /// predicates show the same rows, so tasks with one cutoff read the ids once.
    views: OnceMap<HidingRules, View>,
}

/// Routes read so far in this process, keyed by their file, route and the longest text cell
/// read (the connection's limit shapes the texts). Each route is read under its own lock (see
/// [`OnceMap`]): a task of one route never waits for another route's first read.
#[derive(Default)]
pub struct RouteCache {
    routes: OnceMap<(PathBuf, Route, usize), Arc<RouteData>>,
}

impl std::fmt::Debug for RouteCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let routes: Vec<PathBuf> = self.routes.keys().into_iter().map(|(p, ..)| p).collect();
        f.debug_struct("RouteCache").field("routes", &routes).finish()
    }
}

impl RouteCache {
    /// How many routes have been read.
    pub fn len(&self) -> usize {
        self.routes.len()
    }

    /// The route data of `db`'s route, read on first use; concurrent tasks of one route read
    /// it once.
    fn route(&self, db: &GuardedDb, lang: Language) -> Result<Arc<RouteData>> {
        let key = (db.path().to_path_buf(), db.route(), db.params().max_cell_chars());
        self.routes.get_or_try_make(&key, || {
            let data = if db.boundary().is_none() {
                RouteData::load(db, lang)?
            } else {
                // Without the task's cutoff; the route's ground-truth exclusion still applies.
                let open = GuardedDb::open(db.path(), db.route(), None, db.params())?;
                RouteData::load(&open, lang)?
            };
            Ok(Arc::new(data))
        })
    }
}

/// One task's view of a route: the reports its boundary lets it see and the metrics named
/// in them.
pub(super) struct Data {
    pub(super) lang: Language,
    route: Arc<RouteData>,
    /// Which of the route's reports the task sees (`None`: all of them).
    visible: Option<Arc<Vec<bool>>>,
    metrics: Metrics,
}

fn text_of(v: &Value) -> String {
    v.as_str().map(String::from).unwrap_or_else(|| v.to_string())
}

/// The glossary's ratios and the named columns, longest name first.
fn sorted_metrics(lang: Language, named: impl IntoIterator<Item = (String, Metric)>) -> Metrics {
    let mut metrics: Vec<(String, Metric)> =
        ratio_glossary(lang).into_iter().map(|(n, m)| (n.to_string(), m)).collect();
    metrics.extend(named);
    metrics.sort_by_key(|(n, _)| std::cmp::Reverse(n.chars().count()));
    Arc::new(metrics)
}

/// English columns read as words (`net_operating_cash_flow` → "net operating cash flow").
fn column_metrics<'a>(cols: impl IntoIterator<Item = &'a str>) -> Vec<(String, Metric)> {
    cols.into_iter().map(|c| (c.replace('_', " "), Metric::Col(c.to_string()))).collect()
}

impl RouteData {
    fn load(db: &GuardedDb, lang: Language) -> Result<RouteData> {
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
        let mut yearless = Vec::new();
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
            match year {
                Some(year) => reports.push(Report { company, year, id, vals, text }),
                None => yearless.push((id, vals.into_keys().collect())),
            }
        }
        let mut by_company: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, r) in reports.iter().enumerate() {
            by_company.entry(r.company.clone()).or_default().push(i);
        }
        let metrics = match lang {
            Language::En => sorted_metrics(lang, column_metrics(numeric_cols.iter().map(String::as_str))),
            Language::Zh => {
                sorted_metrics(lang, learn_zh_labels(label_sample(&reports, |_| true).map(|i| &reports[i])))
            }
        };
        let attr_values = attr_values
            .into_iter()
            .map(|v| {
                let whole_word = match lang {
                    Language::En => Regex::new(&format!(r"\b{}\b", regex::escape(&v))).ok(),
                    Language::Zh => None,
                };
                (v, whole_word)
            })
            .collect();
        Ok(RouteData {
            lang,
            lower_names: companies.iter().map(|c| c.name.to_lowercase()).collect(),
            codes: companies.iter().flat_map(|c| c.codes.iter().filter(|k| !k.is_empty()).cloned()).collect(),
            companies,
            reports,
            by_company,
            yearless,
            numeric_cols,
            attr_values,
            metrics,
            learned: Mutex::default(),
            views: OnceMap::default(),
        })
    }

    /// The metrics of the reports `visible` keeps: the Chinese labels learned from the visible
    /// sample, the English columns numeric in some visible row.
    fn metrics_of(&self, visible: &[bool], ids: &HashSet<String>) -> Metrics {
        match self.lang {
            Language::Zh => {
                let sample: Vec<usize> = label_sample(&self.reports, |i| visible[i]).collect();
                let mut learned = self.learned.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                learned
                    .entry(sample)
                    .or_insert_with_key(|sample| {
                        sorted_metrics(self.lang, learn_zh_labels(sample.iter().map(|&i| &self.reports[i])))
                    })
                    .clone()
            }
            Language::En => {
                // Stop as soon as every column is seen (usually within the first rows).
                let mut seen: BTreeSet<&str> = BTreeSet::new();
                let rows = self.reports.iter().enumerate().filter(|(i, _)| visible[*i]).map(|(_, r)| r.vals.keys());
                let yearless = self.yearless.iter().filter(|(id, _)| ids.contains(id)).map(|(_, cols)| cols.iter());
                for cols in rows.map(|k| k.collect::<Vec<_>>()).chain(yearless.map(|k| k.collect())) {
                    seen.extend(cols.into_iter().map(String::as_str));
                    if seen.len() == self.numeric_cols.len() {
                        return self.metrics.clone();
                    }
                }
                sorted_metrics(self.lang, column_metrics(seen))
            }
        }
    }
}

/// The reports Chinese labels are learned from: the first [`LABEL_SAMPLE`] visible reports
/// with text.
fn label_sample(reports: &[Report], visible: impl Fn(usize) -> bool) -> impl Iterator<Item = usize> {
    reports
        .iter()
        .enumerate()
        .filter(move |(i, r)| visible(*i) && !r.text.is_empty())
        .map(|(i, _)| i)
        .take(LABEL_SAMPLE)
}

impl Data {
    /// The task's view of its route: all reports without a cutoff; with one, the reports whose
    /// ids the task's own connection returns from the dated table.
    pub(super) fn for_task(cache: &RouteCache, db: &GuardedDb, lang: Language) -> Result<Data> {
        let route = cache.route(db, lang)?;
        let (Some(_), Some(dated)) = (db.boundary(), dated_table(db.route())) else {
            return Ok(Data { lang, metrics: route.metrics.clone(), route, visible: None });
        };
        let rules = hiding_rules(db);
        let (visible, metrics) = route.views.get_or_try_make(&rules, || {
            let sql = format!("SELECT {} FROM {}", quote_ident(&dated.key), quote_ident(&dated.table));
            let ids: HashSet<String> =
                db.query_with(&sql, usize::MAX)?.rows.iter().filter_map(|r| r.first()).map(text_of).collect();
            let visible: Vec<bool> = route.reports.iter().map(|r| ids.contains(&r.id)).collect();
            let metrics = route.metrics_of(&visible, &ids);
            Ok::<_, crate::Error>((Arc::new(visible), metrics))
        })?;
        Ok(Data { lang, route, visible: Some(visible), metrics })
    }

    fn sees(&self, i: usize) -> bool {
        self.visible.as_ref().is_none_or(|v| v[i])
    }

    /// The visible reports of one company, in the figures table's order.
    pub(super) fn company_reports(&self, company: &str) -> impl Iterator<Item = &Report> {
        let indices = self.route.by_company.get(company).map_or(&[][..], Vec::as_slice);
        indices.iter().filter(|&&i| self.sees(i)).map(|&i| &self.route.reports[i])
    }

    pub(super) fn report(&self, company: &str, year: i32) -> Option<&Report> {
        self.company_reports(company).find(|r| r.year == year)
    }

    /// A report's evidence item, in the shape the manifest gives its evidence kind.
    pub(super) fn evidence(&self, r: &Report) -> Value {
        evidence_kind(self.lang, Population::Reports).item(&json!(r.id))
    }

    /// A company's evidence item, in the shape the manifest gives its evidence kind.
    pub(super) fn company_evidence(&self, key: &str) -> Value {
        evidence_kind(self.lang, Population::Companies).item(&json!(key))
    }

    /// Companies the query names by code/ticker (in brackets: `(600000)`, `（AAPL）`) or name,
    /// in query order.
    pub(super) fn named_companies(&self, query: &str) -> Vec<&Company> {
        let route = &*self.route;
        // Where each bracketed code first appears: every text between an opening and a later
        // closing bracket that is a known code.
        let opens: Vec<(usize, usize)> =
            query.char_indices().filter(|(_, c)| matches!(c, '(' | '（')).map(|(i, c)| (i, i + c.len_utf8())).collect();
        let closes: Vec<usize> =
            query.char_indices().filter(|(_, c)| matches!(c, ')' | '）')).map(|(i, _)| i).collect();
        let mut code_at: HashMap<&str, usize> = HashMap::new();
        for &(at, inner) in &opens {
            for &close in closes.iter().filter(|&&c| c >= inner) {
                let code = &query[inner..close];
                if route.codes.contains(code) {
                    code_at.entry(code).or_insert(at);
                }
            }
        }
        let lower = query.to_lowercase();
        let mut found: Vec<(usize, &Company)> = Vec::new();
        for (c, name) in route.companies.iter().zip(&route.lower_names) {
            let by_code = c.codes.iter().filter(|k| !k.is_empty()).find_map(|k| code_at.get(k.as_str()).copied());
            if let Some(at) = by_code.or_else(|| lower.find(name.as_str())) {
                found.push((at, c));
            }
        }
        found.sort_by_key(|(at, _)| *at);
        found.into_iter().map(|(_, c)| c).collect()
    }

    /// The population the query screens: companies with every classification value it names.
    pub(super) fn population(&self, query: &str) -> (Vec<&Company>, Vec<String>) {
        let named: Vec<String> = self
            .route
            .attr_values
            .iter()
            .filter(|(v, whole_word)| match self.lang {
                Language::Zh => v.chars().count() >= 2 && query.contains(v.as_str()),
                Language::En => whole_word.as_ref().is_some_and(|p| p.is_match(query)),
            })
            .map(|(v, _)| v.clone())
            .collect();
        // A value inside a longer named value ("主板" in "科创板主板") is not a separate filter.
        let named: Vec<String> =
            named.iter().filter(|v| !named.iter().any(|o| o != *v && o.contains(v.as_str()))).cloned().collect();
        let pop = self.route.companies.iter().filter(|c| named.iter().all(|v| c.attrs.contains(v))).collect();
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
        for (name, m) in self.metrics.iter() {
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
