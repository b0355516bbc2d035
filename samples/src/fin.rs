//! Internally consistent financial statements for one company over consecutive years, shared by
//! the Chinese (A-share annual reports) and English (10-K) finance corpora.
//!
//! Identities that hold exactly for every generated statement (amounts are whole currency
//! units): gross profit = operating revenue − operating cost; total assets = current +
//! non-current assets; total liabilities = current + non-current liabilities; equity = assets −
//! liabilities; net profit = total profit − income tax; net operating cash flow = inflow −
//! outflow; cash increase = operating + investing + financing flows; ending cash = previous
//! ending cash + increase. The unit tests check them.

use crate::rng::Rng;

/// One reporting period's statement. Field names are the corpus column names.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub total_revenue: f64,
    pub operating_revenue: f64,
    pub operating_cost: f64,
    pub gross_profit: f64,
    pub selling_expense: f64,
    pub management_expense: f64,
    pub research_expense: f64,
    pub financial_expense: f64,
    pub operating_profit: f64,
    pub total_profit: f64,
    pub income_tax_expense: f64,
    pub net_profit: f64,
    pub parent_net_profit: f64,
    pub basic_eps: f64,
    pub monetary_funds: f64,
    pub accounts_receivable: f64,
    pub inventory: f64,
    pub total_current_assets: f64,
    pub fixed_assets: f64,
    pub intangible_assets: f64,
    pub goodwill: f64,
    pub total_noncurrent_assets: f64,
    pub total_assets: f64,
    pub short_term_borrowing: f64,
    pub accounts_payable: f64,
    pub contract_liabilities: f64,
    pub total_current_liabilities: f64,
    pub long_term_borrowing: f64,
    pub bonds_payable: f64,
    pub total_noncurrent_liabilities: f64,
    pub total_liabilities: f64,
    pub total_equity: f64,
    pub operating_cash_inflow: f64,
    pub operating_cash_outflow: f64,
    pub net_operating_cash_flow: f64,
    pub net_investing_cash_flow: f64,
    pub net_financing_cash_flow: f64,
    pub cash_equivalent_increase: f64,
    pub ending_cash_equivalent: f64,
}

impl Statement {
    /// Every field as (column name, value), in the corpus column order.
    pub fn columns(&self) -> [(&'static str, f64); 39] {
        [
            ("total_revenue", self.total_revenue),
            ("operating_revenue", self.operating_revenue),
            ("operating_cost", self.operating_cost),
            ("gross_profit", self.gross_profit),
            ("selling_expense", self.selling_expense),
            ("management_expense", self.management_expense),
            ("research_expense", self.research_expense),
            ("financial_expense", self.financial_expense),
            ("operating_profit", self.operating_profit),
            ("total_profit", self.total_profit),
            ("income_tax_expense", self.income_tax_expense),
            ("net_profit", self.net_profit),
            ("parent_net_profit", self.parent_net_profit),
            ("basic_eps", self.basic_eps),
            ("monetary_funds", self.monetary_funds),
            ("accounts_receivable", self.accounts_receivable),
            ("inventory", self.inventory),
            ("total_current_assets", self.total_current_assets),
            ("fixed_assets", self.fixed_assets),
            ("intangible_assets", self.intangible_assets),
            ("goodwill", self.goodwill),
            ("total_noncurrent_assets", self.total_noncurrent_assets),
            ("total_assets", self.total_assets),
            ("short_term_borrowing", self.short_term_borrowing),
            ("accounts_payable", self.accounts_payable),
            ("contract_liabilities", self.contract_liabilities),
            ("total_current_liabilities", self.total_current_liabilities),
            ("long_term_borrowing", self.long_term_borrowing),
            ("bonds_payable", self.bonds_payable),
            ("total_noncurrent_liabilities", self.total_noncurrent_liabilities),
            ("total_liabilities", self.total_liabilities),
            ("total_equity", self.total_equity),
            ("operating_cash_inflow", self.operating_cash_inflow),
            ("operating_cash_outflow", self.operating_cash_outflow),
            ("net_operating_cash_flow", self.net_operating_cash_flow),
            ("net_investing_cash_flow", self.net_investing_cash_flow),
            ("net_financing_cash_flow", self.net_financing_cash_flow),
            ("cash_equivalent_increase", self.cash_equivalent_increase),
            ("ending_cash_equivalent", self.ending_cash_equivalent),
        ]
    }

    /// A field by column name.
    pub fn get(&self, column: &str) -> Option<f64> {
        self.columns().into_iter().find(|(c, _)| *c == column).map(|(_, v)| v)
    }

    /// Gross margin in percent.
    pub fn gross_margin(&self) -> f64 {
        pct(self.gross_profit, self.operating_revenue)
    }

    /// Operating margin in percent (operating profit / total revenue).
    pub fn operating_margin(&self) -> f64 {
        pct(self.operating_profit, self.total_revenue)
    }

    /// Net margin in percent (net profit / total revenue).
    pub fn net_margin(&self) -> f64 {
        pct(self.net_profit, self.total_revenue)
    }

    /// Liabilities over assets in percent.
    pub fn debt_ratio(&self) -> f64 {
        pct(self.total_liabilities, self.total_assets)
    }

    /// Research expense over operating revenue in percent.
    pub fn rd_ratio(&self) -> f64 {
        pct(self.research_expense, self.operating_revenue)
    }

    /// Selling + management + research + financial expense over operating revenue, percent.
    pub fn expense_ratio(&self) -> f64 {
        pct(
            self.selling_expense + self.management_expense + self.research_expense + self.financial_expense,
            self.operating_revenue,
        )
    }
}

/// `part / whole * 100` (0 when `whole` is 0).
pub fn pct(part: f64, whole: f64) -> f64 {
    if whole == 0.0 { 0.0 } else { part / whole * 100.0 }
}

/// `x` with `decimals` decimals and thousands separators, as filings print amounts:
/// `8,749,279,719.00`, `-1,234.50`.
pub fn grouped(x: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let mut out = String::with_capacity(s.len() + int.len() / 3 + 1);
    for (k, c) in int.chars().enumerate() {
        if k > 0 && (int.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    // "-0.00" would print a sign the rounded amount does not have.
    if x < 0.0 && out.chars().any(|c| c.is_ascii_digit() && c != '0') { format!("-{out}") } else { out }
}

/// Year-over-year change in percent.
pub fn yoy(current: f64, previous: f64) -> f64 {
    if previous == 0.0 { 0.0 } else { (current - previous) / previous.abs() * 100.0 }
}

/// Growth regime of a company (mean yearly revenue growth, volatility).
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub base_revenue: f64,
    pub growth_mean: f64,
    pub growth_sd: f64,
    pub gross_margin: f64,
    pub selling_ratio: f64,
    pub management_ratio: f64,
    pub research_ratio: f64,
    pub asset_turnover: f64,
    pub leverage: f64,
    pub has_goodwill: bool,
    pub shares: f64,
    /// Receivable days; a rising path makes receivables outgrow revenue.
    pub receivable_days: f64,
    pub receivable_drift: f64,
}

impl Profile {
    /// A random profile; `scale` is the typical revenue in currency units.
    pub fn random(rng: &mut Rng, scale: f64) -> Profile {
        let regimes = [-0.08, -0.02, 0.03, 0.08, 0.15, 0.25];
        Profile {
            base_revenue: scale * (0.05 + 3.0 * rng.unit() * rng.unit()),
            growth_mean: *rng.pick(&regimes),
            growth_sd: rng.uniform(0.01, 0.12),
            gross_margin: rng.uniform(0.08, 0.65),
            selling_ratio: rng.uniform(0.01, 0.12),
            management_ratio: rng.uniform(0.02, 0.09),
            research_ratio: if rng.chance(0.8) { rng.uniform(0.005, 0.12) } else { 0.0 },
            asset_turnover: rng.uniform(0.35, 1.6),
            leverage: rng.uniform(0.2, 0.75),
            has_goodwill: rng.chance(0.55),
            shares: (rng.uniform(2.0, 60.0) * 1e8).round(),
            receivable_days: rng.uniform(20.0, 150.0),
            receivable_drift: if rng.chance(0.2) { rng.uniform(0.1, 0.45) } else { rng.uniform(-0.05, 0.05) },
        }
    }
}

/// Statements for `years` consecutive periods; also returns each period's revenue growth.
pub fn statements(rng: &mut Rng, p: &Profile, years: usize) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::with_capacity(years);
    let mut revenue = p.base_revenue.round().max(1e6);
    let mut margin = p.gross_margin;
    let mut ar_days = p.receivable_days;
    let mut ending_cash = (revenue * rng.uniform(0.05, 0.3)).round();
    for year in 0..years {
        if year > 0 {
            let g = (p.growth_mean + p.growth_sd * rng.normal()).clamp(-0.6, 1.2);
            revenue = (revenue * (1.0 + g)).round().max(1e6);
            margin = (margin + 0.02 * rng.normal()).clamp(0.03, 0.85);
            ar_days = (ar_days * (1.0 + p.receivable_drift + 0.03 * rng.normal())).clamp(5.0, 400.0);
        }
        let operating_revenue = revenue;
        let total_revenue = if rng.chance(0.3) {
            operating_revenue + (operating_revenue * rng.uniform(0.0, 0.01)).round()
        } else {
            operating_revenue
        };
        let operating_cost = (operating_revenue * (1.0 - margin)).round();
        let gross_profit = operating_revenue - operating_cost;
        let jitter = |rng: &mut Rng, x: f64| (x * rng.uniform(0.9, 1.1)).round();
        let selling_expense = jitter(rng, operating_revenue * p.selling_ratio);
        let management_expense = jitter(rng, operating_revenue * p.management_ratio);
        let research_expense = jitter(rng, operating_revenue * p.research_ratio);
        let financial_expense = (operating_revenue * rng.uniform(-0.005, 0.02)).round();
        let other = (operating_revenue * rng.uniform(-0.02, 0.015)).round();
        let operating_profit =
            gross_profit - selling_expense - management_expense - research_expense - financial_expense + other;
        let total_profit = operating_profit + (operating_revenue * rng.uniform(-0.003, 0.003)).round();
        let income_tax_expense =
            if total_profit > 0.0 { (total_profit * rng.uniform(0.12, 0.25)).round() } else { 0.0 };
        let net_profit = total_profit - income_tax_expense;
        let parent_net_profit = (net_profit * rng.uniform(0.85, 1.0)).round();
        let basic_eps = (parent_net_profit / p.shares * 100.0).round() / 100.0;

        let net_operating_cash_flow = (net_profit * rng.uniform(0.5, 1.7) + operating_revenue * 0.03).round();
        let operating_cash_inflow = (operating_revenue * rng.uniform(1.0, 1.15)).round();
        let operating_cash_outflow = operating_cash_inflow - net_operating_cash_flow;
        let net_investing_cash_flow = -(operating_revenue * rng.uniform(0.02, 0.12)).round();
        let mut net_financing_cash_flow = (operating_revenue * rng.uniform(-0.08, 0.06)).round();
        let floor = (operating_revenue * 0.03).round();
        let provisional = ending_cash + net_operating_cash_flow + net_investing_cash_flow + net_financing_cash_flow;
        if provisional < floor {
            net_financing_cash_flow += floor - provisional;
        }
        let cash_equivalent_increase = net_operating_cash_flow + net_investing_cash_flow + net_financing_cash_flow;
        ending_cash += cash_equivalent_increase;
        let ending_cash_equivalent = ending_cash;

        let total_assets_target = operating_revenue / p.asset_turnover;
        let monetary_funds = ending_cash_equivalent + (operating_revenue * rng.uniform(0.0, 0.02)).round();
        let accounts_receivable = (operating_revenue * ar_days / 365.0).round();
        let inventory = (operating_cost * rng.uniform(20.0, 120.0) / 365.0).round();
        let other_current = (total_assets_target * rng.uniform(0.02, 0.08)).round();
        let total_current_assets = monetary_funds + accounts_receivable + inventory + other_current;
        let fixed_assets = (total_assets_target * rng.uniform(0.15, 0.45)).round();
        let intangible_assets = (total_assets_target * rng.uniform(0.02, 0.1)).round();
        let goodwill = if p.has_goodwill { (total_assets_target * rng.uniform(0.01, 0.25)).round() } else { 0.0 };
        let other_noncurrent = (total_assets_target * rng.uniform(0.02, 0.1)).round();
        let total_noncurrent_assets = fixed_assets + intangible_assets + goodwill + other_noncurrent;
        let total_assets = total_current_assets + total_noncurrent_assets;

        let liabilities_target = total_assets * (p.leverage + 0.03 * rng.normal()).clamp(0.05, 0.95);
        let short_term_borrowing = (liabilities_target * rng.uniform(0.05, 0.25)).round();
        let accounts_payable = (operating_cost * rng.uniform(30.0, 110.0) / 365.0).round();
        let contract_liabilities = (operating_revenue * rng.uniform(0.0, 0.06)).round();
        let other_current_liabilities = (liabilities_target * rng.uniform(0.03, 0.12)).round();
        let total_current_liabilities =
            short_term_borrowing + accounts_payable + contract_liabilities + other_current_liabilities;
        let long_term_borrowing = (liabilities_target * rng.uniform(0.05, 0.3)).round();
        let bonds_payable = if rng.chance(0.3) { (liabilities_target * rng.uniform(0.02, 0.15)).round() } else { 0.0 };
        let other_noncurrent_liabilities = (liabilities_target * rng.uniform(0.01, 0.06)).round();
        let total_noncurrent_liabilities = long_term_borrowing + bonds_payable + other_noncurrent_liabilities;
        let total_liabilities = total_current_liabilities + total_noncurrent_liabilities;
        let total_equity = total_assets - total_liabilities;

        out.push(Statement {
            total_revenue,
            operating_revenue,
            operating_cost,
            gross_profit,
            selling_expense,
            management_expense,
            research_expense,
            financial_expense,
            operating_profit,
            total_profit,
            income_tax_expense,
            net_profit,
            parent_net_profit,
            basic_eps,
            monetary_funds,
            accounts_receivable,
            inventory,
            total_current_assets,
            fixed_assets,
            intangible_assets,
            goodwill,
            total_noncurrent_assets,
            total_assets,
            short_term_borrowing,
            accounts_payable,
            contract_liabilities,
            total_current_liabilities,
            long_term_borrowing,
            bonds_payable,
            total_noncurrent_liabilities,
            total_liabilities,
            total_equity,
            operating_cash_inflow,
            operating_cash_outflow,
            net_operating_cash_flow,
            net_investing_cash_flow,
            net_financing_cash_flow,
            cash_equivalent_increase,
            ending_cash_equivalent,
        });
    }
    out
}

/// Shuffle `correct` among (up to three of) `wrong` into options A–D joined by `sep`; returns
/// (options text, answer letter).
pub fn options(rng: &mut Rng, correct: String, wrong: Vec<String>, sep: &str) -> (String, String) {
    let mut all: Vec<(bool, String)> = vec![(true, correct)];
    all.extend(wrong.into_iter().take(3).map(|w| (false, w)));
    rng.shuffle(&mut all);
    let mut answer = String::new();
    let parts: Vec<String> = all
        .iter()
        .zip(["A", "B", "C", "D"])
        .map(|((ok, text), l)| {
            if *ok {
                answer = l.to_string();
            }
            format!("{l}. {text}")
        })
        .collect();
    (parts.join(sep), answer)
}

/// Companies and one record per company and year, company-major with years ascending: the
/// retrievable years `first_year..=last_year`, then the ground-truth year after them.
#[derive(Debug)]
pub struct Panel<C, R> {
    pub companies: Vec<C>,
    pub records: Vec<R>,
    pub first_year: i32,
    pub last_year: i32,
}

impl<C, R> Panel<C, R> {
    /// Records per company: the retrievable years and the ground-truth year.
    fn years(&self) -> usize {
        (self.last_year - self.first_year + 2) as usize
    }

    /// The record of company `c` for `year` (a retrievable year or the ground-truth one).
    pub fn record(&self, c: usize, year: i32) -> &R {
        &self.records[c * self.years() + (year - self.first_year) as usize]
    }

    /// A company drawn at random with its records of the last retrievable year and of the
    /// ground-truth year after it: (company, last-year record, ground-truth record).
    pub fn last_and_next(&self, rng: &mut Rng) -> (usize, &R, &R) {
        let c = rng.below(self.companies.len());
        (c, self.record(c, self.last_year), self.record(c, self.last_year + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounting_identities_hold_exactly() {
        let mut rng = Rng::new(11);
        for _ in 0..50 {
            let p = Profile::random(&mut rng, 5e9);
            let s = statements(&mut rng, &p, 6);
            let mut prev_end: Option<f64> = None;
            for st in &s {
                assert_eq!(st.gross_profit, st.operating_revenue - st.operating_cost);
                assert_eq!(st.total_assets, st.total_current_assets + st.total_noncurrent_assets);
                assert_eq!(st.total_liabilities, st.total_current_liabilities + st.total_noncurrent_liabilities);
                assert_eq!(st.total_equity, st.total_assets - st.total_liabilities);
                assert_eq!(st.net_profit, st.total_profit - st.income_tax_expense);
                assert_eq!(st.net_operating_cash_flow, st.operating_cash_inflow - st.operating_cash_outflow);
                assert_eq!(
                    st.cash_equivalent_increase,
                    st.net_operating_cash_flow + st.net_investing_cash_flow + st.net_financing_cash_flow
                );
                if let Some(prev) = prev_end {
                    assert_eq!(st.ending_cash_equivalent, prev + st.cash_equivalent_increase);
                }
                assert!(st.ending_cash_equivalent > 0.0);
                prev_end = Some(st.ending_cash_equivalent);
            }
        }
    }

    #[test]
    fn amounts_print_with_thousands_separators() {
        assert_eq!(grouped(8_749_279_719.0, 2), "8,749,279,719.00");
        assert_eq!(grouped(-1234.5, 2), "-1,234.50");
        assert_eq!(grouped(999.0, 0), "999");
        assert_eq!(grouped(-0.001, 2), "0.00");
        assert_eq!(grouped(123_456.789, 1), "123,456.8");
    }

    #[test]
    fn ratios_are_hand_checkable() {
        assert_eq!(pct(25.0, 200.0), 12.5);
        assert!((yoy(110.0, 100.0) - 10.0).abs() < 1e-12);
        assert_eq!(yoy(90.0, -100.0), 190.0);
        assert_eq!(pct(1.0, 0.0), 0.0);
    }
}
