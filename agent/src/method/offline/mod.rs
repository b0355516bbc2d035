//! `offline`: a deterministic planner that needs no LLM — the baseline row of every ablation
//! table and the method of `anser demo`.
//!
//! It works from the corpus's own dictionaries, never from task templates or ground truth (it
//! receives `PublicTask`s only; every read goes through the guarded SQL tool, which hides
//! finance ground-truth rows and records after a stated cutoff):
//! - legal descriptive (counting): the conditions of the query are matched to the corpus's
//!   dictionary — Chinese cause of action (`cases.anyou`), feature keys scored by weighted
//!   bigrams of their names and by the words of the decision texts that separate a key's 是 and
//!   否 cases (so paraphrases map, and "未适用缓刑" takes the 否 side), enum values, numeric
//!   comparisons, years; English matter types, features and outcomes of `annotation_registry`
//!   (display names with `…` placeholders filled by allowed values or numbers) — and the
//!   qualifying cases are counted with SQL; the counted population is the evidence. Conditions
//!   it cannot map are left out (recorded in the trace), so counts over-approximate.
//! - legal predictive ([`legal_predictive`]): cohort, X and Y from the same dictionaries; the
//!   association statistics from the compute tool; the cohort is the evidence.
//! - finance reports ([`finance`]): SQL look-ups and computations over the structured figures
//!   (values, changes, trends, options, screens, counts, means, rankings, outlook ranges);
//!   text-only types get the reports the query names as evidence and a composed answer.
//! - FinAuditing ([`audit`]): the fact, the DQC rule listing its concept, the rule's logic.
//! - everything else (and whatever a plan cannot map): retrieval (the configured retriever, the
//!   official baseline's depth) gives the evidence. A free-text answer is extractive (the first
//!   sentence of the best passage, flagged `extractive_answer`); a count, an association or a
//!   rule value that no plan produced is not guessed: the status is `no_plan`, evidence only.
//!
//! Its scores on the generated sample are a pipeline health figure, not a claim about the real
//! benchmark.

mod audit;
mod finance;
mod legal_predictive;
mod once_map;

use std::{collections::BTreeSet, path::PathBuf, sync::Arc, time::Instant};

use anser_manifest::{Domain, Language, PublicTask, Split};
use futures_util::{FutureExt, future::BoxFuture};
use serde_json::{Value, json};

use legal_predictive::{Clause, Reader, ValueTest, count_sql};

use super::{
    Solved, Solver,
    output::AnswerContract,
    rag::retrieval_depth,
    search::{Searcher, evidence_of},
};
use crate::{
    Result,
    run::{GenerationStatus, Stage, TaskTrace},
    tools::sql::{GuardedDb, SqlParamsBuilder},
};

/// A literal pattern of the planner, compiled once per process, so a pattern used inside a loop
/// over companies, facts or rules is not compiled again on every pass. Patterns built from
/// corpus values (escaped names and codes) are compiled where they are made, not kept here.
fn re(pattern: &'static str) -> regex::Regex {
    static COMPILED: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<&'static str, regex::Regex>>> =
        std::sync::LazyLock::new(Default::default);
    let mut compiled = COMPILED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    compiled.entry(pattern).or_insert_with(|| regex::Regex::new(pattern).expect("static regex")).clone()
}

/// The planner's SQL limits: whole populations and dictionaries are read, so more rows and
/// time than an LLM's tool call gets; text cells keep the tool's default length (enough for
/// the decision texts the Chinese matcher contrasts).
const PLANNER_SQL: SqlParamsBuilder =
    SqlParamsBuilder { time_limit_ms: 30_000, max_rows: 1_000_000, max_cell_chars: 2_000, ..SqlParamsBuilder::DEFAULT };
/// Finance plans also read whole report texts (outlooks, risk lists, learned metric labels).
const PLANNER_SQL_TEXT: SqlParamsBuilder = SqlParamsBuilder { max_cell_chars: 200_000, ..PLANNER_SQL };

/// Longest extractive answer in characters.
pub const MAX_EXTRACT_CHARS: usize = 300;

/// The offline planner.
#[derive(Debug)]
pub struct Offline {
    corpus_root: PathBuf,
    searcher: Arc<dyn Searcher>,
    /// Finance routes read once per process (see `finance::RouteCache`).
    finance_routes: finance::RouteCache,
    /// Legal dictionaries read once per process and set of hiding conditions (see
    /// `legal_predictive::LegalCache`).
    legal_dictionaries: legal_predictive::LegalCache,
}

impl Offline {
    pub fn new(corpus_root: PathBuf, searcher: Arc<dyn Searcher>) -> Offline {
        Offline {
            corpus_root,
            searcher,
            finance_routes: finance::RouteCache::default(),
            legal_dictionaries: legal_predictive::LegalCache::default(),
        }
    }

    /// How many legal dictionary views (a route as connections with one set of hiding
    /// conditions see it) this planner has read so far.
    pub fn legal_views_read(&self) -> usize {
        self.legal_dictionaries.len()
    }

    /// How many finance routes this planner has read so far (each is read once, then shared
    /// by every task of the route).
    pub fn finance_routes_read(&self) -> usize {
        self.finance_routes.len()
    }

    /// Answer one task on the calling thread (what [`Solver::solve`] runs); for tests and
    /// tools that drive the planner without an async runtime.
    pub fn solve_now(&self, task: &PublicTask, trace: &mut TaskTrace) -> Solved {
        self.solve_task(task, trace)
    }

    fn solve_task(&self, task: &PublicTask, trace: &mut TaskTrace) -> Solved {
        let g = task.group;
        if g.domain == Domain::Legal && g.split == Split::Predictive {
            match self.relation(task, trace) {
                Ok(Some(solved)) => return solved,
                Ok(None) => trace.note("plan", json!({"fallback": "the query did not map to the feature registry"})),
                Err(e) => trace.note("plan", json!({"fallback": e.to_string()})),
            }
        }
        if g.domain == Domain::Finance
            && g.split == Split::Prescriptive
            && task.task_type.as_deref() == Some("FinAuditing")
        {
            match self.audit(task, trace) {
                Ok(Some(solved)) => return solved,
                Ok(None) => trace.note("plan", json!({"fallback": "no fact or applicable rule found"})),
                Err(e) => trace.note("plan", json!({"fallback": e.to_string()})),
            }
        }
        if g.domain == Domain::Finance && g.split != Split::Prescriptive {
            match self.finance(task, trace) {
                Ok(Some(solved)) => return solved,
                Ok(None) => trace.note("plan", json!({"fallback": "the query did not map to the figures"})),
                Err(e) => trace.note("plan", json!({"fallback": e.to_string()})),
            }
        }
        if g.domain == Domain::Legal && g.split == Split::Descriptive {
            match self.count_cases(task, trace) {
                Ok(Some(solved)) => return solved,
                Ok(None) => trace.note("plan", json!({"fallback": "no condition matched the dictionary"})),
                Err(e) => trace.note("plan", json!({"fallback": e.to_string()})),
            }
        }
        self.retrieve_and_extract(task, trace)
    }

    /// Open the task's guarded connection with `sql` limits, run one plan family's `solve` and
    /// trace it: a query that does not map as a `plan` step (`mapped: false`), a plan as a
    /// `tool_call` step carrying what `describe` reports.
    fn traced_plan<P>(
        &self,
        task: &PublicTask,
        trace: &mut TaskTrace,
        stage: Stage,
        sql: SqlParamsBuilder,
        solve: impl FnOnce(&GuardedDb) -> Result<Option<P>>,
        describe: impl FnOnce(&P, &GuardedDb) -> Value,
    ) -> Result<Option<P>> {
        let started = Instant::now();
        let db = GuardedDb::for_task(&self.corpus_root, task, sql.build()?)?;
        let Some(plan) = solve(&db)? else {
            trace.record("plan", stage, started, 0, json!({"mapped": false}), None);
            return Ok(None);
        };
        trace.record("tool_call", stage, started, 0, describe(&plan, &db), None);
        Ok(Some(plan))
    }

    /// Cohort and association statistics of a legal predictive task.
    fn relation(&self, task: &PublicTask, trace: &mut TaskTrace) -> Result<Option<Solved>> {
        let solve = |db: &GuardedDb| legal_predictive::solve(&self.legal_dictionaries.reader(db)?, task);
        let describe = |plan: &legal_predictive::RelationPlan, db: &GuardedDb| json!({"plan": plan.plan, "sql": plan.sql, "cohort": plan.evidence.len(), "boundary": db.boundary()});
        let Some(plan) = self.traced_plan(task, trace, Stage::Compute, PLANNER_SQL, solve, describe)? else {
            return Ok(None);
        };
        Ok(Some(Solved::answered(plan.answer, plan.evidence, Vec::new())))
    }

    /// Locate the fact, the governing DQC rule, and apply it.
    fn audit(&self, task: &PublicTask, trace: &mut TaskTrace) -> Result<Option<Solved>> {
        let solve = |db: &GuardedDb| audit::solve(db, &task.query);
        let describe = |plan: &audit::AuditPlan, _: &GuardedDb| json!({"plan": plan.plan});
        let Some(plan) = self.traced_plan(task, trace, Stage::Sql, PLANNER_SQL, solve, describe)? else {
            return Ok(None);
        };
        Ok(Some(Solved::answered(plan.answer, plan.evidence, Vec::new())))
    }

    /// SQL look-ups and computations over the finance figures; the extractive fallback answers
    /// what the figures cannot, with the plan's evidence kept.
    fn finance(&self, task: &PublicTask, trace: &mut TaskTrace) -> Result<Option<Solved>> {
        let solve = |db: &GuardedDb| finance::solve(db, task, &self.finance_routes);
        let describe = |plan: &finance::FinPlan, db: &GuardedDb| json!({"plan": plan.plan, "evidence": plan.evidence.len(), "boundary": db.boundary()});
        let Some(plan) = self.traced_plan(task, trace, Stage::Sql, PLANNER_SQL_TEXT, solve, describe)? else {
            return Ok(None);
        };
        match plan.answer {
            Some(answer) if !answer.is_empty() => {
                Ok(Some(Solved::answered(Value::String(answer), plan.evidence, Vec::new())))
            }
            _ if plan.evidence.is_empty() => Ok(None),
            _ => {
                let mut solved = self.retrieve_and_extract(task, trace);
                solved.evidence = plan.evidence;
                Ok(Some(solved))
            }
        }
    }

    /// Count the cases matching the dictionary conditions found in the query.
    fn count_cases(&self, task: &PublicTask, trace: &mut TaskTrace) -> Result<Option<Solved>> {
        let started = Instant::now();
        let db = GuardedDb::for_task(&self.corpus_root, task, PLANNER_SQL.build()?)?;
        let reader = self.legal_dictionaries.reader(&db)?;
        let lang = task.group.language;
        let (clauses, conditions) = match lang {
            Language::Zh => zh_count_clauses(&reader, &task.query)?,
            Language::En => en_count_clauses(&reader, &task.query)?,
        };
        trace.record("plan", Stage::Compute, started, 0, json!({"conditions": conditions}), None);
        if conditions.is_empty() {
            return Ok(None);
        }
        // The count runs over the case rows the task's view shows (read once per route and set
        // of hiding conditions), not as a scan of the case table per task; the trace gives the
        // SQL statement it evaluates.
        let started = Instant::now();
        let (table, id) = match lang {
            Language::Zh => ("cases", "anhao"),
            Language::En => ("case_record", "case_id"),
        };
        let ids = reader.cases(lang)?.matching(&clauses);
        trace.record(
            "tool_call",
            Stage::Sql,
            started,
            0,
            json!({"tool": "sql", "sql": count_sql(table, id, &clauses), "rows": ids.len(), "over": "cached view rows"}),
            None,
        );
        let evidence: Vec<Value> = ids.iter().map(|s| Value::String(s.clone())).collect();
        Ok(Some(Solved::answered(Value::String(ids.len().to_string()), evidence, Vec::new())))
    }

    fn retrieve_and_extract(&self, task: &PublicTask, trace: &mut TaskTrace) -> Solved {
        let query = format!("{}\n{}", task.query, task.instruction);
        let k = retrieval_depth(task);
        let started = Instant::now();
        let hits = match self.searcher.search(task, &query, k) {
            Ok(h) => h,
            Err(e) => {
                trace.record("retrieval", Stage::Retrieval, started, 0, json!({"k": k}), Some(e.clone()));
                return Solved::failed(GenerationStatus::ToolError, Vec::new(), format!("retrieval failed: {e}"), None);
            }
        };
        trace.record(
            "retrieval",
            Stage::Retrieval,
            started,
            0,
            json!({"retriever": self.searcher.spec(), "k": k, "hits": hits.len()}),
            None,
        );
        let evidence = evidence_of(&hits);
        match AnswerContract::of(task) {
            // Free text: the first sentence of the best passage, marked as extractive.
            AnswerContract::Text => match hits.first().map(|h| first_sentence(&h.text)) {
                Some(a) if !a.is_empty() => {
                    Solved::answered(Value::String(a), evidence, vec!["extractive_answer".into()])
                }
                _ => no_plan(evidence, "no passage was retrieved to extract an answer from"),
            },
            // A count, an association or a rule value needs a plan; none was found, so the
            // status says so instead of guessing a number.
            AnswerContract::Integer | AnswerContract::Relation | AnswerContract::RuleValue => no_plan(
                evidence,
                "the offline planner could not map this question to the corpus's dictionaries; evidence only",
            ),
        }
    }
}

/// Evidence without an answer, with the reason.
fn no_plan(evidence: Vec<Value>, why: &str) -> Solved {
    Solved {
        answer: Value::String(String::new()),
        evidence,
        status: GenerationStatus::NoPlan,
        errors: vec![why.to_string()],
        usage: None,
        flags: Vec::new(),
    }
}

/// The first sentence of a passage (Chinese or English), at most [`MAX_EXTRACT_CHARS`].
fn first_sentence(text: &str) -> String {
    let text = text.trim();
    let end = text
        .char_indices()
        .find(|(i, c)| {
            matches!(c, '。' | '！' | '？')
                || (matches!(c, '.' | '!' | '?') && text[i + 1..].starts_with(char::is_whitespace))
        })
        .map_or(text.len(), |(i, c)| i + c.len_utf8());
    text[..end].chars().take(MAX_EXTRACT_CHARS).collect::<String>().replace('\n', " ")
}

fn lit(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The rules a connection hides rows by: (table, SQL condition a visible row satisfies).
type HidingRules = Vec<(String, String)>;

/// The hiding rules of `db`: connections with the same rules show the same rows, so what one
/// of them read may serve the others (the planner's per-process caches are keyed by them).
fn hiding_rules(db: &GuardedDb) -> HidingRules {
    db.hidden_rules().iter().map(|r| (r.table.clone(), r.keep_when.clone())).collect()
}

fn column_strings(db: &GuardedDb, sql: &str) -> Result<Vec<Vec<String>>> {
    let r = db.query_with(sql, 100_000)?;
    Ok(r.rows
        .into_iter()
        .map(|row| row.into_iter().map(|v| v.as_str().map(String::from).unwrap_or_else(|| v.to_string())).collect())
        .collect())
}

/// Negation just before a matched phrase ("未适用缓刑", "没有自首").
fn negated_zh(query: &str, at: usize) -> bool {
    let before: String = query[..at].chars().rev().take(2).collect::<Vec<_>>().into_iter().rev().collect();
    ["未", "没有", "不", "无", "非"].iter().any(|n| before.ends_with(n))
}

/// Chinese counting: the cause of action, then the feature conditions the cause's dictionary
/// and decision texts explain (see `legal_predictive::zh_count_conditions`), procedure and
/// document type, years. Without a named cause: exact feature values and yes/no key stems.
fn zh_count_clauses(reader: &Reader, query: &str) -> Result<(Vec<Clause>, Vec<String>)> {
    if let Some(found) = legal_predictive::zh_count_conditions(reader, query)? {
        let (mut clauses, mut conditions) = (found.clauses, found.described);
        zh_case_fields(reader, query, &mut clauses, &mut conditions)?;
        zh_years(query, &mut clauses, &mut conditions);
        return Ok((clauses, conditions));
    }
    let mut clauses = Vec::new();
    let mut conditions = Vec::new();
    let anyou = reader.rows("SELECT DISTINCT anyou FROM cases WHERE anyou IS NOT NULL")?;
    if let Some(a) =
        anyou.iter().filter_map(|r| r.first()).filter(|a| query.contains(a.as_str())).max_by_key(|a| a.chars().count())
    {
        clauses.push(Clause::Equals { column: "anyou", value: a.clone() });
        conditions.push(format!("anyou = {a}"));
    }
    zh_case_fields(reader, query, &mut clauses, &mut conditions)?;
    let pairs = reader.rows("SELECT DISTINCT feature_key, feature_value FROM case_features")?;
    let mut yes_no_keys = BTreeSet::new();
    for p in pairs.iter() {
        let (Some(key), Some(value)) = (p.first(), p.get(1)) else { continue };
        if value == "是" || value == "否" {
            yes_no_keys.insert(key.clone());
            continue;
        }
        let is_number = value.parse::<f64>().is_ok();
        if !is_number && value.chars().count() >= 2 {
            if let Some(at) = query.find(value.as_str()) {
                let exists = !negated_zh(query, at);
                clauses.push(Clause::ZhFeature { key: key.clone(), test: ValueTest::Equals(value.clone()), exists });
                conditions.push(format!("{key} {} {value}", if exists { "=" } else { "≠" }));
            }
        }
    }
    for key in yes_no_keys {
        let stem = key.replacen("是否", "", 1);
        let phrase = stem.trim_start_matches("被告").to_string();
        if phrase.chars().count() < 2 {
            continue;
        }
        if let Some(at) = query.find(phrase.as_str()) {
            let want = if negated_zh(query, at) { "否" } else { "是" };
            conditions.push(format!("{key} = {want}"));
            clauses.push(Clause::ZhFeature { key, test: ValueTest::Equals(want.to_string()), exists: true });
        }
    }
    zh_years(query, &mut clauses, &mut conditions);
    Ok((clauses, conditions))
}

/// Procedure and document type values of `cases` the query names, as conditions.
fn zh_case_fields(reader: &Reader, query: &str, clauses: &mut Vec<Clause>, conditions: &mut Vec<String>) -> Result<()> {
    for (col, label) in [("shenpanchengxu", "procedure"), ("wenshuleixing", "document type")] {
        for v in reader
            .rows(&format!("SELECT DISTINCT {col} FROM cases WHERE {col} IS NOT NULL"))?
            .iter()
            .filter_map(|r| r.first())
        {
            if v.chars().count() >= 2 && query.contains(v.as_str()) {
                clauses.push(Clause::Equals { column: col, value: v.clone() });
                conditions.push(format!("{label} = {v}"));
            }
        }
    }
    Ok(())
}

/// The years the query names, as conditions on the decision date.
fn zh_years(query: &str, clauses: &mut Vec<Clause>, conditions: &mut Vec<String>) {
    for y in &regex_years(query) {
        clauses.push(Clause::Like { column: "caipanriqi", pattern: format!("{y}%") });
        conditions.push(format!("year = {y}"));
    }
}

fn regex_years(query: &str) -> BTreeSet<String> {
    let chars: Vec<char> = query.chars().collect();
    let mut out = BTreeSet::new();
    for w in chars.windows(5) {
        if w[..4].iter().all(char::is_ascii_digit) && w[4] == '年' {
            out.insert(w[..4].iter().collect());
        }
    }
    out
}

fn normalize_en(s: &str) -> String {
    s.to_lowercase().replace(['-', '_'], " ")
}

/// English counting: the matter type and the features it names (see
/// `legal_predictive::en_count_conditions`); without a named matter, boolean features of any
/// matter by display name and aliases.
fn en_count_clauses(reader: &Reader, query: &str) -> Result<(Vec<Clause>, Vec<String>)> {
    if let Some(found) = legal_predictive::en_count_conditions(reader, query)? {
        return Ok((found.clauses, found.described));
    }
    let q = normalize_en(query);
    let registry = reader.rows(
        "SELECT registry_type, registry_key, COALESCE(parent_key, ''), COALESCE(display_name, ''), COALESCE(aliases_json, '[]'), COALESCE(allowed_values_json, '') FROM annotation_registry",
    )?;
    let mut clauses = Vec::new();
    let mut conditions = Vec::new();
    for row in registry.iter() {
        let [kind, key, parent, display, aliases, allowed] = row.as_slice() else { continue };
        let mut names = vec![normalize_en(display)];
        if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(aliases) {
            names.extend(a.iter().filter_map(Value::as_str).map(normalize_en));
        }
        let hit = names.iter().any(|n| n.chars().count() >= 4 && !n.contains('…') && q.contains(n.as_str()));
        if !hit {
            continue;
        }
        if kind == "matter_type" {
            clauses.push(Clause::Like { column: "matter_types_json", pattern: format!("%\"{key}\"%") });
            conditions.push(format!("matter = {key}"));
        } else if allowed.contains("true") {
            let feature = key.rsplit('.').next().unwrap_or(key);
            clauses.push(Clause::EnFeature {
                matter: parent.clone(),
                key: feature.to_string(),
                observed: false,
                test: ValueTest::Equals("true".into()),
            });
            conditions.push(format!("{key} = true"));
        }
    }
    Ok((clauses, conditions))
}

impl Solver for Offline {
    fn name(&self) -> &str {
        "offline"
    }

    fn solve<'a>(&'a self, task: &'a PublicTask, trace: &'a mut TaskTrace) -> BoxFuture<'a, Solved> {
        async move { tokio::task::block_in_place(|| self.solve_task(task, trace)) }.boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_and_years() {
        assert_eq!(first_sentence("结论是合规。其余说明"), "结论是合规。");
        assert_eq!(first_sentence("Yes. The rule applies.\nMore"), "Yes.");
        assert_eq!(first_sentence("v1.2 is fine"), "v1.2 is fine");
        assert_eq!(
            regex_years("裁判日期在2021年和2023年"),
            ["2021".to_string(), "2023".to_string()].into_iter().collect()
        );
        assert!(negated_zh("未适用缓刑", 3));
        assert!(!negated_zh("适用缓刑", 0));
    }
}
