//! Counting conditions of the legal descriptive plans, as data: each renders as the SQL clause
//! over `cases c` / `case_record c` it stands for (what the trace shows) and is evaluated over
//! the rows of the route that the task's view shows, cached per route and set of hiding
//! conditions (see [`super::cache`]); the predictive plans' cohort joins run over the same
//! rows. At release size the SQL count scanned the whole case table on every task (6–10 ms of
//! SQLite CPU even with the pages in memory); the cached rows answer in well under a
//! millisecond.
//!
//! The evaluation follows SQLite's semantics for exactly the forms used here: `=` on text,
//! `LIKE` (ASCII case-insensitive, `%` and `_` wildcards, no escape), `lower()` (ASCII only),
//! `CAST(… AS REAL)` (the longest numeric prefix, 0.0 without one), `COALESCE`, and NULL never
//! satisfying a comparison.

use std::{
    collections::{BTreeSet, HashMap},
    sync::Arc,
};

use serde_json::Value;

use super::Cmp;
use crate::{
    Result,
    method::offline::{lit, once_map::OnceMap},
    tools::sql::GuardedDb,
};

/// How a feature value is tested.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::method::offline) enum ValueTest {
    /// The value text equals this one.
    Equals(String),
    /// `lower(value) IN ('true', '1', 'yes')`.
    Truthy,
    /// `CAST(value AS REAL) <op> n`.
    Compare(Cmp, f64),
}

/// One counting condition on a case.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::method::offline) enum Clause {
    /// `c.<column> = 'value'`.
    Equals { column: &'static str, value: String },
    /// `c.<column> LIKE 'pattern'`.
    Like { column: &'static str, pattern: String },
    /// `[NOT] EXISTS` a Chinese feature row (`case_features`) with the key and a value passing
    /// the test.
    ZhFeature { key: String, test: ValueTest, exists: bool },
    /// `EXISTS` an English feature row (`case_feature`) of the matter with the key and a value
    /// passing the test; `observed` also requires `value_status = 'observed'`.
    EnFeature { matter: String, key: String, observed: bool, test: ValueTest },
}

impl Clause {
    /// The SQL clause this condition stands for.
    pub(in crate::method::offline) fn sql(&self) -> String {
        match self {
            Clause::Equals { column, value } => format!("c.{column} = {}", lit(value)),
            Clause::Like { column, pattern } => format!("c.{column} LIKE {}", lit(pattern)),
            Clause::ZhFeature { key, test, exists } => {
                let cond = match test {
                    ValueTest::Equals(v) => format!("f.feature_value = {}", lit(v)),
                    ValueTest::Truthy => "lower(f.feature_value) IN ('true', '1', 'yes')".to_string(),
                    ValueTest::Compare(cmp, t) => format!("CAST(f.feature_value AS REAL) {} {t}", cmp.sql()),
                };
                format!(
                    "{}EXISTS (SELECT 1 FROM case_features f WHERE f.anhao = c.anhao AND f.feature_key = {} AND {cond})",
                    if *exists { "" } else { "NOT " },
                    lit(key)
                )
            }
            Clause::EnFeature { matter, key, observed, test } => {
                let cond = match test {
                    ValueTest::Equals(v) => format!("f.value_text = {}", lit(v)),
                    ValueTest::Truthy => "lower(f.value_text) IN ('true', '1', 'yes')".to_string(),
                    ValueTest::Compare(cmp, n) => {
                        format!("CAST(COALESCE(f.value_number, f.value_text) AS REAL) {} {n}", cmp.sql())
                    }
                };
                let status = if *observed { " AND f.value_status = 'observed'" } else { "" };
                format!(
                    "EXISTS (SELECT 1 FROM case_feature f WHERE f.case_id = c.case_id AND f.matter_type = {} \
                     AND f.feature_key = {}{status} AND {cond})",
                    lit(matter),
                    lit(key)
                )
            }
        }
    }
}

/// The SQL statement a set of conditions stands for over the case table.
pub(in crate::method::offline) fn count_sql(table: &str, id: &str, clauses: &[Clause]) -> String {
    let clauses: Vec<String> = clauses.iter().map(Clause::sql).collect();
    let filter = if clauses.is_empty() { String::new() } else { format!(" WHERE {}", clauses.join(" AND ")) };
    format!("SELECT DISTINCT c.{id} FROM {table} c{filter}")
}

/// A feature row as the view shows it, its matter type and key as the table's [`Symbols`].
#[derive(Debug)]
struct FeatureRow {
    /// The matter type (English rows; the empty string for Chinese ones).
    matter: Symbol,
    key: Symbol,
    /// `value_status = 'observed'` (English rows).
    observed: bool,
    text: Option<String>,
    /// `value_number` (English rows).
    number: Option<f64>,
    /// The value the cohort reads: the Chinese `feature_value`; the English value JSON as text,
    /// else `value_text` (computed by SQLite when the rows are read).
    cohort: Option<String>,
}

/// A feature key or matter type, interned per table: a join or condition compares integers,
/// not strings, on every feature row of every case it scans.
type Symbol = u32;

/// The feature keys and matter types of a table's rows.
#[derive(Debug, Default)]
struct Symbols(HashMap<String, Symbol>);

impl Symbols {
    fn intern(&mut self, s: String) -> Symbol {
        // Fewer distinct keys than rows, and the rows fit in memory: the count fits in u32.
        let next = self.0.len() as Symbol;
        *self.0.entry(s).or_insert(next)
    }

    /// The symbol of `s`; `None` when no row has it (then no row can match it).
    fn get(&self, s: &str) -> Option<Symbol> {
        self.0.get(s).copied()
    }
}

/// A feature a cohort joins on: the matter (English rows) and key, and whether only observed
/// values count.
#[derive(Debug, Clone)]
pub(in crate::method::offline) struct Join {
    pub(in crate::method::offline) matter: Option<String>,
    pub(in crate::method::offline) key: String,
    pub(in crate::method::offline) observed: bool,
}

/// The SQL an English cohort reads a joined feature's value with.
pub(in crate::method::offline) const EN_COHORT_VALUE: &str =
    "COALESCE(CAST(json_extract({t}.value_json, '$') AS TEXT), {t}.value_text)";

/// The cases of a route as one view shows them: the columns conditions test and each case's
/// feature rows.
pub(in crate::method::offline) struct CaseTable {
    /// Column names, parallel to each case's `columns`.
    names: Vec<&'static str>,
    /// In id order.
    cases: Vec<Case>,
    /// The feature rows' keys and matter types.
    symbols: Symbols,
    /// The cases a column condition (a cause, a matter type: the first condition of every
    /// count and the scope of every cohort) selects, by the condition's SQL, found once.
    scopes: OnceMap<String, Arc<Vec<usize>>>,
}

/// One case: its id, the columns conditions test and its feature rows (in row order).
#[derive(Debug)]
struct Case {
    id: String,
    columns: Vec<Option<String>>,
    features: Vec<FeatureRow>,
}

/// The case columns the Chinese conditions test.
const ZH_COLUMNS: [&str; 4] = ["anyou", "shenpanchengxu", "wenshuleixing", "caipanriqi"];
/// The case columns the English conditions test.
const EN_COLUMNS: [&str; 1] = ["matter_types_json"];

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

impl std::fmt::Debug for CaseTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaseTable").field("cases", &self.cases.len()).field("scopes", &self.scopes.len()).finish()
    }
}

impl CaseTable {
    /// Read the Chinese route's cases and feature rows through `db`.
    pub(in crate::method::offline) fn read_zh(db: &GuardedDb) -> Result<CaseTable> {
        let features = db.query_with("SELECT anhao, feature_key, feature_value FROM case_features", usize::MAX)?;
        let mut symbols = Symbols::default();
        let none = symbols.intern(String::new());
        let rows = features.rows.iter().filter_map(|r| match r.as_slice() {
            [id, key, value] => Some((
                text(id)?,
                FeatureRow {
                    matter: none,
                    key: symbols.intern(text(key)?),
                    observed: false,
                    text: text(value),
                    number: None,
                    cohort: text(value),
                },
            )),
            _ => None,
        });
        let rows = rows.collect();
        CaseTable::read(db, "cases", "anhao", &ZH_COLUMNS, rows, symbols)
    }

    /// Read the English route's cases and feature rows through `db`.
    pub(in crate::method::offline) fn read_en(db: &GuardedDb) -> Result<CaseTable> {
        let sql = format!(
            "SELECT case_id, matter_type, feature_key, value_status, value_text, value_number, {} FROM case_feature",
            EN_COHORT_VALUE.replace("{t}.", "")
        );
        let features = db.query_with(&sql, usize::MAX)?;
        let mut symbols = Symbols::default();
        let rows = features.rows.iter().filter_map(|r| match r.as_slice() {
            [id, matter, key, status, value, number, cohort] => Some((
                text(id)?,
                FeatureRow {
                    matter: symbols.intern(text(matter)?),
                    key: symbols.intern(text(key)?),
                    observed: status.as_str() == Some("observed"),
                    text: text(value),
                    number: number.as_f64(),
                    cohort: text(cohort),
                },
            )),
            _ => None,
        });
        let rows = rows.collect();
        CaseTable::read(db, "case_record", "case_id", &EN_COLUMNS, rows, symbols)
    }

    fn read(
        db: &GuardedDb,
        table: &str,
        id: &str,
        names: &[&'static str],
        feature_rows: Vec<(String, FeatureRow)>,
        symbols: Symbols,
    ) -> Result<CaseTable> {
        let sql = format!("SELECT {id}, {} FROM {table}", names.join(", "));
        let cases = db
            .query_with(&sql, usize::MAX)?
            .rows
            .iter()
            .filter_map(|r| {
                Some(Case { id: text(r.first()?)?, columns: r[1..].iter().map(text).collect(), features: Vec::new() })
            })
            .collect();
        Ok(CaseTable::assemble(names, cases, feature_rows, symbols))
    }

    /// The table of `cases` with their feature rows (by case id, in row order).
    fn assemble(
        names: &[&'static str],
        mut cases: Vec<Case>,
        feature_rows: Vec<(String, FeatureRow)>,
        symbols: Symbols,
    ) -> CaseTable {
        // `ORDER BY` the id: SQLite's BINARY collation is byte order, as `String`'s.
        cases.sort_by(|a, b| a.id.cmp(&b.id));
        // Feature rows of no visible case can never join one.
        let at: HashMap<String, usize> = cases.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        for (id, row) in feature_rows {
            if let Some(&i) = at.get(&id) {
                cases[i].features.push(row);
            }
        }
        CaseTable { names: names.to_vec(), cases, symbols, scopes: OnceMap::default() }
    }

    /// The cases (indices, in id order) meeting `clause`, kept when it tests a case column.
    fn selected(&self, clause: &Clause) -> Arc<Vec<usize>> {
        let select = || -> Vec<usize> {
            let test = self.resolve(clause);
            self.cases.iter().enumerate().filter(|(_, case)| self.holds(&test, case)).map(|(i, _)| i).collect()
        };
        match clause {
            Clause::Equals { .. } | Clause::Like { .. } => self
                .scopes
                .get_or_try_make(&clause.sql(), || Ok::<_, std::convert::Infallible>(Arc::new(select())))
                .unwrap_or_else(|never| match never {}),
            _ => Arc::new(select()),
        }
    }

    /// The ids of the cases meeting every condition.
    pub(in crate::method::offline) fn matching(&self, clauses: &[Clause]) -> BTreeSet<String> {
        let Some((first, rest)) = clauses.split_first() else {
            return self.cases.iter().map(|c| c.id.clone()).collect();
        };
        let rest: Vec<Resolved> = rest.iter().map(|c| self.resolve(c)).collect();
        self.selected(first)
            .iter()
            .map(|&i| &self.cases[i])
            .filter(|case| rest.iter().all(|c| self.holds(c, case)))
            .map(|case| case.id.clone())
            .collect()
    }

    /// The cohort join's rows in id order: for each case meeting `scope`, (id, value of each
    /// joined feature) for every combination of its matching feature rows (in row order, the
    /// first join outermost), as the SQL join returns them; NULL values are `None`.
    pub(in crate::method::offline) fn cohort(&self, scope: &Clause, joins: &[Join]) -> Cohort<'_> {
        let mut out = Cohort { width: joins.len(), ids: Vec::new(), values: Vec::new() };
        // A key or matter type no row has joins no case.
        let wanted = joins
            .iter()
            .map(|j| {
                let matter = match &j.matter {
                    Some(m) => Some(self.symbols.get(m)?),
                    None => None,
                };
                Some((self.symbols.get(&j.key)?, matter, j.observed))
            })
            .collect::<Option<Vec<_>>>();
        let Some(wanted) = wanted else { return out };
        // Per join, the case's matching rows; reused from case to case.
        let mut matches: Vec<Vec<&FeatureRow>> = vec![Vec::new(); joins.len()];
        let mut at = vec![0usize; joins.len()];
        'cases: for case in self.selected(scope).iter().map(|&i| &self.cases[i]) {
            for (rows, &(key, matter, observed)) in matches.iter_mut().zip(&wanted) {
                rows.clear();
                rows.extend(
                    case.features
                        .iter()
                        .filter(|f| f.key == key && matter.is_none_or(|m| f.matter == m) && (f.observed || !observed)),
                );
                // A join with no matching row drops the case (an inner join).
                if rows.is_empty() {
                    continue 'cases;
                }
            }
            // Every combination, the last join's row varying fastest.
            at.fill(0);
            loop {
                out.ids.push(&case.id);
                out.values.extend(matches.iter().zip(&at).map(|(rows, &i)| rows[i].cohort.as_deref()));
                if !next_combination(&mut at, &matches) {
                    break;
                }
            }
        }
        out
    }

    fn column<'c>(&self, columns: &'c [Option<String>], name: &str) -> Option<&'c str> {
        let at = self.names.iter().position(|n| *n == name)?;
        columns.get(at)?.as_deref()
    }

    /// `clause` with its feature key and matter type as this table's symbols.
    fn resolve<'c>(&self, clause: &'c Clause) -> Resolved<'c> {
        let (key, matter) = match clause {
            Clause::ZhFeature { key, .. } => (self.symbols.get(key), None),
            Clause::EnFeature { matter, key, .. } => (self.symbols.get(key), self.symbols.get(matter)),
            Clause::Equals { .. } | Clause::Like { .. } => (None, None),
        };
        Resolved { clause, key, matter }
    }

    fn holds(&self, test: &Resolved, case: &Case) -> bool {
        let (rows, columns) = (|| case.features.iter(), &case.columns);
        match test.clause {
            Clause::Equals { column, value } => self.column(columns, column) == Some(value.as_str()),
            Clause::Like { column, pattern } => self.column(columns, column).is_some_and(|v| like(pattern, v)),
            Clause::ZhFeature { test: value_test, exists, .. } => {
                let found = test.key.is_some_and(|key| {
                    rows().any(|f| f.key == key && value_holds(value_test, f.text.as_deref(), None))
                });
                found == *exists
            }
            Clause::EnFeature { observed, test: value_test, .. } => match (test.key, test.matter) {
                (Some(key), Some(matter)) => rows().any(|f| {
                    f.matter == matter
                        && f.key == key
                        && (f.observed || !observed)
                        && value_holds(value_test, f.text.as_deref(), f.number)
                }),
                _ => false,
            },
        }
    }
}

/// A condition with its key and matter type looked up once in the table's symbols (`None`: no
/// row has it).
struct Resolved<'c> {
    clause: &'c Clause,
    key: Option<Symbol>,
    matter: Option<Symbol>,
}

/// Moves `at` (one row index per join) to the next combination, the last index fastest;
/// `false` after the last one.
fn next_combination(at: &mut [usize], rows: &[Vec<&FeatureRow>]) -> bool {
    for j in (0..at.len()).rev() {
        at[j] += 1;
        if at[j] < rows[j].len() {
            return true;
        }
        at[j] = 0;
    }
    false
}

/// The rows of a cohort join, borrowed from the case table: per row the case id and one value
/// per joined feature.
#[derive(Debug)]
pub(in crate::method::offline) struct Cohort<'t> {
    /// Values per row (the joins).
    width: usize,
    ids: Vec<&'t str>,
    /// Row after row, `width` each; `None` for NULL.
    values: Vec<Option<&'t str>>,
}

impl<'t> Cohort<'t> {
    /// (case id, joined values) per row, in the join's order.
    pub(in crate::method::offline) fn rows(&self) -> impl Iterator<Item = (&'t str, &[Option<&'t str>])> + '_ {
        self.ids.iter().enumerate().map(|(i, id)| (*id, &self.values[i * self.width..(i + 1) * self.width]))
    }
}

/// Whether a feature value (text, and the number column that `COALESCE` puts first) passes.
fn value_holds(test: &ValueTest, text: Option<&str>, number: Option<f64>) -> bool {
    match test {
        ValueTest::Equals(want) => text == Some(want.as_str()),
        ValueTest::Truthy => text.is_some_and(|t| matches!(t.to_ascii_lowercase().as_str(), "true" | "1" | "yes")),
        ValueTest::Compare(cmp, n) => match number.or_else(|| text.map(cast_real)) {
            Some(x) => cmp.holds(x, *n),
            None => false,
        },
    }
}

/// SQLite's `CAST(text AS REAL)`: the longest prefix (after leading spaces) that reads as a
/// decimal number, 0.0 when there is none.
fn cast_real(text: &str) -> f64 {
    let s = text.trim_start_matches([' ', '\t', '\n', '\r', '\u{b}', '\u{c}']).as_bytes();
    let mut end = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        end = 1;
    }
    let digits = |from: usize| s[from..].iter().take_while(|b| b.is_ascii_digit()).count();
    let whole = digits(end);
    end += whole;
    let mut fraction = 0;
    if s.get(end) == Some(&b'.') {
        fraction = digits(end + 1);
        if whole + fraction > 0 {
            end += 1 + fraction;
        }
    }
    if whole + fraction == 0 {
        return 0.0;
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(s.get(end + 1), Some(b'+' | b'-')));
        let exponent = digits(end + 1 + sign);
        if exponent > 0 {
            end += 1 + sign + exponent;
        }
    }
    std::str::from_utf8(&s[..end]).ok().and_then(|p| p.parse().ok()).unwrap_or(0.0)
}

/// SQLite's `LIKE` without `ESCAPE`: `%` any run, `_` one character, ASCII letters matched
/// without case, other characters exactly.
fn like(pattern: &str, text: &str) -> bool {
    // Iterative wildcard matching over byte offsets (no allocation: it runs once per case),
    // backtracking to the last `%`.
    let next = |s: &str, at: usize| s.get(at..).and_then(|rest| rest.chars().next());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while let Some(tc) = next(text, ti) {
        match next(pattern, pi) {
            Some('%') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(pc) if pc == '_' || pc.eq_ignore_ascii_case(&tc) => {
                pi += pc.len_utf8();
                ti += tc.len_utf8();
            }
            _ => match star {
                Some((sp, st)) => {
                    let retry = st + next(text, st).map_or(1, char::len_utf8);
                    pi = sp + 1;
                    ti = retry;
                    star = Some((sp, retry));
                }
                None => return false,
            },
        }
    }
    pattern.get(pi..).is_some_and(|rest| rest.chars().all(|c| c == '%'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cohort is the SQL join's rows, in its order: cases of the scope with a row for every
    /// joined key, every combination of a case's rows, NULL values kept.
    #[test]
    fn cohort_rows_are_the_sql_join() {
        let cases = [("c3", "A"), ("c1", "A"), ("c2", "A"), ("c4", "A"), ("c5", "B"), ("c6", "A")];
        let features = [
            ("c1", "x", Some("是")),
            ("c1", "y", Some("1")),
            ("c2", "y", Some("3")),
            ("c2", "x", Some("是")),
            ("c2", "x", Some("否")),
            ("c2", "y", Some("4")),
            ("c3", "x", None),
            ("c3", "y", Some("2")),
            ("c4", "x", Some("否")),
            ("c5", "x", Some("是")),
            ("c5", "y", Some("5")),
            ("c6", "y", Some("6")),
            ("c6", "z", Some("是")),
            ("c7", "x", Some("是")),
        ];
        let conn = rusqlite::Connection::open_in_memory().expect("sqlite");
        conn.execute_batch(
            "CREATE TABLE cases (anhao TEXT, anyou TEXT); \
             CREATE TABLE case_features (anhao TEXT, feature_key TEXT, feature_value TEXT);",
        )
        .expect("schema");
        for (id, cause) in cases {
            conn.execute("INSERT INTO cases VALUES (?1, ?2)", [id, cause]).expect("case");
        }
        for (id, key, value) in features {
            conn.execute("INSERT INTO case_features VALUES (?1, ?2, ?3)", rusqlite::params![id, key, value])
                .expect("feature");
        }
        let mut symbols = Symbols::default();
        let none = symbols.intern(String::new());
        let rows = features
            .iter()
            .map(|&(id, key, value)| {
                let value = value.map(String::from);
                let row = FeatureRow {
                    matter: none,
                    key: symbols.intern(key.into()),
                    observed: false,
                    text: value.clone(),
                    number: None,
                    cohort: value,
                };
                (id.to_string(), row)
            })
            .collect();
        let cases = cases
            .iter()
            .map(|&(id, cause)| Case { id: id.into(), columns: vec![Some(cause.into())], features: Vec::new() })
            .collect();
        let table = CaseTable::assemble(&["anyou"], cases, rows, symbols);
        let scope = Clause::Equals { column: "anyou", value: "A".into() };
        let join = |key: &str| Join { matter: None, key: key.into(), observed: false };
        for keys in [vec!["x", "y"], vec!["y", "x"], vec!["x"], vec!["x", "y", "z"], vec!["x", "w"]] {
            let joins: Vec<Join> = keys.iter().map(|k| join(k)).collect();
            let got: Vec<(String, Vec<Option<String>>)> = table
                .cohort(&scope, &joins)
                .rows()
                .map(|(id, values)| (id.to_string(), values.iter().map(|v| v.map(String::from)).collect()))
                .collect();
            let (mut from, mut select, mut order) = (String::from("cases c"), String::from("c.anhao"), String::new());
            for (i, key) in keys.iter().enumerate() {
                from += &format!(" JOIN case_features f{i} ON f{i}.anhao = c.anhao AND f{i}.feature_key = '{key}'");
                select += &format!(", f{i}.feature_value");
                order += &format!(", f{i}.rowid");
            }
            let sql = format!("SELECT {select} FROM {from} WHERE c.anyou = 'A' ORDER BY c.anhao{order}");
            let mut stmt = conn.prepare(&sql).expect("join");
            let want: Vec<(String, Vec<Option<String>>)> = stmt
                .query_map([], |r| {
                    let values = (1..=keys.len()).map(|i| r.get(i)).collect::<rusqlite::Result<_>>()?;
                    Ok((r.get(0)?, values))
                })
                .expect("query")
                .collect::<rusqlite::Result<_>>()
                .expect("rows");
            assert_eq!(got, want, "{sql}");
        }
    }

    /// The emulated functions agree with SQLite itself on the forms the conditions use.
    #[test]
    fn like_and_cast_agree_with_sqlite() {
        let conn = rusqlite::Connection::open_in_memory().expect("sqlite");
        let texts =
            ["12", " 12.5kg", "-3", "+4.", ".5", "1e3x", "1e", "abc", "", "12个月", "3.0e-2", "-.e1", "0x10", "  7 "];
        for t in texts {
            let want: f64 = conn.query_row("SELECT CAST(?1 AS REAL)", [t], |r| r.get(0)).expect("cast");
            assert_eq!(cast_real(t), want, "CAST({t:?} AS REAL)");
        }
        let cases = [
            ("%\"asylum\"%", "[\"asylum\", \"x\"]"),
            ("%\"employment_discrimination\"%", "[\"employment-discrimination\"]"),
            ("%\"asylum\"%", "[\"ASYLUM\"]"),
            ("%\"asylum\"%", "[\"asylums\"]"),
            ("2021%", "2021-05-01"),
            ("2021%", "2020-05-01"),
            ("a%b%c", "aXbYc"),
            ("a%b%c", "aXbY"),
            ("_案%", "民案件"),
            ("%", ""),
            ("%案件", "民事案件案件"),
            ("%a_c", "abcXabc"),
            ("%a_c%", "xxabxc"),
            ("民%罪", "民事罪名"),
        ];
        for (pattern, text) in cases {
            let want: bool = conn.query_row("SELECT ?2 LIKE ?1", [pattern, text], |r| r.get(0)).expect("like");
            assert_eq!(like(pattern, text), want, "{text:?} LIKE {pattern:?}");
        }
    }
}
