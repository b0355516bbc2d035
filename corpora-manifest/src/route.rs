//! The ten corpus routes. Each task reads exactly one of them; index folders, CLI flags and
//! traces use these names.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One corpus route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Route {
    ScienceArticles,
    FinanceZhReports,
    FinanceZhRules,
    FinanceEnReports,
    FinanceEnAudit,
    FinanceEnCapitalRules,
    LegalZhCases,
    LegalZhStatutes,
    LegalEnCases,
    LegalEnPrecedents,
}

impl Route {
    /// All ten routes in canonical order.
    pub const ALL: [Route; 10] = [
        Route::ScienceArticles,
        Route::FinanceZhReports,
        Route::FinanceZhRules,
        Route::FinanceEnReports,
        Route::FinanceEnAudit,
        Route::FinanceEnCapitalRules,
        Route::LegalZhCases,
        Route::LegalZhStatutes,
        Route::LegalEnCases,
        Route::LegalEnPrecedents,
    ];

    /// The route's name (`finance_en_capital_rules`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Route::ScienceArticles => "science_articles",
            Route::FinanceZhReports => "finance_zh_reports",
            Route::FinanceZhRules => "finance_zh_rules",
            Route::FinanceEnReports => "finance_en_reports",
            Route::FinanceEnAudit => "finance_en_audit",
            Route::FinanceEnCapitalRules => "finance_en_capital_rules",
            Route::LegalZhCases => "legal_zh_cases",
            Route::LegalZhStatutes => "legal_zh_statutes",
            Route::LegalEnCases => "legal_en_cases",
            Route::LegalEnPrecedents => "legal_en_precedents",
        }
    }

    /// Parse a comma-separated list (`--routes a,b`), rejecting unknown names and duplicates.
    pub fn parse_list(s: &str) -> Result<Vec<Route>, String> {
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let route: Route = part.parse()?;
            if !out.contains(&route) {
                out.push(route);
            }
        }
        if out.is_empty() {
            return Err("no route named (expected e.g. --routes legal_zh_cases,science_articles)".into());
        }
        Ok(out)
    }
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Route {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Route::ALL.into_iter().find(|r| r.as_str() == s).ok_or_else(|| {
            let names: Vec<_> = Route::ALL.iter().map(|r| r.as_str()).collect();
            format!("unknown route {s:?} (expected one of: {})", names.join(", "))
        })
    }
}

impl Serialize for Route {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Route {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
