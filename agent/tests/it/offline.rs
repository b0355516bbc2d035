//! The offline planner over several generated samples: per group, the share of tasks it gets
//! right (answer and, where the group scores one, the population) must stay above a floor on
//! every seed — floors, not perfection, because the planner reads questions through the
//! corpus's dictionaries and generic cues and the generator phrases each task type several ways.
//! Then a handful of sample questions re-worded by hand (not in the generator's words) must
//! still be answered the same.
//!
//! The table is printed (`cargo test -p anser-agent --test it offline -- --nocapture`); it is
//! the source of the README's "Offline planner" figures.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
    sync::Arc,
};

use anser_agent::{
    method::{Offline, SearchHit, Searcher},
    run::{GenerationStatus, TaskTrace},
};
use anser_gold::Benchmark;
use anser_manifest::{Domain, PublicTask, Split};
use anser_samples::{DEFAULT_SEED, SampleOptions, SampleSummary, generate};
use serde_json::Value;

/// Seeds the floors are asserted on (the demo's seed first).
const SEEDS: [u64; 5] = [DEFAULT_SEED, 1, 2, 3, 4];

/// No retrieval: every checked answer must come from a plan.
#[derive(Debug)]
struct NoSearch;

impl Searcher for NoSearch {
    fn spec(&self) -> String {
        "none".into()
    }

    fn search(&self, _: &PublicTask, _: &str, _: usize) -> Result<Vec<SearchHit>, String> {
        Ok(Vec::new())
    }
}

/// The groups the planner computes, by task.
fn label(task: &PublicTask) -> Option<&'static str> {
    let g = task.group;
    let ty = task.task_type.as_deref().unwrap_or("");
    Some(match (g.domain, g.split, ty) {
        (Domain::Legal, Split::Predictive, _) => "legal predictive",
        (Domain::Legal, Split::Descriptive, _) => "legal descriptive",
        (Domain::Finance, Split::Prescriptive, "FinAuditing") => "finauditing",
        (
            Domain::Finance,
            Split::Descriptive,
            "statistic"
            | "numeric_fact"
            | "cross_section_screen"
            | "multi_period_trend"
            | "change_detection"
            | "text_evidence",
        ) => "finance descriptive computed",
        (Domain::Finance, Split::Predictive, _) => "finance predictive options",
        _ => return None,
    })
}

fn norm(v: &Value) -> String {
    v.as_str().map(|s| s.trim().trim_end_matches('%').trim().to_string()).unwrap_or_else(|| v.to_string())
}

fn ids(v: &[Value]) -> BTreeSet<String> {
    v.iter().filter_map(Value::as_str).map(String::from).collect()
}

/// Whether the planner's answer is right for the task's group (the gold is read here, in the
/// test, never by the planner).
fn right(label: &str, answer: &Value, evidence: &[Value], gold: &Value, gold_evidence: &Value) -> bool {
    let gold_ids = ids(gold_evidence.as_array().map_or(&[][..], Vec::as_slice));
    match label {
        "legal predictive" => answer.get("option") == gold.get("option") && ids(evidence) == gold_ids,
        "legal descriptive" => norm(answer) == norm(gold) && ids(evidence) == gold_ids,
        "finauditing" => answer == gold && Value::Array(evidence.to_vec()) == *gold_evidence,
        _ => {
            let (a, g) = (norm(answer), norm(gold));
            match (a.parse::<f64>(), g.parse::<f64>()) {
                (Ok(x), Ok(y)) => (x - y).abs() <= 0.011 + y.abs() * 1e-9,
                _ => a == g,
            }
        }
    }
}

/// Per group (checked, right) on one sample.
fn score(summary: &SampleSummary) -> BTreeMap<&'static str, (usize, usize)> {
    let bench = Benchmark::load(&summary.query_dir()).expect("tasks load");
    let planner = Offline::new(summary.corpus_dir(), Arc::new(NoSearch));
    let mut tally: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    for task in bench.tasks() {
        let Some(label) = label(task) else { continue };
        // Finance predictive: only the tasks whose gold is an option letter or 是/否 are scored
        // here (forecast numbers are judged by SMAPE, texts by the judge).
        let gold = bench.reference(&task.id).expect("reference");
        if label == "finance predictive options"
            && !gold.ground_truth.as_str().is_some_and(|g| matches!(g, "A" | "B" | "C" | "D" | "是" | "否"))
        {
            continue;
        }
        let mut trace = TaskTrace::new(&task.id);
        let solved = planner.solve_now(task, &mut trace);
        let ok = solved.status == GenerationStatus::Ok
            && right(label, &solved.answer, &solved.evidence, &gold.ground_truth, &gold.evidence);
        if !ok && std::env::var_os("ANSER_PLANNER_MISSES").is_some() {
            println!("miss {label} {}: {} -> {} (gold {})", task.id, task.query, solved.answer, gold.ground_truth);
        }
        let e = tally.entry(label).or_default();
        e.0 += 1;
        e.1 += usize::from(ok);
    }
    tally
}

fn sample(seed: u64, dir: &Path) -> SampleSummary {
    generate(&SampleOptions { seed, ..SampleOptions::default() }, &dir.join(format!("s{seed}")))
        .expect("sample generates")
}

/// Floors per group: (lowest share on any seed, lowest mean over the seeds).
const FLOORS: [(&str, f64, f64); 5] = [
    ("legal descriptive", 0.85, 0.9),
    ("legal predictive", 0.8, 0.9),
    ("finauditing", 0.8, 0.9),
    ("finance descriptive computed", 0.75, 0.8),
    ("finance predictive options", 0.5, 0.8),
];

#[test]
fn offline_planner_floors_over_five_seeds() {
    let dir = tempfile::TempDir::new().expect("tempdir");
    let mut shares: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    for seed in SEEDS {
        let summary = sample(seed, dir.path());
        for (label, counts) in score(&summary) {
            shares.entry(label).or_default().push(counts);
        }
    }
    println!("| group | tasks per seed | right: mean over {} seeds | min |", SEEDS.len());
    println!("|---|---|---|---|");
    let mut failures = Vec::new();
    for (label, min_floor, mean_floor) in FLOORS {
        let runs = shares.get(label).cloned().unwrap_or_default();
        assert_eq!(runs.len(), SEEDS.len(), "{label}: not in every sample");
        let per: Vec<f64> = runs.iter().map(|(n, r)| *r as f64 / (*n).max(1) as f64).collect();
        let mean = per.iter().sum::<f64>() / per.len() as f64;
        let min = per.iter().copied().fold(f64::INFINITY, f64::min);
        let n: Vec<String> = runs.iter().map(|(n, _)| n.to_string()).collect();
        println!("| {label} | {} | {mean:.3} | {min:.3} |", n.join("/"));
        if min < min_floor || mean < mean_floor {
            failures.push(format!("{label}: mean {mean:.3} (floor {mean_floor}), min {min:.3} (floor {min_floor})"));
        }
    }
    assert!(failures.is_empty(), "below the floor: {failures:#?}");
}

// ---------------------------------------------------------------------------------------------
// Questions re-worded by hand
// ---------------------------------------------------------------------------------------------

/// A task of `file` whose instruction and type fit (the first whose gold satisfies `pick`),
/// with its query replaced.
fn reworded(bench: &Benchmark, file: &str, pick: impl Fn(&PublicTask, &Value) -> bool, query: &str) -> PublicTask {
    let template = bench
        .tasks()
        .iter()
        .find(|t| t.source_file == file && pick(t, &bench.reference(&t.id).expect("reference").ground_truth))
        .unwrap_or_else(|| panic!("no template task in {file}"));
    PublicTask { query: query.to_string(), ..template.clone() }
}

/// Case ids an independent SQL query over the raw sample file returns (the test may read the
/// file; the planner reads only through its guarded tools).
fn raw_ids(corpus: &Path, file: &str, sql: &str) -> BTreeSet<String> {
    let conn = rusqlite::Connection::open_with_flags(corpus.join(file), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("raw sample db");
    let mut stmt = conn.prepare(sql).expect("prepare");
    stmt.query_map([], |r| r.get::<_, String>(0)).expect("query").map(|r| r.expect("row")).collect()
}

/// The option the compute tool gives for (x, y) rows under the instruction's convention.
fn option_of(rows: &[(bool, bool)], task: &PublicTask) -> String {
    use anser_agent::tools::compute::{ComputeRequest, ComputeResult, Convention, Table, compute};
    let table = Table {
        columns: vec!["x".into(), "y".into()],
        rows: rows.iter().map(|(x, y)| vec![Value::Bool(*x), Value::Bool(*y)]).collect(),
    };
    let request = ComputeRequest::BinaryAssociation {
        x: "x".into(),
        y: "y".into(),
        convention: Some(if task.instruction.to_lowercase().contains("fisher") {
            Convention::RawFisher
        } else {
            Convention::release(task.group.language)
        }),
    };
    match compute(&table, &request, task.group.language).expect("compute") {
        ComputeResult::BinaryAssociation { answer, .. } => answer.option,
        other => panic!("unexpected {other:?}"),
    }
}

/// Rows (x, y) of the cases with both features recorded, from raw SQL (`SELECT id, x, y`).
fn raw_pairs(corpus: &Path, file: &str, sql: &str) -> (BTreeSet<String>, Vec<(bool, bool)>) {
    let conn = rusqlite::Connection::open_with_flags(corpus.join(file), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("raw sample db");
    let mut stmt = conn.prepare(sql).expect("prepare");
    let truthy = |s: String| matches!(s.as_str(), "是" | "true" | "1");
    let rows: Vec<(String, bool, bool)> = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))
        .expect("query")
        .map(|r| r.expect("row"))
        .map(|(id, x, y)| (id, truthy(x), truthy(y)))
        .collect();
    (rows.iter().map(|r| r.0.clone()).collect(), rows.iter().map(|r| (r.1, r.2)).collect())
}

#[test]
fn offline_planner_answers_questions_reworded_by_hand() {
    let dir = tempfile::TempDir::new().expect("tempdir");
    let (bench, corpus) = default_sample(dir.path());
    let planner = Offline::new(corpus.clone(), Arc::new(NoSearch));
    let zh_cases = "legal/zh/legal_wenshu.db";
    let en_cases = "legal/en/legal_cases.db";
    let any = |_: &PublicTask, _: &Value| true;
    let binary = |_: &PublicTask, g: &Value| g["value"].get("odds_ratio").is_some();
    let zh_count = |anyou: &str, key: &str| {
        format!(
            "SELECT DISTINCT c.anhao FROM cases c JOIN case_features f ON f.anhao = c.anhao \
             WHERE c.anyou = '{anyou}' AND f.feature_key = '{key}' AND f.feature_value = '是'"
        )
    };
    let zh_pairs = |anyou: &str, x: &str, y: &str| {
        format!(
            "SELECT DISTINCT c.anhao, x.feature_value, y.feature_value FROM cases c \
             JOIN case_features x ON x.anhao = c.anhao AND x.feature_key = '{x}' \
             JOIN case_features y ON y.anhao = c.anhao AND y.feature_key = '{y}' WHERE c.anyou = '{anyou}'"
        )
    };
    // (question in my own words, task to borrow group and instruction from, expected answer, expected ids)
    let mut cases: Vec<(PublicTask, Value, BTreeSet<String>)> = Vec::new();
    for (q, anyou, key) in [
        ("危险驾驶罪的判决里，被告人主动投案自首的一共有几件？", "危险驾驶罪", "是否自首"),
        ("诈骗罪文书中，被告人获得被害人谅解的案件数量是多少？", "诈骗罪", "是否取得谅解"),
        ("交通肇事罪里，事故发生后逃离现场的有多少件？", "交通肇事罪", "是否肇事逃逸"),
    ] {
        let ids = raw_ids(&corpus, zh_cases, &zh_count(anyou, key));
        let task = reworded(&bench, "legal/zh/descriptive.json", any, q);
        cases.push((task, Value::String(ids.len().to_string()), ids));
    }
    {
        let q = "在危险驾驶罪案件中，缓刑的适用比例在有无自首情节的被告人之间是否有明显差别？";
        let task = reworded(&bench, "legal/zh/predictive.json", binary, q);
        let (ids, rows) = raw_pairs(&corpus, zh_cases, &zh_pairs("危险驾驶罪", "是否自首", "是否适用缓刑"));
        let option = option_of(&rows, &task);
        cases.push((task, serde_json::json!({ "option": option }), ids));
    }
    let en_true = |matter: &str, feature: &str| {
        format!(
            "SELECT DISTINCT c.case_id FROM case_record c JOIN case_feature f ON f.case_id = c.case_id \
             WHERE c.matter_types_json LIKE '%\"{matter}\"%' AND f.matter_type = '{matter}' AND f.feature_key = '{feature}' \
             AND f.value_status = 'observed' AND lower(f.value_text) IN ('true', '1', 'yes')"
        )
    };
    {
        let q = "Of all the civil rights suits in the database, how many involved allegations of excessive force?";
        let ids = raw_ids(&corpus, en_cases, &en_true("section_1983", "excessive_force_alleged"));
        let task = reworded(&bench, "legal/en/descriptive.json", any, q);
        cases.push((task, Value::String(ids.len().to_string()), ids));
    }
    {
        let q = "In Section 1983 litigation, was the rate of denial of relief by the current court different for \
                 cases alleging excessive force?";
        let task = reworded(&bench, "legal/en/predictive.json", binary, q);
        let sql = "SELECT DISTINCT c.case_id, x.value_text, y.value_text FROM case_record c \
                   JOIN case_feature x ON x.case_id = c.case_id AND x.matter_type = 'section_1983' \
                   AND x.feature_key = 'excessive_force_alleged' AND x.value_status = 'observed' \
                   JOIN case_feature y ON y.case_id = c.case_id AND y.matter_type = 'section_1983' \
                   AND y.feature_key = 'relief_denied_current' AND y.value_status = 'observed' \
                   WHERE c.matter_types_json LIKE '%\"section_1983\"%'";
        let (ids, rows) = raw_pairs(&corpus, en_cases, sql);
        let option = option_of(&rows, &task);
        cases.push((task, serde_json::json!({ "option": option }), ids));
    }
    // FinAuditing: every sample task, asked in other words.
    let dates = regex::Regex::new(r"\d{4}-\d{2}-\d{2}").expect("regex");
    let concept = regex::Regex::new(r"\b[a-z][a-z-]*:[A-Za-z]+\b").expect("regex");
    let cik = regex::Regex::new(r"CIK (\d+)").expect("regex");
    let tag = regex::Regex::new(r"(?:filing tag|filing) ([a-z]+\d+)").expect("regex");
    let mut audits = 0;
    for t in bench.tasks().iter().filter(|t| t.task_type.as_deref() == Some("FinAuditing")) {
        let q = &t.query;
        let ds: Vec<&str> = dates.find_iter(q).map(|m| m.as_str()).collect();
        let (Some(c), Some(k), Some(g)) = (concept.find(q), cik.captures(q), tag.captures(q)) else { continue };
        let end = ds.last().copied().unwrap_or_default();
        let when = if ds.len() >= 3 { format!("over {} through {}", ds[0], ds[1]) } else { format!("on {end}") };
        let mine = format!(
            "Which data-quality rule does the {} value {when} break in the {} report of CIK {} (period end {end}), \
             and what should the amount be?",
            c.as_str(),
            &g[1],
            &k[1]
        );
        let gold = bench.reference(&t.id).expect("reference");
        cases.push((PublicTask { query: mine, ..t.clone() }, gold.ground_truth.clone(), BTreeSet::new()));
        audits += 1;
    }
    assert!(audits > 0, "no FinAuditing task re-worded");
    let mut wrong = Vec::new();
    for (task, want, want_ids) in &cases {
        let mut trace = TaskTrace::new(&task.id);
        let solved = planner.solve_now(task, &mut trace);
        let answer_ok = match want.get("option") {
            Some(o) if want.as_object().is_some_and(|m| m.len() == 1) => solved.answer.get("option") == Some(o),
            _ => solved.answer == *want || norm(&solved.answer) == norm(want),
        };
        let ids_ok = want_ids.is_empty() || ids(&solved.evidence) == *want_ids;
        println!(
            "{} {}: {} (want {want})",
            if answer_ok && ids_ok { "ok " } else { "MISS" },
            task.query,
            solved.answer
        );
        if !(answer_ok && ids_ok) {
            wrong.push(task.query.clone());
        }
    }
    println!("re-worded: {}/{} right", cases.len() - wrong.len(), cases.len());
    // Known miss (seed 20240601): "获得被害人谅解" for 是否取得谅解 counts 17 of 63 — the paraphrase
    // shares only 谅解 with the key and its decisions, and another condition is read too.
    assert!(wrong.len() <= 1, "re-worded questions answered wrongly: {wrong:#?}");
}

/// String leaves of evidence items (report ids, accessions, codes).
fn evidence_strings(evidence: &[Value]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in evidence {
        match e {
            Value::String(s) => {
                out.insert(s.clone());
            }
            Value::Object(m) => out.extend(m.values().filter_map(Value::as_str).map(String::from)),
            _ => {}
        }
    }
    out
}

/// The demo seed's sample under `dir`: its tasks and its corpus folder.
fn default_sample(dir: &Path) -> (Benchmark, std::path::PathBuf) {
    let summary = sample(DEFAULT_SEED, dir);
    (Benchmark::load(&summary.query_dir()).expect("tasks load"), summary.corpus_dir())
}

/// The first column of `sql` as the task's own guarded connection returns it.
fn visible_ids(corpus: &Path, task: &PublicTask, sql: &str) -> BTreeSet<String> {
    use anser_agent::tools::sql::{GuardedDb, SqlParams};
    let db = GuardedDb::for_task(corpus, task, SqlParams::DEFAULT).expect("open");
    let rows = db.query_with(sql, usize::MAX).expect("ids").rows;
    rows.iter().filter_map(|r| r.first()?.as_str().map(String::from)).collect()
}

/// The planner reads a finance route once and shares it across tasks, yet a task that states a
/// cutoff still sees only what its own guarded connection shows: a forecast with a cutoff three
/// years before the sample's last report, solved after tasks without a cutoff filled the cache,
/// cites no report past the cutoff, and answers as a planner that never saw another task.
#[test]
fn finance_route_is_read_once_and_a_cutoff_still_hides_later_reports() {
    use anser_agent::tools::boundary::{Boundary, Cutoff};
    let dir = tempfile::TempDir::new().expect("tempdir");
    let (bench, corpus) = default_sample(dir.path());
    let shared = Offline::new(corpus.clone(), Arc::new(NoSearch));
    assert_eq!(shared.finance_routes_read(), 0);
    let descriptive: Vec<&PublicTask> =
        bench.tasks().iter().filter(|t| t.source_file == "finance/zh/descriptive.json").take(5).collect();
    assert!(!descriptive.is_empty());
    for task in &descriptive {
        assert!(Boundary::from_task(task).expect("boundary").is_none());
        shared.solve_now(task, &mut TaskTrace::new(&task.id));
    }
    assert_eq!(shared.finance_routes_read(), 1, "one route read for five tasks");

    // A forecast of the first predictive task's company, told to use nothing after 2021.
    let template =
        bench.tasks().iter().find(|t| t.source_file == "finance/zh/predictive.json").expect("a zh predictive task");
    let last_year = (2000..2100).rev().find(|y| template.instruction.contains(&format!("截至{y}年"))).expect("cutoff");
    let cutoff = last_year - 3;
    let task = PublicTask {
        instruction: template
            .instruction
            .replace(&format!("截至{last_year}年"), &format!("截至{cutoff}年"))
            .replace(&format!("{}年的实际", last_year + 1), &format!("{}年的实际", cutoff + 1)),
        ..template.clone()
    };
    let boundary = Boundary::from_task(&task).expect("boundary").expect("a cutoff");
    assert_eq!(boundary.cutoff, Cutoff::FiscalYear { last: cutoff });

    // What the task may see, and what exists without a cutoff, straight from the guarded tool.
    let ids = |task: &PublicTask| visible_ids(&corpus, task, "SELECT report_id FROM reports");
    let visible = ids(&task);
    let hidden: BTreeSet<String> = ids(descriptive[0]).difference(&visible).cloned().collect();
    assert!(!hidden.is_empty(), "the cutoff hides reports");

    let mut trace = TaskTrace::new(&task.id);
    let solved = shared.solve_now(&task, &mut trace);
    assert_eq!(shared.finance_routes_read(), 1, "the cutoff task reuses the route");
    let cited = evidence_strings(&solved.evidence);
    assert!(cited.iter().any(|id| visible.contains(id)), "the forecast cites reports: {:?}", solved.evidence);
    let leaked: Vec<&String> = cited.intersection(&hidden).collect();
    assert!(leaked.is_empty(), "reports past the cutoff cited: {leaked:?}");

    let fresh = Offline::new(corpus.clone(), Arc::new(NoSearch));
    let alone = fresh.solve_now(&task, &mut TaskTrace::new(&task.id));
    assert_eq!((&alone.answer, &alone.evidence, &alone.status), (&solved.answer, &solved.evidence, &solved.status));
}

/// The relation plan a legal predictive task's trace records (`None`: the query did not map).
fn relation_plan(trace: &TaskTrace) -> Option<Value> {
    let step = trace.events().iter().find(|e| e.event == "tool_call" || e.detail.get("mapped").is_some());
    step.and_then(|e| e.detail.get("plan")).cloned()
}

/// The planner keeps the legal dictionaries (causes, feature keys, decision texts) per route
/// and set of hiding conditions, yet a task that states a cutoff reads them as its own guarded
/// connection shows them: after tasks without a cutoff filled the cache, a task whose cutoff
/// hides every case of its cause of action no longer finds that cause (the plan does not map,
/// where dictionaries read without the cutoff would map it and build an empty cohort), and a
/// task with a cutoff in the middle of the cases answers, plans and cites exactly as a planner
/// that never saw another task, citing no case past the cutoff.
#[test]
fn legal_dictionaries_are_read_once_and_a_cutoff_still_hides_later_cases() {
    use anser_agent::tools::boundary::Boundary;
    let dir = tempfile::TempDir::new().expect("tempdir");
    let (bench, corpus) = default_sample(dir.path());
    let shared = Offline::new(corpus.clone(), Arc::new(NoSearch));
    assert_eq!(shared.legal_views_read(), 0);
    let predictive: Vec<&PublicTask> =
        bench.tasks().iter().filter(|t| t.source_file == "legal/zh/predictive.json").take(4).collect();
    let mut mapped = None;
    for task in &predictive {
        assert!(Boundary::from_task(task).expect("boundary").is_none());
        let mut trace = TaskTrace::new(&task.id);
        shared.solve_now(task, &mut trace);
        if mapped.is_none() {
            mapped = relation_plan(&trace).map(|plan| (*task, plan));
        }
    }
    for task in bench.tasks().iter().filter(|t| t.source_file == "legal/zh/descriptive.json").take(4) {
        shared.solve_now(task, &mut TaskTrace::new(&task.id));
    }
    assert_eq!(shared.legal_views_read(), 1, "one view of the route for eight tasks without a cutoff");
    let (template, plan) = mapped.expect("a Chinese predictive task maps to the dictionaries");
    let cause = plan["cause"].as_str().expect("the plan names its cause").to_string();

    // The cause's decision years, straight from the file.
    let years: BTreeSet<String> = raw_ids(
        &corpus,
        "legal/zh/legal_wenshu.db",
        &format!("SELECT DISTINCT substr(caipanriqi, 1, 4) FROM cases WHERE anyou = '{cause}'"),
    );
    let year = |y: &String| y.parse::<i32>().expect("a year");
    let (first, last) = (years.first().map(year).expect("years"), years.last().map(year).expect("years"));
    assert!(last > first, "the cause's cases span several years: {years:?}");
    // "Do not use data of year Y or later": the last visible year is Y - 1.
    let with_cutoff = |from: i32| PublicTask {
        instruction: format!("{}不使用{from}年及以后的数据。", template.instruction),
        ..template.clone()
    };

    // Every case of the cause is after the cutoff: the cause is not in the task's dictionary.
    let before_all = with_cutoff(first);
    assert!(Boundary::from_task(&before_all).expect("boundary").is_some());
    let mut trace = TaskTrace::new(&before_all.id);
    shared.solve_now(&before_all, &mut trace);
    let unmapped =
        trace.events().iter().any(|e| e.event == "plan" && e.detail.get("mapped") == Some(&Value::Bool(false)));
    assert!(unmapped, "no case of {cause} is visible, so the query must not map: {:?}", trace.events());
    assert_eq!(shared.legal_views_read(), 2, "a cutoff reads its own view");

    // A cutoff in the middle of the cases: the same plan, answer and cohort as a fresh planner.
    let middle = with_cutoff((first + last + 1) / 2);
    let visible = visible_ids(&corpus, &middle, "SELECT anhao FROM cases");
    let mut trace = TaskTrace::new(&middle.id);
    let solved = shared.solve_now(&middle, &mut trace);
    assert_eq!(shared.legal_views_read(), 3);
    let cited = evidence_strings(&solved.evidence);
    assert!(!cited.is_empty(), "the cohort is cited: {solved:?}");
    let leaked: Vec<&String> = cited.difference(&visible).collect();
    assert!(leaked.is_empty(), "cases past the cutoff cited: {leaked:?}");
    let fresh = Offline::new(corpus.clone(), Arc::new(NoSearch));
    let mut alone_trace = TaskTrace::new(&middle.id);
    let alone = fresh.solve_now(&middle, &mut alone_trace);
    assert_eq!((&alone.answer, &alone.evidence, &alone.status), (&solved.answer, &solved.evidence, &solved.status));
    assert_eq!(relation_plan(&alone_trace), relation_plan(&trace));
}

/// The legal plans count and build cohorts over the view's cached case rows; the trace gives
/// the SQL statement each stands for. Run through the guarded tool, that statement must return
/// exactly the counted cases (descriptive) and every case the association cites (predictive),
/// on every legal task of the sample, so the in-memory evaluation means what its SQL says.
#[test]
fn legal_counts_over_cached_rows_match_their_sql() {
    let dir = tempfile::TempDir::new().expect("tempdir");
    let (bench, corpus) = default_sample(dir.path());
    let planner = Offline::new(corpus.clone(), Arc::new(NoSearch));
    let mut checked = BTreeMap::new();
    for task in bench.tasks().iter().filter(|t| t.group.domain == Domain::Legal && t.group.split != Split::Prescriptive)
    {
        let mut trace = TaskTrace::new(&task.id);
        let solved = planner.solve_now(task, &mut trace);
        let Some(sql) =
            trace.events().iter().find_map(|e| (e.event == "tool_call").then(|| e.detail["sql"].as_str())?)
        else {
            continue;
        };
        let by_sql = visible_ids(&corpus, task, sql);
        let cited = evidence_strings(&solved.evidence);
        if task.group.split == Split::Descriptive {
            assert_eq!(cited, by_sql, "{}: counted cases differ from {sql}", task.id);
            assert_eq!(solved.answer, Value::String(by_sql.len().to_string()), "{}", task.id);
        } else {
            assert!(!cited.is_empty() && cited.is_subset(&by_sql), "{}: cohort not in {sql}", task.id);
        }
        *checked.entry(task.group.split).or_insert(0usize) += 1;
    }
    assert!(checked.get(&Split::Descriptive).is_some_and(|n| *n >= 20), "{checked:?}");
    assert!(checked.get(&Split::Predictive).is_some_and(|n| *n >= 10), "{checked:?}");
}
