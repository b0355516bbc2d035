//! The accounting glossary and the arithmetic of a metric: a column of the figures table or a
//! ratio of column sums (gross margin, 资产负债率, 期间费用率 …) defined once, in textbook terms,
//! so every plan computes a named ratio and a growth the same way.

use anser_manifest::Language;

use super::data::Report;

/// A metric: a column or a ratio of column sums (in percent).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Metric {
    Col(String),
    Ratio { num: Vec<String>, den: Vec<String> },
}

impl Metric {
    pub(super) fn value(&self, r: &Report) -> Option<f64> {
        let sum = |cols: &[String]| -> Option<f64> { cols.iter().map(|c| r.vals.get(c).copied()).sum() };
        match self {
            Metric::Col(c) => r.vals.get(c).copied(),
            Metric::Ratio { num, den } => {
                let d = sum(den)?;
                (d != 0.0).then_some(sum(num)? / d * 100.0)
            }
        }
    }

    pub(super) fn is_ratio(&self) -> bool {
        matches!(self, Metric::Ratio { .. })
    }
}

/// The accounting glossary: ratio names and their definitions over the figures' columns.
pub(super) fn ratio_glossary(lang: Language) -> Vec<(&'static str, Metric)> {
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

pub(super) fn growth(cur: f64, prev: f64) -> Option<f64> {
    (prev != 0.0).then(|| (cur - prev) / prev.abs() * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

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
