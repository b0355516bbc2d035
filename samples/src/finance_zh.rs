//! Chinese listed companies (`finance/zh/finance_reports.sqlite`) and the finance_zh descriptive
//! and predictive tasks.
//!
//! Every company has one annual report per year; each report has a structured row
//! (`financial_fields`) and text chunks that state the same figures in prose (key figures,
//! management discussion with the drivers of the revenue change, segment table when disclosed,
//! risks, customers, balance sheet and cash-flow summaries, and an outlook for next year). The
//! year after the last retrievable one is written with `split = 'ground_truth'`: it holds the
//! realised outcomes of the predictive tasks and is excluded from retrieval. Its figures are never
//! the only source of an answer: the previous year's outlook states the range the outcome falls
//! in, and no gold evidence points to a ground-truth report.

use std::{collections::BTreeSet, path::Path};

use anser_manifest::{Route, TaskGroup};
use serde_json::{Value, json};

use crate::{
    Ctx, DomainOutput, Result, answer_keys,
    db::{DbWriter, i, r, t},
    fin::{self, Profile, Statement, pct, yoy},
    names::{ZH_BRANDS, ZH_DRIVERS_DOWN, ZH_DRIVERS_UP, ZH_INDUSTRIES, ZH_RISKS},
    rng::Rng,
    stats::round2,
    task::{Task, descriptive_and_predictive},
};

/// A listed company.
#[derive(Debug, Clone)]
pub struct Company {
    pub code: String,
    pub name: String,
    pub exchange: &'static str,
    pub board: &'static str,
    pub industry: usize,
    pub listing_date: String,
}

/// Segment revenue line of a report.
#[derive(Debug, Clone)]
pub struct Segment {
    pub name: &'static str,
    pub revenue: f64,
    pub share: f64,
}

/// One annual report.
#[derive(Debug, Clone)]
pub struct Report {
    pub id: String,
    pub company: usize,
    pub year: i32,
    pub ground_truth: bool,
    pub st: Statement,
    pub prev: Option<Statement>,
    pub drivers: Vec<&'static str>,
    pub risks: Vec<usize>,
    pub segments: Option<Vec<Segment>>,
    pub top5_customers: f64,
    /// Outlook for next year's revenue growth (low, high, percent) and profit direction.
    pub outlook: Option<(f64, f64, bool, i32)>,
    pub disclosure_date: String,
}

/// The generated corpus: the companies and their annual reports.
pub type FinanceZh = fin::Panel<Company, Report>;

impl FinanceZh {
    fn industry_members(&self, ind: usize) -> Vec<usize> {
        (0..self.companies.len()).filter(|&c| self.companies[c].industry == ind).collect()
    }
}

const BOARDS: &[(&str, &str, &[u32])] = &[
    ("上海证券交易所", "主板", &[600, 601, 603]),
    ("上海证券交易所", "科创板", &[688]),
    ("深圳证券交易所", "主板", &[0, 2]),
    ("深圳证券交易所", "创业板", &[300]),
];

/// Build the corpus in memory.
pub fn build(ctx: &Ctx) -> FinanceZh {
    let sc = ctx.scale;
    let mut rng = Rng::derive(ctx.seed, "finance_zh");
    let mut codes = BTreeSet::new();
    let mut names = BTreeSet::new();
    let mut companies = Vec::new();
    for c in 0..sc.zh_companies {
        let industry = c % ZH_INDUSTRIES.len();
        let (exchange, board, prefixes) = *rng.pick(BOARDS);
        let code = loop {
            let p = *rng.pick(prefixes);
            let code = format!("{:03}{:03}", p, rng.below(1000));
            if codes.insert(code.clone()) {
                break code;
            }
        };
        let ind = &ZH_INDUSTRIES[industry];
        let mut attempt = 0;
        let name = loop {
            attempt += 1;
            let n = format!("{}{}", rng.pick(ZH_BRANDS), ind.word);
            let n = if names.contains(&n) {
                format!("{}{}{}", rng.pick(ZH_BRANDS), rng.pick(ZH_BRANDS), ind.word)
            } else {
                n
            };
            // Large samples run out of combinations; a series number keeps names unique.
            let n = if attempt > 20 { format!("{n}{attempt}") } else { n };
            if names.insert(n.clone()) {
                break n;
            }
        };
        let listing_date = format!("{}-{:02}-{:02}", rng.range(1996, 2015), rng.range(1, 12), rng.range(1, 28));
        companies.push(Company { code, name, exchange, board, industry, listing_date });
    }
    let years = (sc.zh_last_year - sc.zh_first_year + 2) as usize;
    let mut reports = Vec::with_capacity(companies.len() * years);
    for (ci, co) in companies.iter().enumerate() {
        let profile = Profile::random(&mut rng, 8e9);
        let statements = fin::statements(&mut rng, &profile, years);
        let ind = &ZH_INDUSTRIES[co.industry];
        let weights: Vec<f64> = (0..3).map(|_| rng.uniform(0.2, 1.0)).collect();
        let mut risks: Vec<usize> = rng.sample_indices(ZH_RISKS.len(), 3);
        let discloses_segments = rng.uniform(0.5, 0.95);
        for (k, st) in statements.iter().enumerate() {
            let year = sc.zh_first_year + k as i32;
            let prev = (k > 0).then(|| statements[k - 1].clone());
            let growth = prev.as_ref().map_or(0.0, |p| yoy(st.operating_revenue, p.operating_revenue));
            let pool = if growth >= 0.0 { ZH_DRIVERS_UP } else { ZH_DRIVERS_DOWN };
            let drivers: Vec<&'static str> = rng.sample_indices(pool.len(), 2).into_iter().map(|j| pool[j]).collect();
            if k > 0 {
                // Risks persist from year to year; now and then one is replaced.
                if rng.chance(0.5) {
                    let drop = rng.below(risks.len());
                    risks.remove(drop);
                }
                while risks.len() < 3 || (risks.len() < 4 && rng.chance(0.3)) {
                    let cand = rng.below(ZH_RISKS.len());
                    if !risks.contains(&cand) {
                        risks.push(cand);
                    }
                }
                risks.sort_unstable();
            }
            let segments = rng.chance(discloses_segments).then(|| {
                let mut w: Vec<f64> = weights.iter().map(|w| w * rng.uniform(0.85, 1.15)).collect();
                let total: f64 = w.iter().sum();
                w.iter_mut().for_each(|x| *x /= total);
                let mut segs = Vec::new();
                let mut assigned = 0.0;
                for (j, name) in ind.segments.iter().enumerate() {
                    let revenue =
                        if j == 2 { st.operating_revenue - assigned } else { (st.operating_revenue * w[j]).round() };
                    assigned += revenue;
                    segs.push(Segment { name, revenue, share: round2(pct(revenue, st.operating_revenue)) });
                }
                segs
            });
            let outlook = statements.get(k + 1).map(|next| {
                let g = yoy(next.operating_revenue, st.operating_revenue);
                let lo = (g - rng.uniform(0.5, 2.0)).floor();
                let hi = (g + rng.uniform(0.5, 2.0)).ceil();
                let ratio_next = next.expense_ratio() - st.expense_ratio();
                let trend = if ratio_next > 1.0 {
                    1
                } else if ratio_next < -1.0 {
                    -1
                } else {
                    0
                };
                (lo, hi, next.parent_net_profit > st.parent_net_profit, trend)
            });
            reports.push(Report {
                id: format!("{}_{}-12-31_annual", co.code, year),
                company: ci,
                year,
                ground_truth: year > sc.zh_last_year,
                st: st.clone(),
                prev,
                drivers,
                risks: risks.clone(),
                segments,
                top5_customers: round2(rng.uniform(8.0, 75.0)),
                outlook,
                disclosure_date: format!("{}-{:02}-{:02}", year + 1, rng.range(3, 4), rng.range(1, 28)),
            });
        }
    }
    FinanceZh { companies, records: reports, first_year: sc.zh_first_year, last_year: sc.zh_last_year }
}

/// 亿元 with two decimals.
fn yi(x: f64) -> String {
    format!("{:.2}亿元", x / 1e8)
}

/// An amount as A-share reports print it: thousands separators and two decimals in 元
/// (`8,749,279,719.00元`), or in 万元 (`874,927.97万元`) — `style` picks one per report.
fn amount(x: f64, style: usize) -> String {
    if style % 2 == 0 { format!("{}元", fin::grouped(x, 2)) } else { format!("{}万元", fin::grouped(x / 1e4, 2)) }
}

/// The print style of one report (reports differ in how they print amounts).
fn style_of(rep: &Report) -> usize {
    (rep.company * 7 + rep.year as usize) % 6
}

fn up_down(x: f64) -> &'static str {
    if x >= 0.0 { "增长" } else { "下降" }
}

fn chunks(data: &FinanceZh, rep: &Report) -> Vec<(&'static str, &'static str, String)> {
    let co = &data.companies[rep.company];
    let st = &rep.st;
    let mut out = Vec::new();
    let style = style_of(rep);
    // The key-figures table prints 元 with separators, as the release's reports do.
    let mut key = format!(
        "{}{}年年度报告主要会计数据：营业收入{}，营业成本{}，归属于上市公司股东的净利润{}，\
         基本每股收益{:.2}元/股，总资产{}，归属于上市公司股东的净资产及少数股东权益合计{}，经营活动产生的现金流量净额{}。",
        co.name,
        rep.year,
        amount(st.operating_revenue, 0),
        amount(st.operating_cost, 0),
        amount(st.parent_net_profit, 0),
        st.basic_eps,
        amount(st.total_assets, 0),
        amount(st.total_equity, 0),
        amount(st.net_operating_cash_flow, 0)
    );
    if let Some(p) = &rep.prev {
        key.push_str(&format!(
            "营业收入较上年{}{:.2}%，归属于上市公司股东的净利润较上年{}{:.2}%。",
            up_down(yoy(st.operating_revenue, p.operating_revenue)),
            yoy(st.operating_revenue, p.operating_revenue).abs(),
            up_down(yoy(st.parent_net_profit, p.parent_net_profit)),
            yoy(st.parent_net_profit, p.parent_net_profit).abs()
        ));
    }
    out.push(("第二节 公司简介和主要财务指标", "table", key));
    let mut mda = format!(
        "报告期内，公司实现营业收入{}，营业成本{}，毛利率为{:.2}%。",
        yi(st.operating_revenue),
        yi(st.operating_cost),
        st.gross_margin()
    );
    if let Some(p) = &rep.prev {
        let g = yoy(st.operating_revenue, p.operating_revenue);
        mda.push_str(&format!(
            "营业收入同比{}{:.2}%，主要原因是{}，以及{}。毛利率较上年{}{:.2}个百分点。",
            up_down(g),
            g.abs(),
            rep.drivers[0],
            rep.drivers[1],
            if st.gross_margin() >= p.gross_margin() { "提高" } else { "下降" },
            (st.gross_margin() - p.gross_margin()).abs()
        ));
    }
    mda.push_str(&format!(
        "销售费用{}，管理费用{}，研发费用{}，财务费用{}。",
        amount(st.selling_expense, style),
        amount(st.management_expense, style),
        amount(st.research_expense, style),
        amount(st.financial_expense, style)
    ));
    out.push(("第三节 管理层讨论与分析", "text", mda));
    if let Some(segs) = &rep.segments {
        let lines: Vec<String> = segs
            .iter()
            .map(|s| format!("{}：营业收入{}，占营业收入比重{:.2}%", s.name, amount(s.revenue, style), s.share))
            .collect();
        out.push((
            "第三节 管理层讨论与分析-主营业务分产品情况",
            "table",
            format!("分产品情况：{}。", lines.join("；")),
        ));
    }
    let risk_text: Vec<String> = rep.risks.iter().map(|&k| format!("{}：{}", ZH_RISKS[k].0, ZH_RISKS[k].1)).collect();
    out.push((
        "第三节 管理层讨论与分析-可能面对的风险",
        "text",
        format!("公司可能面对的主要风险包括：{}", risk_text.join("")),
    ));
    out.push((
        "第三节 管理层讨论与分析-主要客户及供应商",
        "text",
        format!("公司前五名客户销售额合计占年度销售总额的比例为{:.2}%，客户结构保持稳定。", rep.top5_customers),
    ));
    out.push(("第十节 财务报告-合并资产负债表", "table", {
        let a = |x: f64| amount(x, style);
        format!(
            "货币资金{}；应收账款{}；存货{}；流动资产合计{}；固定资产{}；无形资产{}；商誉{}；\
                 非流动资产合计{}；资产总计{}；短期借款{}；应付账款{}；合同负债{}；流动负债合计{}；\
                 长期借款{}；应付债券{}；非流动负债合计{}；负债合计{}；所有者权益合计{}。",
            a(st.monetary_funds),
            a(st.accounts_receivable),
            a(st.inventory),
            a(st.total_current_assets),
            a(st.fixed_assets),
            a(st.intangible_assets),
            a(st.goodwill),
            a(st.total_noncurrent_assets),
            a(st.total_assets),
            a(st.short_term_borrowing),
            a(st.accounts_payable),
            a(st.contract_liabilities),
            a(st.total_current_liabilities),
            a(st.long_term_borrowing),
            a(st.bonds_payable),
            a(st.total_noncurrent_liabilities),
            a(st.total_liabilities),
            a(st.total_equity)
        )
    }));
    out.push(("第十节 财务报告-合并现金流量表", "table", {
        let a = |x: f64| amount(x, style);
        format!(
            "经营活动现金流入小计{}，经营活动现金流出小计{}，经营活动产生的现金流量净额{}；\
                 投资活动产生的现金流量净额{}；筹资活动产生的现金流量净额{}；现金及现金等价物净增加额{}；\
                 期末现金及现金等价物余额{}。",
            a(st.operating_cash_inflow),
            a(st.operating_cash_outflow),
            a(st.net_operating_cash_flow),
            a(st.net_investing_cash_flow),
            a(st.net_financing_cash_flow),
            a(st.cash_equivalent_increase),
            a(st.ending_cash_equivalent)
        )
    }));
    if let Some((lo, hi, profit_up, cost_trend)) = rep.outlook {
        // Reports word their outlook differently; the facts stated are the same.
        let v = style % 3;
        let cost = match (cost_trend, v) {
            (1, 0) => "受新项目投入影响，期间费用率预计有所上升",
            (1, _) => "随着新项目投入，期间费用率将有所提高",
            (-1, 0) => "公司将持续推进降本增效，期间费用率预计明显下降",
            (-1, _) => "通过降本增效，期间费用率将进一步降低",
            (_, 0) => "期间费用率预计与本年大致持平",
            _ => "期间费用率将保持基本稳定",
        };
        let profit = match (profit_up, v) {
            (true, 0) => "有所增长",
            (false, 0) => "有所下降",
            (true, _) => "同比上升",
            (false, _) => "同比下滑",
        };
        let next = rep.year + 1;
        let text = match v {
            0 => format!(
                "展望{next}年，公司预计营业收入同比变动幅度在{lo:.0}%至{hi:.0}%之间，归属于上市公司股东的净利润预计较本年{profit}；{cost}。"
            ),
            1 => format!(
                "{next}年经营计划：公司力争营业收入同比变动{lo:.0}%~{hi:.0}%；预计归属于上市公司股东的净利润{profit}；{cost}。"
            ),
            _ => format!(
                "关于{next}年，管理层预期营业收入较上年变动{lo:.0}%到{hi:.0}%；归属于上市公司股东的净利润预计{profit}；{cost}。"
            ),
        };
        out.push(("第三节 管理层讨论与分析-未来发展展望", "text", text));
    }
    out
}

/// Write `finance/zh/finance_reports.sqlite`; returns rows written.
pub fn write(ctx: &Ctx, data: &FinanceZh, corpus: &Path) -> Result<u64> {
    let route = Route::FinanceZhReports;
    let mut db = DbWriter::in_corpus(corpus, route, &ctx.scale)?;
    for co in &data.companies {
        db.insert(
            "companies",
            &[
                ("stock_code", t(&co.code)),
                ("company_name", t(&co.name)),
                ("exchange", t(co.exchange)),
                ("board", t(co.board)),
                ("industry", t(ZH_INDUSTRIES[co.industry].name)),
                ("listing_date", t(&co.listing_date)),
                ("selected_flag", i(1)),
            ],
        )?;
    }
    for rep in &data.records {
        let co = &data.companies[rep.company];
        let chunks = match ctx.scale.release {
            Some(_) => release_chunks(ctx.seed, co, rep, chunks(data, rep)),
            None => chunks(data, rep),
        };
        let full_text: Vec<String> = chunks.iter().map(|(h, _, body)| format!("{h}\n{body}")).collect();
        db.insert(
            "reports",
            &[
                ("report_id", t(&rep.id)),
                ("stock_code", t(&co.code)),
                ("company_name", t(&co.name)),
                ("report_year", i(i64::from(rep.year))),
                ("report_period", t(format!("{}-12-31", rep.year))),
                ("fiscal_quarter", t("Q4")),
                ("report_type", t("annual")),
                ("disclosure_date", t(&rep.disclosure_date)),
                ("pdf_url", t(format!("https://disclosure.example.cn/{}/{}_annual.pdf", co.code, rep.year))),
                ("full_text", t(full_text.join("\n\n"))),
                ("split", t(if rep.ground_truth { "ground_truth" } else { "retrieval" })),
                ("text_quality_score", r(0.9)),
                ("structured_quality_score", r(1.0)),
            ],
        )?;
        let mut fields = vec![
            ("report_id", t(&rep.id)),
            ("stock_code", t(&co.code)),
            ("report_period", t(format!("{}-12-31", rep.year))),
            ("missing_rate", r(0.0)),
        ];
        fields.extend(rep.st.columns().into_iter().map(|(c, v)| (c, r(v))));
        db.insert("financial_fields", &fields)?;
        let mut page = 3;
        for (k, (section, kind, body)) in chunks.into_iter().enumerate() {
            let pages = 1 + (body.chars().count() / 400) as i64;
            db.insert(
                "report_chunks",
                &[
                    ("chunk_id", t(format!("{}_c{:03}", rep.id, k + 1))),
                    ("report_id", t(&rep.id)),
                    ("stock_code", t(&co.code)),
                    ("company_name", t(&co.name)),
                    ("report_year", i(i64::from(rep.year))),
                    ("report_period", t(format!("{}-12-31", rep.year))),
                    ("report_type", t("annual")),
                    ("section_title", t(section)),
                    ("page_start", i(page)),
                    ("page_end", i(page + pages - 1)),
                    ("chunk_type", t(kind)),
                    ("chunk_text", t(body)),
                ],
            )?;
            page += pages + 2;
        }
    }
    db.finish()
}

/// Characters per chunk of the official chunking (the release's `report_chunks`).
pub const CHUNK_CHARS: usize = 1200;

/// Sections of an annual report that state no figure a task asks about, with boilerplate
/// sentences (`{co}` company name, `{y}` report year). At release size they bring a report's
/// text to the release's length (≈ 11.4 chunks of ≤ 1,200 characters per report).
const ZH_BOILERPLATE: &[(&str, &[&str])] = &[
    (
        "第四节 公司治理",
        &[
            "报告期内，{co}严格按照《公司法》《证券法》等法律法规和公司章程的要求，不断完善法人治理结构，规范公司运作。",
            "公司股东大会、董事会、监事会和经理层权责明确、各司其职、相互制衡，保障了公司经营决策的科学性和有效性。",
            "{y}年度，公司共召开股东大会及董事会会议若干次，会议的召集、召开和表决程序均符合有关规定。",
            "独立董事按照相关规定认真履行职责，对公司重大事项发表独立意见，维护了公司和全体股东的合法权益。",
            "公司建立了较为完善的内部控制体系，内部审计部门对各业务环节开展了定期检查。",
            "公司高度重视信息披露工作，真实、准确、完整、及时地履行信息披露义务，确保所有股东平等获取信息。",
        ],
    ),
    (
        "第五节 环境和社会责任",
        &[
            "{co}始终坚持绿色发展理念，持续推进节能减排和清洁生产，主要污染物排放符合国家和地方标准。",
            "公司积极履行社会责任，依法保障员工合法权益，持续完善员工培训和职业发展体系。",
            "{y}年，公司在安全生产方面持续投入，开展安全教育培训和隐患排查治理，未发生重大安全生产事故。",
            "公司积极参与乡村振兴和公益慈善活动，助力地方经济社会发展。",
            "公司重视与供应商、合作伙伴的长期合作，坚持诚信经营、公平交易。",
        ],
    ),
    (
        "第六节 重要事项",
        &[
            "报告期内，{co}不存在控股股东及其他关联方非经营性占用公司资金的情况。",
            "公司及其控股股东、实际控制人诚信状况良好，不存在未履行法院生效判决的情况。",
            "报告期内，公司未发生重大诉讼、仲裁事项，亦不存在违规对外担保的情况。",
            "公司{y}年度财务报告经会计师事务所审计，并出具了标准无保留意见的审计报告。",
            "报告期内，公司及董事、监事、高级管理人员不存在受到证券监管部门处罚的情况。",
            "公司与关联方之间的日常关联交易遵循公平、公正、公开的原则，定价公允。",
        ],
    ),
];

/// The release-size text of a report: the fact-bearing chunks, then boilerplate sections of a
/// length drawn per report, every body cut at [`CHUNK_CHARS`] characters as the official
/// chunking does (the fact-bearing chunks are shorter, so they stay whole). The draws come from
/// a stream of the report's own, so nothing else in the corpus shifts.
fn release_chunks(
    seed: u64,
    co: &Company,
    rep: &Report,
    facts: Vec<(&'static str, &'static str, String)>,
) -> Vec<(&'static str, &'static str, String)> {
    let mut rng = Rng::derive(seed, &format!("finance_zh_text_{}", rep.id));
    let year = rep.year.to_string();
    let mut all = facts;
    for (title, sentences) in ZH_BOILERPLATE {
        // 300–1,600 characters per section: about 1.3 chunks each, 11.4 chunks per report.
        let target = rng.range(300, 1600) as usize;
        let mut body = String::new();
        while body.chars().count() < target {
            body.push_str(&sentences[rng.below(sentences.len())].replace("{co}", &co.name).replace("{y}", &year));
        }
        all.push((title, "text", body));
    }
    let mut out = Vec::with_capacity(all.len() + 4);
    for (title, kind, body) in all {
        let chars: Vec<char> = body.chars().collect();
        for piece in chars.chunks(CHUNK_CHARS) {
            out.push((title, kind, piece.iter().collect()));
        }
    }
    out
}

fn ev(id: &str) -> Value {
    json!({"id": id, "type": "financial_report"})
}

fn evs<'a>(ids: impl IntoIterator<Item = &'a str>) -> Value {
    Value::Array(ids.into_iter().map(ev).collect())
}

/// Structured fields the descriptive tasks ask about: (Chinese name, column).
const FIELDS: &[(&str, &str)] = &[
    ("营业收入", "operating_revenue"),
    ("营业成本", "operating_cost"),
    ("销售费用", "selling_expense"),
    ("管理费用", "management_expense"),
    ("研发费用", "research_expense"),
    ("归属于上市公司股东的净利润", "parent_net_profit"),
    ("货币资金", "monetary_funds"),
    ("应收账款", "accounts_receivable"),
    ("存货", "inventory"),
    ("资产总计", "total_assets"),
    ("负债合计", "total_liabilities"),
    ("经营活动产生的现金流量净额", "net_operating_cash_flow"),
];

/// Ratio metrics: (name, function, unit word).
type Metric = (&'static str, fn(&Statement) -> f64);
const RATIOS: &[Metric] =
    &[("毛利率", Statement::gross_margin), ("资产负债率", Statement::debt_ratio), ("研发费用率", Statement::rd_ratio)];

const AMOUNTS: &[Metric] = &[
    ("营业收入", |s| s.operating_revenue),
    ("归属于上市公司股东的净利润", |s| s.parent_net_profit),
    ("资产总计", |s| s.total_assets),
    ("经营活动产生的现金流量净额", |s| s.net_operating_cash_flow),
];

const DESC_TYPES: &[&str] = &[
    "numeric_fact",
    "multi_period_trend",
    "change_detection",
    "cross_section_screen",
    "ranking",
    "screening",
    "mixed_numeric_text",
    "text_evidence",
    "text_summary",
    "text_comparison",
    "statistic",
];

const PRED_TYPES: &[&str] = &["mixed_numeric_text", "multi_period_trend", "text_summary"];

const INSTR_BASE: &str = "请依据相关年度报告和结构化财务数据作答。";

fn label(c: &Company) -> String {
    format!("{}（{}）", c.name, c.code)
}

/// The descriptive and predictive tasks.
pub fn tasks(data: &FinanceZh, ctx: &Ctx) -> Result<Vec<(TaskGroup, Vec<Task>)>> {
    descriptive_and_predictive(
        ctx,
        "finance_zh",
        (DESC_TYPES, |ty, rng| descriptive(data, ty, rng)),
        (PRED_TYPES, |ty, rng| predictive(data, ty, rng)),
    )
}

fn descriptive(data: &FinanceZh, ty: &'static str, rng: &mut Rng) -> Option<Task> {
    let n = data.companies.len();
    let c = rng.below(n);
    let co = &data.companies[c];
    let year = rng.range(i64::from(data.first_year) + 1, i64::from(data.last_year)) as i32;
    let rep = data.record(c, year);
    match ty {
        "numeric_fact" => {
            if rng.chance(0.7) {
                let (fname, col) = *rng.pick(FIELDS);
                let value = rep.st.get(col)?;
                let q = match rng.below(6) {
                    0 => format!("{}{}年年度报告中披露的{}是多少？", label(co), year, fname),
                    1 => format!("请查询{}（股票代码{}）{}年度的{}（单位：元）。", co.name, co.code, year, fname),
                    2 => format!("请提取{}{}年年度报告披露的{}数值。", label(co), year, fname),
                    3 => format!("{}年年度报告中，{}的{}为多少？", year, label(co), fname),
                    4 => format!("{}在{}年的{}是多少？", label(co), year, fname),
                    _ => format!("根据{}年年报，{}的{}为多少元？", year, label(co), fname),
                };
                let ins = format!("{INSTR_BASE}直接给出数值结果，以元为单位，不保留小数。");
                Some(Task::new(ty, q, &ins, evs([rep.id.as_str()]), json!(format!("{value:.0}"))))
            } else {
                let (mname, f) = *rng.pick(RATIOS);
                let q = match rng.below(3) {
                    0 => format!("{}{}年的{}是多少？", label(co), year, mname),
                    1 => format!("{}年年度报告中，{}的{}为多少？", year, label(co), mname),
                    _ => format!("请计算{}{}年的{}。", label(co), year, mname),
                };
                let ins = format!("{INSTR_BASE}以百分数形式作答，只给出数值（单位%），保留两位小数。");
                Some(Task::new(ty, q, &ins, evs([rep.id.as_str()]), json!(format!("{:.2}", f(&rep.st)))))
            }
        }
        "multi_period_trend" => {
            let start = rng.range(i64::from(data.first_year), i64::from(data.last_year) - 2) as i32;
            let (mname, f, ratio) = if rng.chance(0.5) {
                let (m, f) = *rng.pick(AMOUNTS);
                (m, f, false)
            } else {
                let (m, f) = *rng.pick(RATIOS);
                (m, f, true)
            };
            let vals: Vec<f64> = (0..3).map(|k| f(&data.record(c, start + k).st)).collect();
            let change = |a: f64, b: f64| if ratio { b - a } else { yoy(b, a) };
            let d1 = change(vals[0], vals[1]);
            let d2 = change(vals[1], vals[2]);
            let gt = answer_keys::trend_label(d1, d2);
            let q = match rng.below(4) {
                0 => format!("{}在{}-{}年的{}趋势如何？", label(co), start, start + 2, mname),
                1 => format!("请判断{}{}-{}年的{}走势。", label(co), start, start + 2, mname),
                2 => format!("{}-{}年内，{}的{}呈什么趋势？", start, start + 2, label(co), mname),
                _ => format!("观察{}{}年至{}年年报中的{}，其变化属于哪种走势？", label(co), start, start + 2, mname),
            };
            let ins = format!(
                "{INSTR_BASE}从“持续上升、持续下降、基本不变、波动较大”中选择一个并只返回该选项；相邻两年变动不超过1%（比率类指标为1个百分点）视为不变。"
            );
            let ids: Vec<String> = (0..3).map(|k| data.record(c, start + k).id.clone()).collect();
            Some(Task::new(ty, q, &ins, evs(ids.iter().map(String::as_str)), json!(gt)))
        }
        "change_detection" => {
            let prev = data.record(c, year - 1);
            let (q, yes) = if rng.chance(0.5) {
                let k = *rng.pick(&[1, 2, 3]);
                let diff = rep.st.gross_margin() - prev.st.gross_margin();
                let q = match rng.below(3) {
                    0 => format!("{}{}年毛利率较{}年的变动幅度是否超过{}个百分点？", label(co), year, year - 1, k),
                    1 => format!("与{}年相比，{}{}年的毛利率变化是否大于{}个百分点？", year - 1, label(co), year, k),
                    _ => format!("{}{}年毛利率同比变动有没有超过{}个百分点？", label(co), year, k),
                };
                (q, diff.abs() > f64::from(k))
            } else {
                let ar = yoy(rep.st.accounts_receivable, prev.st.accounts_receivable);
                let rev = yoy(rep.st.operating_revenue, prev.st.operating_revenue);
                let q = match rng.below(3) {
                    0 => format!("{}{}年应收账款的同比增速是否高于营业收入的同比增速？", label(co), year),
                    1 => format!("{}年{}应收账款增速是否快于营业收入增速？", year, label(co)),
                    _ => format!("{}在{}年的应收账款同比增长是否超过了营业收入同比增长？", label(co), year),
                };
                (q, ar > rev)
            };
            let ins = format!("{INSTR_BASE}只回答“是”或“否”。");
            Some(Task::new(ty, q, &ins, evs([prev.id.as_str(), rep.id.as_str()]), json!(if yes { "是" } else { "否" })))
        }
        "cross_section_screen" => {
            let ind = co.industry;
            let members = data.industry_members(ind);
            if members.len() < 4 {
                return None;
            }
            let (mname, f) = *rng.pick(RATIOS);
            let picked: Vec<usize> = rng.sample_indices(members.len(), 4).into_iter().map(|k| members[k]).collect();
            let vals: Vec<f64> = picked.iter().map(|&m| f(&data.record(m, year).st)).collect();
            let best = (0..4).max_by(|&a, &b| vals[a].total_cmp(&vals[b]))?;
            if vals.iter().enumerate().any(|(k, v)| k != best && (v - vals[best]).abs() < 0.01) {
                return None;
            }
            let correct = label(&data.companies[picked[best]]);
            let wrong = (0..4).filter(|&k| k != best).map(|k| label(&data.companies[picked[k]])).collect();
            let (opts, answer) = fin::options(rng, correct, wrong, " | ");
            let ind_name = ZH_INDUSTRIES[ind].name;
            let q = match rng.below(3) {
                0 => format!("{}年，下列{}行业公司中{}最高的是哪一家？ {}", year, ind_name, mname, opts),
                1 => format!("在{}行业中，{}年以下哪家公司的{}最高？ {}", ind_name, year, mname, opts),
                _ => format!("以下{}行业公司里，{}年{}最高的是？ {}", ind_name, year, mname, opts),
            };
            let ins = format!("{INSTR_BASE}只返回一个选项字母。");
            let ids: Vec<String> = picked.iter().map(|&m| data.record(m, year).id.clone()).collect();
            Some(Task::new(ty, q, &ins, evs(ids.iter().map(String::as_str)), json!(answer)))
        }
        "ranking" => {
            let ind = co.industry;
            let members = data.industry_members(ind);
            let k = 3.min(members.len());
            let (mname, f) = *rng.pick(&AMOUNTS[..2]);
            let top = rng.chance(0.6);
            let mut ranked: Vec<(f64, usize)> = members.iter().map(|&m| (f(&data.record(m, year).st), m)).collect();
            ranked.sort_by(|a, b| if top { b.0.total_cmp(&a.0) } else { a.0.total_cmp(&b.0) });
            let items: Vec<String> = ranked[..k]
                .iter()
                .enumerate()
                .map(|(j, (v, m))| format!("{}.{}（{}）", j + 1, data.companies[*m].name, yi(*v)))
                .collect();
            let (ind_name, dir) = (ZH_INDUSTRIES[ind].name, if top { "最高" } else { "最低" });
            let q = match rng.below(3) {
                0 => format!("在{ind_name}行业中，{year}年{mname}{dir}的前{k}家公司分别是哪些？"),
                1 => format!("在{ind_name}行业中，{year}年哪些公司的{mname}{dir}？请列出前{k}名。"),
                _ => format!("请列出{year}年{ind_name}行业{mname}{dir}的{k}家公司。"),
            };
            let ins = format!("{INSTR_BASE}按顺序列出公司并注明金额（亿元，保留两位小数），回答不超过150字。");
            let ids: Vec<String> = ranked[..k].iter().map(|(_, m)| data.record(*m, year).id.clone()).collect();
            Some(Task::new(ty, q, &ins, evs(ids.iter().map(String::as_str)), json!(format!("{}。", items.join("；")))))
        }
        "screening" => {
            let ind = co.industry;
            let gap = *rng.pick(&[5.0, 10.0, 20.0]);
            let mut hits = Vec::new();
            for m in data.industry_members(ind) {
                let (a, b) = (data.record(m, year - 1), data.record(m, year));
                let ar = yoy(b.st.accounts_receivable, a.st.accounts_receivable);
                let rev = yoy(b.st.operating_revenue, a.st.operating_revenue);
                if ar - rev > gap {
                    hits.push((m, ar, rev));
                }
            }
            if hits.is_empty() || hits.len() > 5 {
                return None;
            }
            let list: Vec<String> = hits
                .iter()
                .map(|(m, ar, rev)| {
                    format!("{}（应收账款增速{:.2}%，营业收入增速{:.2}%）", data.companies[*m].name, ar, rev)
                })
                .collect();
            let ind_name = ZH_INDUSTRIES[ind].name;
            let q = match rng.below(3) {
                0 => format!(
                    "在{ind_name}行业中，{year}年哪些公司的应收账款同比增速比营业收入同比增速高出{gap:.0}个百分点以上？请结合结构化数据筛选。"
                ),
                1 => format!(
                    "{year}年，{ind_name}行业中哪些公司出现应收账款同比增速高于营业收入同比增速{gap:.0}个百分点以上的情况？"
                ),
                _ => format!(
                    "请从{ind_name}行业样本中筛选{year}年应收账款同比增速超过营业收入同比增速{gap:.0}个百分点以上的公司。"
                ),
            };
            let ins = format!("{INSTR_BASE}用一段话回答，列出公司及两项增速，不超过150字。");
            let gt = format!(
                "{}年{}行业共有{}家公司满足条件：{}。",
                year,
                ZH_INDUSTRIES[ind].name,
                hits.len(),
                list.join("；")
            );
            let mut ids = Vec::new();
            for (m, _, _) in &hits {
                ids.push(data.record(*m, year - 1).id.clone());
                ids.push(data.record(*m, year).id.clone());
            }
            Some(Task::new(ty, q, &ins, evs(ids.iter().map(String::as_str)), json!(gt)))
        }
        "mixed_numeric_text" => {
            let ins =
                format!("{INSTR_BASE}报告中有相关披露时只返回数值（单位%，保留两位小数），未披露时只返回“未披露”。");
            if rng.chance(0.75) {
                let seg = *rng.pick(&ZH_INDUSTRIES[co.industry].segments);
                let gt = match &rep.segments {
                    Some(segs) => format!("{:.2}", segs.iter().find(|s| s.name == seg)?.share),
                    None => "未披露".to_string(),
                };
                let q = match rng.below(3) {
                    0 => format!("请提取{}{}年年度报告披露的{}业务收入占营业收入的比重。", label(co), year, seg),
                    1 => format!("{}{}年年报中{}板块的收入占比是多少？", label(co), year, seg),
                    _ => format!("{}年，{}的{}产品收入在营业收入中占比多少？", year, label(co), seg),
                };
                Some(Task::new(ty, q, &ins, evs([rep.id.as_str()]), json!(gt)))
            } else {
                let q = match rng.below(2) {
                    0 => format!("{}{}年前五名客户销售额合计占年度销售总额的比例是多少？", label(co), year),
                    _ => format!("{}年年度报告中，{}前五名客户的销售占比是多少？", year, label(co)),
                };
                Some(Task::new(ty, q, &ins, evs([rep.id.as_str()]), json!(format!("{:.2}", rep.top5_customers))))
            }
        }
        "text_evidence" => {
            let ins = format!("{INSTR_BASE}只返回一个选项字母。");
            if rng.chance(0.6) {
                let absent: Vec<usize> = (0..ZH_RISKS.len()).filter(|k| !rep.risks.contains(k)).collect();
                if absent.len() < 3 {
                    return None;
                }
                let correct = ZH_RISKS[*rng.pick(&rep.risks)].0.to_string();
                let wrong = rng
                    .sample_indices(absent.len(), 3)
                    .into_iter()
                    .map(|k| ZH_RISKS[absent[k]].0.to_string())
                    .collect();
                let (opts, answer) = fin::options(rng, correct, wrong, " | ");
                let q = format!(
                    "根据{}{}年年度报告中“可能面对的风险”部分，下列哪一项是公司明确提示的风险？ {}",
                    label(co),
                    year,
                    opts
                );
                Some(Task::new(ty, q, &ins, evs([rep.id.as_str()]), json!(answer)))
            } else {
                let growth = yoy(rep.st.operating_revenue, rep.prev.as_ref()?.operating_revenue);
                let (pool, other) =
                    if growth >= 0.0 { (ZH_DRIVERS_UP, ZH_DRIVERS_DOWN) } else { (ZH_DRIVERS_DOWN, ZH_DRIVERS_UP) };
                let correct = rep.drivers[rng.below(2)].to_string();
                let mut wrong: Vec<String> =
                    pool.iter().filter(|d| !rep.drivers.contains(d)).take(1).map(|d| (*d).to_string()).collect();
                wrong.extend(rng.sample_indices(other.len(), 2).into_iter().map(|k| other[k].to_string()));
                let (opts, answer) = fin::options(rng, correct, wrong, " | ");
                let q = format!("{}{}年年报将营业收入同比变化归因于下列哪一项？ {}", label(co), year, opts);
                Some(Task::new(ty, q, &ins, evs([rep.id.as_str()]), json!(answer)))
            }
        }
        "text_summary" => {
            let prev = data.record(c, year - 1);
            let g = yoy(rep.st.operating_revenue, prev.st.operating_revenue);
            let dm = rep.st.gross_margin() - prev.st.gross_margin();
            let q = match rng.below(2) {
                0 => format!("请结合结构化数据和管理层讨论，概括{}{}年营业收入变化的主要原因。", label(co), year),
                _ => format!("{}{}年营业收入为何出现变化？请结合年报文字与财务数据说明。", label(co), year),
            };
            let ins = format!("{INSTR_BASE}用一段话回答，不超过200字。");
            let gt = format!(
                "{}年{}营业收入为{}，同比{}{:.2}%，管理层将其主要归因于{}，以及{}；毛利率为{:.2}%，较上年{}{:.2}个百分点。",
                year,
                co.name,
                yi(rep.st.operating_revenue),
                up_down(g),
                g.abs(),
                rep.drivers[0],
                rep.drivers[1],
                rep.st.gross_margin(),
                if dm >= 0.0 { "提高" } else { "下降" },
                dm.abs()
            );
            Some(Task::new(ty, q, &ins, evs([prev.id.as_str(), rep.id.as_str()]), json!(gt)))
        }
        "text_comparison" => {
            let prev = data.record(c, year - 1);
            let added: Vec<&str> =
                rep.risks.iter().filter(|k| !prev.risks.contains(k)).map(|&k| ZH_RISKS[k].0).collect();
            let dropped: Vec<&str> =
                prev.risks.iter().filter(|k| !rep.risks.contains(k)).map(|&k| ZH_RISKS[k].0).collect();
            let kept: Vec<&str> = rep.risks.iter().filter(|k| prev.risks.contains(k)).map(|&k| ZH_RISKS[k].0).collect();
            let none = |v: &[&str]| if v.is_empty() { "无".to_string() } else { v.join("、") };
            let q = match rng.below(3) {
                0 => {
                    format!("对比{}{}年与{}年年报的风险提示，哪些风险为新增、哪些不再提及？", label(co), year - 1, year)
                }
                1 => format!("请比较{}{}年与上一年年度报告中的风险披露，概括新增或删除的风险点。", label(co), year),
                _ => format!("{}{}年年报的风险因素与{}年相比有哪些变化？", label(co), year, year - 1),
            };
            let ins = format!("{INSTR_BASE}分别列出新增、不再提及和持续提示的风险，回答不超过150字。");
            let gt = format!(
                "与{}年相比，{}年年报新增提示：{}；不再提及：{}；持续提示：{}。",
                year - 1,
                year,
                none(&added),
                none(&dropped),
                none(&kept)
            );
            Some(Task::new(ty, q, &ins, evs([prev.id.as_str(), rep.id.as_str()]), json!(gt)))
        }
        "statistic" => statistic(data, year, rng),
        _ => None,
    }
}

/// Test of a company-year (current statement, previous statement).
type StatTest = Box<dyn Fn(&Statement, Option<&Statement>) -> bool>;

/// A company-population condition of a statistic task.
struct Cond {
    text: String,
    /// Needs the previous year's report too.
    two_years: bool,
    test: StatTest,
}

fn nice_threshold(v: f64) -> f64 {
    if v.abs() >= 10.0 { (v / 5.0).round() * 5.0 } else { v.round() }
}

fn conditions(data: &FinanceZh, members: &[usize], year: i32, rng: &mut Rng) -> Cond {
    let sts: Vec<&Statement> = members.iter().map(|&m| &data.record(m, year).st).collect();
    let quant = |f: &dyn Fn(&Statement) -> f64, rng: &mut Rng| {
        let mut v: Vec<f64> = sts.iter().map(|s| f(s)).collect();
        v.sort_by(f64::total_cmp);
        v[rng.below(v.len()).min(v.len() - 1)]
    };
    match rng.below(7) {
        0 => {
            let th = (quant(&|s| s.operating_revenue / 1e8, rng)).round().max(1.0);
            Cond {
                text: rng.either(format!("营业收入超过{th:.0}亿元"), format!("营业收入在{th:.0}亿元以上")),
                two_years: false,
                test: Box::new(move |s, _| s.operating_revenue > th * 1e8),
            }
        }
        1 => {
            let th = nice_threshold(quant(&|s| s.gross_margin(), rng));
            Cond {
                text: format!("毛利率{}{th:.0}%", rng.pick(&["高于", "超过"])),
                two_years: false,
                test: Box::new(move |s, _| s.gross_margin() > th),
            }
        }
        2 => {
            let th = nice_threshold(quant(&|s| s.debt_ratio(), rng));
            Cond {
                text: format!("资产负债率{}{th:.0}%", rng.pick(&["低于", "不足"])),
                two_years: false,
                test: Box::new(move |s, _| s.debt_ratio() < th),
            }
        }
        3 => Cond {
            text: "归属于上市公司股东的净利润为负".into(),
            two_years: false,
            test: Box::new(|s, _| s.parent_net_profit < 0.0),
        },
        4 => {
            let th = *rng.pick(&[0.0, 5.0, 10.0, 20.0]);
            Cond {
                text: format!("营业收入{}{th:.0}%", rng.pick(&["同比增长超过", "同比增速高于"])),
                two_years: true,
                test: Box::new(move |s, p| p.is_some_and(|p| yoy(s.operating_revenue, p.operating_revenue) > th)),
            }
        }
        5 => Cond {
            text: "经营活动产生的现金流量净额高于净利润".into(),
            two_years: false,
            test: Box::new(|s, _| s.net_operating_cash_flow > s.net_profit),
        },
        _ => {
            let th = *rng.pick(&[3.0, 5.0, 8.0]);
            Cond {
                text: format!("研发费用率{}{th:.0}%", rng.pick(&["超过", "高于"])),
                two_years: false,
                test: Box::new(move |s, _| s.rd_ratio() > th),
            }
        }
    }
}

fn statistic(data: &FinanceZh, year: i32, rng: &mut Rng) -> Option<Task> {
    let (scope, members): (String, Vec<usize>) = match rng.below(3) {
        0 => {
            let ind = rng.below(ZH_INDUSTRIES.len());
            (format!("{}行业", ZH_INDUSTRIES[ind].name), data.industry_members(ind))
        }
        1 => {
            let (ex, board, _) = *rng.pick(BOARDS);
            let m: Vec<usize> = (0..data.companies.len())
                .filter(|&c| data.companies[c].exchange == ex && data.companies[c].board == board)
                .collect();
            (format!("{}{}", ex, board), m)
        }
        _ => ("全部样本公司".to_string(), (0..data.companies.len()).collect()),
    };
    if members.is_empty() {
        return None;
    }
    let c1 = conditions(data, &members, year, rng);
    let c2 = conditions(data, &members, year, rng);
    if c1.text == c2.text {
        return None;
    }
    let two_years = c1.two_years || c2.two_years;
    let mut ids = Vec::new();
    let mut count = 0;
    for &m in &members {
        let rep = data.record(m, year);
        let prev = data.record(m, year - 1);
        let p = Some(&prev.st);
        if (c1.test)(&rep.st, p) && (c2.test)(&rep.st, p) {
            count += 1;
            if two_years {
                ids.push(prev.id.clone());
            }
            ids.push(rep.id.clone());
        }
    }
    let q = match rng.below(5) {
        0 => format!("以{}年{}年度报告为统计范围，{}且{}的上市公司共有多少家？", year, scope, c1.text, c2.text),
        1 => format!("{}年，{}中{}、同时{}的公司有几家？", year, scope, c1.text, c2.text),
        2 => format!("{}年{}{}的上市公司里，{}的公司数量是多少？", year, scope, c1.text, c2.text),
        3 => format!("以{}年{}{}的上市公司为范围，{}的有几家？", year, scope, c1.text, c2.text),
        _ => format!("统计{}在{}年年报中满足“{}”和“{}”两个条件的公司数量。", scope, year, c1.text, c2.text),
    };
    let ins = "请依据结构化财务数据和相关年度报告回答全局统计问题，只给出满足全部条件的上市公司数量（整数）。";
    Some(Task::new("statistic", q, ins, evs(ids.iter().map(String::as_str)), json!(count.to_string())))
}

fn predictive(data: &FinanceZh, ty: &'static str, rng: &mut Rng) -> Option<Task> {
    let (c, cur, next) = data.last_and_next(rng);
    let co = &data.companies[c];
    let (last, target) = (data.last_year, data.last_year + 1);
    let ids: Vec<String> = (0..5).map(|k| data.record(c, last - 4 + k).id.clone()).collect();
    let ev = evs(ids.iter().map(String::as_str));
    let cutoff = format!("只能使用截至{last}年年度报告（含）披露的信息，不得使用{target}年的实际数据。");
    let g = yoy(next.st.operating_revenue, cur.st.operating_revenue);
    match ty {
        "mixed_numeric_text" => match rng.below(3) {
            0 => {
                let letter = answer_keys::growth_option(g);
                let opts = "A. 同比增速≤-5% | B. -5%<同比增速<2% | C. 2%≤同比增速<8% | D. 同比增速≥8%";
                let q = match rng.below(3) {
                    0 => format!(
                        "以{}截至{}年的年度报告为依据，结合{}-{}年收入走势和管理层展望，判断其{}年营业收入同比增速最可能落在哪个区间。 {opts}",
                        label(co),
                        last,
                        last - 2,
                        last,
                        target
                    ),
                    1 => format!(
                        "根据{}{}年年报的经营计划和近年营业收入变化，{}年营业收入同比增速最可能处于以下哪个区间？ {opts}",
                        label(co),
                        last,
                        target
                    ),
                    _ => format!(
                        "若仅依据{}截至{}年的公开年报，其{}年营业收入增速更可能是下列哪一档？ {opts}",
                        label(co),
                        last,
                        target
                    ),
                };
                let ins = format!("请根据历史财报趋势和管理层经营展望判断最可能的区间，只返回一个选项。{cutoff}");
                Some(Task::new(ty, q, &ins, ev, json!(letter)))
            }
            1 => {
                let q = match rng.below(3) {
                    0 => format!(
                        "依据{}{}-{}年年报中的收入数据和未来发展展望，预测其{}年营业收入同比增速（%）。",
                        label(co),
                        last - 4,
                        last,
                        target
                    ),
                    1 => format!(
                        "请结合{}{}年年报的经营展望，估计该公司{}年营业收入的同比增长率。",
                        label(co),
                        last,
                        target
                    ),
                    _ => format!("{}{}年营业收入同比变化预计为多少（%）？", label(co), target),
                };
                let ins = format!("请给出预测数值，单位%，保留两位小数，只返回数值。{cutoff}");
                Some(Task::new(ty, q, &ins, ev, json!(format!("{g:.2}"))))
            }
            _ => {
                let up = next.st.parent_net_profit > cur.st.parent_net_profit;
                let q = match rng.below(3) {
                    0 => format!(
                        "结合{}截至{}年的盈利趋势和管理层展望，判断其{}年归属于上市公司股东的净利润是否会高于{}年。",
                        label(co),
                        last,
                        target,
                        last
                    ),
                    1 => format!(
                        "{}{}年归属于上市公司股东的净利润会比{}年增长吗？请依据{}年年报判断。",
                        label(co),
                        target,
                        last,
                        last
                    ),
                    _ => format!(
                        "根据{}截至{}年的年报，预计其下一年度归属于上市公司股东的净利润是否上升？",
                        label(co),
                        last
                    ),
                };
                let ins = format!("请只回答“是”或“否”。{cutoff}");
                Some(Task::new(ty, q, &ins, ev, json!(if up { "是" } else { "否" })))
            }
        },
        "multi_period_trend" => {
            let d = next.st.expense_ratio() - cur.st.expense_ratio();
            let letter = if d > 1.0 {
                "A"
            } else if d < -1.0 {
                "C"
            } else {
                "B"
            };
            let opts = "A. 上升超过1个百分点 | B. 变动在1个百分点以内 | C. 下降超过1个百分点";
            let q = match rng.below(2) {
                0 => format!(
                    "参考{}{}-{}年销售费用率、管理费用率、研发费用率和财务费用率的变化，判断{}年期间费用率（四项费用合计占营业收入比重）较{}年将如何变化。 {opts}",
                    label(co),
                    last - 4,
                    last,
                    target,
                    last
                ),
                _ => format!(
                    "结合{}{}年年报的管理层展望，{}年期间费用率相对{}年最可能怎样变动？ {opts}",
                    label(co),
                    last,
                    target,
                    last
                ),
            };
            let ins = format!("请根据历史费用结构和管理层展望作答，只返回一个选项。{cutoff}");
            Some(Task::new(ty, q, &ins, ev, json!(letter)))
        }
        "text_summary" => {
            let (lo, hi, _, _) = cur.outlook?;
            let growths: Vec<String> = (0..3)
                .map(|k| {
                    let a = data.record(c, last - 3 + k);
                    let b = data.record(c, last - 2 + k);
                    format!("{:.2}%", yoy(b.st.operating_revenue, a.st.operating_revenue))
                })
                .collect();
            let q = match rng.below(2) {
                0 => format!(
                    "结合{}截至{}年的年报文字信号和收入趋势，概括对其{}年营业收入方向的判断。",
                    label(co),
                    last,
                    target
                ),
                _ => format!("{}的年报信息显示其{}年营业收入可能如何变化？请说明依据。", label(co), target),
            };
            let ins = format!("请用一段话回答，不超过150字。{cutoff}");
            let gt = format!(
                "{}{}年营业收入同比{}{:.2}%，落在{}年年报展望的{:.0}%至{:.0}%区间内；判断依据是{}-{}年营业收入同比增速分别为{}，以及管理层对{}年的经营展望。",
                co.name,
                target,
                up_down(g),
                g.abs(),
                last,
                lo,
                hi,
                last - 2,
                last,
                growths.join("、"),
                target
            );
            Some(Task::new(ty, q, &ins, ev, json!(gt)))
        }
        _ => None,
    }
}

/// Generate corpus and tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let data = build(ctx);
    let rows = write(ctx, &data, corpus)?;
    let tasks = tasks(&data, ctx)?;
    Ok(DomainOutput { files: vec![(Route::FinanceZhReports, rows)], tasks })
}
