//! The `/in_force` filter for the Chinese regulatory rules (`finance_zh_rules`).
//!
//! The rules corpus holds several versions of the same rulebook (e.g. 上海证券交易所股票上市规则
//! in its 2022, 2023, 2024, 2025 and 2026 revisions) whose articles are near-identical text, so
//! a lexical or dense ranking spreads its top ranks over the versions of one article. A
//! compliance question is about one company at one time, and only the rulebook in force for
//! that company's board at that time applies. The filter keeps a hit when, as far as the query
//! says:
//!
//! - **version**: the query names years (`2026年…`); with `Y` the latest of them, a versioned
//!   rulebook (`…（2025年4月修订）`) is kept only if it is the latest revision of its rulebook
//!   dated in or before `Y` (rulebooks without a dated revision, e.g. `（现行监管口径）`, are
//!   always kept). A query without a year asks about the rules in force now: only the latest
//!   revision of each rulebook is kept.
//! - **board**: the query names a six-digit A-share code. 688/689 → the STAR Market, whose
//!   rulebooks carry 科创板 in their name; 600/601/603/605 → the Shanghai main board; 000–003,
//!   300/301 → Shenzhen. An exchange rulebook (its name starts with an exchange) is kept only for
//!   its own exchange, and a listing rulebook (股票上市规则) only for its own board; rules that are
//!   not exchange rulebooks (laws, CSRC measures) are always kept.
//!
//! This is query understanding from the corpus's own law names plus two public conventions (the
//! revision date in a rulebook's title, the exchange/board of a stock code prefix); it reads no
//! task's gold. Hits without a `regulatory_rule` evidence id pass through, so on other routes
//! the filter changes nothing.
//!
//! The rule is decided per unit (its law name) and query (its applicability), so for each query
//! [`RuleUnits::in_force`] turns it into the set of admitted unit ordinals ([`UnitSet`]), which
//! the BM25 scorer checks before scoring, like the boundary's date filter.

use std::collections::BTreeMap;

use anser_indexer::UnitSet;
use serde_json::Value;

/// Evidence kind the filter looks at.
pub(crate) const RULE_KIND: &str = "regulatory_rule";

/// What the query says about applicability.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applicability {
    /// Latest calendar year the query names.
    pub year: Option<u32>,
    /// Board of the first six-digit stock code in the query.
    pub board: Option<Board>,
}

/// A-share boards that have their own rulebooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    ShanghaiMain,
    ShanghaiStar,
    Shenzhen,
}

impl Board {
    fn of_code(code: &str) -> Option<Board> {
        match &code[..3] {
            "688" | "689" => Some(Board::ShanghaiStar),
            "600" | "601" | "603" | "605" => Some(Board::ShanghaiMain),
            "000" | "001" | "002" | "003" | "300" | "301" => Some(Board::Shenzhen),
            _ => None,
        }
    }
}

impl Applicability {
    /// Read the year and board from a query.
    pub fn of_query(query: &str) -> Applicability {
        let chars: Vec<char> = query.chars().collect();
        let mut year = None;
        let mut board = None;
        let mut i = 0;
        while i < chars.len() {
            if !chars[i].is_ascii_digit() {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            if digits.len() == 4 && chars.get(i) == Some(&'年') {
                if let Ok(y) = digits.parse::<u32>() {
                    year = year.max(Some(y));
                }
            } else if digits.len() == 6 && board.is_none() {
                board = Board::of_code(&digits);
            }
        }
        Applicability { year, board }
    }
}

/// A rulebook name split into its base name and the year of its dated revision.
fn split_version(law: &str) -> (&str, Option<u32>) {
    let Some(open) = law.rfind('（') else { return (law, None) };
    if !law.ends_with('）') {
        return (law, None);
    }
    let inside = &law[open + '（'.len_utf8()..law.len() - '）'.len_utf8()];
    let year = inside.get(..4).filter(|y| y.bytes().all(|b| b.is_ascii_digit())).and_then(|y| y.parse().ok());
    let year = year.filter(|_| inside[4..].starts_with('年'));
    (&law[..open], year)
}

/// The latest dated revision of every rulebook, per year bound.
#[derive(Debug, Clone, Default)]
pub struct RuleVersions {
    /// Base name → revision years present in the corpus, ascending.
    years: BTreeMap<String, Vec<u32>>,
}

impl RuleVersions {
    /// Collect the revisions of the rulebooks named by `laws` (every rule's law name).
    pub fn from_laws<'a>(laws: impl IntoIterator<Item = &'a str>) -> RuleVersions {
        let mut years: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for law in laws {
            if let (base, Some(y)) = split_version(law) {
                years.entry(base.to_string()).or_default().push(y);
            }
        }
        for v in years.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        RuleVersions { years }
    }

    /// Whether a rule of rulebook `law` applies to a question with `applicability`.
    pub fn applies(&self, law: &str, applicability: &Applicability) -> bool {
        let (base, version) = split_version(law);
        if let Some(version) = version {
            // Without a year the question is about the rules in force now: the latest revision.
            let year = applicability.year.unwrap_or(u32::MAX);
            let in_force = self.years.get(base).and_then(|ys| ys.iter().rev().find(|&&y| y <= year).copied());
            match in_force {
                Some(v) if v != version => return false,
                None => return false,
                Some(_) => {}
            }
        }
        if let Some(board) = applicability.board {
            let exchange = if base.starts_with("上海证券交易所") {
                Some(board != Board::Shenzhen)
            } else if base.starts_with("深圳证券交易所") {
                Some(board == Board::Shenzhen)
            } else {
                None
            };
            if exchange == Some(false) {
                return false;
            }
            if exchange.is_some() && base.contains("股票上市规则") {
                let star = base.contains("科创板");
                if star != (board == Board::ShanghaiStar) {
                    return false;
                }
            }
        }
        true
    }
}

/// The regulatory rules of a route: their rulebook revisions and which units each law holds.
#[derive(Debug, Clone, Default)]
pub struct RuleUnits {
    versions: RuleVersions,
    /// Law name → ordinals of the units naming it.
    laws: BTreeMap<String, Vec<u32>>,
    units: u32,
}

impl RuleUnits {
    /// From every unit's law name (`None`: not a regulatory rule), by ordinal `0..units`.
    pub fn from_units(units: u32, laws: impl IntoIterator<Item = (u32, String)>) -> RuleUnits {
        let mut by_law: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (ord, law) in laws {
            by_law.entry(law).or_default().push(ord);
        }
        let versions = RuleVersions::from_laws(by_law.keys().map(String::as_str));
        RuleUnits { versions, laws: by_law, units }
    }

    /// Whether the route has regulatory rules at all.
    pub fn is_empty(&self) -> bool {
        self.laws.is_empty()
    }

    /// The units admitted for a question with `applicability`: every unit that is not a
    /// regulatory rule, and the rules of the rulebooks that apply.
    pub fn in_force(&self, applicability: &Applicability) -> UnitSet {
        let mut out = vec![true; self.units as usize];
        for (law, ords) in &self.laws {
            if !self.versions.applies(law, applicability) {
                for &o in ords {
                    if let Some(slot) = out.get_mut(o as usize) {
                        *slot = false;
                    }
                }
            }
        }
        UnitSet::from_fn(self.units, |o| out[o as usize])
    }
}

/// The rulebook name of a hit's evidence, when it is a regulatory rule.
pub fn rule_law(evidence: &BTreeMap<String, Value>) -> Option<&str> {
    evidence.get(RULE_KIND)?.get("law")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: &str = "上海证券交易所股票上市规则";
    const STAR: &str = "上海证券交易所科创板股票上市规则";

    fn versions() -> RuleVersions {
        RuleVersions::from_laws([
            "上海证券交易所股票上市规则（2024年4月修订）",
            "上海证券交易所股票上市规则（2025年4月修订）",
            "上海证券交易所股票上市规则（2026年4月修订）",
            "上海证券交易所科创板股票上市规则（2025年4月修订）",
            "中华人民共和国证券法（2019年修订）",
            "上市公司募集资金监管规则（现行监管口径）",
        ])
    }

    #[test]
    fn reads_year_and_board_from_the_query() {
        let a = Applicability::of_query("结合南京化纤（600889）《公司2026年半年度业绩预告更正公告(2026-048)》…2025年");
        assert_eq!(a, Applicability { year: Some(2026), board: Some(Board::ShanghaiMain) });
        let a = Applicability::of_query("中微公司（688012）回购");
        assert_eq!(a, Applicability { year: None, board: Some(Board::ShanghaiStar) });
        // A bare number that is neither a year (no 年) nor a six-digit code says nothing.
        assert_eq!(Applicability::of_query("回答请控制在220字以内，代码 1234567"), Applicability::default());
    }

    #[test]
    fn splits_dated_revisions() {
        assert_eq!(split_version("上海证券交易所股票上市规则（2026年4月修订）"), (MAIN, Some(2026)));
        assert_eq!(split_version("中华人民共和国证券法（2019年修订）"), ("中华人民共和国证券法", Some(2019)));
        assert_eq!(split_version("上市公司募集资金监管规则（现行监管口径）"), ("上市公司募集资金监管规则", None));
        assert_eq!(split_version("无括号"), ("无括号", None));
    }

    #[test]
    fn keeps_the_revision_in_force_for_the_board() {
        let v = versions();
        let main_2025 = Applicability { year: Some(2025), board: Some(Board::ShanghaiMain) };
        assert!(v.applies(&format!("{MAIN}（2025年4月修订）"), &main_2025));
        assert!(!v.applies(&format!("{MAIN}（2026年4月修订）"), &main_2025), "not yet in force");
        assert!(!v.applies(&format!("{MAIN}（2024年4月修订）"), &main_2025), "superseded");
        assert!(!v.applies(&format!("{STAR}（2025年4月修订）"), &main_2025), "other board");
        assert!(v.applies("中华人民共和国证券法（2019年修订）", &main_2025), "laws apply to every board");
        assert!(v.applies("上市公司募集资金监管规则（现行监管口径）", &main_2025), "undated");
        // Before the first revision in the corpus there is no version in force.
        let early = Applicability { year: Some(2023), board: None };
        assert!(!v.applies(&format!("{MAIN}（2024年4月修订）"), &early));
        let star = Applicability { year: Some(2030), board: Some(Board::ShanghaiStar) };
        assert!(v.applies(&format!("{STAR}（2025年4月修订）"), &star));
        assert!(!v.applies(&format!("{MAIN}（2026年4月修订）"), &star));
        let shenzhen = Applicability { year: None, board: Some(Board::Shenzhen) };
        assert!(!v.applies(&format!("{MAIN}（2026年4月修订）"), &shenzhen), "another exchange");
        // No year: the latest revision only.
        assert!(v.applies(&format!("{MAIN}（2026年4月修订）"), &Applicability::default()));
        assert!(!v.applies(&format!("{MAIN}（2025年4月修订）"), &Applicability::default()));
        assert!(v.applies(&format!("{STAR}（2025年4月修订）"), &Applicability::default()));
    }

    #[test]
    fn unit_set_keeps_non_rules_and_rules_in_force() {
        let laws = [(0, format!("{MAIN}（2025年4月修订）")), (2, format!("{MAIN}（2026年4月修订）"))];
        let rules = RuleUnits::from_units(4, laws);
        let main_2025 = Applicability { year: Some(2025), board: Some(Board::ShanghaiMain) };
        let set = rules.in_force(&main_2025);
        assert_eq!((0..4).map(|o| set.contains(o)).collect::<Vec<_>>(), vec![true, true, false, true]);
        let now = rules.in_force(&Applicability::default());
        assert_eq!((0..4).map(|o| now.contains(o)).collect::<Vec<_>>(), vec![false, true, true, true]);
    }
}
