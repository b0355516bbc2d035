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

use std::collections::{BTreeMap, BTreeSet};

use anser_manifest::{Language, PublicTask, Split};
use serde_json::{Value, json};

use super::{column_strings, legal_predictive::threshold_after, re};
use crate::{Result, tools::sql::GuardedDb};

/// A plan's outcome: an answer when one could be computed, and the evidence.
#[derive(Debug)]
pub struct FinPlan {
    pub answer: Option<String>,
    pub evidence: Vec<Value>,
    pub plan: Value,
}

#[derive(Debug, Clone)]
struct Company {
    key: String,
    name: String,
    /// Stock code or tickers.
    codes: Vec<String>,
    /// Classification values (industry, exchange, board / buckets).
    attrs: Vec<String>,
}

#[derive(Debug, Clone)]
struct Report {
    company: String,
    year: i32,
    id: String,
    vals: BTreeMap<String, f64>,
    text: String,
}

/// A metric: a column or a ratio of column sums (in percent).
#[derive(Debug, Clone, PartialEq)]
enum Metric {
    Col(String),
    Ratio { num: Vec<String>, den: Vec<String> },
}

impl Metric {
    fn value(&self, r: &Report) -> Option<f64> {
        let sum = |cols: &[String]| -> Option<f64> { cols.iter().map(|c| r.vals.get(c).copied()).sum() };
        match self {
            Metric::Col(c) => r.vals.get(c).copied(),
            Metric::Ratio { num, den } => {
                let d = sum(den)?;
                (d != 0.0).then_some(sum(num)? / d * 100.0)
            }
        }
    }

    fn is_ratio(&self) -> bool {
        matches!(self, Metric::Ratio { .. })
    }
}

/// The accounting glossary: ratio names and their definitions over the figures' columns.
fn ratio_glossary(lang: Language) -> Vec<(&'static str, Metric)> {
    let r = |num: &[&str], den: &[&str]| Metric::Ratio {
        num: num.iter().map(|s| s.to_string()).collect(),
        den: den.iter().map(|s| s.to_string()).collect(),
    };
    match lang {
        Language::Zh => vec![
            ("毛利率", r(&["gross_profit"], &["operating_revenue"])),
            ("资产负债率", r(&["total_liabilities"], &["total_assets"])),
            ("研发费用率", r(&["research_expense"], &["operating_revenue"])),
            ("销售费用率", r(&["selling_expense"], &["operating_revenue"])),
            ("管理费用率", r(&["management_expense"], &["operating_revenue"])),
            ("财务费用率", r(&["financial_expense"], &["operating_revenue"])),
            (
                "期间费用率",
                r(
                    &["selling_expense", "management_expense", "research_expense", "financial_expense"],
                    &["operating_revenue"],
                ),
            ),
            ("净利率", r(&["net_profit"], &["operating_revenue"])),
        ],
        Language::En => vec![
            // Gross profit is operating revenue less cost, so its margin is over operating revenue.
            ("gross margin", r(&["gross_profit"], &["operating_revenue"])),
            ("net margin", r(&["net_profit"], &["total_revenue"])),
            ("operating margin", r(&["operating_profit"], &["total_revenue"])),
        ],
    }
}

struct Data {
    lang: Language,
    companies: Vec<Company>,
    reports: Vec<Report>,
    /// Metric names (lower-case for English), longest first.
    metrics: Vec<(String, Metric)>,
    /// Classification values seen in `companies`.
    attr_values: BTreeSet<String>,
}

fn text_of(v: &Value) -> String {
    v.as_str().map(String::from).unwrap_or_else(|| v.to_string())
}

impl Data {
    fn load(db: &GuardedDb, lang: Language) -> Result<Data> {
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
        let company_col = match lang {
            Language::Zh => "stock_code",
            Language::En => "cik",
        };
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

    fn report(&self, company: &str, year: i32) -> Option<&Report> {
        self.reports.iter().find(|r| r.company == company && r.year == year)
    }

    fn evidence(&self, r: &Report) -> Value {
        match self.lang {
            Language::Zh => json!({"id": r.id, "type": "financial_report"}),
            Language::En => json!({"accession": r.id, "type": "financial_report"}),
        }
    }

    fn company_evidence(&self, key: &str) -> Value {
        match self.lang {
            Language::Zh => json!({"stock_code": key, "type": "company"}),
            Language::En => json!({"cik": key, "type": "company"}),
        }
    }

    /// Companies the query names by code/ticker or name, in query order.
    fn named_companies(&self, query: &str) -> Vec<&Company> {
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
    fn population(&self, query: &str) -> (Vec<&Company>, Vec<String>) {
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
    fn named_metrics(&self, query: &str) -> Vec<(usize, usize, String, Metric)> {
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

    fn years(&self, query: &str) -> Vec<i32> {
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

/// An amount as reports print it: digits with or without thousands separators, optional
/// decimals, a minus sign or accounting parentheses, and a unit (元, 万元, 亿元; `千元` too).
/// Returns the value in 元 and the rounding tolerance the printed precision implies.
pub(super) fn printed_amount(number: &str, unit: &str) -> Option<(f64, f64)> {
    let t = number.trim();
    let (neg, t) = match t.strip_prefix('(').or_else(|| t.strip_prefix('（')) {
        Some(inner) => (true, inner.trim_end_matches([')', '）'])),
        None => match t.strip_prefix(['-', '−']) {
            Some(inner) => (true, inner),
            None => (false, t),
        },
    };
    let plain = t.replace([',', '，'], "");
    let v: f64 = plain.parse().ok()?;
    let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    let scale = match unit {
        "万元" => 1e4,
        "亿元" => 1e8,
        "千元" => 1e3,
        _ => 1.0,
    };
    let tolerance = (0.5 * 10f64.powi(-decimals) * scale).max(0.5);
    Some((if neg { -v } else { v } * scale, tolerance))
}

/// Chinese labels: the Han run written right before a printed amount (`营业收入8,749,279,719.00元`,
/// `销售费用为1,234.56万元`, `净利润(3,456.78)万元`) in a report's text names the column whose value
/// equals that amount, within the printed precision, in the same report (majority over reports).
fn learn_zh_labels(reports: &[Report]) -> Vec<(String, Metric)> {
    let pat = re(
        r"(\p{Han}{2,24}?)(?:为|是|达|约)?[:：]?\s*([-−]?\d[\d,]*(?:\.\d+)?|[(（]\d[\d,]*(?:\.\d+)?[)）])\s*(亿元|万元|千元|元)",
    );
    let mut votes: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for r in reports.iter().filter(|r| !r.text.is_empty()).take(40) {
        for c in pat.captures_iter(&r.text) {
            let Some((v, tol)) = printed_amount(&c[2], &c[3]) else { continue };
            // The label is the tail of the Han run after the last clause word break.
            let label = c[1].rsplit(['，', '；', '：', '、']).next().unwrap_or(&c[1]).to_string();
            for (col, x) in &r.vals {
                if (x - v).abs() <= tol && v.abs() >= 1.0 {
                    *votes.entry(label.clone()).or_default().entry(col.clone()).or_default() += 1;
                }
            }
        }
    }
    votes
        .into_iter()
        .filter_map(|(label, cols)| {
            let (col, n) = cols.into_iter().max_by_key(|(_, n)| *n)?;
            (n >= 2 && label.chars().count() >= 2).then_some((label, Metric::Col(col)))
        })
        .collect()
}

fn growth(cur: f64, prev: f64) -> Option<f64> {
    (prev != 0.0).then(|| (cur - prev) / prev.abs() * 100.0)
}

/// Option letters and their texts: "A. 联创软件（002483） | B. …" or "A. above 10% B. …".
fn options(query: &str) -> Vec<(String, String)> {
    let marks: Vec<(usize, usize, String)> = re(r"(?:^|[\s|：:？?])([A-H])[.．、]\s*")
        .captures_iter(query)
        .filter_map(|c| {
            let m = c.get(1)?;
            let whole = c.get(0)?;
            Some((m.start(), whole.end(), m.as_str().to_string()))
        })
        .collect();
    let mut out = Vec::new();
    for (i, (_, body_start, letter)) in marks.iter().enumerate() {
        let end = marks.get(i + 1).map_or(query.len(), |n| n.0);
        let body = query[*body_start..end].trim().trim_end_matches(['|', ' ']).trim().to_string();
        out.push((letter.clone(), body));
    }
    // Letters must run A, B, C… from the first one.
    let ok = out.iter().enumerate().all(|(i, (l, _))| l.as_bytes()[0] == b'A' + i as u8);
    if ok && out.len() >= 2 { out } else { Vec::new() }
}

fn fmt2(x: f64) -> String {
    format!("{x:.2}")
}

/// Direction words.
fn wants_lowest(s: &str) -> bool {
    ["最低", "最少", "最小", "lowest", "smallest", "bottom"].iter().any(|w| s.contains(w))
}

fn wants_growth(s: &str) -> bool {
    ["同比增速", "同比增长", "增速", "增长率", "growth", "change"].iter().any(|w| s.contains(w))
}

/// Plan and answer one finance reports task.
pub fn solve(db: &GuardedDb, task: &PublicTask) -> Result<Option<FinPlan>> {
    let data = Data::load(db, task.group.language)?;
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

/// Reports of the named companies for the named years (all visible years when none).
fn company_reports<'a>(data: &'a Data, companies: &[&Company], years: &[i32]) -> Vec<&'a Report> {
    let mut out = Vec::new();
    for c in companies {
        let mut rs: Vec<&Report> = data
            .reports
            .iter()
            .filter(|r| r.company == c.key && (years.is_empty() || years.contains(&r.year)))
            .collect();
        rs.sort_by_key(|r| r.year);
        out.extend(rs);
    }
    out
}

/// Tasks about named companies: a value, a change, a trend, options, disclosed shares.
fn company_task(
    data: &Data,
    task: &PublicTask,
    companies: &[&Company],
    years: &[i32],
    metrics: &[(usize, usize, String, Metric)],
) -> Outcome {
    let q = task.query.as_str();
    let ty = task.task_type.as_deref().unwrap_or("");
    let opts = options(q);
    if ty == "cross_section_screen" || (!opts.is_empty() && companies.len() >= 2) {
        // Options naming companies: the one with the highest/lowest metric in the year.
        let (_, _, name, metric) = metrics.first()?;
        let year = *years.first()?;
        let mut scored = Vec::new();
        let mut evidence = Vec::new();
        for (letter, body) in &opts {
            let c = data.named_companies(body).into_iter().next()?;
            let r = data.report(&c.key, year)?;
            evidence.push(data.evidence(r));
            scored.push((letter.clone(), metric.value(r)?));
        }
        let low = wants_lowest(q);
        let best = scored.iter().max_by(|a, b| if low { b.1.total_cmp(&a.1) } else { a.1.total_cmp(&b.1) })?;
        return Some((
            Some(best.0.clone()),
            evidence,
            json!({"plan": "option_extreme", "metric": name, "values": scored}),
        ));
    }
    let company = *companies.first()?;
    // A change is read against the year before: its report is evidence too.
    let mut span = years.to_vec();
    if years.len() == 1 && matches!(ty, "text_summary" | "change_detection") {
        span.insert(0, years[0] - 1);
    }
    let reports = company_reports(data, &[company], &span);
    if reports.is_empty() {
        return None;
    }
    let evidence: Vec<Value> = reports.iter().map(|r| data.evidence(r)).collect();
    if !opts.is_empty() {
        // Options quoting the report: the one whose words the named report contains most.
        let text: String = reports.iter().map(|r| r.text.as_str()).collect();
        if text.is_empty() {
            return Some((None, evidence, json!({"plan": "reports_only"})));
        }
        let best = opts
            .iter()
            .map(|(l, body)| {
                let grams = char_bigrams(body);
                let hit = grams.iter().filter(|g| text.contains(g.as_str())).count() as f64 / grams.len().max(1) as f64;
                (l.clone(), hit)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        return Some((Some(best.0), evidence, json!({"plan": "option_in_report_text"})));
    }
    let answer = match ty {
        "numeric_fact" => numeric_fact(data, q, company, years, metrics),
        "multi_period_trend" => trend(data, task, company, years, metrics),
        "change_detection" => change_yes_no(data, q, company, years, metrics),
        "mixed_numeric_text" if data.lang == Language::Zh => share_in_text(q, &reports),
        _ if is_risk_comparison(q, years) => risk_comparison(data, &reports),
        _ => summary(data, company, years, metrics),
    };
    Some((answer, evidence, json!({"plan": ty})))
}

/// A question about how risk disclosures changed between reports: it names risks and either
/// two years or a change word.
fn is_risk_comparison(q: &str, years: &[i32]) -> bool {
    let l = q.to_lowercase();
    let names_risk = q.contains("风险") || l.contains("risk");
    let change_word = ["新增", "不再", "删除", "变化", "对比", "比较", "相比", "强化"].iter().any(|w| q.contains(w))
        || ["added", "removed", "dropped", "new ", "no longer", "change", "compare", "wording"]
            .iter()
            .any(|w| l.contains(w));
    names_risk && (change_word || years.len() >= 2)
}

/// Risk items of a report. Chinese: headings that end in 风险 and stand alone (before a colon, a
/// line break or the end of an enumeration item), numbering stripped. English: the sentences of
/// the section whose own heading names risk factors (`sections.section_name`).
fn risk_items(data: &Data, r: &Report) -> Vec<String> {
    let mut seen = BTreeSet::new();
    match data.lang {
        Language::Zh => re(r"([\p{Han}、]{2,16}风险)\s*(?:[：:\n]|$)")
            .captures_iter(&r.text)
            .map(|c| {
                let head = c[1].rsplit(['，', '。', '；', '：']).next().unwrap_or(&c[1]);
                head.trim_start_matches(|ch: char| "、一二三四五六七八九十（）()".contains(ch)).to_string()
            })
            .filter(|x| x.chars().count() > 2 && seen.insert(x.clone()))
            .collect(),
        Language::En => r
            .text
            .lines()
            .filter_map(|l| l.split_once(" — "))
            .filter(|(name, _)| name.to_lowercase().contains("risk"))
            .flat_map(|(_, body)| {
                body.split(". ").map(|x| x.trim().trim_end_matches('.').to_string()).collect::<Vec<_>>()
            })
            .filter(|x| !x.is_empty() && seen.insert(x.clone()))
            .collect(),
    }
}

/// Risks that appear only in the later report, only in the earlier one, and in both.
fn risk_comparison(data: &Data, reports: &[&Report]) -> Option<String> {
    let (first, last) = (reports.first()?, reports.last()?);
    if first.year == last.year {
        return None;
    }
    let (a, b) = (risk_items(data, first), risk_items(data, last));
    if a.is_empty() && b.is_empty() {
        return None;
    }
    let added: Vec<&String> = b.iter().filter(|x| !a.contains(x)).collect();
    let dropped: Vec<&String> = a.iter().filter(|x| !b.contains(x)).collect();
    let kept: Vec<&String> = b.iter().filter(|x| a.contains(x)).collect();
    let join = |xs: &[&String], sep: &str, none: &str| {
        if xs.is_empty() { none.to_string() } else { xs.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(sep) }
    };
    Some(match data.lang {
        Language::Zh => format!(
            "{y1}年报告中出现而{y0}年未出现的风险：{}。{y0}年提及、{y1}年未再出现的风险：{}。两年均提示的风险：{}。",
            join(&added, "、", "无"),
            join(&dropped, "、", "无"),
            join(&kept, "、", "无"),
            y0 = first.year,
            y1 = last.year,
        ),
        Language::En => format!(
            "Risks in the FY{y1} report but not in FY{y0}: {}. Risks in FY{y0} no longer in FY{y1}: {}. In both years: {}.",
            join(&added, "; ", "none"),
            join(&dropped, "; ", "none"),
            join(&kept, "; ", "none"),
            y0 = first.year,
            y1 = last.year,
        ),
    })
}

/// A short answer from the figures of the named year (value and change of each named metric,
/// revenue when none is named) and the report's own explanation of the change.
fn summary(
    data: &Data,
    company: &Company,
    years: &[i32],
    metrics: &[(usize, usize, String, Metric)],
) -> Option<String> {
    let year = *years.iter().max()?;
    let cur = data.report(&company.key, year)?;
    let prev = data.report(&company.key, year - 1);
    let revenue = match data.lang {
        Language::Zh => ("营业收入".to_string(), Metric::Col("operating_revenue".into())),
        Language::En => ("total revenue".to_string(), Metric::Col("total_revenue".into())),
    };
    let mut named: Vec<(String, Metric)> = metrics.iter().map(|m| (m.2.clone(), m.3.clone())).collect();
    if named.is_empty() {
        named.push(revenue);
    }
    let mut parts = Vec::new();
    for (name, m) in &named {
        let Some(v) = m.value(cur) else { continue };
        let change =
            prev.and_then(|p| m.value(p)).map(|p| if m.is_ratio() { v - p } else { growth(v, p).unwrap_or(0.0) });
        parts.push(match (data.lang, m.is_ratio(), change) {
            (Language::Zh, true, Some(d)) => format!("{name}{v:.2}%，较上年变动{d:+.2}个百分点"),
            (Language::Zh, false, Some(g)) => format!("{name}{:.2}亿元，同比{g:+.2}%", v / 1e8),
            (Language::Zh, true, None) => format!("{name}{v:.2}%"),
            (Language::Zh, false, None) => format!("{name}{:.2}亿元", v / 1e8),
            (Language::En, true, Some(d)) => format!("{name} {v:.2}% ({d:+.2} points)"),
            (Language::En, false, Some(g)) => format!("{name} USD {:.2} million ({g:+.2}%)", v / 1e6),
            (Language::En, true, None) => format!("{name} {v:.2}%"),
            (Language::En, false, None) => format!("{name} USD {:.2} million", v / 1e6),
        });
    }
    let cues = ["主要原因", "归因", "due to", "driven by", "primarily"];
    let why = cur
        .text
        .split(['。', '\n'])
        .flat_map(|s| s.split(". "))
        .find(|s| cues.iter().any(|c| s.contains(c)))
        .map(|s| s.trim().to_string());
    if parts.is_empty() && why.is_none() {
        return None;
    }
    Some(match data.lang {
        Language::Zh => format!(
            "{}{}年{}。{}",
            company.name,
            year,
            parts.join("；"),
            why.map(|w| format!("{w}。")).unwrap_or_default()
        ),
        Language::En => format!(
            "{} FY{}: {}. {}",
            company.name,
            year,
            parts.join("; "),
            why.map(|w| format!("{w}.")).unwrap_or_default()
        ),
    })
}

fn char_bigrams(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    if chars.iter().all(char::is_ascii) {
        // English: words of four letters or more.
        return s
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 4)
            .map(str::to_lowercase)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
    }
    chars.windows(2).map(|w| w.iter().collect()).collect::<BTreeSet<String>>().into_iter().collect()
}

fn numeric_fact(
    data: &Data,
    q: &str,
    company: &Company,
    years: &[i32],
    metrics: &[(usize, usize, String, Metric)],
) -> Option<String> {
    let (_, _, _, metric) = metrics.first()?;
    let lower = q.to_lowercase();
    if years.len() >= 2 && wants_growth(&lower) {
        let a = metric.value(data.report(&company.key, years[0])?)?;
        let b = metric.value(data.report(&company.key, years[1])?)?;
        return Some(fmt2(if metric.is_ratio() { b - a } else { growth(b, a)? }));
    }
    let v = metric.value(data.report(&company.key, *years.first()?)?)?;
    Some(if metric.is_ratio() || data.lang == Language::En { fmt2(v) } else { format!("{}", v.round() as i64) })
}

/// Trend class over consecutive years; the options come from the instruction's quoted list.
fn trend(
    data: &Data,
    task: &PublicTask,
    company: &Company,
    years: &[i32],
    metrics: &[(usize, usize, String, Metric)],
) -> Option<String> {
    let (_, _, _, metric) = metrics.first()?;
    let (from, to) = (*years.iter().min()?, *years.iter().max()?);
    let values: Vec<f64> =
        (from..=to).map(|y| data.report(&company.key, y).and_then(|r| metric.value(r))).collect::<Option<_>>()?;
    // The instruction's own tolerance ("不超过1%", "1个百分点"): default 1.
    let tol = re(r"不超过(\d+(?:\.\d+)?)").captures(&task.instruction).and_then(|c| c[1].parse().ok()).unwrap_or(1.0);
    let steps: Vec<i8> = values
        .windows(2)
        .map(|w| {
            let d = if metric.is_ratio() { w[1] - w[0] } else { growth(w[1], w[0]).unwrap_or(0.0) };
            if d.abs() <= tol { 0 } else { d.signum() as i8 }
        })
        .collect();
    let labels: Vec<String> = re(r"“([^”]+)”")
        .captures_iter(&task.instruction)
        .flat_map(|c| c[1].split('、').map(str::to_string).collect::<Vec<_>>())
        .collect();
    let pick = |cue: &str| labels.iter().find(|l| l.contains(cue)).cloned();
    if steps.iter().all(|s| *s == 0) {
        pick("不变")
    } else if steps.iter().all(|s| *s > 0) {
        pick("上升")
    } else if steps.iter().all(|s| *s < 0) {
        pick("下降")
    } else {
        pick("波动")
    }
}

/// 是/否 questions comparing two growths or one change against a threshold.
fn change_yes_no(
    data: &Data,
    q: &str,
    company: &Company,
    years: &[i32],
    metrics: &[(usize, usize, String, Metric)],
) -> Option<String> {
    let year = *years.iter().max()?;
    let cur = data.report(&company.key, year)?;
    let prev = data.report(&company.key, year - 1)?;
    let change = |m: &Metric| -> Option<f64> {
        let (a, b) = (m.value(prev)?, m.value(cur)?);
        if m.is_ratio() { Some(b - a) } else { growth(b, a) }
    };
    let yes = if metrics.len() >= 2 {
        let (a, b) = (change(&metrics[0].3)?, change(&metrics[1].3)?);
        let between = &q[metrics[0].1..metrics[1].0];
        if ["低于", "慢于", "小于"].iter().any(|w| between.contains(w)) { a < b } else { a > b }
    } else {
        let (_, end, _, m) = metrics.first()?;
        let (cmp, t) = threshold_after(q, *end, 24)?;
        let d = change(m)?.abs();
        use super::legal_predictive::Cmp;
        match cmp {
            Cmp::Gt => d > t,
            Cmp::Ge => d >= t,
            Cmp::Lt => d < t,
            Cmp::Le => d <= t,
        }
    };
    Some(if yes { "是" } else { "否" }.to_string())
}

/// A product's share of revenue as the report states it: among the report's clauses that state
/// a share (比重/占比 and a percentage), the one whose head — the words before its first colon
/// or number — the query names; 未披露 when no stated share belongs to the item asked about.
fn share_in_text(q: &str, reports: &[&Report]) -> Option<String> {
    let r = reports.last()?;
    let pct = re(r"(-?\d+(?:\.\d+)?)%");
    let mut stated: Vec<(Vec<String>, String)> = Vec::new();
    for clause in r.text.split(['；', '。', '\n']) {
        if !(clause.contains("比重") || clause.contains("占比")) {
            continue;
        }
        let Some(m) = pct.captures_iter(clause).last() else { continue };
        let head_end = clause.find(|c: char| c.is_ascii_digit()).unwrap_or(clause.len());
        let segments = clause[..head_end]
            .split(['：', ':', '，', '、'])
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(String::from);
        stated.push((segments.collect(), m[1].to_string()));
    }
    // Words every share clause repeats (营业收入) name no item.
    let common = |seg: &String| stated.iter().filter(|(segs, _)| segs.contains(seg)).count() > 1;
    for (segs, share) in &stated {
        for seg in segs.iter().filter(|x| !common(x)) {
            let grams = char_bigrams(seg);
            if !grams.is_empty() && grams.iter().all(|g| q.contains(g.as_str())) {
                return Some(share.clone());
            }
        }
    }
    Some("未披露".to_string())
}

/// A screening condition on one company-year.
#[derive(Debug, Clone)]
enum Cond {
    /// metric (or its growth) compared with a number.
    Threshold { metric: Metric, growth: bool, cmp: super::legal_predictive::Cmp, value: f64 },
    /// metric A above metric B.
    Above { a: Metric, b: Metric },
    /// growth(A) − growth(B) above a number of points.
    GrowthGap { a: Metric, b: Metric, points: f64 },
    /// (A + B + …) as a percentage of C compared with a number.
    Share { parts: Vec<Metric>, of: Metric, cmp: super::legal_predictive::Cmp, value: f64 },
}

impl Cond {
    fn uses_growth(&self) -> bool {
        matches!(self, Cond::Threshold { growth: true, .. } | Cond::GrowthGap { .. })
    }

    fn holds(&self, data: &Data, company: &str, year: i32) -> Option<bool> {
        use super::legal_predictive::Cmp;
        let cur = data.report(company, year)?;
        let g = |m: &Metric| -> Option<f64> {
            let prev = data.report(company, year - 1)?;
            let (a, b) = (m.value(prev)?, m.value(cur)?);
            if m.is_ratio() { Some(b - a) } else { growth(b, a) }
        };
        match self {
            Cond::Threshold { metric, growth: gr, cmp, value } => {
                let v = if *gr { g(metric)? } else { metric.value(cur)? };
                Some(match cmp {
                    Cmp::Gt => v > *value,
                    Cmp::Ge => v >= *value,
                    Cmp::Lt => v < *value,
                    Cmp::Le => v <= *value,
                })
            }
            Cond::Above { a, b } => Some(a.value(cur)? > b.value(cur)?),
            Cond::GrowthGap { a, b, points } => Some(g(a)? - g(b)? > *points),
            Cond::Share { parts, of, cmp, value } => {
                let den = of.value(cur)?;
                if den <= 0.0 {
                    return None;
                }
                let num: f64 = parts.iter().map(|m| m.value(cur)).sum::<Option<f64>>()?;
                let v = num / den * 100.0;
                Some(match cmp {
                    Cmp::Gt => v > *value,
                    Cmp::Ge => v >= *value,
                    Cmp::Lt => v < *value,
                    Cmp::Le => v <= *value,
                })
            }
        }
    }
}

/// Conditions of a screening query, read metric by metric.
fn conditions(q: &str, metrics: &[(usize, usize, String, Metric)], lang: Language) -> Vec<Cond> {
    let hay = match lang {
        Language::Zh => q.to_string(),
        Language::En => q.to_lowercase().replace('-', " "),
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < metrics.len() {
        let (_, end, _, m) = &metrics[i];
        let next_start = metrics.get(i + 1).map_or(hay.len(), |n| n.0);
        let between = &hay[*end..next_start];
        if let Some((cond, used)) = share_condition(&hay, &metrics[i..], lang) {
            out.push(cond);
            i += used;
            continue;
        }
        if let Some(n) = metrics.get(i + 1) {
            let plain = between.replace("同比", "");
            let gap_cue =
                ["比", "高出", "高于", "超过", "快于", "exceed", "outpace", "faster than", "more than", "above"]
                    .iter()
                    .any(|w| plain.contains(w));
            let above_cue = ["above", "greater than", "higher than", "exceeded", "高于", "大于"]
                .iter()
                .any(|w| between.trim().starts_with(w) || between.trim().ends_with(w));
            // A comparison between the two growths is written between them ("A同比增速高于B…").
            if gap_cue && wants_growth(between) && between.chars().count() <= 12 {
                if let Some((_, points)) = threshold_after(&hay, n.1, 16) {
                    out.push(Cond::GrowthGap { a: m.clone(), b: n.3.clone(), points });
                    i += 2;
                    continue;
                }
            }
            if above_cue && threshold_after(&hay, *end, 6).is_none() {
                out.push(Cond::Above { a: m.clone(), b: n.3.clone() });
                i += 2;
                continue;
            }
        }
        let gr = wants_growth(&between.chars().take(8).collect::<String>());
        if let Some((cmp, value)) = scaled_threshold(&hay, *end, 14) {
            out.push(Cond::Threshold { metric: m.clone(), growth: gr, cmp, value });
        }
        i += 1;
    }
    out
}

/// A comparison and its number after `from`, with the number's unit applied: "超过50亿元" is
/// 5e9, "above $1.5 billion" 1.5e9, "低于30%" stays 30 (percentages compare with ratios).
fn scaled_threshold(hay: &str, from: usize, window_chars: usize) -> Option<(super::legal_predictive::Cmp, f64)> {
    let (cmp, value) = threshold_after(hay, from, window_chars)?;
    let rest = hay.get(from..)?;
    let number = re(r"-?\d[\d,]*(?:\.\d+)?");
    let scale = number.find_iter(rest).find(|m| m.as_str().replace(',', "").parse::<f64>().ok() == Some(value)).map_or(
        1.0,
        |m| {
            let after = rest[m.end()..].trim_start().to_lowercase();
            [
                ("亿", 1e8),
                ("万", 1e4),
                ("千", 1e3),
                ("billion", 1e9),
                ("million", 1e6),
                ("thousand", 1e3),
                ("bn", 1e9),
                ("m ", 1e6),
            ]
            .iter()
            .find(|(u, _)| after.starts_with(u))
            .map_or(1.0, |(_, k)| *k)
        },
    );
    Some((cmp, value * scale))
}

/// Ratios the question defines in words: "A divided by B", "A as a percentage of B", "ratio of A
/// to B", "A/B", "A占B的比例", "A与B之比" become one metric (in percent) at A's place.
fn merge_ratios(
    q: &str,
    lang: Language,
    metrics: Vec<(usize, usize, String, Metric)>,
) -> Vec<(usize, usize, String, Metric)> {
    let hay = match lang {
        Language::Zh => q.to_string(),
        Language::En => q.to_lowercase().replace('-', " "),
    };
    let cols = |m: &Metric| match m {
        Metric::Col(c) => Some(vec![c.clone()]),
        Metric::Ratio { .. } => None,
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < metrics.len() {
        let a = &metrics[i];
        if let Some(b) = metrics.get(i + 1) {
            let gap = hay.get(a.1..b.0).unwrap_or("").trim();
            let after: String = hay.get(b.1..).unwrap_or("").chars().take(5).collect();
            let before = hay.get(..a.0).unwrap_or("").trim_end();
            let per = matches!(
                gap,
                "divided by"
                    | "as a percentage of"
                    | "as a share of"
                    | "as a percent of"
                    | "relative to"
                    | "/"
                    | "除以"
            ) || (gap == "to" && before.ends_with("ratio of"))
                || (matches!(gap, "占" | "与")
                    && ["的比例", "的比重", "比重", "的百分比", "之比", "的占比"].iter().any(|w| after.starts_with(w)));
            if let (true, Some(num), Some(den)) = (per, cols(&a.3), cols(&b.3)) {
                out.push((a.0, b.1, format!("{} / {}", a.2, b.2), Metric::Ratio { num, den }));
                i += 2;
                continue;
            }
        }
        out.push(a.clone());
        i += 1;
    }
    out
}

/// Words that join metrics into one sum ("goodwill plus intangible assets", "商誉与无形资产").
const SUM_JOINERS: &[&str] =
    &["plus", "+", "and", "together with", "combined with", "加", "与", "和", "及", "、", "加上"];

/// A share condition starting at `metrics[0]`: one or more metrics joined into a sum, then a
/// percentage of a later metric — "A above 5% of B", "A plus B exceeded 25% of C",
/// "A占B的比例超过5%", "A与B合计占C比重不低于15%". Returns the condition and the metrics it used.
fn share_condition(hay: &str, metrics: &[(usize, usize, String, Metric)], lang: Language) -> Option<(Cond, usize)> {
    let mut parts = vec![metrics.first()?.3.clone()];
    let mut end = metrics[0].1;
    let mut j = 1;
    while let Some(m) = metrics.get(j) {
        let gap = hay.get(end..m.0)?.trim();
        if !SUM_JOINERS.contains(&gap) {
            break;
        }
        parts.push(m.3.clone());
        end = m.1;
        j += 1;
    }
    let of = metrics.get(j)?;
    let between = hay.get(end..of.0)?;
    let (cmp, value) = match lang {
        // "… above 25% of C": the percentage sits right before "of" and the denominator.
        Language::En => {
            let b = between.trim_end();
            if !b.ends_with(" of") || !b.contains('%') {
                return None;
            }
            threshold_after(hay, end, between.chars().count())?
        }
        // "…占C的比例超过15%": 占 before the denominator, the threshold after it.
        Language::Zh => {
            if !between.contains('占') || between.chars().count() > 6 {
                return None;
            }
            threshold_after(hay, of.1, 12)?
        }
    };
    Some((Cond::Share { parts, of: of.3.clone(), cmp, value }, j + 1))
}

/// The metric a population task is about: the first one not named in an exclusion clause
/// ("excluding companies with missing or zero total revenue", "non-zero total revenue").
fn main_metric(
    q: &str,
    lang: Language,
    metrics: &[(usize, usize, String, Metric)],
) -> Option<(usize, usize, String, Metric)> {
    let hay = match lang {
        Language::Zh => q.to_string(),
        Language::En => q.to_lowercase().replace('-', " "),
    };
    let qualified = |at: usize| {
        let from = hay[..at].char_indices().rev().nth(24).map_or(0, |(i, _)| i);
        let before = &hay[from..at];
        ["zero", "missing", "positive", "非零", "缺失"].iter().any(|w| before.contains(w))
    };
    metrics.iter().find(|m| !qualified(m.0)).or(metrics.first()).cloned()
}

/// Count of companies meeting every condition; the population is the evidence.
fn statistic(data: &Data, q: &str, years: &[i32], metrics: &[(usize, usize, String, Metric)]) -> Outcome {
    let year = *years.first()?;
    let conds = conditions(q, metrics, data.lang);
    if conds.is_empty() {
        return None;
    }
    let (pop, filters) = data.population(q);
    let mut hits = Vec::new();
    for c in pop {
        if conds.iter().all(|k| k.holds(data, &c.key, year) == Some(true)) {
            hits.push(c.key.clone());
        }
    }
    let evidence = hits.iter().map(|k| data.company_evidence(k)).collect();
    Some((
        Some(hits.len().to_string()),
        evidence,
        json!({"plan": "count", "filters": filters, "conditions": format!("{conds:?}"), "year": year}),
    ))
}

/// Screens, rankings, means and change counts over a population.
fn population_task(
    data: &Data,
    task: &PublicTask,
    years: &[i32],
    metrics: &[(usize, usize, String, Metric)],
) -> Outcome {
    let q = task.query.as_str();
    let lower = q.to_lowercase();
    let ty = task.task_type.as_deref().unwrap_or("");
    let (pop, filters) = data.population(q);
    if filters.is_empty() {
        return None;
    }
    let year = *years.iter().max()?;
    let (_, _, name, metric) = main_metric(q, data.lang, metrics)?;
    let mut evidence = Vec::new();
    let mut rows: Vec<(&Company, f64)> = Vec::new();
    match ty {
        "change_detection" => {
            let from = *years.iter().min()?;
            let (_, t) = threshold_after(&lower, metrics.first()?.1, 40)?;
            let mut n = 0;
            for c in &pop {
                let (Some(a), Some(b)) = (data.report(&c.key, from), data.report(&c.key, year)) else { continue };
                let (Some(va), Some(vb)) = (metric.value(a), metric.value(b)) else { continue };
                let d = if metric.is_ratio() { vb - va } else { growth(vb, va).unwrap_or(0.0) };
                if d.abs() > t {
                    n += 1;
                    evidence.push(data.evidence(a));
                    evidence.push(data.evidence(b));
                }
            }
            return Some((Some(n.to_string()), evidence, json!({"plan": "count_changes", "filters": filters})));
        }
        "screening" => {
            let conds = conditions(q, metrics, data.lang);
            let mut lines = Vec::new();
            for c in &pop {
                if !conds.is_empty() && conds.iter().all(|k| k.holds(data, &c.key, year) == Some(true)) {
                    let span = if conds.iter().any(Cond::uses_growth) { vec![year - 1, year] } else { vec![year] };
                    for y in span {
                        if let Some(r) = data.report(&c.key, y) {
                            evidence.push(data.evidence(r));
                        }
                    }
                    lines.push(c.name.clone());
                }
            }
            let answer = (!conds.is_empty()).then(|| lines.join("; "));
            return Some((
                answer,
                evidence,
                json!({"plan": "screen", "filters": filters, "conditions": format!("{conds:?}")}),
            ));
        }
        _ => {}
    }
    for c in &pop {
        let Some(r) = data.report(&c.key, year) else { continue };
        // "with non-zero total revenue": ratios over a zero denominator are skipped.
        if let Some(v) = metric.value(r) {
            rows.push((c, v));
        }
    }
    if rows.is_empty() {
        return None;
    }
    if lower.contains("mean") || lower.contains("average") || q.contains("平均") {
        let mean = rows.iter().map(|(_, v)| v).sum::<f64>() / rows.len() as f64;
        for (c, _) in &rows {
            if let Some(r) = data.report(&c.key, year) {
                evidence.push(data.evidence(r));
            }
        }
        return Some((Some(fmt2(mean)), evidence, json!({"plan": "mean", "filters": filters, "metric": name})));
    }
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    let k = re(r"(?:前|top\s*)(\d+)").captures(&lower).and_then(|c| c[1].parse::<usize>().ok()).unwrap_or(3);
    let mut picked: Vec<(&Company, f64)> = rows.iter().take(k).cloned().collect();
    let bottom: Vec<(&Company, f64)> =
        if lower.contains("bottom") { rows.iter().rev().take(k).cloned().collect() } else { Vec::new() };
    if wants_lowest(q) && bottom.is_empty() {
        picked = rows.iter().rev().take(k).cloned().collect();
    }
    for (c, _) in picked.iter().chain(bottom.iter()) {
        if let Some(r) = data.report(&c.key, year) {
            evidence.push(data.evidence(r));
        }
    }
    let show = |v: f64| match (data.lang, metric.is_ratio()) {
        (_, true) => format!("{v:.2}%"),
        (Language::Zh, false) => format!("{:.2}亿元", v / 1e8),
        (Language::En, false) => format!("USD {:.2} million", v / 1e6),
    };
    // Plain "name value" pairs in rank order; the wording of the answer is the caller's concern.
    let list = |xs: &[(&Company, f64)]| -> String {
        let sep = if data.lang == Language::Zh { "，" } else { ", " };
        xs.iter().map(|(c, v)| format!("{} {}", c.name, show(*v))).collect::<Vec<_>>().join(sep)
    };
    let answer = match (data.lang, bottom.is_empty()) {
        (Language::Zh, true) => format!("按{name}排序：{}。", list(&picked)),
        (Language::En, true) => format!("By {name}: {}.", list(&picked)),
        (Language::Zh, false) => format!("{name}最高：{}；最低：{}。", list(&picked), list(&bottom)),
        (Language::En, false) => format!("Highest {name}: {}. Lowest {name}: {}.", list(&picked), list(&bottom)),
    };
    Some((Some(answer), evidence, json!({"plan": "rank", "filters": filters, "metric": name, "k": k})))
}

/// Words that say a figure will go up, go down or stay level (reports' outlooks, option texts,
/// questions). Generic vocabulary of direction, not any report's sentence.
const UP_WORDS: &[&str] = &[
    "上升", "增长", "提高", "提升", "增加", "扩大", "走高", "高于", "超过", "rise", "increase", "grow", "higher",
    "improve", "expand",
];
const DOWN_WORDS: &[&str] = &[
    "下降", "减少", "降低", "下滑", "收窄", "回落", "低于", "decline", "decrease", "fall", "lower", "shrink",
    "contract",
];
const FLAT_WORDS: &[&str] =
    &["持平", "稳定", "基本不变", "大致相当", "以内", "flat", "stable", "unchanged", "in line", "similar"];
/// Words that mark a sentence as forward-looking.
const FORWARD_WORDS: &[&str] = &[
    "展望",
    "预计",
    "预期",
    "计划",
    "将",
    "力争",
    "目标",
    "下一年",
    "未来",
    "expect",
    "anticipate",
    "outlook",
    "guidance",
    "forecast",
    "plan to",
    "will",
    "next year",
    "fiscal",
];

/// The direction a text states (+1 up, −1 down, 0 level), by the earliest direction word.
fn direction_of(text: &str) -> Option<i8> {
    let l = text.to_lowercase();
    let first = |words: &[&str]| words.iter().filter_map(|w| l.find(w)).min();
    [(first(UP_WORDS), 1i8), (first(DOWN_WORDS), -1), (first(FLAT_WORDS), 0)]
        .into_iter()
        .filter_map(|(at, d)| at.map(|a| (a, d)))
        .min_by_key(|(a, _)| *a)
        .map(|(_, d)| d)
}

/// Clauses of a report's text.
fn clauses(text: &str) -> impl Iterator<Item = &str> {
    text.split(['；', '。', '\n', ';']).flat_map(|s| s.split(". ")).map(str::trim).filter(|s| !s.is_empty())
}

/// The forward-looking clause of a report about one metric name — a clause with a forward word
/// that names the metric (the last such clause: outlooks close the discussion) — from the
/// metric's name on, so that what it says about the metric comes first.
fn outlook_clause(text: &str, name: &str) -> Option<String> {
    let name = name.to_lowercase();
    clauses(text)
        .map(str::to_lowercase)
        .filter(|l| l.contains(&name) && FORWARD_WORDS.iter().any(|w| l.contains(w)))
        .last()
        .and_then(|l| l.find(&name).map(|at| l[at..].to_string()))
}

/// Whether the instruction asks for a bare number (数值, numeric, number, a percentage).
fn wants_number(instruction: &str) -> bool {
    let l = instruction.to_lowercase();
    ["数值", "数字", "numeric", "number", "in %", "percent", "decimal", "保留两位小数"].iter().any(|w| l.contains(w))
}

/// Whether the instruction asks for yes or no.
fn wants_yes_no(instruction: &str) -> bool {
    let l = instruction.to_lowercase();
    (instruction.contains('是') && instruction.contains('否') && instruction.contains('或'))
        || (l.contains("yes") && l.contains(" no"))
}

/// Forward-looking tasks: the visible reports of the company, and the latest report's outlook.
/// Options that state ranges are answered with the guidance range's midpoint (or the
/// history's mean growth); options that state a direction, and yes/no questions, with the
/// direction the latest report's forward-looking clause about the named metric states.
fn predictive(
    data: &Data,
    task: &PublicTask,
    companies: &[&Company],
    metrics: &[(usize, usize, String, Metric)],
) -> Outcome {
    let company = *companies.first()?;
    let mut reports: Vec<&Report> = data.reports.iter().filter(|r| r.company == company.key).collect();
    reports.sort_by_key(|r| r.year);
    let evidence: Vec<Value> = reports.iter().rev().take(5).rev().map(|r| data.evidence(r)).collect();
    let latest = *reports.last()?;
    let q = task.query.as_str();
    let text = &latest.text;
    let revenue_name = match data.lang {
        Language::Zh => "营业收入",
        Language::En => "revenue",
    };
    let named = metrics.first().map(|m| m.2.clone()).unwrap_or_else(|| revenue_name.to_string());
    let metric = metrics.first().map(|m| m.3.clone()).unwrap_or(Metric::Col(match data.lang {
        Language::Zh => "operating_revenue".into(),
        Language::En => "total_revenue".into(),
    }));
    // A guidance range "28%至31%", "between 24% and 28%" in the outlook clause about the metric.
    let range_re = re(r"(-?\d+(?:\.\d+)?)\s*%?\s*(?:至|到|to|and|-|–|~)\s*(-?\d+(?:\.\d+)?)\s*%");
    let range = outlook_clause(text, &named)
        .or_else(|| outlook_clause(text, revenue_name))
        .and_then(|c| range_re.captures(&c).map(|c| (c[1].to_string(), c[2].to_string())))
        .and_then(|(a, b)| Some((a.parse::<f64>().ok()? + b.parse::<f64>().ok()?) / 2.0));
    let opts = options(q);
    let instr = task.instruction.as_str();
    let growths: Vec<f64> = reports
        .windows(2)
        .filter(|w| w[1].year == w[0].year + 1)
        .filter_map(|w| metric.value(w[0]).zip(metric.value(w[1])).and_then(|(x, y)| growth(y, x)))
        .collect();
    let last_growth = growths.last().copied();
    // Without guidance the forecast is the mean of the visible growth rates (growth reverts to
    // its own history) — a baseline, not a model.
    let mean_growth = (!growths.is_empty()).then(|| growths.iter().sum::<f64>() / growths.len() as f64);
    let forecast = range.or(mean_growth);
    // The direction stated for the first named metric the outlook talks about.
    let stated = metrics
        .iter()
        .map(|m| m.2.as_str())
        .chain([named.as_str()])
        .find_map(|n| outlook_clause(text, n))
        .and_then(|c| direction_of(&c));
    let answer = if !opts.is_empty() {
        let ranges = opts.iter().all(|(_, b)| b.contains('%'));
        if ranges {
            let mid = forecast?;
            opts.iter().find(|(_, b)| option_range_contains(b, mid)).map(|(l, _)| l.clone())
        } else {
            let want = stated?;
            opts.iter().find(|(_, b)| direction_of(b) == Some(want)).map(|(l, _)| l.clone())
        }
    } else if wants_yes_no(instr) {
        // The question's own direction word against the one the outlook states.
        let after_metric = metrics.first().and_then(|m| q.get(m.1..)).unwrap_or(q);
        let asked = direction_of(after_metric).unwrap_or(1);
        let said = stated?;
        Some(if said == asked { "是" } else { "否" }.to_string())
    } else if wants_number(instr) {
        forecast.map(fmt2)
    } else {
        let f = forecast?;
        Some(match data.lang {
            Language::Zh => format!(
                "依据{}年年报的前瞻表述与历史增速，{}年{named}同比变动预计约{f:.2}%{}。",
                latest.year,
                latest.year + 1,
                last_growth.map(|l| format!("（{}年为{l:.2}%）", latest.year)).unwrap_or_default()
            ),
            Language::En => format!(
                "From the FY{} filing's forward-looking statements and the growth history, FY{} {named} growth is \
                 expected at about {f:.2}%{}.",
                latest.year,
                latest.year + 1,
                last_growth.map(|l| format!(", against {l:.2}% in FY{}", latest.year)).unwrap_or_default()
            ),
        })
    };
    Some((
        answer,
        evidence,
        json!({"plan": "outlook", "latest_report": latest.id, "guidance_mid": range, "stated_direction": stated}),
    ))
}

/// Whether an option like "above 10%", "0% to 10%", "-10% to below 0%", "below -10%",
/// "同比增速≥8%", "-5%<同比增速<2%" holds `x`.
fn option_range_contains(body: &str, x: f64) -> bool {
    let nums: Vec<f64> = re(r"-?\d+(?:\.\d+)?").find_iter(body).filter_map(|m| m.as_str().parse().ok()).collect();
    let b = body.to_lowercase();
    let above = ["above", "over", "more than", "超过", "以上", "高于", "大于", "≥", ">"].iter().any(|w| b.contains(w));
    let below = ["below", "under", "less than", "低于", "以下", "小于", "不足", "≤", "<"].iter().any(|w| b.contains(w));
    match nums.as_slice() {
        [lo, hi] => x >= *lo && x < *hi || (x == *hi && !b.contains("below") && !b.contains('<')),
        [t] if above && !below => x >= *t,
        [t] if below && !above => x <= *t,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_letters_in_order() {
        let o = options("哪一家？ A. 联创软件（002483） | B. 嘉禾软件（601171） | C. 鼎盛 | D. 安澜");
        assert_eq!(o.len(), 4);
        assert_eq!(o[1], ("B".to_string(), "嘉禾软件（601171）".to_string()));
        let o = options("fall in? A. above 10% B. 0% to 10% C. -10% to below 0% D. below -10%");
        assert_eq!(o.iter().map(|x| x.0.as_str()).collect::<String>(), "ABCD");
        assert!(options("no options here").is_empty());
    }

    #[test]
    fn option_ranges() {
        assert!(option_range_contains("above 10%", 26.0));
        assert!(option_range_contains("0% to 10%", 5.0));
        assert!(option_range_contains("-10% to below 0%", -3.0));
        assert!(!option_range_contains("-10% to below 0%", 0.0));
        assert!(option_range_contains("below -10%", -12.5));
    }

    #[test]
    fn ratios_and_growth() {
        let r = Report {
            company: "1".into(),
            year: 2020,
            id: "x".into(),
            vals: [("gross_profit".to_string(), 25.0), ("operating_revenue".to_string(), 100.0)].into_iter().collect(),
            text: String::new(),
        };
        let gm = ratio_glossary(Language::En).into_iter().find(|(n, _)| *n == "gross margin").map(|(_, m)| m);
        assert_eq!(gm.and_then(|m| m.value(&r)), Some(25.0));
        assert_eq!(growth(110.0, 100.0), Some(10.0));
        assert_eq!(growth(-90.0, -100.0), Some(10.0));
        assert_eq!(growth(1.0, 0.0), None);
    }
}
