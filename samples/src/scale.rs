//! Sample sizes. `small` is for tests and the demo (every group, at least ten tasks per group, a
//! few seconds, a few MB); `medium` is for benchmarks (indexing and query speed at a realistic
//! scale: ≥ 20,000 cases per legal language, ≥ 100,000 report chunks, ≥ 10,000 articles);
//! `release` is the size of the real ANSER release (the corpus card's row counts and the
//! release's 2,235 tasks with their per-group, per-type counts), generated only by benchmarks and
//! `anser sample`, never by tests, optionally scaled down by a fraction ([`Scale::fraction`]).

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

/// Named sample size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    Small,
    Medium,
    Release,
}

impl Size {
    /// Lower-case name as on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Release => "release",
        }
    }

    /// The counts behind this size.
    pub fn scale(self) -> Scale {
        match self {
            Size::Small => Scale::SMALL,
            Size::Medium => Scale::MEDIUM,
            Size::Release => Scale::RELEASE,
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
            "release" => Ok(Size::Release),
            other => Err(format!("unknown sample size {other:?} (expected small, medium or release)")),
        }
    }
}

/// How much of everything a size generates.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// Release-size text and tasks: report text at the official chunking's length, science
    /// articles at the real sample's lengths, SQLite written in transactions of
    /// [`crate::db::RELEASE_COMMIT_ROWS`] rows, and tasks per type from [`RELEASE_TASKS`] times
    /// this fraction. `None` for small and medium, whose bytes never change.
    pub release: Option<f64>,
    /// Science articles written in all (the last topic is cut short); `None`: every topic whole.
    pub science_articles: Option<usize>,
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
        release: None,
        science_articles: None,
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
        release: None,
        science_articles: None,
    };

    /// The real release (the ANSER card's row counts). Reports per company and filings per
    /// filer are whole years, so 14 report years × 2,001 companies give 28,014 reports (card:
    /// 27,089) and 21 fiscal years × 1,000 filers 21,000 filings (card: 21,220). The rule
    /// collections are the cited rows plus extras up to the card's totals (216 Chinese rules,
    /// 3,329 CFR paragraphs, 55,348 statute provisions).
    pub const RELEASE: Scale = Scale {
        zh_companies: 2001,
        zh_first_year: 2012,
        zh_last_year: 2024,
        en_companies: 1000,
        en_first_fy: 2004,
        en_last_fy: 2023,
        audit_filings: 226,
        cfr_extra_paragraphs: 3329 - CFR_CITED,
        zh_rule_extra: 216 - ZH_RULES_CITED,
        zh_cases: 18_423,
        statute_extra: 55_348 - STATUTES_CITED,
        en_cases: 12_708,
        precedents: 5000,
        science_topics: 140_585_usize.div_ceil(21),
        articles_per_topic: 21,
        tasks_per_type: 1,
        min_tasks_per_group: 1,
        release: Some(1.0),
        science_articles: Some(140_585),
    };

    /// This scale with every count multiplied by `fraction` (in (0, 1]), at least 1 where a
    /// count must be positive. Years are not scaled (they are the panel's length, not a count).
    pub fn fraction(self, fraction: f64) -> Scale {
        if fraction >= 1.0 {
            return self;
        }
        let f = |n: usize| ((n as f64 * fraction).round() as usize).max(1);
        let science_articles = self.science_articles.map(|n| f(n).max(MIN_SCIENCE_TOPICS * self.articles_per_topic));
        Scale {
            zh_companies: f(self.zh_companies).max(MIN_COMPANIES),
            en_companies: f(self.en_companies).max(MIN_COMPANIES),
            audit_filings: f(self.audit_filings),
            cfr_extra_paragraphs: f(self.cfr_extra_paragraphs),
            zh_rule_extra: f(self.zh_rule_extra),
            zh_cases: f(self.zh_cases).max(MIN_CASES),
            statute_extra: f(self.statute_extra),
            en_cases: f(self.en_cases).max(MIN_CASES),
            precedents: f(self.precedents),
            science_topics: match science_articles {
                // Whole topics up to the article count (the last one cut short).
                Some(n) => n.div_ceil(self.articles_per_topic),
                None => f(self.science_topics).max(MIN_SCIENCE_TOPICS),
            },
            release: self.release.map(|r| r * fraction),
            science_articles,
            ..self
        }
    }
}

/// Rows of 12 CFR 217, Chinese rules and statutes that the prescriptive tasks cite (written
/// before the extras; the card's totals minus these are the extras).
const CFR_CITED: usize = 18;
const ZH_RULES_CITED: usize = 24;
const STATUTES_CITED: usize = 12;

/// Floors of a scaled-down release: enough companies for every industry and board population
/// of the statistic tasks, enough cases for the case-law task types, and one topic of every
/// science kind.
const MIN_COMPANIES: usize = 48;
const MIN_CASES: usize = 1200;
const MIN_SCIENCE_TOPICS: usize = 12;

/// Tasks per group and type in the real release (`../shared/anser/query`: 2,235 tasks), in the
/// order each type first appears in its file. `null` stands for the groups whose tasks have no
/// type. A test checks these against the release files when they are present.
pub const RELEASE_TASKS: &[(&str, &[(&str, usize)])] = &[
    (
        "finance_en_descriptive",
        &[
            ("cross_section_screen", 24),
            ("numeric_fact", 28),
            ("change_detection", 3),
            ("text_evidence", 60),
            ("text_summary", 19),
            ("mixed_numeric_text", 38),
            ("screening", 8),
            ("ranking", 16),
            ("text_comparison", 4),
            ("statistic", 100),
        ],
    ),
    ("finance_en_predictive", &[("multi_period_trend", 80), ("mixed_numeric_text", 120)]),
    ("finance_en_prescriptive", &[("RegBench", 200), ("FinAuditing", 100)]),
    (
        "finance_zh_descriptive",
        &[
            ("numeric_fact", 14),
            ("text_evidence", 76),
            ("mixed_numeric_text", 38),
            ("multi_period_trend", 6),
            ("change_detection", 4),
            ("cross_section_screen", 16),
            ("text_summary", 32),
            ("ranking", 3),
            ("screening", 9),
            ("text_comparison", 2),
            ("statistic", 100),
        ],
    ),
    ("finance_zh_predictive", &[("mixed_numeric_text", 164), ("multi_period_trend", 32), ("text_summary", 4)]),
    ("finance_zh_prescriptive", &[("null", 100)]),
    ("legal_en_descriptive", &[("sql", 75), ("semantic", 75), ("reasoning", 50)]),
    ("legal_en_predictive", &[("structured", 65), ("semantic", 20), ("multi_step", 10)]),
    ("legal_en_prescriptive", &[("null", 57)]),
    ("legal_zh_descriptive", &[("sql", 75), ("semantic", 75), ("reasoning", 50)]),
    ("legal_zh_predictive", &[("structured", 41), ("semantic", 59)]),
    ("legal_zh_prescriptive", &[("刑事", 39), ("民事", 49), ("行政", 12)]),
    ("science_en_descriptive", &[("main_factors", 8), ("dominant_category", 9), ("study_pattern", 3)]),
    (
        "science_en_predictive",
        &[("effect_direction", 35), ("association_direction", 25), ("diagnostic_performance", 3)],
    ),
];

/// Tasks of `ty` in `group` at a release scale of `fraction` (at least 1 when the release has
/// any); 0 when the release has none.
pub fn release_task_count(group: &str, ty: &str, fraction: f64) -> usize {
    RELEASE_TASKS
        .iter()
        .filter(|(g, _)| *g == group)
        .flat_map(|(_, types)| types.iter())
        .filter(|(t, _)| *t == ty)
        .map(|(_, n)| ((*n as f64 * fraction).round() as usize).max(1))
        .sum()
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
