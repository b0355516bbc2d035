//! Sample sizes. `small` is for tests and the demo (every group, at least ten tasks per group, a
//! few seconds, a few MB); `medium` is for benchmarks (indexing and query speed at a realistic
//! scale: ≥ 20,000 cases per legal language, ≥ 100,000 report chunks, ≥ 10,000 articles).

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// Named sample size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    Small,
    Medium,
}

impl Size {
    /// Lower-case name as on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Medium => "medium",
        }
    }

    /// The counts behind this size.
    pub fn scale(self) -> Scale {
        match self {
            Size::Small => Scale::SMALL,
            Size::Medium => Scale::MEDIUM,
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "small" => Ok(Size::Small),
            "medium" => Ok(Size::Medium),
            other => Err(format!("unknown sample size {other:?} (expected small or medium)")),
        }
    }
}

/// How much of everything a size generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    /// Chinese listed companies.
    pub zh_companies: usize,
    /// First and last annual report year that is retrievable; the year after `zh_last_year` is
    /// written with `split = 'ground_truth'` (the realised outcome of the predictive tasks).
    pub zh_first_year: i32,
    pub zh_last_year: i32,
    /// SEC filers and their retrievable 10-K fiscal years (FY after the last is ground truth).
    pub en_companies: usize,
    pub en_first_fy: i32,
    pub en_last_fy: i32,
    /// XBRL filings in the audit corpus.
    pub audit_filings: usize,
    /// 12 CFR 217 paragraphs beyond the ones the RegBench tasks cite.
    pub cfr_extra_paragraphs: usize,
    /// Chinese regulatory rules beyond the ones the prescriptive tasks cite.
    pub zh_rule_extra: usize,
    /// Chinese court decisions.
    pub zh_cases: usize,
    /// Chinese statute provisions beyond the ones the prescriptive tasks cite.
    pub statute_extra: usize,
    /// English court cases.
    pub en_cases: usize,
    /// English precedent documents.
    pub precedents: usize,
    /// Science review topics and articles per topic.
    pub science_topics: usize,
    pub articles_per_topic: usize,
    /// Tasks per task type, and the minimum per group.
    pub tasks_per_type: usize,
    pub min_tasks_per_group: usize,
}

impl Scale {
    /// Tests and the demo.
    pub const SMALL: Scale = Scale {
        zh_companies: 48,
        zh_first_year: 2019,
        zh_last_year: 2024,
        en_companies: 48,
        en_first_fy: 2019,
        en_last_fy: 2023,
        audit_filings: 24,
        cfr_extra_paragraphs: 120,
        zh_rule_extra: 40,
        zh_cases: 1200,
        statute_extra: 300,
        en_cases: 1200,
        precedents: 80,
        science_topics: 24,
        articles_per_topic: 18,
        tasks_per_type: 2,
        min_tasks_per_group: 10,
    };

    /// Benchmarks.
    pub const MEDIUM: Scale = Scale {
        zh_companies: 1500,
        zh_first_year: 2016,
        zh_last_year: 2024,
        en_companies: 2000,
        en_first_fy: 2017,
        en_last_fy: 2023,
        audit_filings: 400,
        cfr_extra_paragraphs: 3000,
        zh_rule_extra: 180,
        zh_cases: 20_000,
        statute_extra: 20_000,
        en_cases: 20_000,
        precedents: 5000,
        science_topics: 500,
        articles_per_topic: 21,
        tasks_per_type: 6,
        min_tasks_per_group: 20,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medium_meets_the_benchmark_floor() {
        let m = Scale::MEDIUM;
        assert!(m.zh_cases >= 20_000 && m.en_cases >= 20_000);
        assert!(m.science_topics * m.articles_per_topic >= 10_000);
        // Report chunks are counted on the generated medium sample (tests/it/medium.rs).
        assert_eq!("medium".parse::<Size>(), Ok(Size::Medium));
        assert!("large".parse::<Size>().is_err());
    }
}
