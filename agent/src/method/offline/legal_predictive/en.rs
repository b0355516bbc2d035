//! English legal plans: the matter type, outcomes and features of `annotation_registry`, whose
//! display names with a `…` placeholder are matched as patterns filled by an allowed value or a
//! number — for the predictive cohort and the descriptive planner's counting conditions.

use std::{
    collections::{BTreeSet, HashMap},
    sync::Arc,
};

use anser_manifest::{Language, PublicTask};
use serde_json::{Value, json};

use super::{
    Clause, Cmp, Conditions, EN_COHORT_VALUE, Join, RelationPlan, Test, ValueTest, associate, cache::Reader, number_re,
};
use crate::{
    Result,
    method::offline::{column_strings, lit, re},
};

/// One `annotation_registry` entry with its names normalised for matching.
#[derive(Debug, Clone)]
pub(in crate::method::offline) struct Entry {
    kind: String,
    key: String,
    parent: String,
    names: Vec<String>,
    value_type: String,
    allowed: Vec<String>,
}

fn norm(s: &str) -> String {
    s.to_lowercase().replace(['-', '_'], " ")
}

/// Number words a query may spell out.
const NUMBER_WORDS: &[(&str, u32)] = &[
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("fifteen", 15),
    ("twenty", 20),
];

/// A query normalised like the registry names, with numbers in one form: spelled-out numbers
/// as digits, and "N or more …", "no fewer than N", "a minimum of N" as "at least N" (the
/// comparisons mean the same; registry names use one wording).
fn norm_query(query: &str) -> String {
    // The number words' patterns, compiled once per process.
    static WORDS: std::sync::LazyLock<Vec<(regex::Regex, String)>> = std::sync::LazyLock::new(|| {
        NUMBER_WORDS
            .iter()
            .map(|(w, n)| (regex::Regex::new(&format!(r"\b{w}\b")).expect("static regex"), n.to_string()))
            .collect()
    });
    let mut q = norm(query);
    for (word, n) in WORDS.iter() {
        q = word.replace_all(&q, n.as_str()).into_owned();
    }
    q = re(r"\b(\$?[\d,.]+)\s+or\s+more\b").replace_all(&q, "at least $1").into_owned();
    re(r"\b(?:no fewer than|no less than|not less than|a minimum of|minimum of)\s+")
        .replace_all(&q, "at least ")
        .into_owned()
}

/// Where an entry's name matches `q` (normalised) and the filler of a `…` placeholder.
fn en_find(q: &str, e: &Entry) -> Option<(usize, usize, Option<String>)> {
    en_find_exact(q, e).or_else(|| en_find_words(q, e))
}

/// Words that carry no meaning of their own in a registry name.
const EN_STOP_WORDS: &[&str] = &[
    "with", "from", "that", "this", "were", "have", "case", "cases", "about", "into", "than", "more", "less", "their",
];

/// A word's stem for matching: its first five letters ("analysis"/"analyze", "allegations"/
/// "alleged" stay apart, "substantive"/"substance" meet).
fn stem5(w: &str) -> String {
    w.chars().take(5).collect()
}

/// A placeholder-free name matched by its content words in any order and form within one
/// stretch of the query ("allegations of excessive force" for "excessive-force allegations"):
/// every content word's stem must occur, within a span of at most three times the name's words.
fn en_find_words(q: &str, e: &Entry) -> Option<(usize, usize, Option<String>)> {
    let words: Vec<(usize, usize, String)> =
        re(r"[a-z0-9$§]+").find_iter(q).map(|m| (m.start(), m.end(), stem5(m.as_str()))).collect();
    for name in e.names.iter().filter(|n| !n.contains('…')) {
        let content: Vec<String> = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 4 && !EN_STOP_WORDS.contains(w))
            .map(stem5)
            .collect();
        if content.len() < 2 {
            continue;
        }
        let hits: Vec<&(usize, usize, String)> = words.iter().filter(|(_, _, w)| content.contains(w)).collect();
        if !content.iter().all(|c| hits.iter().any(|h| &h.2 == c)) {
            continue;
        }
        // The tightest run of query words that holds every content word.
        let mut best: Option<(usize, usize)> = None;
        for (i, first) in hits.iter().enumerate() {
            let mut need: BTreeSet<&String> = content.iter().collect();
            for h in &hits[i..] {
                need.remove(&&h.2);
                if need.is_empty() {
                    let span = (first.0, h.1);
                    if best.is_none_or(|b| span.1 - span.0 < b.1 - b.0) {
                        best = Some(span);
                    }
                    break;
                }
            }
        }
        let (s, end) = best?;
        let span_words = words.iter().filter(|w| w.0 >= s && w.1 <= end).count();
        if span_words <= content.len() * 3 {
            return Some((s, end, None));
        }
    }
    None
}

/// Where a name matches literally (placeholders filled by allowed values or numbers).
fn en_find_exact(q: &str, e: &Entry) -> Option<(usize, usize, Option<String>)> {
    for name in &e.names {
        match name.split_once('…') {
            None => {
                if name.chars().count() >= 4 {
                    if let Some(at) = q.find(name.as_str()) {
                        return Some((at, at + name.len(), None));
                    }
                }
            }
            Some((pre, post)) => {
                let (pre, post) = (pre.trim(), post.trim());
                let pattern = format!(
                    "{}(?P<f>[a-z0-9$.,' -]+?){}",
                    if pre.is_empty() { String::new() } else { format!(r"\b{}\s*", regex::escape(pre)) },
                    if post.is_empty() { r"\b".to_string() } else { format!(r"\s*{}", regex::escape(post)) }
                );
                let Some(re) = placeholder_regex(pattern) else { continue };
                for caps in re.captures_iter(q) {
                    let (Some(all), Some(f)) = (caps.get(0), caps.name("f")) else { continue };
                    // A placeholder at an end of the name captures from the sentence start (or
                    // to its end): keep the allowed value or number next to the fixed words.
                    let raw = f.as_str().trim();
                    let filler = if e.value_type == "number" {
                        let nums: Vec<&str> = number_re().find_iter(raw).map(|m| m.as_str()).collect();
                        let pick = if pre.is_empty() { nums.last() } else { nums.first() };
                        pick.map(|n| n.replace(',', ""))
                    } else {
                        e.allowed.iter().map(|a| norm(a)).find(|a| {
                            raw == a
                                || (pre.is_empty() && raw.ends_with(&format!(" {a}")))
                                || (post.is_empty() && raw.starts_with(&format!("{a} ")))
                        })
                    };
                    if let Some(filler) = filler {
                        return Some((all.start(), all.end(), Some(filler)));
                    }
                }
            }
        }
    }
    None
}

/// The regex of a name with a placeholder, compiled once per process (names come from the
/// registry, so there are as many as its entries have); `None` when it does not compile.
fn placeholder_regex(pattern: String) -> Option<regex::Regex> {
    static COMPILED: std::sync::LazyLock<std::sync::Mutex<HashMap<String, Option<regex::Regex>>>> =
        std::sync::LazyLock::new(Default::default);
    let mut compiled = COMPILED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    compiled.entry(pattern).or_insert_with_key(|p| regex::Regex::new(p).ok()).clone()
}

/// The annotation registry with names normalised for matching, prepared once per view of the
/// route.
fn registry(reader: &Reader) -> Result<Arc<Vec<Entry>>> {
    reader.dicts.en_registry.get_or_try_make(&(), || read_registry(reader).map(Arc::new))
}

fn read_registry(reader: &Reader) -> Result<Vec<Entry>> {
    let rows = column_strings(
        reader.db,
        "SELECT registry_type, registry_key, COALESCE(parent_key, ''), COALESCE(display_name, ''), \
         COALESCE(aliases_json, '[]'), COALESCE(value_type, ''), COALESCE(allowed_values_json, '[]') \
         FROM annotation_registry",
    )?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            let [kind, key, parent, display, aliases, vt, allowed] = r.as_slice() else { return None };
            // Names get the query's number normalisation so "at least one …" meets "1 or more …".
            let mut names = vec![norm_query(display)];
            if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(aliases) {
                names.extend(a.iter().filter_map(Value::as_str).map(norm_query));
            }
            let allowed = match serde_json::from_str::<Value>(allowed) {
                Ok(Value::Array(a)) => {
                    a.iter().map(|v| v.as_str().map(String::from).unwrap_or(v.to_string())).collect()
                }
                _ => Vec::new(),
            };
            Some(Entry {
                kind: kind.clone(),
                key: key.clone(),
                parent: parent.clone(),
                names,
                value_type: vt.clone(),
                allowed,
            })
        })
        .collect())
}

/// The matter type a query names (longest, then earliest match).
fn matter_of<'e>(q: &str, entries: &'e [Entry]) -> Option<&'e Entry> {
    entries
        .iter()
        .filter(|e| e.kind == "matter_type")
        .filter_map(|e| en_find(q, e).map(|(s, end, _)| (e, s, end)))
        .max_by_key(|(_, s, end)| (end - s, usize::MAX - s))
        .map(|(e, ..)| e)
}

/// The feature value test of a registry entry given the placeholder filler it matched with.
fn entry_test(e: &Entry, filler: &Option<String>) -> Option<Test> {
    match (e.value_type.as_str(), filler) {
        ("boolean", _) => Some(Test::Truthy),
        ("number", Some(f)) => {
            let n: f64 = f.replace(',', "").parse().ok()?;
            // "at least …" placeholders: the registry's own wording carries the comparison.
            let cmp = if e.names.iter().any(|n| n.contains("at least")) { Cmp::Ge } else { Cmp::Gt };
            Some(Test::Compare(cmp, n))
        }
        (_, Some(f)) => e.allowed.iter().find(|a| norm(a) == *f).map(|a| Test::Equals(a.clone())),
        _ => None,
    }
}

/// English counting conditions: the matter type and every feature or outcome of it the query
/// names (booleans true, enum values, "at least N" numbers), as SQL over `case_record c`.
/// `None` when no matter type is named.
pub(in crate::method::offline) fn en_count_conditions(reader: &Reader, query: &str) -> Result<Option<Conditions>> {
    let q = norm_query(query);
    let entries = registry(reader)?;
    let Some(matter) = matter_of(&q, &entries) else { return Ok(None) };
    let mut clauses = vec![Clause::Like { column: "matter_types_json", pattern: format!("%\"{}\"%", matter.key) }];
    let mut described = vec![format!("matter = {}", matter.key)];
    for e in entries.iter().filter(|e| e.parent == matter.key) {
        let Some((_, _, filler)) = en_find(&q, e) else { continue };
        let Some(test) = entry_test(e, &filler) else { continue };
        let feature = e.key.rsplit('.').next().unwrap_or(&e.key);
        let value = match &test {
            Test::Truthy => ValueTest::Truthy,
            Test::Equals(v) => ValueTest::Equals(v.clone()),
            Test::Compare(cmp, n) => ValueTest::Compare(*cmp, *n),
        };
        clauses.push(Clause::EnFeature {
            matter: matter.key.clone(),
            key: feature.to_string(),
            observed: true,
            test: value,
        });
        described.push(format!("{} {test:?}", e.key));
    }
    Ok(Some(Conditions { clauses, described }))
}

pub(super) fn solve_en(reader: &Reader, task: &PublicTask) -> Result<Option<RelationPlan>> {
    let q = norm_query(&task.query);
    let entries = registry(reader)?;
    let Some(matter) = matter_of(&q, &entries) else { return Ok(None) };
    let children: Vec<&Entry> = entries.iter().filter(|e| e.parent == matter.key).collect();
    let Some((outcome, ostart, oend, _)) = children
        .iter()
        .filter(|e| e.kind == "outcome")
        .filter_map(|e| en_find(&q, e).map(|(s, end, f)| (*e, s, end, f)))
        .max_by_key(|(_, s, end, _)| end - s)
    else {
        return Ok(None);
    };
    let mut features: Vec<(&Entry, usize, Option<String>)> = children
        .iter()
        .filter(|e| e.kind != "outcome" && e.kind != "matter_type")
        .filter_map(|e| en_find(&q, e).map(|(s, end, f)| (*e, s, end, f)))
        .filter(|(_, s, end, _)| *end <= ostart || *s >= oend)
        .map(|(e, s, _, f)| (e, s, f))
        .collect();
    features.sort_by_key(|(_, s, _)| *s);
    // With two features, the one that qualifies the population noun — nearest to the matter
    // type ("Section 1983 cases involving police involvement") — restricts the cohort, and the
    // other is X.
    if let (true, Some((ms, me, _))) = (features.len() >= 2, en_find(&q, matter)) {
        let distance = |at: usize| if at >= me { at - me } else { ms.saturating_sub(at) };
        if let Some(k) = (0..features.len()).min_by_key(|&k| distance(features[k].1)) {
            let scope = features.remove(k);
            features.insert(0, scope);
        }
    }
    let Some((x_entry, _, x_fill)) = features.last().cloned() else { return Ok(None) };
    let Some(x_test) = entry_test(x_entry, &x_fill) else { return Ok(None) };
    let restrict = match features.len() {
        0 | 1 => None,
        _ => {
            let (e, _, f) = &features[0];
            entry_test(e, f).map(|t| (*e, t))
        }
    };
    let feature_name = |e: &Entry| e.key.rsplit('.').next().unwrap_or(&e.key).to_string();
    let col = |t: &str| EN_COHORT_VALUE.replace("{t}", t);
    let join = |t: &str, e: &Entry| {
        format!(
            " JOIN case_feature {t} ON {t}.case_id = c.case_id AND {t}.matter_type = {} AND {t}.feature_key = {} \
             AND {t}.value_status = 'observed'",
            lit(&matter.key),
            lit(&feature_name(e))
        )
    };
    let mut sql = format!("SELECT c.case_id, {}, {}", col("x"), col("y"));
    if restrict.is_some() {
        sql.push_str(&format!(", {}", col("r")));
    }
    sql.push_str(" FROM case_record c");
    sql.push_str(&join("x", x_entry));
    sql.push_str(&join("y", outcome));
    if let Some((e, _)) = &restrict {
        sql.push_str(&join("r", e));
    }
    sql.push_str(&format!(
        " WHERE c.matter_types_json LIKE {} ORDER BY c.case_id",
        lit(&format!("%\"{}\"%", matter.key))
    ));
    let plan = json!({"matter": matter.key, "outcome": outcome.key, "x": x_entry.key, "x_test": format!("{x_test:?}"),
        "restrict": restrict.as_ref().map(|(e, t)| format!("{} {t:?}", e.key))});
    // The join over the view's cached case rows (see `count::CaseTable::cohort`).
    let scope = Clause::Like { column: "matter_types_json", pattern: format!("%\"{}\"%", matter.key) };
    let join = |e: &Entry| Join { matter: Some(matter.key.clone()), key: feature_name(e), observed: true };
    let mut joins = vec![join(x_entry), join(outcome)];
    joins.extend(restrict.as_ref().map(|(e, _)| join(e)));
    let cases = reader.cases(Language::En)?;
    let rows = cases.cohort(&scope, &joins);
    associate(task, sql, &rows, &x_test, restrict.as_ref().map(|(_, t)| t), plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_placeholders_need_allowed_fillers() {
        let e = Entry {
            kind: "structured_feature".into(),
            key: "asylum.country_of_origin".into(),
            parent: "asylum".into(),
            names: vec![norm("… as the country of origin")],
            value_type: "enum".into(),
            allowed: vec!["El Salvador".into(), "China".into()],
        };
        let q = norm("was El Salvador as the country of origin associated");
        assert_eq!(en_find(&q, &e).and_then(|m| m.2), Some("el salvador".into()));
        assert!(en_find(&norm("was Peru as the country of origin"), &e).is_none());
        let n = Entry {
            names: vec![norm("a sentence of at least … months")],
            value_type: "number".into(),
            allowed: vec![],
            ..e
        };
        assert_eq!(
            en_find(&norm("involving a sentence of at least 136 months compare"), &n).map(|m| m.2),
            Some(Some("136".into()))
        );
    }
}
