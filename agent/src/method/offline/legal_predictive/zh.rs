//! Chinese legal plans: the cause of action, and feature keys of `case_features` matched by
//! weighted character bigrams of their stems and by the decision texts that separate a key's 是
//! and 否 cases — for the predictive cohort (X and Y) and the descriptive planner's counting
//! conditions.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::Arc,
};

use anser_manifest::{Language, PublicTask};
use serde_json::json;

use super::{
    Clause, Cmp, Conditions, Join, RelationPlan, THRESHOLD_WINDOW_CHARS, Test, ValueTest, associate, cache::Reader,
    threshold_after, wants_continuous,
};
use crate::{
    Result,
    method::offline::{column_strings, lit},
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    YesNo,
    Numeric,
    Enum,
}

#[derive(Debug)]
struct ZhKey {
    key: String,
    kind: Kind,
    values: Vec<String>,
}

/// The key without `是否`, a leading `被告` and its unit in parentheses.
fn stem(key: &str) -> String {
    let mut s = key.replacen("是否", "", 1);
    if let Some(at) = s.find(['（', '(']) {
        s.truncate(at);
    }
    s.trim_start_matches("被告").to_string()
}

fn bigrams(s: &str) -> BTreeSet<String> {
    let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

/// One key's match against the (masked) query: weighted score and matched byte spans.
#[derive(Debug, Clone)]
struct ZhMatch {
    idx: usize,
    score: f64,
    spans: Vec<(usize, usize)>,
    enum_value: Option<String>,
    /// The texts say the query describes the 否 side of a yes/no key ("未适用缓刑").
    negative: bool,
}

/// What the decisions say about yes/no keys: for each key, the texts of the cases where it is
/// 是 and where it is 否. A query phrase that paraphrases a key ("案发后主动投案" for 是否自首)
/// shares no characters with the key but does with the texts of its 是 cases.
///
/// The share of a side's texts holding a bigram is counted from the bigram's posting list (the
/// texts holding it), so scoring a query costs its bigrams' postings, not a substring search of
/// every text per bigram and key. A bigram (two characters) is in a text exactly when some pair
/// of adjacent characters of the text is that bigram, so the counts are those of the search.
struct Contrast {
    /// The decision texts of the cause's cases.
    texts: Vec<String>,
    /// Character bigram → the texts holding it (indices into `texts`, ascending, each once).
    postings: HashMap<(char, char), Vec<u32>>,
    /// Key → its 是 and 否 texts.
    sides: BTreeMap<String, Sides>,
}

/// A key's 是 and 否 texts, one entry per annotation row (in row order), and how often each
/// text is listed on each side, by text index (the shares count a text as often as it is
/// listed).
struct Sides {
    yes: Vec<u32>,
    no: Vec<u32>,
    yes_times: Vec<u32>,
    no_times: Vec<u32>,
}

impl Contrast {
    /// Index the decision texts (case id → text) and the yes/no rows (case id, key, value).
    fn new(texts: BTreeMap<String, String>, rows: &[Vec<String>]) -> Contrast {
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut postings: HashMap<(char, char), Vec<u32>> = HashMap::new();
        for (i, (id, text)) in texts.iter().enumerate() {
            let i = i as u32;
            index.insert(id.as_str(), i);
            let chars: Vec<char> = text.chars().collect();
            for w in chars.windows(2) {
                let list = postings.entry((w[0], w[1])).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        let mut sides: BTreeMap<String, Sides> = BTreeMap::new();
        for r in rows {
            let [id, k, v] = r.as_slice() else { continue };
            let Some(&t) = index.get(id.as_str()) else { continue };
            let side = sides.entry(k.clone()).or_insert_with(|| Sides {
                yes: Vec::new(),
                no: Vec::new(),
                yes_times: vec![0; texts.len()],
                no_times: vec![0; texts.len()],
            });
            match v.as_str() {
                "是" => {
                    side.yes.push(t);
                    side.yes_times[t as usize] += 1;
                }
                "否" => {
                    side.no.push(t);
                    side.no_times[t as usize] += 1;
                }
                _ => {}
            }
        }
        Contrast { texts: texts.into_values().collect(), postings, sides }
    }

    /// The share of one side's texts (`times`: how often each is listed, `listed` in all)
    /// that hold bigram `b`.
    fn share(&self, times: &[u32], listed: usize, b: &str) -> f64 {
        let mut chars = b.chars();
        let (Some(first), Some(second), None) = (chars.next(), chars.next(), chars.next()) else { return 0.0 };
        let held: u32 =
            self.postings.get(&(first, second)).map_or(0, |texts| texts.iter().map(|&t| times[t as usize]).sum());
        f64::from(held) / listed as f64
    }
}

/// A bigram's share difference below this is noise (≈150 texts per cause in the sample).
const MIN_LIFT: f64 = 0.2;

impl Contrast {
    /// Σ over the query's bigrams of the share difference P(bigram in text | 是) −
    /// P(bigram in text | 否) where it is at least [`MIN_LIFT`], for each direction (是, 否),
    /// with the spans of the bigrams that separate the groups by at least half.
    fn score(&self, key: &str, query: &str) -> (f64, f64, Vec<(usize, usize)>) {
        let Some(sides) = self.sides.get(key) else { return (0.0, 0.0, Vec::new()) };
        if sides.yes.is_empty() || sides.no.is_empty() {
            return (0.0, 0.0, Vec::new());
        }
        let (mut for_yes, mut for_no) = (0.0, 0.0);
        let mut spans = Vec::new();
        for b in bigrams(query) {
            if b.contains(' ') {
                continue;
            }
            let lift =
                self.share(&sides.yes_times, sides.yes.len(), &b) - self.share(&sides.no_times, sides.no.len(), &b);
            if lift >= MIN_LIFT {
                for_yes += lift;
            } else if lift <= -MIN_LIFT {
                for_no -= lift;
            }
            if lift.abs() >= 0.5 {
                spans.extend(query.match_indices(b.as_str()).map(|(at, s)| (at, at + s.len())));
            }
        }
        (for_yes, for_no, spans)
    }
}

impl Contrast {
    /// Where in the key's 是 decisions the query words matched for the key first appear, as a
    /// share of the text length (0 = start, 1 = end), averaged over the texts that contain them.
    fn lateness(&self, key: &str, query: &str, spans: &[(usize, usize)]) -> f64 {
        let Some(sides) = self.sides.get(key) else { return 0.0 };
        let words: BTreeSet<&str> =
            spans.iter().filter_map(|(s, e)| query.get(*s..*e)).filter(|w| !w.trim().is_empty()).collect();
        let positions: Vec<f64> = sides
            .yes
            .iter()
            .map(|&t| &self.texts[t as usize])
            .filter_map(|t| {
                let at = words.iter().filter_map(|w| t.find(w)).min()?;
                Some(at as f64 / t.len().max(1) as f64)
            })
            .collect();
        if positions.is_empty() { 0.0 } else { positions.iter().sum::<f64>() / positions.len() as f64 }
    }
}

fn zh_match(query: &str, keys: &[ZhKey], df: &BTreeMap<String, usize>, contrast: &Contrast, idx: usize) -> ZhMatch {
    let k = &keys[idx];
    let mut score = 0.0;
    let mut spans = Vec::new();
    for b in bigrams(&stem(&k.key)) {
        let hits: Vec<_> = query.match_indices(b.as_str()).collect();
        if !hits.is_empty() {
            score += 1.0 / *df.get(&b).unwrap_or(&1) as f64;
            spans.extend(hits.iter().map(|(at, s)| (*at, at + s.len())));
        }
    }
    let mut enum_value = None;
    let mut negative = false;
    match k.kind {
        Kind::Enum => {
            if let Some(v) =
                k.values.iter().filter(|v| v.chars().count() >= 2 && query.contains(v.as_str())).max_by_key(|v| v.len())
            {
                let at = query.find(v.as_str()).unwrap_or(0);
                spans.push((at, at + v.len()));
                score += 2.0;
                enum_value = Some(v.clone());
            }
        }
        Kind::YesNo => {
            let (yes, no, s) = contrast.score(&k.key, query);
            score += yes.max(no);
            negative = no > yes;
            spans.extend(s);
        }
        Kind::Numeric => {}
    }
    ZhMatch { idx, score, spans, enum_value, negative }
}

/// Replace the chars inside `spans` with spaces, one per byte, so offsets stay comparable.
fn mask(query: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(query.len());
    for (i, c) in query.char_indices() {
        if spans.iter().any(|(s, e)| i >= *s && i < *e) {
            out.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    out
}

/// Keys passing `ok`, best first, that match the query at all.
fn ranked(
    query: &str,
    keys: &[ZhKey],
    df: &BTreeMap<String, usize>,
    contrast: &Contrast,
    ok: impl Fn(&ZhKey) -> bool,
) -> Vec<ZhMatch> {
    let mut out: Vec<ZhMatch> = (0..keys.len())
        .filter(|&i| ok(&keys[i]))
        .map(|i| zh_match(query, keys, df, contrast, i))
        .filter(|m| m.score >= 0.75)
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.idx.cmp(&b.idx)));
    out
}

fn start(m: &ZhMatch) -> usize {
    m.spans.iter().map(|s| s.0).min().unwrap_or(0)
}

/// The comparison and number right after one of the key's matched spans.
fn threshold_of(query: &str, m: &ZhMatch) -> Option<(Cmp, f64)> {
    let mut ends: Vec<usize> = m.spans.iter().map(|s| s.1).collect();
    ends.sort_unstable();
    ends.into_iter().find_map(|e| threshold_after(query, e, THRESHOLD_WINDOW_CHARS))
}

/// A numeric key followed by a comparison and a number is a predictor, not an outcome.
fn has_threshold(query: &str, m: &ZhMatch) -> bool {
    threshold_of(query, m).is_some()
}

/// X candidates tried at most (a candidate with one level in the cohort is skipped).
const MAX_X_CANDIDATES: usize = 4;

/// The dictionary of one cause of action's feature keys.
pub(in crate::method::offline) struct ZhIndex {
    cause: String,
    keys: Vec<ZhKey>,
    df: BTreeMap<String, usize>,
    contrast: Contrast,
}

impl ZhIndex {
    /// The cause of action the query names (the longest `cases.anyou` value in it) and its
    /// dictionary, built once per view of the route; `None` when the query names no cause.
    fn load(reader: &Reader, query: &str) -> Result<Option<Arc<ZhIndex>>> {
        let anyou = reader.rows("SELECT DISTINCT anyou FROM cases WHERE anyou IS NOT NULL")?;
        let Some(cause) = anyou
            .iter()
            .filter_map(|r| r.first())
            .filter(|a| query.contains(a.as_str()))
            .max_by_key(|a| a.chars().count())
            .cloned()
        else {
            return Ok(None);
        };
        let index = reader.dicts.zh_causes.get_or_try_make(&cause, || ZhIndex::build(reader, &cause).map(Arc::new))?;
        Ok(Some(index))
    }

    /// Read the feature rows and decision texts of the cause's cases and index them.
    fn build(reader: &Reader, cause: &str) -> Result<ZhIndex> {
        let db = reader.db;
        let rows = column_strings(
            db,
            &format!(
                "SELECT f.anhao, f.feature_key, f.feature_value FROM case_features f JOIN cases c ON c.anhao = f.anhao \
                 WHERE c.anyou = {} AND f.feature_value IS NOT NULL",
                lit(cause)
            ),
        )?;
        let texts: BTreeMap<String, String> =
            column_strings(db, &format!("SELECT anhao, wenshu_content FROM cases WHERE anyou = {}", lit(cause)))?
                .into_iter()
                .filter_map(|r| match r.as_slice() {
                    [id, text] => Some((id.clone(), text.clone())),
                    _ => None,
                })
                .collect();
        let mut by_key: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for r in &rows {
            let [_, k, v] = r.as_slice() else { continue };
            by_key.entry(k.clone()).or_default().insert(v.clone());
        }
        let contrast = Contrast::new(texts, &rows);
        let keys: Vec<ZhKey> = by_key
            .into_iter()
            .map(|(key, values)| {
                let values: Vec<String> = values.into_iter().collect();
                let kind = if values.iter().all(|v| v == "是" || v == "否") {
                    Kind::YesNo
                } else if values.iter().all(|v| v.trim().parse::<f64>().is_ok()) {
                    Kind::Numeric
                } else {
                    Kind::Enum
                };
                ZhKey { key, kind, values }
            })
            .collect();
        let mut df: BTreeMap<String, usize> = BTreeMap::new();
        for k in &keys {
            for b in bigrams(&stem(&k.key)) {
                *df.entry(b).or_default() += 1;
            }
        }
        Ok(ZhIndex { cause: cause.to_string(), keys, df, contrast })
    }
}

/// Score a key needs to become a counting condition (two distinctive bigrams, or one
/// paraphrase whose words separate the key's 是 and 否 texts).
const MIN_CONDITION_SCORE: f64 = 1.5;
/// Conditions read from one counting query at most.
const MAX_CONDITIONS: usize = 5;

/// Chinese counting conditions on feature keys, for the descriptive planner: repeatedly the
/// best-matching key of the still-unexplained query words. Yes/no keys take the side the texts
/// support (是, or 否 for "未适用缓刑"); enum keys need a named value; numeric keys a comparison.
/// Returns SQL clauses over `cases c` (the cause first), or `None` without a cause.
pub(in crate::method::offline) fn zh_count_conditions(reader: &Reader, query: &str) -> Result<Option<Conditions>> {
    let Some(index) = ZhIndex::load(reader, query)? else { return Ok(None) };
    let ZhIndex { cause, keys, df, contrast } = &*index;
    let mut rest = query.replace(cause.as_str(), &" ".repeat(cause.len()));
    let mut used = BTreeSet::new();
    let mut clauses = vec![Clause::Equals { column: "anyou", value: cause.clone() }];
    let mut described = vec![format!("anyou = {cause}")];
    for _ in 0..MAX_CONDITIONS * 2 {
        if clauses.len() > MAX_CONDITIONS {
            break;
        }
        let Some(m) = ranked(&rest, keys, df, contrast, |k| !used.contains(&k.key)).into_iter().next() else {
            break;
        };
        if m.score < MIN_CONDITION_SCORE {
            break;
        }
        let k = &keys[m.idx];
        used.insert(k.key.clone());
        let exists = |test: ValueTest| Clause::ZhFeature { key: k.key.clone(), test, exists: true };
        let clause = match k.kind {
            Kind::YesNo => {
                let want = if m.negative { "否" } else { "是" };
                described.push(format!("{} = {want}", k.key));
                Some(exists(ValueTest::Equals(want.to_string())))
            }
            Kind::Enum => m.enum_value.as_ref().map(|v| {
                described.push(format!("{} = {v}", k.key));
                exists(ValueTest::Equals(v.clone()))
            }),
            Kind::Numeric => threshold_of(&rest, &m).map(|(cmp, t)| {
                described.push(format!("{} {} {t}", k.key, cmp.sql()));
                exists(ValueTest::Compare(cmp, t))
            }),
        };
        clauses.extend(clause);
        rest = mask(&rest, &m.spans);
    }
    Ok(Some(Conditions { clauses, described }))
}

pub(super) fn solve_zh(reader: &Reader, task: &PublicTask) -> Result<Option<RelationPlan>> {
    let query = task.query.as_str();
    let Some(index) = ZhIndex::load(reader, query)? else { return Ok(None) };
    let ZhIndex { cause, keys, df, contrast } = &*index;
    let masked = query.replace(cause.as_str(), &" ".repeat(cause.len()));
    let continuous = wants_continuous(task);
    let y = if continuous {
        let numeric = ranked(&masked, keys, df, contrast, |k| k.kind == Kind::Numeric);
        match numeric.iter().find(|m| !has_threshold(&masked, m)) {
            Some(y) => y.clone(),
            None => return Ok(None),
        }
    } else {
        let Some(first) = ranked(&masked, keys, df, contrast, |_| true).into_iter().next() else {
            return Ok(None);
        };
        let rest = mask(&masked, &first.spans);
        let second = ranked(&rest, keys, df, contrast, |k| k.key != keys[first.idx].key).into_iter().next();
        let yes_no = |m: &ZhMatch| keys[m.idx].kind == Kind::YesNo;
        // The outcome is a yes/no key; of two, the one the query marks as the thing decided
        // ("与是否适用缓刑之间"), else the one the decisions state later — judgments give the facts
        // first and the ruling last, so an outcome's words sit at the end of the texts.
        match second {
            Some(second) if yes_no(&first) && yes_no(&second) => {
                let asked = |m: &ZhMatch| masked[..start(m)].trim_end().ends_with("是否");
                let late = |m: &ZhMatch| contrast.lateness(&keys[m.idx].key, &masked, &m.spans);
                if asked(&first) != asked(&second) {
                    if asked(&first) { first } else { second }
                } else if late(&first) >= late(&second) {
                    first
                } else {
                    second
                }
            }
            Some(second) if yes_no(&second) && !yes_no(&first) => second,
            _ if yes_no(&first) => first,
            _ => return Ok(None),
        }
    };
    let yk = &keys[y.idx];
    let rest = mask(&masked, &y.spans);
    let mut last_err = None;
    for x in ranked(&rest, keys, df, contrast, |k| k.key != yk.key).into_iter().take(MAX_X_CANDIDATES) {
        let xk = &keys[x.idx];
        let test = match xk.kind {
            Kind::YesNo => Test::Truthy,
            Kind::Enum => match &x.enum_value {
                Some(v) => Test::Equals(v.clone()),
                None => continue,
            },
            Kind::Numeric => match threshold_of(&rest, &x) {
                Some((cmp, t)) => Test::Compare(cmp, t),
                None => continue,
            },
        };
        let sql = format!(
            "SELECT c.anhao, x.feature_value, y.feature_value FROM cases c \
             JOIN case_features x ON x.anhao = c.anhao AND x.feature_key = {} \
             JOIN case_features y ON y.anhao = c.anhao AND y.feature_key = {} \
             WHERE c.anyou = {} ORDER BY c.anhao",
            lit(&xk.key),
            lit(&yk.key),
            lit(cause)
        );
        let plan = json!({"cause": cause, "x": xk.key, "x_test": format!("{test:?}"), "y": yk.key,
            "shape": if continuous { "continuous" } else { "binary" }});
        // The join over the view's cached case rows (see `count::CaseTable::cohort`).
        let scope = Clause::Equals { column: "anyou", value: cause.clone() };
        let join = |key: &str| Join { matter: None, key: key.to_string(), observed: false };
        let cases = reader.cases(Language::Zh)?;
        let rows = cases.cohort(&scope, &[join(&xk.key), join(&yk.key)]);
        match associate(task, sql, &rows, &test, None, plan) {
            Ok(Some(p)) => return Ok(Some(p)),
            Ok(None) => {}
            // One X level only in the cohort (e.g. the phrase restates the outcome's scope).
            Err(e @ crate::Error::Statistics(_)) => last_err = Some(e),
            Err(e) => return Err(e),
        }
    }
    match last_err {
        Some(e) => Err(e),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_masks() {
        for (key, want) in
            [("是否超速超载", "超速超载"), ("刑期（月）", "刑期"), ("被告是否包括保险公司", "包括保险公司")]
        {
            assert_eq!(stem(key), want);
        }
        let q = "交通肇事罪案件";
        assert_eq!(mask(q, &[(0, 6)]), "      肇事罪案件");
    }
}
