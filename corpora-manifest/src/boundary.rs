//! Information boundaries: the cutoff a task states ("use only information available by …",
//! "An analyst can access only …'s financial records through FY2023", "截至2024年的年度报告为依据",
//! "Publication period: up to 2023-12-20"), parsed strictly, and the two forms every consumer
//! checks it in: the SQL predicate of the SQL views, and the numeric [`DateWindow`] the indexes
//! filter units with (the BM25 statistics' per-document dates, the per-unit date array beside
//! the vectors) and
//! `open` checks a JSONL record with. Both read a record's dates the way the manifest's
//! `dated` entry of its route says ([`crate::Dating`]), so the SQL views, the retrievers and
//! `open` cannot disagree about which records a task may see.
//!
//! This module lives in anser-manifest so that every layer — the indexer and retrievers
//! (`anser retrieve`, the single-stage methods), the agent's tools and the offline planner —
//! derives a task's boundary from the same code.
//!
//! Why strict: a forecast scored against FY2024 actuals is worthless if the agent could read the
//! FY2024 filing. So a cutoff is only taken from an explicit statement, never inferred from a
//! year range in passing; a task that states two different cutoffs is an error (the caller must
//! decide), not a guess. Tasks that state none get no boundary.
//!
//! Phrasings recognised (from the release's finance, science and legal predictive tasks):
//!
//! | phrasing | cutoff |
//! |---|---|
//! | `research date immediately after the FY2023 filing`, `research cutoff at the FY2023 filing`, `At the FY2023 reporting date` | fiscal year ≤ 2023 |
//! | `can access only …'s financial records through FY2023`, `Using only …'s … data for FY2020-FY2023` | fiscal year ≤ 2023 |
//! | `Do not … cite FY2024 disclosure as forecast evidence` | fiscal year ≤ 2023 |
//! | `information available in filings made through the FY2023 10-K` (the generated sample) | fiscal year ≤ 2023 |
//! | `use only information available by|as of|on or before <date or FY>` | date / fiscal year |
//! | `截至2024年的年度报告/年报/财报/财务…/资产…/价格…/披露/数据/信息` | fiscal year ≤ 2024 |
//! | `不使用2025年数据` | fiscal year ≤ 2024 |
//! | `仅/只 + 依据/根据/使用/利用/基于 …` followed (same clause) by years | fiscal year ≤ the latest year named |
//! | `Publication period: up to 2023-12-20` / `from 2016-10-01 through 2023-02-28` | publication date window |
//!
//! Only tasks of a predictive split or of the science domain are read (RegBench's "As of
//! January 1, 2023" is a fact of the scenario, not a boundary).

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::{DatedTable, Dating, Domain, Error, Manifest, PublicTask, Result, Route, Split};

/// The cutoff itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cutoff {
    /// Records of fiscal (report, decision, publication) years up to and including `last`.
    FiscalYear { last: i32 },
    /// Records dated in `[from, through]` (ISO `YYYY-MM-DD`, both ends inclusive).
    Dates {
        #[serde(skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        through: String,
    },
}

/// A record's dates as filters compare them: its (fiscal, report, decision, publication) year
/// and the days (`YYYYMMDD` numbers) its date can denote — one day for `2019-05-12`, the whole
/// month for `2019-05`, the whole year for `2019`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub struct RecordDate {
    pub year: Option<i32>,
    /// `(first, last)` day the date can denote.
    pub days: Option<(u32, u32)>,
}

impl RecordDate {
    /// Parse date text (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, optionally followed by a time or by
    /// `年…`): its year, and its days. Text that does not start with a year is undated.
    pub fn parse(text: &str) -> RecordDate {
        let days = day_range(text);
        RecordDate { year: days.map(|(first, _)| (first / 10_000) as i32), days }
    }

    /// The dates of a SQLite record: the year column expression and the date text expression
    /// of the manifest's `dated` entry (either may be NULL).
    pub fn of_parts(year: Option<i64>, date: Option<&str>) -> RecordDate {
        RecordDate { year: year.and_then(|y| i32::try_from(y).ok()), days: date.and_then(day_range) }
    }
}

/// The days `text` can denote, from its leading ISO part (`2019-05-12`, `2019-05`, `2019`).
fn day_range(text: &str) -> Option<(u32, u32)> {
    let head: String = text.trim().chars().take_while(|c| c.is_ascii_digit() || *c == '-').take(10).collect();
    // A compact `20190512` reads as `2019-05-12`.
    let head = if head.len() == 8 && !head.contains('-') {
        format!("{}-{}-{}", &head[..4], &head[4..6], &head[6..])
    } else {
        head
    };
    let mut parts = head.split('-');
    let year = parts.next().filter(|y| y.len() == 4)?.parse::<u32>().ok()?;
    let two = |p: Option<&str>, max: u32| {
        p.filter(|p| p.len() == 2).and_then(|p| p.parse::<u32>().ok()).filter(|v| (1..=max).contains(v))
    };
    let base = year * 10_000;
    Some(match two(parts.next(), 12) {
        None => (base + 101, base + 1231),
        Some(month) => match two(parts.next(), 31) {
            None => (base + month * 100 + 1, base + month * 100 + 31),
            Some(day) => (base + month * 100 + day, base + month * 100 + day),
        },
    })
}

/// A cutoff in the numeric form indexes filter with: a unit passes when its record's year is at
/// most `max_year` and its days can lie in `[from_day, through_day]`. A record without the
/// date a bound needs never passes: its availability is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub struct DateWindow {
    pub max_year: Option<i32>,
    pub from_day: Option<u32>,
    pub through_day: Option<u32>,
}

impl DateWindow {
    /// Whether a record dated `date` lies inside the window.
    pub fn admits(&self, date: &RecordDate) -> bool {
        if self.max_year.is_some_and(|max| date.year.is_none_or(|y| y > max)) {
            return false;
        }
        if self.from_day.is_none() && self.through_day.is_none() {
            return true;
        }
        let Some((first, last)) = date.days else { return false };
        self.through_day.is_none_or(|t| first <= t) && self.from_day.is_none_or(|f| last >= f)
    }

    /// The window that admits only what both admit.
    pub fn and(&self, other: &DateWindow) -> DateWindow {
        fn pick<T: Ord>(a: Option<T>, b: Option<T>, f: fn(T, T) -> T) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(f(a, b)),
                (a, b) => a.or(b),
            }
        }
        DateWindow {
            max_year: pick(self.max_year, other.max_year, std::cmp::min),
            from_day: pick(self.from_day, other.from_day, std::cmp::max),
            through_day: pick(self.through_day, other.through_day, std::cmp::min),
        }
    }
}

impl Cutoff {
    /// Whether a record dated `date` (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, optionally followed by a
    /// time) falls inside the boundary. Undated or unparseable records are outside: their
    /// availability is unknown. A bare year or month is admitted when it can lie inside a date
    /// window.
    pub fn admits(&self, date: &str) -> bool {
        self.window().admits(&RecordDate::parse(date))
    }

    /// The numeric form the indexes filter with.
    pub fn window(&self) -> DateWindow {
        match self {
            Cutoff::FiscalYear { last } => DateWindow { max_year: Some(*last), ..DateWindow::default() },
            Cutoff::Dates { from, through } => DateWindow {
                max_year: None,
                from_day: from.as_deref().and_then(day_range).map(|(first, _)| first),
                // An unparseable bound admits nothing rather than everything.
                through_day: Some(day_range(through).map_or(0, |(_, last)| last)),
            },
        }
    }

    /// SQL boolean expression over the dated table's columns that keeps records inside the
    /// boundary (NULL dates evaluate to NULL, so undated records are hidden).
    pub fn sql_predicate(&self, dated: &DatedTable) -> String {
        match self {
            Cutoff::FiscalYear { last } => format!("({}) <= {last}", dated.year_sql),
            Cutoff::Dates { from, through } => {
                let mut p = format!("({}) <= '{through}'", dated.date_sql);
                if let Some(from) = from {
                    p.push_str(&format!(" AND ({}) >= '{from}'", dated.date_sql));
                }
                p
            }
        }
    }
}

/// A task's information boundary: the cutoff and the phrases it was read from (shown in traces).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Boundary {
    pub cutoff: Cutoff,
    /// The task's own words that state the cutoff.
    pub stated_by: Vec<String>,
}

/// The dated table of a SQLite route, if the manifest dates its records. Child tables (chunks,
/// fields, features, opinions) follow their parent through the manifest's joins.
pub fn dated_table(route: Route) -> Option<&'static DatedTable> {
    match &Manifest::get().route(route).dated {
        Some(Dating::Table(t)) => Some(t),
        _ => None,
    }
}

/// The field holding the date of a JSONL route's records, if the manifest dates them.
pub fn dated_field(route: Route) -> Option<&'static str> {
    match &Manifest::get().route(route).dated {
        Some(Dating::Field(f)) => Some(f.field.as_str()),
        _ => None,
    }
}

/// Whether the manifest dates the records of `route` (a boundary applies to it).
pub fn is_dated(route: Route) -> bool {
    Manifest::get().route(route).dated.is_some()
}

/// The date text of a record field (`2019`, `"2019-05-12"`), for [`Cutoff::admits`].
pub fn date_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Boundary {
    /// The boundary a task states, if any. Only predictive tasks and science tasks are read.
    pub fn from_task(task: &PublicTask) -> Result<Option<Boundary>> {
        if task.group.split != Split::Predictive && task.group.domain != Domain::Science {
            return Ok(None);
        }
        let text = format!("{}\n{}", task.query, task.instruction);
        Boundary::parse(&task.id, &text)
    }

    /// Parse the cutoff statements of `text`; `id` names the task in errors.
    pub fn parse(id: &str, text: &str) -> Result<Option<Boundary>> {
        let found = statements(text);
        let Some((first, _)) = found.first() else {
            return Ok(None);
        };
        if let Some((other, phrase)) = found.iter().find(|(c, _)| c != first) {
            return Err(Error::AmbiguousCutoff {
                id: id.to_string(),
                message: format!(
                    "{:?} states {} but {:?} states {}; state one cutoff",
                    found[0].1,
                    describe(first),
                    phrase,
                    describe(other)
                ),
            });
        }
        let cutoff = first.clone();
        let mut stated_by: Vec<String> = Vec::new();
        for (_, phrase) in found {
            if !stated_by.contains(&phrase) {
                stated_by.push(phrase);
            }
        }
        Ok(Some(Boundary { cutoff, stated_by }))
    }
}

fn describe(c: &Cutoff) -> String {
    match c {
        Cutoff::FiscalYear { last } => format!("fiscal year ≤ {last}"),
        Cutoff::Dates { from: Some(f), through } => format!("dates {f}..={through}"),
        Cutoff::Dates { from: None, through } => format!("dates ≤ {through}"),
    }
}

fn re(pattern: &str) -> Regex {
    match Regex::new(pattern) {
        Ok(r) => r,
        // The patterns are constants covered by the unit tests below.
        Err(e) => panic!("boundary pattern {pattern:?}: {e}"),
    }
}

const FY: &str = r"FY\s?((?:19|20)\d{2})";
const YEAR_ZH: &str = r"(?:^|[^0-9])((?:19|20)\d{2})(?:\s*[—–-]\s*((?:19|20)\d{2}))?\s*年";

/// English fiscal-year statements: (pattern, offset added to the captured year).
static EN_FY: LazyLock<Vec<(Regex, i32)>> = LazyLock::new(|| {
    [
        (format!(r"(?i)research date (?:set )?immediately after the {FY} (?:filing|10-K|annual report)"), 0),
        (format!(r"(?i)research cut-?off (?:at|is) the {FY} (?:filing|10-K|annual report)"), 0),
        (format!(r"(?i)\bat the {FY} reporting date"), 0),
        (format!(r"(?i)access only .{{0,160}}? through {FY}"), 0),
        (format!(r"(?i)using only .{{0,160}}? for FY\s?\d{{4}}\s?[-–]\s?{FY}"), 0),
        (format!(r"(?i)do not .{{0,80}}?cite {FY} disclosures?"), -1),
        (format!(r"(?i)information available in filings made through the {FY} (?:filing|10-K|annual report)"), 0),
    ]
    .into_iter()
    .map(|(p, off)| (re(&p), off))
    .collect()
});

static AVAILABLE_BY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:use|using) only (?:the )?information (?:available|disclosed|published) (?:by|as of|on or before|up to|through) (?:FY\s?((?:19|20)\d{2})|(\d{4}-\d{2}-\d{2}))",
    )
});
static PUB_UP_TO: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)publication period:\s*up to (\d{4}-\d{2}-\d{2})"));
static PUB_WINDOW: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)publication period:\s*from (\d{4}-\d{2}-\d{2})(?: \d{2}:\d{2}:\d{2})? through (\d{4}-\d{2}-\d{2})")
});
static ZH_AS_OF: LazyLock<Regex> = LazyLock::new(|| {
    re(r"截至\s*((?:19|20)\d{2})\s*年(?:末|底)?的?(?:年度报告|年报|财报|财务|资产|价格|披露|数据|信息)")
});
static ZH_NOT_USING: LazyLock<Regex> =
    LazyLock::new(|| re(r"不(?:使用|采用|参考)\s*((?:19|20)\d{2})\s*年(?:及以后)?的?(?:数据|财报|年报|信息)"));
static ZH_ONLY_CLAUSE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:仅|只)(?:依据|根据|使用|利用|基于)[^，。；？！,;?!]*"));
static ZH_YEAR: LazyLock<Regex> = LazyLock::new(|| re(YEAR_ZH));

fn year(s: &str) -> Option<i32> {
    s.parse().ok()
}

/// Every cutoff statement in `text`, in order of appearance, with the phrase that states it.
fn statements(text: &str) -> Vec<(Cutoff, String)> {
    let mut out: Vec<(usize, Cutoff, String)> = Vec::new();
    for (pattern, offset) in EN_FY.iter() {
        for c in pattern.captures_iter(text) {
            if let (Some(m), Some(y)) = (c.get(0), c.get(1).and_then(|y| year(y.as_str()))) {
                out.push((m.start(), Cutoff::FiscalYear { last: y + offset }, m.as_str().to_string()));
            }
        }
    }
    for c in AVAILABLE_BY.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        let cutoff = match (c.get(1).and_then(|y| year(y.as_str())), c.get(2)) {
            (Some(y), _) => Cutoff::FiscalYear { last: y },
            (None, Some(d)) => Cutoff::Dates { from: None, through: d.as_str().to_string() },
            (None, None) => continue,
        };
        out.push((m.start(), cutoff, m.as_str().to_string()));
    }
    for c in PUB_WINDOW.captures_iter(text) {
        if let (Some(m), Some(f), Some(t)) = (c.get(0), c.get(1), c.get(2)) {
            let cutoff = Cutoff::Dates { from: Some(f.as_str().to_string()), through: t.as_str().to_string() };
            out.push((m.start(), cutoff, m.as_str().to_string()));
        }
    }
    for c in PUB_UP_TO.captures_iter(text) {
        if let (Some(m), Some(t)) = (c.get(0), c.get(1)) {
            out.push((
                m.start(),
                Cutoff::Dates { from: None, through: t.as_str().to_string() },
                m.as_str().to_string(),
            ));
        }
    }
    for c in ZH_AS_OF.captures_iter(text) {
        if let (Some(m), Some(y)) = (c.get(0), c.get(1).and_then(|y| year(y.as_str()))) {
            out.push((m.start(), Cutoff::FiscalYear { last: y }, m.as_str().to_string()));
        }
    }
    for c in ZH_NOT_USING.captures_iter(text) {
        if let (Some(m), Some(y)) = (c.get(0), c.get(1).and_then(|y| year(y.as_str()))) {
            out.push((m.start(), Cutoff::FiscalYear { last: y - 1 }, m.as_str().to_string()));
        }
    }
    for m in ZH_ONLY_CLAUSE.find_iter(text) {
        let latest = ZH_YEAR
            .captures_iter(m.as_str())
            .flat_map(|c| [c.get(1), c.get(2)])
            .flatten()
            .filter_map(|y| year(y.as_str()))
            .max();
        if let Some(y) = latest {
            out.push((m.start(), Cutoff::FiscalYear { last: y }, m.as_str().to_string()));
        }
    }
    out.sort_by_key(|(pos, _, _)| *pos);
    out.into_iter().map(|(_, c, p)| (c, p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fy(text: &str) -> Option<i32> {
        match Boundary::parse("t", text).expect("parses").map(|b| b.cutoff) {
            Some(Cutoff::FiscalYear { last }) => Some(last),
            Some(other) => panic!("expected a fiscal year, got {other:?}"),
            None => None,
        }
    }

    #[test]
    fn english_fiscal_year_phrasings() {
        assert_eq!(fy("Set the research date immediately after the FY2023 filing: calculate X."), Some(2023));
        assert_eq!(fy("With the research cutoff at the FY2023 filing, do A and B agree?"), Some(2023));
        assert_eq!(fy("At the FY2023 reporting date, what FY2024 change is implied?"), Some(2023));
        assert_eq!(
            fy("An analyst can access only DICK'S SPORTING GOODS, INC's financial records through FY2022."),
            Some(2022)
        );
        assert_eq!(fy("Using only AT&T INC (T)'s structured 10-K data for FY2020-FY2023, trace growth."), Some(2023));
        assert_eq!(fy("Do not infer undisclosed causes or cite FY2024 disclosure as forecast evidence."), Some(2023));
        assert_eq!(fy("Use only information available by FY2021 to answer."), Some(2021));
        assert_eq!(fy("Use only information available in filings made through the FY2023 10-K."), Some(2023));
        assert_eq!(fy("Compare FY2020-FY2023 revenue and judge FY2024."), None, "a year range is not a cutoff");
    }

    #[test]
    fn chinese_fiscal_year_phrasings() {
        assert_eq!(fy("以华能国际（600011）截至2024年的年度报告为依据，判断其2025年增速。"), Some(2024));
        assert_eq!(fy("在仅使用中贝通信（603220）截至2024年财报信息的前提下，选择区间。"), Some(2024));
        assert_eq!(fy("不使用2025年数据或外部预测，基于2020—2024年收入轨迹预测。"), Some(2024));
        assert_eq!(fy("仅依据海立股份（600619）2020—2024年财务数据和年报披露，预测2025年。"), Some(2024));
        assert_eq!(fy("请只依据环旭电子（601231）2025年相对2024年的存货占收入比变化，判断库存状态。"), Some(2025));
        assert_eq!(fy("仅使用定义的 case population 中的有效文书，分析关联。"), None);
        assert_eq!(fy("参考中煤能源（601898）2020-2024年销售费用率变化，判断2025年。"), None);
        assert_eq!(fy("截至案发，共售出侵权拼图产品3000余件。"), None);
    }

    #[test]
    fn publication_windows() {
        let b = Boundary::parse("t", "Outcome: x\nPublication period: up to 2023-12-20\nEligible").expect("ok");
        assert_eq!(b.map(|b| b.cutoff), Some(Cutoff::Dates { from: None, through: "2023-12-20".into() }));
        let b = Boundary::parse("t", "Publication period: from 2014-01-01 00:00:00 through 2024-10-31 00:00:00\n")
            .expect("ok")
            .expect("window");
        assert_eq!(b.cutoff, Cutoff::Dates { from: Some("2014-01-01".into()), through: "2024-10-31".into() });
        assert!(b.cutoff.admits("2014-01-01") && b.cutoff.admits("2024-10-31 12:00:00") && b.cutoff.admits("2019"));
        assert!(!b.cutoff.admits("2013-12-31") && !b.cutoff.admits("2024-11-01") && !b.cutoff.admits("2025"));
        assert!(!b.cutoff.admits("") && !b.cutoff.admits("n.d."), "undated records are outside");
        assert!(b.cutoff.admits("2019年05月12日") && !b.cutoff.admits("2025年1月"));
        assert_eq!(Boundary::parse("t", "Publication period: not restricted by date").expect("ok"), None);
    }

    #[test]
    fn record_dates_and_windows() {
        assert_eq!(
            RecordDate::parse("2019-05-12 10:00"),
            RecordDate { year: Some(2019), days: Some((20190512, 20190512)) }
        );
        assert_eq!(RecordDate::parse("2019-05"), RecordDate { year: Some(2019), days: Some((20190501, 20190531)) });
        assert_eq!(RecordDate::parse(" 2019"), RecordDate { year: Some(2019), days: Some((20190101, 20191231)) });
        assert_eq!(RecordDate::parse("n.d."), RecordDate::default());
        let fy = Cutoff::FiscalYear { last: 2022 }.window();
        assert!(fy.admits(&RecordDate::of_parts(Some(2022), None)));
        assert!(!fy.admits(&RecordDate::of_parts(Some(2023), Some("2022-12-31"))), "the year decides");
        assert!(!fy.admits(&RecordDate::of_parts(None, Some("2020-01-01"))), "no year, no admission");
        let w = Cutoff::Dates { from: Some("2020-03-01".into()), through: "2021-06-30".into() }.window();
        assert_eq!(w, DateWindow { max_year: None, from_day: Some(20200301), through_day: Some(20210630) });
        assert!(w.admits(&RecordDate::parse("2020-03")) && !w.admits(&RecordDate::parse("2020-02-29")));
        let both = w.and(&fy);
        assert_eq!(both, DateWindow { max_year: Some(2022), from_day: Some(20200301), through_day: Some(20210630) });
        assert!(DateWindow::default().admits(&RecordDate::default()), "no bound admits everything");
    }

    #[test]
    fn conflicting_statements_are_an_error() {
        let err = Boundary::parse("x_1", "截至2024年的年报为依据；不使用2024年数据。").expect_err("ambiguous");
        let msg = err.to_string();
        assert!(msg.contains("x_1") && msg.contains("2024") && msg.contains("2023"), "{msg}");
        let same = Boundary::parse("t", "仅依据A（600027）截至2024年的财报和2020-2024年经营数据").expect("consistent");
        assert_eq!(same.expect("found").cutoff, Cutoff::FiscalYear { last: 2024 });
    }

    #[test]
    fn sql_predicates() {
        let dated = dated_table(Route::FinanceEnReports).expect("dated");
        assert_eq!(
            Cutoff::FiscalYear { last: 2023 }.sql_predicate(dated),
            "(COALESCE(fiscal_year, CAST(substr(report_date, 1, 4) AS INTEGER))) <= 2023"
        );
        let window = Cutoff::Dates { from: Some("2020-01-01".into()), through: "2021-03-15".into() };
        assert_eq!(
            window.sql_predicate(dated),
            "(substr(filing_date, 1, 10)) <= '2021-03-15' AND (substr(filing_date, 1, 10)) >= '2020-01-01'"
        );
        assert!(dated_table(Route::ScienceArticles).is_none());
        assert_eq!(dated_field(Route::ScienceArticles), Some("year"));
        assert!(!is_dated(Route::FinanceZhRules) && is_dated(Route::LegalZhCases));
    }
}
