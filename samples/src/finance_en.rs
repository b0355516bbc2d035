//! SEC filers (`finance/en/finance_reports.sqlite`) and the finance_en descriptive and predictive
//! tasks.
//!
//! Every company files one 10-K per fiscal year: a `filings` row, a `financial_facts` row and
//! four `sections` (Item 1, 1A, 7, 8) that state the same figures in prose. The fiscal year after
//! the last retrievable one is written with `split = 'ground_truth'` (realised outcomes of the
//! predictive tasks, excluded from retrieval); the previous MD&A's outlook states the range the
//! outcome falls in, so the ground-truth rows are never the only source of an answer. Some
//! companies do not tag goodwill and intangible assets (NULL, counted in `missing_rate`), so
//! that "non-missing" conditions matter.

use std::{collections::BTreeSet, path::Path};

use anser_manifest::{Route, TaskGroup};
use serde_json::{Value, json};

use crate::{
    Ctx, DomainOutput, Result,
    db::{DbWriter, i, opt_r, r, t},
    fin::{self, Profile, Statement, pct, yoy},
    names::{EN_DRIVERS_DOWN, EN_DRIVERS_UP, EN_INDUSTRIES, EN_REGIONS, EN_RISKS, EN_STEMS},
    rng::Rng,
    task::{Task, descriptive_and_predictive},
};

/// A filer.
#[derive(Debug, Clone)]
pub struct Company {
    pub cik: i64,
    pub name: String,
    pub ticker: String,
    pub exchange: &'static str,
    pub industry: usize,
    pub sic: usize,
    pub region: usize,
    pub state: &'static str,
    pub size: &'static str,
    pub latest_assets: f64,
    /// Goodwill and intangibles are tagged (non-NULL).
    pub tags_intangibles: bool,
}

/// One 10-K.
#[derive(Debug, Clone)]
pub struct Filing {
    pub accession: String,
    pub company: usize,
    pub fy: i32,
    pub ground_truth: bool,
    pub st: Statement,
    pub prev: Option<Statement>,
    pub drivers: Vec<&'static str>,
    pub risks: Vec<usize>,
    pub outlook: Option<(f64, f64)>,
    pub filing_date: String,
}

/// The generated corpus: the filers and their 10-Ks.
pub type FinanceEn = fin::Panel<Company, Filing>;

fn size_bucket(assets: f64) -> &'static str {
    if assets < 1.5e9 {
        "Small"
    } else if assets < 8e9 {
        "Mid"
    } else {
        "Large"
    }
}

/// Build the corpus in memory.
pub fn build(ctx: &Ctx) -> FinanceEn {
    let sc = ctx.scale;
    let mut rng = Rng::derive(ctx.seed, "finance_en");
    let years = (sc.en_last_fy - sc.en_first_fy + 2) as usize;
    let mut ciks = BTreeSet::new();
    let mut names = BTreeSet::new();
    let mut tickers = BTreeSet::new();
    let mut accessions = BTreeSet::new();
    let mut companies = Vec::new();
    let mut filings = Vec::new();
    for c in 0..sc.en_companies {
        let industry = c % EN_INDUSTRIES.len();
        let ind = &EN_INDUSTRIES[industry];
        let cik = loop {
            let v = rng.range(1_000, 1_999_999);
            if ciks.insert(v) {
                break v;
            }
        };
        let mut attempt = 0;
        let name = loop {
            attempt += 1;
            let base = format!("{} {}", rng.pick(EN_STEMS), rng.pick(ind.nouns));
            // Large samples run out of stem combinations; a series number keeps names unique.
            let base = if attempt > 20 { format!("{base} {}", attempt - 19) } else { base };
            let suffix = *rng.pick(&["Inc", "Corp", "Holdings, Inc.", "Co", "Group Inc"]);
            let n = format!("{base} {suffix}");
            let n = if rng.chance(0.4) { n.to_uppercase() } else { n };
            if names.insert(n.to_uppercase()) {
                break n;
            }
        };
        let ticker = loop {
            let letters: String = (0..rng.range(3, 4)).map(|_| (b'A' + rng.below(26) as u8) as char).collect();
            if tickers.insert(letters.clone()) {
                break letters;
            }
        };
        let region = rng.below(EN_REGIONS.len());
        let state = *rng.pick(EN_REGIONS[region].1);
        let profile = Profile::random(&mut rng, 1.5e9);
        let statements = fin::statements(&mut rng, &profile, years);
        let tags_intangibles = rng.chance(0.75);
        let mut risks = rng.sample_indices(EN_RISKS.len(), 4);
        let agent = if rng.chance(0.5) { cik } else { rng.range(900_000, 1_999_999) };
        for (k, st) in statements.iter().enumerate() {
            let fy = sc.en_first_fy + k as i32;
            let prev = (k > 0).then(|| statements[k - 1].clone());
            let g = prev.as_ref().map_or(0.0, |p| yoy(st.total_revenue, p.total_revenue));
            let pool = if g >= 0.0 { EN_DRIVERS_UP } else { EN_DRIVERS_DOWN };
            let drivers = rng.sample_indices(pool.len(), 2).into_iter().map(|j| pool[j]).collect();
            if k > 0 && rng.chance(0.5) {
                let drop = rng.below(risks.len());
                risks.remove(drop);
                loop {
                    let cand = rng.below(EN_RISKS.len());
                    if !risks.contains(&cand) {
                        risks.push(cand);
                        break;
                    }
                }
                risks.sort_unstable();
            }
            let outlook = statements.get(k + 1).map(|next| {
                let g = yoy(next.total_revenue, st.total_revenue);
                ((g - rng.uniform(0.5, 2.5)).floor(), (g + rng.uniform(0.5, 2.5)).ceil())
            });
            let filed = crate::date::Date::ymd(fy + 1, 2, 10).plus(rng.range(0, 40));
            let accession = loop {
                let a = format!("{:010}-{:02}-{:06}", agent, (fy + 1) % 100, rng.range(1, 40_000));
                if accessions.insert(a.clone()) {
                    break a;
                }
            };
            filings.push(Filing {
                accession,
                company: c,
                fy,
                ground_truth: fy > sc.en_last_fy,
                st: st.clone(),
                prev,
                drivers,
                risks: risks.clone(),
                outlook,
                filing_date: filed.iso(),
            });
        }
        let latest_assets = statements[years - 2].total_assets;
        let exchange = *rng.pick(&["NYSE", "Nasdaq"]);
        companies.push(Company {
            cik,
            name,
            ticker,
            exchange,
            industry,
            sic: rng.below(ind.sic.len()),
            region,
            state,
            size: size_bucket(latest_assets),
            latest_assets,
            tags_intangibles,
        });
    }
    FinanceEn { companies, records: filings, first_year: sc.en_first_fy, last_year: sc.en_last_fy }
}

/// USD amount in words: `USD 2.21 billion`, `USD 442.69 million` (answers and questions).
pub fn usd(x: f64) -> String {
    if x.abs() >= 1e9 { format!("USD {:.2} billion", x / 1e9) } else { format!("USD {:.2} million", x / 1e6) }
}

/// A USD amount as filings print it, in one of the styles 10-Ks use: `$ 1,234.5 million`,
/// `$1,234,500 thousand`, `$1.23 billion`; negatives in accounting parentheses
/// (`$ (38.9) million`).
pub fn filed(x: f64, style: usize) -> String {
    let (number, unit) = match style % 3 {
        0 => (fin::grouped(x.abs() / 1e6, 1), "million"),
        1 => (fin::grouped(x.abs() / 1e3, 0), "thousand"),
        _ if x.abs() >= 1e9 => (fin::grouped(x.abs() / 1e9, 2), "billion"),
        _ => (fin::grouped(x.abs() / 1e6, 1), "million"),
    };
    let body = if x < 0.0 { format!("({number})") } else { number };
    if style % 3 == 0 { format!("$ {body} {unit}") } else { format!("${body} {unit}") }
}

fn direction(x: f64) -> &'static str {
    if x >= 0.0 { "increased" } else { "decreased" }
}

fn sections(data: &FinanceEn, f: &Filing) -> Vec<(&'static str, String)> {
    let co = &data.companies[f.company];
    let ind = &EN_INDUSTRIES[co.industry];
    let st = &f.st;
    let mut out = Vec::new();
    // Filings differ in how they print amounts; one style per filing.
    let style = (f.company * 5 + f.fy as usize) % 3;
    let amt = |x: f64| filed(x, style);
    out.push((
        "Item 1. Business",
        format!(
            "{} ({}) operates in the {} industry ({}) through three reportable segments: {}, {} and {}. The company is incorporated in {} and its \
             common stock trades on the {} under the symbol {}.",
            co.name,
            co.ticker,
            ind.sic[co.sic].1,
            ind.bucket,
            ind.segments[0],
            ind.segments[1],
            ind.segments[2],
            co.state,
            co.exchange,
            co.ticker
        ),
    ));
    let risks: Vec<&str> = f.risks.iter().map(|&k| EN_RISKS[k].1).collect();
    out.push((
        "Item 1A. Risk Factors",
        format!(
            "{} {}",
            [
                "The following risks could materially affect our business.",
                "Our operations and financial results are subject to various risks and uncertainties, including those described below.",
                "You should carefully consider the risks described below.",
            ][style],
            risks.join(" ")
        ),
    ));
    let mut mdna = format!(
        "Fiscal {} total revenue was {}, cost of revenue was {} and gross profit was {}, a gross margin of {:.2}%. Operating profit was {} \
         ({:.2}% of revenue) and net profit was {}.",
        f.fy,
        amt(st.total_revenue),
        amt(st.operating_cost),
        amt(st.gross_profit),
        st.gross_margin(),
        amt(st.operating_profit),
        st.operating_margin(),
        amt(st.net_profit)
    );
    if let Some(p) = &f.prev {
        let g = yoy(st.total_revenue, p.total_revenue);
        let go = yoy(st.operating_profit, p.operating_profit);
        mdna.push_str(&format!(
            " Revenue {} {:.1}% from {} in fiscal {}, primarily due to {} and {}. Operating profit {} {:.1}% from {}.",
            direction(g),
            g.abs(),
            amt(p.total_revenue),
            f.fy - 1,
            f.drivers[0],
            f.drivers[1],
            direction(go),
            go.abs(),
            amt(p.operating_profit)
        ));
    }
    if let Some((lo, hi)) = f.outlook {
        let next = f.fy + 1;
        mdna.push_str(&match style {
            0 => format!(
                " Outlook: for fiscal {next} we expect total revenue to change by between {lo:.0}% and {hi:.0}% compared with fiscal {}.",
                f.fy
            ),
            1 => format!(" For fiscal {next}, management anticipates total revenue growth of {lo:.0}% to {hi:.0}%."),
            _ => format!(" Our fiscal {next} guidance calls for total revenue to change {lo:.0}%–{hi:.0}% year over year."),
        });
    }
    out.push(("Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations", mdna));
    let intangibles = if co.tags_intangibles {
        format!(" Goodwill was {} and intangible assets were {}.", amt(st.goodwill), amt(st.intangible_assets))
    } else {
        String::new()
    };
    out.push((
        "Item 8. Financial Statements and Supplementary Data",
        format!(
            "At fiscal year end {} total assets were {}, of which current assets were {}; total liabilities were {} and total equity was {}.{} \
             Net cash provided by operating activities was {}, net cash used in investing activities was {} and net cash from financing \
             activities was {}.",
            f.fy,
            amt(st.total_assets),
            amt(st.total_current_assets),
            amt(st.total_liabilities),
            amt(st.total_equity),
            intangibles,
            amt(st.net_operating_cash_flow),
            amt(-st.net_investing_cash_flow),
            amt(st.net_financing_cash_flow)
        ),
    ));
    out
}

/// Write `finance/en/finance_reports.sqlite`; returns rows written.
pub fn write(ctx: &Ctx, data: &FinanceEn, corpus: &Path) -> Result<u64> {
    let route = Route::FinanceEnReports;
    let mut db = DbWriter::in_corpus(corpus, route, &ctx.scale)?;
    for co in &data.companies {
        let ind = &EN_INDUSTRIES[co.industry];
        db.insert(
            "companies",
            &[
                ("cik", i(co.cik)),
                ("name", t(&co.name)),
                ("tickers_json", t(json!([co.ticker]).to_string())),
                ("exchanges_json", t(json!([co.exchange]).to_string())),
                ("sic", t(ind.sic[co.sic].0)),
                ("sic_description", t(ind.sic[co.sic].1)),
                ("state_of_incorporation", t(co.state)),
                ("industry_bucket", t(ind.bucket)),
                ("region_bucket", t(EN_REGIONS[co.region].0)),
                ("size_bucket", t(co.size)),
                ("latest_assets", r(co.latest_assets)),
            ],
        )?;
    }
    for f in &data.records {
        let co = &data.companies[f.company];
        let doc = format!("{}-{}1231.htm", co.ticker.to_lowercase(), f.fy);
        db.insert(
            "filings",
            &[
                ("accession", t(&f.accession)),
                ("cik", i(co.cik)),
                ("company_name", t(&co.name)),
                ("form", t("10-K")),
                ("filing_date", t(&f.filing_date)),
                ("report_date", t(format!("{}-12-31", f.fy))),
                ("fiscal_year", i(i64::from(f.fy))),
                ("fiscal_period", t("FY")),
                ("split", t(if f.ground_truth { "ground_truth" } else { "retrieval" })),
                ("primary_document", t(&doc)),
                (
                    "filing_url",
                    t(format!(
                        "https://www.sec.gov/Archives/edgar/data/{}/{}/{}",
                        co.cik,
                        f.accession.replace('-', ""),
                        doc
                    )),
                ),
                ("quality_score", r(0.95)),
                ("downloaded_at", t(format!("{}T00:00:00Z", f.filing_date))),
            ],
        )?;
        let mut fields = vec![
            ("accession", t(&f.accession)),
            ("cik", i(co.cik)),
            ("report_period", t(format!("{}-12-31", f.fy))),
            ("currency", t("USD")),
        ];
        let mut total = 0;
        let mut missing = 0;
        for (col, v) in f.st.columns() {
            if !db.has_column("financial_facts", col) {
                continue;
            }
            total += 1;
            let value = if !co.tags_intangibles && (col == "goodwill" || col == "intangible_assets") {
                missing += 1;
                None
            } else {
                Some(v)
            };
            fields.push((col, opt_r(value)));
        }
        fields.push(("missing_rate", r((f64::from(missing) / f64::from(total) * 1e4).round() / 1e4)));
        db.insert("financial_facts", &fields)?;
        for (k, (name, text)) in sections(data, f).into_iter().enumerate() {
            db.insert(
                "sections",
                &[
                    ("accession", t(&f.accession)),
                    ("section_name", t(name)),
                    ("section_order", i(k as i64 + 1)),
                    ("text", t(text)),
                ],
            )?;
        }
    }
    db.finish()
}

fn ev(acc: &str) -> Value {
    json!({"accession": acc, "type": "financial_report"})
}

fn evs<'a>(accs: impl IntoIterator<Item = &'a str>) -> Value {
    Value::Array(accs.into_iter().map(ev).collect())
}

fn label(c: &Company) -> String {
    format!("{} ({})", c.name, c.ticker)
}

const DESC_TYPES: &[&str] = &[
    "numeric_fact",
    "cross_section_screen",
    "change_detection",
    "text_evidence",
    "mixed_numeric_text",
    "text_summary",
    "ranking",
    "screening",
    "text_comparison",
    "statistic",
];
const PRED_TYPES: &[&str] = &["multi_period_trend", "mixed_numeric_text"];

const INS_NUMERIC: &str =
    "Answer from the annual filings and structured financial facts in the corpus. Return only the requested number.";
const INS_OPTION: &str =
    "Answer from the annual filings and structured financial facts in the corpus. Return only one option letter.";
const INS_TEXT: &str = "Answer from the annual filings and structured financial facts in the corpus in a few sentences, stating the figures you rely on.";

/// The descriptive and predictive tasks.
pub fn tasks(data: &FinanceEn, ctx: &Ctx) -> Result<Vec<(TaskGroup, Vec<Task>)>> {
    descriptive_and_predictive(
        ctx,
        "finance_en",
        (DESC_TYPES, |ty, rng| descriptive(data, ty, rng)),
        (PRED_TYPES, |ty, rng| predictive(data, ty, rng)),
    )
}

/// A company population: description and members.
fn population(data: &FinanceEn, rng: &mut Rng) -> (String, Vec<usize>) {
    let ind = rng.below(EN_INDUSTRIES.len());
    let bucket = EN_INDUSTRIES[ind].bucket;
    let all = 0..data.companies.len();
    match rng.below(3) {
        0 => {
            let region = rng.below(EN_REGIONS.len());
            let m = all.filter(|&c| data.companies[c].industry == ind && data.companies[c].region == region).collect();
            (format!("{bucket} companies in the {} region", EN_REGIONS[region].0), m)
        }
        1 => {
            let size = *rng.pick(&["Small", "Mid", "Large"]);
            let m = all.filter(|&c| data.companies[c].industry == ind && data.companies[c].size == size).collect();
            (format!("{size}-sized {bucket} companies"), m)
        }
        _ => (
            format!("companies in the {bucket} industry bucket"),
            all.filter(|&c| data.companies[c].industry == ind).collect(),
        ),
    }
}

fn descriptive(data: &FinanceEn, ty: &'static str, rng: &mut Rng) -> Option<Task> {
    let c = rng.below(data.companies.len());
    let co = &data.companies[c];
    let fy = rng.range(i64::from(data.first_year) + 1, i64::from(data.last_year)) as i32;
    let f = data.record(c, fy);
    let prev = data.record(c, fy - 1);
    match ty {
        "numeric_fact" => {
            let (q, v, ev) = match rng.below(4) {
                0 => {
                    let avg = (f.st.total_assets + prev.st.total_assets) / 2.0;
                    (
                        format!(
                            "For {}, compute FY{fy} return on average assets: net profit divided by the mean of beginning and ending total assets, in percent.",
                            label(co)
                        ),
                        pct(f.st.net_profit, avg),
                        evs([prev.accession.as_str(), f.accession.as_str()]),
                    )
                }
                1 => (
                    rng.either(
                        format!("What was the FY{fy} gross margin of {}, in percent?", label(co)),
                        format!(
                            "For {}, calculate gross profit as a percentage of operating revenue for FY{fy}.",
                            label(co)
                        ),
                    ),
                    f.st.gross_margin(),
                    evs([f.accession.as_str()]),
                ),
                2 => (
                    format!(
                        "By how many percent did {}'s total revenue change from FY{} to FY{fy}?",
                        label(co),
                        fy - 1
                    ),
                    yoy(f.st.total_revenue, prev.st.total_revenue),
                    evs([prev.accession.as_str(), f.accession.as_str()]),
                ),
                _ => (
                    rng.either(
                        format!(
                            "Using the FY{fy} 10-K of {}, what was the ratio of total liabilities to total assets, in percent?",
                            label(co)
                        ),
                        format!(
                            "For {}, calculate total liabilities divided by total assets at FY{fy} year end, in percent.",
                            label(co)
                        ),
                    ),
                    f.st.debt_ratio(),
                    evs([f.accession.as_str()]),
                ),
            };
            Some(Task::new(ty, q, &format!("{INS_NUMERIC} Round to two decimals."), ev, json!(format!("{v:.2}"))))
        }
        "cross_section_screen" => {
            let (desc, members) = population(data, rng);
            let eligible: Vec<usize> =
                members.into_iter().filter(|&m| data.record(m, fy).st.total_revenue != 0.0).collect();
            if eligible.len() < 2 {
                return None;
            }
            let (mname, metric): (&str, fn(&Statement) -> f64) = *rng.pick(&[
                (
                    "operating margin (operating profit divided by total revenue)",
                    Statement::operating_margin as fn(&Statement) -> f64,
                ),
                ("net margin (net profit divided by total revenue)", Statement::net_margin),
            ]);
            let mean = eligible.iter().map(|&m| metric(&data.record(m, fy).st)).sum::<f64>() / eligible.len() as f64;
            let q = match rng.below(2) {
                0 => format!(
                    "Among the database's {desc}, excluding companies with missing or zero total revenue, compute each company's FY{fy} {mname} and return the simple average of those company-level values."
                ),
                _ => format!("What is the unweighted mean FY{fy} {mname} across {desc} with non-zero total revenue?"),
            };
            let ids: Vec<&str> = eligible.iter().map(|&m| data.record(m, fy).accession.as_str()).collect();
            Some(Task::new(
                ty,
                q,
                &format!("{INS_NUMERIC} Give percent with two decimals."),
                evs(ids),
                json!(format!("{mean:.2}")),
            ))
        }
        "change_detection" => {
            let (desc, members) = population(data, rng);
            let k = *rng.pick(&[1.0, 2.0, 3.0]);
            let mut ids = Vec::new();
            let mut n = 0;
            for m in members {
                let (a, b) = (data.record(m, fy - 1), data.record(m, fy));
                if a.st.total_revenue == 0.0 || b.st.total_revenue == 0.0 {
                    continue;
                }
                if (b.st.gross_margin() - a.st.gross_margin()).abs() > k {
                    n += 1;
                    ids.push(a.accession.as_str());
                    ids.push(b.accession.as_str());
                }
            }
            if n == 0 {
                return None;
            }
            let q = rng.either(
                format!(
                    "Across the database's {desc}, how many companies saw their gross margin move by more than {k:.0} percentage points between FY{} and FY{fy}?",
                    fy - 1
                ),
                format!(
                    "Across the database's {desc}, return the number of companies whose gross margin changed by more than {k:.0} percentage points from FY{} to FY{fy}.",
                    fy - 1
                ),
            );
            Some(Task::new(ty, q, INS_NUMERIC, evs(ids), json!(n.to_string())))
        }
        "text_evidence" => {
            let absent: Vec<usize> = (0..EN_RISKS.len()).filter(|k| !f.risks.contains(k)).collect();
            let correct = EN_RISKS[*rng.pick(&f.risks)].1.to_string();
            let wrong =
                rng.sample_indices(absent.len(), 3).into_iter().map(|k| EN_RISKS[absent[k]].1.to_string()).collect();
            let (opts, answer) = fin::options(rng, correct, wrong, " ");
            let q = format!(
                "For {}, which option reproduces a sentence that appears verbatim in the FY{fy} Item 1A risk factors? Options: {opts}",
                label(co)
            );
            Some(Task::new(ty, q, INS_OPTION, evs([f.accession.as_str(), f.accession.as_str()]), json!(answer)))
        }
        "mixed_numeric_text" => {
            let st = &f.st;
            let q = format!(
                "For {} in FY{fy}, report total revenue, gross profit, operating profit, gross margin and operating margin, and cite what MD&A says drove the revenue change.",
                label(co)
            );
            let g = yoy(st.total_revenue, prev.st.total_revenue);
            let gt = format!(
                "{} reported FY{fy} total revenue of {}, gross profit of {} and operating profit of {}.\n- Gross margin {:.2}%; operating margin {:.2}%.\n- MD&A: revenue {} {:.1}%, primarily due to {} and {}.",
                label(co),
                usd(st.total_revenue),
                usd(st.gross_profit),
                usd(st.operating_profit),
                st.gross_margin(),
                st.operating_margin(),
                direction(g),
                g.abs(),
                f.drivers[0],
                f.drivers[1]
            );
            Some(Task::new(ty, q, INS_TEXT, evs([f.accession.as_str(), f.accession.as_str()]), json!(gt)))
        }
        "text_summary" => {
            let g = yoy(f.st.total_revenue, prev.st.total_revenue);
            let go = yoy(f.st.operating_profit, prev.st.operating_profit);
            let q = format!(
                "Summarize the causes of {}'s FY{fy} change in revenue and operating profit as stated in MD&A.",
                label(co)
            );
            let gt = format!(
                "FY{fy} revenue {} {:.1}% from {} to {} and operating profit {} {:.1}% from {} to {}.\n- MD&A attributes the revenue change primarily to {} and {}.",
                direction(g),
                g.abs(),
                usd(prev.st.total_revenue),
                usd(f.st.total_revenue),
                direction(go),
                go.abs(),
                usd(prev.st.operating_profit),
                usd(f.st.operating_profit),
                f.drivers[0],
                f.drivers[1]
            );
            Some(Task::new(ty, q, INS_TEXT, evs([prev.accession.as_str(), f.accession.as_str()]), json!(gt)))
        }
        "ranking" => {
            let ind = co.industry;
            let mut ranked: Vec<(f64, usize)> = (0..data.companies.len())
                .filter(|&m| data.companies[m].industry == ind && data.record(m, fy).st.total_revenue != 0.0)
                .map(|m| (data.record(m, fy).st.net_margin(), m))
                .collect();
            if ranked.len() < 6 {
                return None;
            }
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let fmt = |items: &[(f64, usize)]| -> String {
                items
                    .iter()
                    .map(|(v, m)| format!("{} {:.2}%", data.companies[*m].name, v))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let top = &ranked[..3];
            let mut bottom: Vec<(f64, usize)> = ranked[ranked.len() - 3..].to_vec();
            bottom.reverse();
            let bucket = EN_INDUSTRIES[ind].bucket;
            let q = rng.either(
                format!(
                    "Within the {bucket} industry bucket, excluding companies with missing or zero total revenue, return the top 3 and bottom 3 companies by FY{fy} net margin."
                ),
                format!(
                    "Rank the companies in the {bucket} industry bucket by FY{fy} net margin, leaving out records with missing or zero total revenue, and return the best and worst 3."
                ),
            );
            let gt = format!(
                "Top three: {}.\nBottom three: {}.\nNet margin = FY{fy} net profit / total revenue.",
                fmt(top),
                fmt(&bottom)
            );
            let ids: Vec<&str> = ranked.iter().map(|(_, m)| data.record(*m, fy).accession.as_str()).collect();
            Some(Task::new(ty, q, INS_TEXT, evs(ids), json!(gt)))
        }
        "screening" => {
            let (desc, members) = population(data, rng);
            let p = *rng.pick(&[10.0, 15.0, 25.0]);
            let mut hits: Vec<(f64, usize)> = members
                .into_iter()
                .filter(|&m| data.companies[m].tags_intangibles && data.record(m, fy).st.total_assets > 0.0)
                .map(|m| {
                    let st = &data.record(m, fy).st;
                    (pct(st.goodwill + st.intangible_assets, st.total_assets), m)
                })
                .filter(|(v, _)| *v > p)
                .collect();
            if hits.is_empty() || hits.len() > 8 {
                return None;
            }
            hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let q = rng.either(
                format!(
                    "Identify {desc} with non-missing goodwill and intangible assets and positive total assets whose goodwill plus intangible assets exceeded {p:.0}% of total assets at FY{fy} year end."
                ),
                format!(
                    "Which of the database's {desc} had goodwill plus intangible assets above {p:.0}% of total assets at their FY{fy} report date?"
                ),
            );
            let list: Vec<String> =
                hits.iter().map(|(v, m)| format!("{} {:.2}%", data.companies[*m].name, v)).collect();
            let gt = format!(
                "{} compan{} exceeded the {p:.0}% threshold in FY{fy}: {}.\n- Ratio = (goodwill + intangible assets) / total assets.",
                hits.len(),
                if hits.len() == 1 { "y" } else { "ies" },
                list.join("; ")
            );
            let ids: Vec<&str> = hits.iter().map(|(_, m)| data.record(*m, fy).accession.as_str()).collect();
            Some(Task::new(ty, q, INS_TEXT, evs(ids), json!(gt)))
        }
        "text_comparison" => {
            let topics = |fl: &Filing| -> Vec<&'static str> { fl.risks.iter().map(|&k| EN_RISKS[k].0).collect() };
            let (a, b) = (topics(prev), topics(f));
            let added: Vec<&str> = b.iter().filter(|x| !a.contains(x)).copied().collect();
            let removed: Vec<&str> = a.iter().filter(|x| !b.contains(x)).copied().collect();
            let kept: Vec<&str> = b.iter().filter(|x| a.contains(x)).copied().collect();
            let list = |v: &[&str]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
            let q = rng.either(
                format!(
                    "For {}, list which Item 1A risk-factor topics were added, dropped or retained between the FY{} and FY{fy} filings.",
                    label(co),
                    fy - 1
                ),
                format!("For {}, list changes in wording for risk factors between FY{} and FY{fy}.", label(co), fy - 1),
            );
            let gt = format!(
                "Added in FY{fy}: {}.\nDropped since FY{}: {}.\nRetained: {}.",
                list(&added),
                fy - 1,
                list(&removed),
                list(&kept)
            );
            Some(Task::new(ty, q, INS_TEXT, evs([prev.accession.as_str(), f.accession.as_str()]), json!(gt)))
        }
        "statistic" => statistic(data, fy, rng),
        _ => None,
    }
}

type Test = Box<dyn Fn(&Statement, &Statement) -> bool>;

fn statistic(data: &FinanceEn, fy: i32, rng: &mut Rng) -> Option<Task> {
    let (scope, members): (String, Vec<usize>) = match rng.below(3) {
        0 => {
            let region = rng.below(EN_REGIONS.len());
            (
                format!("companies in the {} region", EN_REGIONS[region].0),
                (0..data.companies.len()).filter(|&c| data.companies[c].region == region).collect(),
            )
        }
        1 => {
            let ind = rng.below(EN_INDUSTRIES.len());
            (
                format!("{} companies", EN_INDUSTRIES[ind].bucket),
                (0..data.companies.len()).filter(|&c| data.companies[c].industry == ind).collect(),
            )
        }
        _ => {
            let size = *rng.pick(&["Small", "Mid", "Large"]);
            (
                format!("{size}-sized companies"),
                (0..data.companies.len()).filter(|&c| data.companies[c].size == size).collect(),
            )
        }
    };
    let (cond, test): (&str, Test) = match rng.below(5) {
        0 => (
            "converted operating profit into even stronger operating cash flow (net operating cash flow above operating profit)",
            Box::new(|s, _| s.net_operating_cash_flow > s.operating_profit),
        ),
        1 => ("grew total revenue year over year", Box::new(|s, p| s.total_revenue > p.total_revenue)),
        2 => ("reported a net loss", Box::new(|s, _| s.net_profit < 0.0)),
        3 => ("had total liabilities above 60% of total assets", Box::new(|s, _| s.debt_ratio() > 60.0)),
        _ => {
            ("improved gross margin versus the prior fiscal year", Box::new(|s, p| s.gross_margin() > p.gross_margin()))
        }
    };
    let hits: Vec<usize> =
        members.into_iter().filter(|&m| test(&data.record(m, fy).st, &data.record(m, fy - 1).st)).collect();
    let q = match rng.below(4) {
        0 => format!("In FY{fy}, how many {scope} {cond}?"),
        1 => format!("Based on their FY{fy} annual filings, how many {scope} {cond}?"),
        2 => format!("Looking at FY{fy} annual reports, how many {scope} {cond}?"),
        _ => format!("Count the {scope} that {cond} in FY{fy}."),
    };
    let ev: Vec<Value> =
        hits.iter().map(|&m| json!({"cik": data.companies[m].cik.to_string(), "type": "company"})).collect();
    Some(Task::new(
        "statistic",
        q,
        "Answer from the structured financial facts of the whole company population in the corpus. Return only the number of companies as an integer.",
        Value::Array(ev),
        json!(hits.len()),
    ))
}

fn predictive(data: &FinanceEn, ty: &'static str, rng: &mut Rng) -> Option<Task> {
    let (c, cur, next) = data.last_and_next(rng);
    let co = &data.companies[c];
    let (last, target) = (data.last_year, data.last_year + 1);
    let ids: Vec<&str> = (0..5).map(|k| data.record(c, last - 4 + k).accession.as_str()).collect();
    let ev = evs(ids);
    let cutoff = format!("Use only information available in filings made through the FY{last} 10-K.");
    let (mname, f): (&str, fn(&Statement) -> f64) = *rng.pick(&[
        ("total-revenue", (|s| s.total_revenue) as fn(&Statement) -> f64),
        ("total-equity", |s| s.total_equity),
        ("operating-cash-flow", |s| s.net_operating_cash_flow),
    ]);
    match ty {
        "multi_period_trend" => {
            let actual = yoy(f(&next.st), f(&cur.st));
            if rng.chance(0.5) {
                let q = rng.either(
                    format!(
                        "Set the research date immediately after the FY{last} filing: trace {}'s {mname} year-over-year growth from FY{} to FY{last} and forecast FY{target}. Fill in the FY{target} change, rounded to two decimals, in %.",
                        label(co),
                        last - 3
                    ),
                    format!(
                        "Using only filings through FY{last}, forecast the FY{target} year-over-year change in {}'s {mname}, in percent.",
                        label(co)
                    ),
                );
                let ins = format!(
                    "Use the specified historical filings and trends to return the requested numeric forecast. {cutoff}"
                );
                Some(Task::new(ty, q, &ins, ev, json!(format!("{actual:.2} %"))))
            } else {
                let last_g = yoy(f(&cur.st), f(&data.record(c, last - 1).st));
                let q = rng.either(
                    format!(
                        "Based on {}'s {mname} growth path through FY{last}, will FY{target} {mname} growth accelerate or decelerate relative to FY{last}? Explain briefly.",
                        label(co)
                    ),
                    format!(
                        "Will {}'s {mname} growth speed up or slow down in FY{target} compared with FY{last}? Give a short conclusion with figures.",
                        label(co)
                    ),
                );
                let ins = format!("Answer with a short trend conclusion and the figures behind it. {cutoff}");
                let gt = format!(
                    "Trend conclusion: FY{target} {mname} YoY growth {} to {:.2}% from {:.2}% in FY{last}.",
                    if actual > last_g { "accelerated" } else { "decelerated" },
                    actual,
                    last_g
                );
                Some(Task::new(ty, q, &ins, ev, json!(gt)))
            }
        }
        "mixed_numeric_text" => {
            let g = yoy(next.st.total_revenue, cur.st.total_revenue);
            if rng.chance(0.6) {
                let letter = if g > 10.0 {
                    "A"
                } else if g >= 0.0 {
                    "B"
                } else if g >= -10.0 {
                    "C"
                } else {
                    "D"
                };
                let opts = "A. above 10% B. 0% to 10% C. -10% to below 0% D. below -10%";
                let q = rng.either(
                    format!(
                        "Review {}'s FY{}–FY{last} revenue record and the outlook in its FY{last} MD&A. Which range will FY{target} total-revenue growth most likely fall in? {opts}",
                        label(co),
                        last - 4
                    ),
                    format!(
                        "Based on {}'s filings through FY{last}, in which range is its FY{target} total revenue growth most likely to be? {opts}",
                        label(co)
                    ),
                );
                let ins = format!("Return only one option letter. {cutoff}");
                Some(Task::new(ty, q, &ins, ev, json!(letter)))
            } else {
                let (lo, hi) = cur.outlook?;
                let q = format!(
                    "Combine {}'s historical revenue trend with the FY{last} MD&A outlook: what FY{target} revenue change do they point to, and what did the company guide?",
                    label(co)
                );
                let ins = format!("Answer in two or three sentences with the figures. {cutoff}");
                let gt = format!(
                    "FY{target} total revenue {} {:.2}%, within the FY{last} MD&A guidance of {lo:.0}% to {hi:.0}%; FY{last} revenue was {}.",
                    direction(g),
                    g.abs(),
                    usd(cur.st.total_revenue)
                );
                Some(Task::new(ty, q, &ins, ev, json!(gt)))
            }
        }
        _ => None,
    }
}

/// Generate corpus and tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let data = build(ctx);
    let rows = write(ctx, &data, corpus)?;
    let tasks = tasks(&data, ctx)?;
    Ok(DomainOutput { files: vec![(Route::FinanceEnReports, rows)], tasks })
}
