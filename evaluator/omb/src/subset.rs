//! The ten language × domain subsets and their two report categories, exactly as EvalScope's
//! adapter maps them (exact, case-sensitive match on the stripped language and first topic).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Report category of a subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Category {
    /// `cn` records (sorted first, as pandas sorts the category keys).
    #[serde(rename = "CN")]
    Cn,
    /// `global` records.
    Global,
}

impl Category {
    /// Both categories, in report order.
    pub const ALL: [Category; 2] = [Category::Cn, Category::Global];

    /// `CN` or `Global`.
    pub fn name(self) -> &'static str {
        match self {
            Category::Cn => "CN",
            Category::Global => "Global",
        }
    }
}

/// One of the ten subsets, in EvalScope's `SUBSET_LIST` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subset {
    GlobalEconomicsAndFinance,
    GlobalHealthcareAndMedicine,
    GlobalIndustry,
    GlobalLaw,
    GlobalNaturalSciences,
    CnEconomicsAndFinance,
    CnHealthcareAndMedicine,
    CnIndustry,
    CnLaw,
    CnNaturalSciences,
}

/// (language, first topic) → subset; two spellings map to global economics.
const PAIRS: [(&str, &str, Subset); 11] = [
    ("global", "Economics and Finance", Subset::GlobalEconomicsAndFinance),
    ("global", "Economics & Finance", Subset::GlobalEconomicsAndFinance),
    ("global", "Healthcare and Medicine", Subset::GlobalHealthcareAndMedicine),
    ("global", "Industry", Subset::GlobalIndustry),
    ("global", "Law", Subset::GlobalLaw),
    ("global", "Natural Sciences", Subset::GlobalNaturalSciences),
    ("cn", "经济金融", Subset::CnEconomicsAndFinance),
    ("cn", "医疗健康", Subset::CnHealthcareAndMedicine),
    ("cn", "工业", Subset::CnIndustry),
    ("cn", "法律", Subset::CnLaw),
    ("cn", "自然科学", Subset::CnNaturalSciences),
];

impl Subset {
    /// All ten, in `SUBSET_LIST` order.
    pub const ALL: [Subset; 10] = [
        Subset::GlobalEconomicsAndFinance,
        Subset::GlobalHealthcareAndMedicine,
        Subset::GlobalIndustry,
        Subset::GlobalLaw,
        Subset::GlobalNaturalSciences,
        Subset::CnEconomicsAndFinance,
        Subset::CnHealthcareAndMedicine,
        Subset::CnIndustry,
        Subset::CnLaw,
        Subset::CnNaturalSciences,
    ];

    /// The subset for an already stripped language and first topic, if the pair is known.
    pub fn from_pair(language: &str, domain: &str) -> Option<Subset> {
        PAIRS.iter().find(|(l, d, _)| *l == language && *d == domain).map(|(_, _, s)| *s)
    }

    /// The subset key, e.g. `cn_law`.
    pub fn key(self) -> &'static str {
        match self {
            Subset::GlobalEconomicsAndFinance => "global_economics_and_finance",
            Subset::GlobalHealthcareAndMedicine => "global_healthcare_and_medicine",
            Subset::GlobalIndustry => "global_industry",
            Subset::GlobalLaw => "global_law",
            Subset::GlobalNaturalSciences => "global_natural_sciences",
            Subset::CnEconomicsAndFinance => "cn_economics_and_finance",
            Subset::CnHealthcareAndMedicine => "cn_healthcare_and_medicine",
            Subset::CnIndustry => "cn_industry",
            Subset::CnLaw => "cn_law",
            Subset::CnNaturalSciences => "cn_natural_sciences",
        }
    }

    /// `CN` for `cn_*` subsets, `Global` otherwise.
    pub fn category(self) -> Category {
        if self.key().starts_with("cn_") { Category::Cn } else { Category::Global }
    }
}

impl fmt::Display for Subset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_is_exact_and_case_sensitive() {
        assert_eq!(Subset::from_pair("global", "Economics & Finance"), Some(Subset::GlobalEconomicsAndFinance));
        assert_eq!(Subset::from_pair("cn", "法律"), Some(Subset::CnLaw));
        assert_eq!(Subset::from_pair("Global", "Law"), None);
        assert_eq!(Subset::from_pair("global", "law"), None);
        assert_eq!(Subset::from_pair("cn", "Law"), None);
        assert_eq!(Subset::from_pair("global", "法律"), None);
        let keys: Vec<&str> = Subset::ALL.iter().map(|s| s.key()).collect();
        assert_eq!(keys.len(), 10);
        assert_eq!(Subset::ALL.iter().filter(|s| s.category() == Category::Cn).count(), 5);
        assert_eq!(serde_json::to_string(&Subset::CnLaw).ok().as_deref(), Some("\"cn_law\""));
        assert_eq!(serde_json::to_string(&Category::Cn).ok().as_deref(), Some("\"CN\""));
    }
}
