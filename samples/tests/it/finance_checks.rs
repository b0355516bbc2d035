//! Finance ground truth recomputed with hand-written SQL against the generated databases.

use std::collections::BTreeSet;

use anser_samples::answer_keys::{growth_option, trend_label};
use serde_json::Value;

use crate::common::{by_type, db, number_after, s, tasks};

/// Chinese field names of the questions → SQL expressions over `financial_fields` (written here,
/// independently of the generator).
const ZH_FIELDS: &[(&str, &str)] = &[
    ("经营活动产生的现金流量净额", "net_operating_cash_flow"),
    ("归属于上市公司股东的净利润", "parent_net_profit"),
    ("营业收入", "operating_revenue"),
    ("营业成本", "operating_cost"),
    ("销售费用", "selling_expense"),
    ("管理费用", "management_expense"),
    ("研发费用率", "research_expense * 100.0 / operating_revenue"),
    ("研发费用", "research_expense"),
    ("货币资金", "monetary_funds"),
    ("应收账款", "accounts_receivable"),
    ("存货", "inventory"),
    ("资产总计", "total_assets"),
    ("负债合计", "total_liabilities"),
    ("毛利率", "gross_profit * 100.0 / operating_revenue"),
    ("资产负债率", "total_liabilities * 100.0 / total_assets"),
];

fn zh_code(q: &str) -> String {
    let chars: Vec<char> = q.chars().collect();
    (0..chars.len().saturating_sub(5))
        .map(|k| chars[k..k + 6].iter().collect::<String>())
        .find(|w| w.chars().all(|c| c.is_ascii_digit()) && !w.starts_with("20"))
        .expect("stock code in query")
}

/// The first year a Chinese question names ("2021年"), whatever the sentence around it.
fn zh_year(q: &str) -> Option<i64> {
    let chars: Vec<char> = q.chars().collect();
    chars.windows(5).find_map(|w| {
        let digits: String = w[..4].iter().collect();
        (w[4] == '年' && digits.starts_with("20") && digits.chars().all(|c| c.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    })
}

/// The percentages a text states, in order ("5%至9%" → [5, 9]).
fn percentages(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let mut num = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() || c == '.' || (c == '-' && num.is_empty()) {
            num.push(c);
        } else {
            if c == '%' {
                if let Ok(v) = num.parse() {
                    out.push(v);
                }
            }
            num.clear();
            if c == '-' {
                num.push(c);
            }
        }
    }
    out
}

fn zh_field(q: &str) -> (&'static str, &'static str) {
    // Longest name first: 研发费用率 before 研发费用.
    let mut fields: Vec<&(&str, &str)> = ZH_FIELDS.iter().filter(|(n, _)| q.contains(n)).collect();
    fields.sort_by_key(|(n, _)| std::cmp::Reverse(n.chars().count()));
    *fields.first().copied().unwrap_or_else(|| panic!("no known field in {q}"))
}

#[test]
fn zh_numeric_facts_match_the_structured_rows() {
    let conn = db("finance/zh/finance_reports.sqlite");
    let tasks = by_type("finance/zh/descriptive.json").remove("numeric_fact").expect("numeric_fact tasks");
    for t in &tasks {
        let q = s(&t["query"]);
        let code = zh_code(q);
        let year = zh_year(q).expect("year");
        let (_, expr) = zh_field(q);
        let report_id = format!("{code}_{year}-12-31_annual");
        let v: f64 = conn
            .query_row(&format!("SELECT {expr} FROM financial_fields WHERE report_id = ?1"), [&report_id], |r| r.get(0))
            .unwrap_or_else(|e| panic!("{report_id}: {e}"));
        let gt: f64 = s(&t["ground_truth"]).parse().expect("numeric ground truth");
        assert!((v - gt).abs() < 0.006, "{q}: SQL {v} vs ground truth {gt}");
        assert_eq!(t["evidence"][0]["id"], report_id);
    }
}

#[test]
fn zh_trends_follow_the_stated_rule() {
    let conn = db("finance/zh/finance_reports.sqlite");
    for t in by_type("finance/zh/descriptive.json").remove("multi_period_trend").expect("tasks") {
        let q = s(&t["query"]);
        let code = zh_code(q);
        let (name, expr) = zh_field(q);
        let ratio = name.ends_with('率');
        let ids: Vec<String> =
            t["evidence"].as_array().expect("list").iter().map(|e| s(&e["id"]).to_string()).collect();
        assert!(ids.iter().all(|id| id.starts_with(&code)));
        let vals: Vec<f64> = ids
            .iter()
            .map(|id| {
                conn.query_row(&format!("SELECT {expr} FROM financial_fields WHERE report_id = ?1"), [id], |r| r.get(0))
                    .expect("row")
            })
            .collect();
        let ch = |a: f64, b: f64| if ratio { b - a } else { (b - a) / a.abs() * 100.0 };
        let (d1, d2) = (ch(vals[0], vals[1]), ch(vals[1], vals[2]));
        assert_eq!(s(&t["ground_truth"]), trend_label(d1, d2), "{q}");
    }
}

#[test]
fn zh_statistics_count_distinct_companies_of_retrievable_reports() {
    let conn = db("finance/zh/finance_reports.sqlite");
    for t in by_type("finance/zh/descriptive.json").remove("statistic").expect("tasks") {
        let ids: Vec<&str> = t["evidence"].as_array().expect("list").iter().map(|e| s(&e["id"])).collect();
        let companies: BTreeSet<&str> = ids.iter().map(|id| &id[..6]).collect();
        assert_eq!(s(&t["ground_truth"]), companies.len().to_string());
        for id in ids {
            let split: String =
                conn.query_row("SELECT split FROM reports WHERE report_id = ?1", [id], |r| r.get(0)).expect("report");
            assert_eq!(split, "retrieval");
        }
    }
}

#[test]
fn no_gold_evidence_points_to_a_ground_truth_report() {
    let zh = db("finance/zh/finance_reports.sqlite");
    let en = db("finance/en/finance_reports.sqlite");
    for file in ["finance/zh/descriptive.json", "finance/zh/predictive.json"] {
        for t in tasks(file) {
            for e in t["evidence"].as_array().expect("list") {
                let split: String = zh
                    .query_row("SELECT split FROM reports WHERE report_id = ?1", [s(&e["id"])], |r| r.get(0))
                    .expect("report exists");
                assert_eq!(split, "retrieval", "{}", t["id"]);
            }
        }
    }
    for file in ["finance/en/descriptive.json", "finance/en/predictive.json"] {
        for t in tasks(file) {
            for e in t["evidence"].as_array().expect("list") {
                let n: i64 = match e.get("accession") {
                    Some(acc) => en
                        .query_row(
                            "SELECT count(*) FROM filings WHERE accession = ?1 AND split = 'retrieval'",
                            [s(acc)],
                            |r| r.get(0),
                        )
                        .expect("query"),
                    None => en
                        .query_row(
                            "SELECT count(*) FROM companies WHERE cik = ?1",
                            [s(&e["cik"]).parse::<i64>().expect("cik")],
                            |r| r.get(0),
                        )
                        .expect("query"),
                };
                assert_eq!(n, 1, "{}: {e}", t["id"]);
            }
        }
    }
}

#[test]
fn zh_forecasts_match_the_ground_truth_year_and_the_outlook() {
    let conn = db("finance/zh/finance_reports.sqlite");
    let mut checked = 0;
    for t in tasks("finance/zh/predictive.json") {
        let q = s(&t["query"]);
        let code = zh_code(q);
        let row = |split: &str, expr: &str| -> f64 {
            conn.query_row(
                &format!(
                    "SELECT {expr} FROM financial_fields f JOIN reports r USING (report_id)
                     WHERE r.stock_code = ?1 AND r.split = ?2 ORDER BY r.report_year DESC LIMIT 1"
                ),
                [&code, split],
                |r| r.get(0),
            )
            .expect("row")
        };
        let g = (row("ground_truth", "operating_revenue") - row("retrieval", "operating_revenue"))
            / row("retrieval", "operating_revenue")
            * 100.0;
        let gt = s(&t["ground_truth"]);
        if q.contains("同比增速≤-5%") {
            assert_eq!(gt, growth_option(g), "{q}");
        } else if s(&t["instruction"]).contains("只返回数值") {
            assert_eq!(gt, format!("{g:.2}"), "{q}");
        } else if gt == "是" || gt == "否" {
            let up = row("ground_truth", "parent_net_profit") > row("retrieval", "parent_net_profit");
            assert_eq!(gt, if up { "是" } else { "否" }, "{q}");
        } else {
            continue;
        }
        // The retrievable outlook states a range that contains the realised growth.
        let outlook: String = conn
            .query_row(
                "SELECT chunk_text FROM report_chunks c JOIN reports r USING (report_id)
                 WHERE r.stock_code = ?1 AND r.split = 'retrieval' AND c.section_title LIKE '%展望%'
                 ORDER BY r.report_year DESC LIMIT 1",
                [&code],
                |r| r.get(0),
            )
            .expect("outlook chunk");
        let stated = percentages(&outlook);
        let (lo, hi) = (stated[0], stated[1]);
        assert!(lo <= g && g <= hi, "{outlook} vs {g}");
        checked += 1;
    }
    assert!(checked >= 1, "no revenue forecast task in the sample");
}

/// Independent SQL for the English statistic conditions, by a phrase of the question (the first
/// phrase found wins).
const EN_CONDITIONS: &[(&str, &str)] = &[
    ("even stronger operating cash flow", "f.net_operating_cash_flow > f.operating_profit"),
    ("grew total revenue", "f.total_revenue > p.total_revenue"),
    ("net loss", "f.net_profit < 0"),
    ("above 60% of total assets", "f.total_liabilities > 0.6 * f.total_assets"),
    ("improved gross margin", "f.gross_profit / f.operating_revenue > p.gross_profit / p.operating_revenue"),
];

fn en_condition(q: &str) -> &'static str {
    EN_CONDITIONS
        .iter()
        .find(|(phrase, _)| q.contains(phrase))
        .map(|(_, sql)| *sql)
        .unwrap_or_else(|| panic!("unknown condition in {q}"))
}

/// The company population named in a question: SQL conditions on `companies c` and their values.
fn en_scope(q: &str) -> (String, Vec<String>) {
    let mut conds = Vec::new();
    let mut args = Vec::new();
    for region in ["Northeast", "Midwest", "South", "West", "International"] {
        if q.contains(&format!("in the {region} region")) {
            conds.push("c.region_bucket = ?");
            args.push(region.to_string());
        }
    }
    for size in ["Small", "Mid", "Large"] {
        if q.contains(&format!("{size}-sized")) {
            conds.push("c.size_bucket = ?");
            args.push(size.to_string());
        }
    }
    for bucket in ["Manufacturing", "Services", "Finance_RealEstate", "Transport_Utilities", "Wholesale", "Retail"] {
        if q.contains(bucket) {
            conds.push("c.industry_bucket = ?");
            args.push(bucket.to_string());
        }
    }
    assert!(!conds.is_empty(), "no population in {q}");
    // Numbered placeholders ?2, ?3 … (?1 is the fiscal year).
    let sql: Vec<String> = conds.iter().enumerate().map(|(k, c)| c.replace('?', &format!("?{}", k + 2))).collect();
    (sql.join(" AND "), args)
}

fn with_year(fy: i64, args: &[String]) -> Vec<rusqlite::types::Value> {
    std::iter::once(rusqlite::types::Value::Integer(fy))
        .chain(args.iter().map(|a| rusqlite::types::Value::Text(a.clone())))
        .collect()
}

#[test]
fn en_statistics_recount_with_sql() {
    let conn = db("finance/en/finance_reports.sqlite");
    for t in by_type("finance/en/descriptive.json").remove("statistic").expect("tasks") {
        let q = s(&t["query"]);
        let fy = number_after(q, "FY").expect("fiscal year") as i64;
        let (scope, args) = en_scope(q);
        let sql = format!(
            "SELECT c.cik FROM companies c
             JOIN filings fl ON fl.cik = c.cik AND fl.fiscal_year = ?1 AND fl.split = 'retrieval'
             JOIN financial_facts f ON f.accession = fl.accession
             JOIN filings pl ON pl.cik = c.cik AND pl.fiscal_year = ?1 - 1
             JOIN financial_facts p ON p.accession = pl.accession
             WHERE {scope} AND {} ORDER BY c.cik",
            en_condition(q)
        );
        let mut stmt = conn.prepare(&sql).expect("prepare");
        let ciks: BTreeSet<String> = stmt
            .query_map(rusqlite::params_from_iter(with_year(fy, &args)), |r| r.get::<_, i64>(0))
            .expect("query")
            .map(|c| c.expect("row").to_string())
            .collect();
        let gold: BTreeSet<String> =
            t["evidence"].as_array().expect("list").iter().map(|e| s(&e["cik"]).to_string()).collect();
        assert_eq!(ciks, gold, "{q}");
        assert_eq!(t["ground_truth"], Value::from(ciks.len()));
    }
}

#[test]
fn en_cross_section_means_recompute_with_sql() {
    let conn = db("finance/en/finance_reports.sqlite");
    for t in by_type("finance/en/descriptive.json").remove("cross_section_screen").expect("tasks") {
        let q = s(&t["query"]);
        let num = if q.contains("operating margin") { "operating_profit" } else { "net_profit" };
        let accs: Vec<&str> = t["evidence"].as_array().expect("list").iter().map(|e| s(&e["accession"])).collect();
        let placeholders = vec!["?"; accs.len()].join(",");
        let sql = format!(
            "SELECT avg({num} * 100.0 / total_revenue) FROM financial_facts WHERE accession IN ({placeholders})"
        );
        let mean: f64 = conn.query_row(&sql, rusqlite::params_from_iter(accs.iter()), |r| r.get(0)).expect("avg");
        let gt: f64 = s(&t["ground_truth"]).parse().expect("number");
        assert!((mean - gt).abs() < 0.006, "{q}: {mean} vs {gt}");
        // The evidence is the whole eligible population of the scope.
        let fy = number_after(q, "FY").expect("fy") as i64;
        let (scope, args) = en_scope(q);
        let n: i64 = conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM companies c JOIN filings fl ON fl.cik = c.cik AND fl.fiscal_year = ?1
                     JOIN financial_facts f ON f.accession = fl.accession WHERE {scope} AND f.total_revenue <> 0"
                ),
                rusqlite::params_from_iter(with_year(fy, &args)),
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(n as usize, accs.len(), "{q}");
    }
}

#[test]
fn finauditing_expected_values_recompute_from_facts_and_relationships() {
    let conn = db("finance/en/audit_rules.sqlite");
    let tasks: Vec<Value> =
        tasks("finance/en/prescriptive.json").into_iter().filter(|t| t["type"] == "FinAuditing").collect();
    assert!(!tasks.is_empty());
    for t in tasks {
        let fact_id = s(&t["evidence"][0]["FACT_id"]);
        let (filing, concept, value, dims): (String, String, String, String) = conn
            .query_row(
                "SELECT filing_id, concept, value, dimensions FROM filing_facts WHERE fact_id = ?1",
                [fact_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .expect("fact");
        assert_eq!(dims, "{}");
        assert!(s(&t["query"]).contains(&concept));
        let rules: Vec<String> = conn
            .prepare("SELECT rule_id FROM dqc_rules WHERE target_concepts LIKE '%\"' || ?1 || '\"%'")
            .expect("prepare")
            .query_map([&concept], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect();
        assert_eq!(rules.len(), 1, "{concept} is targeted by exactly one rule: {rules:?}");
        let fact = |c: &str| -> f64 {
            conn.query_row(
                "SELECT CAST(value AS REAL) FROM filing_facts WHERE filing_id = ?1 AND concept = ?2 AND dimensions = '{}'",
                [&filing, c],
                |r| r.get(0),
            )
            .expect("fact value")
        };
        let expected = match rules[0].as_str() {
            "DQC_US_0015" => value.parse::<f64>().expect("value").abs(),
            "DQC_US_0004" => fact("us-gaap:Liabilities") + fact("us-gaap:StockholdersEquity"),
            "DQC_US_0126" => conn
                .query_row(
                    "SELECT sum(r.weight * CAST(f.value AS REAL)) FROM filing_relationships r
                     JOIN filing_facts f ON f.filing_id = r.filing_id AND f.concept = r.child_concept AND f.dimensions = '{}'
                     WHERE r.filing_id = ?1 AND r.parent_concept = ?2",
                    [&filing, &concept],
                    |r| r.get(0),
                )
                .expect("sum"),
            other => panic!("unexpected rule {other}"),
        };
        assert_eq!(t["ground_truth"]["applied_rule"], rules[0].as_str());
        assert_eq!(t["ground_truth"]["expected_value"].as_f64(), Some(expected), "{}", t["id"]);
        assert_ne!(value.parse::<f64>().expect("value"), expected, "the audited fact is wrong");
    }
}
