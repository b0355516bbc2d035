//! Answer and evidence validation on the release's own tasks: every gold answer of a
//! structured form passes its task's validator, every gold evidence list shapes into its
//! route's identifier kind, and the count/`n` consistency flags hold where the release says
//! they must.

use anser_agent::{
    method::output::{AnswerContract, extract_answer},
    tools::answer::{AnswerSpec, answer_spec, check_final, shape_evidence, validate_answer},
};
use anser_manifest::{Domain, Language, PublicTask, Route, Split, TaskGroup};
use serde_json::{Value, json};

use crate::release;

#[test]
fn gold_answers_and_evidence_pass_their_validators() {
    let Some(bench) = release("answer validation on release tasks") else { return };
    let mut checked = 0;
    let mut text_over_limit = 0;
    for task in bench.tasks() {
        let reference = bench.reference(&task.id).expect("reference");
        let gold = &reference.ground_truth;
        let spec = answer_spec(task);
        let result = validate_answer(task, gold);
        match &spec {
            AnswerSpec::Text { .. } => text_over_limit += usize::from(result.is_err()),
            _ => {
                let ok = result.unwrap_or_else(|e| panic!("{} ({spec:?}): gold {gold} rejected: {e}", task.id));
                checked += 1;
                if let AnswerSpec::Choice { .. } = spec {
                    assert_eq!(ok.answer, gold.as_str().expect("string").trim(), "{}", task.id);
                }
            }
        }
        let evidence: Vec<Value> = reference.evidence.as_array().cloned().unwrap_or_default();
        let shaped = shape_evidence(task, &evidence).expect("resolves");
        assert!(shaped.rejected.is_empty(), "{}: {:?}", task.id, &shaped.rejected[..shaped.rejected.len().min(3)]);
        if matches!(spec, AnswerSpec::Integer | AnswerSpec::LegalRelation { .. }) && task.group.domain == Domain::Legal
        {
            let fin = check_final(task, gold, &evidence, None).expect("consistent gold");
            assert_ne!(fin.consistency.count_matches_evidence, Some(false), "{}", task.id);
            assert_ne!(fin.consistency.n_matches_evidence, Some(false), "{}", task.id);
        }
    }
    eprintln!("{checked} structured gold answers validated; {text_over_limit} gold texts exceed their stated length");
    assert!(checked > 1_000, "{checked}");
}

fn task(group: &str, ty: Option<&str>, query: &str, instruction: &str, route: Route) -> PublicTask {
    let group: TaskGroup = group.parse().expect("group");
    PublicTask {
        id: format!("{group}_1"),
        group,
        task_type: ty.map(String::from),
        query: query.into(),
        instruction: instruction.into(),
        route,
        source_file: String::new(),
    }
}

/// The prompt's contract, the reply parser and the answer check read one taxonomy: for every
/// group and any type — one a group does not hold included — the structural form the check
/// asks for is the contract's, and an answer the parser accepts for a structured contract has
/// exactly the keys the check requires.
#[test]
fn prompt_contract_and_answer_check_share_one_shape() {
    let types = [None, Some("statistic"), Some("FinAuditing"), Some("numeric_fact"), Some("ranking")];
    for group in TaskGroup::all() {
        for ty in types {
            let t = task(&group.to_string(), ty, "q", "i", Route::FinanceZhReports);
            let contract = AnswerContract::of(&t);
            let spec = answer_spec(&t);
            let spec_shape = match spec {
                AnswerSpec::Integer => AnswerContract::Integer,
                AnswerSpec::LegalRelation { .. } => AnswerContract::Relation,
                AnswerSpec::FinAuditing => AnswerContract::RuleValue,
                AnswerSpec::Choice { .. } | AnswerSpec::Number { .. } | AnswerSpec::Text { .. } => AnswerContract::Text,
            };
            assert_eq!(
                contract, spec_shape,
                "{group} {ty:?}: the prompt asks for {contract:?}, the check for {spec:?}"
            );
        }
    }
    let reply = r#"{"applied_rule": "DQC_US_0015", "expected_value": 12}"#;
    let t = task("finance_en_prescriptive", Some("FinAuditing"), "q", "i", Route::FinanceEnAudit);
    let parsed = extract_answer(AnswerContract::of(&t), reply);
    assert!(parsed.parsed);
    assert!(validate_answer(&t, &parsed.answer).is_ok(), "what the parser accepts, the check accepts");
}

#[test]
fn forms_are_read_from_the_wording() {
    let t = task(
        "finance_en_predictive",
        Some("multi_period_trend"),
        "Trace growth. A. Clear decline (≤-2%) | B. Broadly stable (-2 to 2%) | C. Moderate increase | D. Strong increase",
        "Use the data to select the most likely forecast outcome; return only one option.",
        Route::FinanceEnReports,
    );
    assert_eq!(answer_spec(&t), AnswerSpec::Choice { choices: vec!["A".into(), "B".into(), "C".into(), "D".into()] });
    assert_eq!(validate_answer(&t, &json!("b")).expect("ok").answer, "B");
    assert_eq!(validate_answer(&t, &json!("C. Moderate increase")).expect("ok").answer, "C");
    assert!(validate_answer(&t, &json!("E")).is_err());
    assert!(validate_answer(&t, &json!("Bad")).is_err());

    let t = task(
        "finance_zh_descriptive",
        Some("text_summary"),
        "概括。",
        "请回答问题。用一段话回答，不超过12字。",
        Route::FinanceZhReports,
    );
    assert_eq!(
        answer_spec(&t),
        AnswerSpec::Text { min: None, max: Some(12), unit: anser_agent::tools::answer::LengthUnit::Chars }
    );
    assert_eq!(validate_answer(&t, &json!("收入 增长 三成")).expect("ok").length, Some(6));
    let err = validate_answer(&t, &json!("收入增长三成，利润同比下降两成。")).expect_err("too long").to_string();
    assert!(err.contains("16") && err.contains("12"), "{err}");

    let t = task(
        "finance_zh_predictive",
        Some("multi_period_trend"),
        "填空：2025年营业收入约为____亿元。",
        "直接返回题目要求的数值。",
        Route::FinanceZhReports,
    );
    assert_eq!(validate_answer(&t, &json!("222.46亿元")).expect("ok").parsed, json!(222.46));
    assert!(validate_answer(&t, &json!("约200到250")).is_err(), "two numbers");

    let t =
        task("finance_en_prescriptive", Some("FinAuditing"), "q", "Return only a JSON object.", Route::FinanceEnAudit);
    let ok =
        validate_answer(&t, &json!("Result: {\"applied_rule\": \"DQC_US_0015\", \"expected_value\": \"3123000\"}"))
            .expect("ok");
    assert_eq!(ok.answer, r#"{"applied_rule":"DQC_US_0015","expected_value":3123000}"#);
    assert!(validate_answer(&t, &json!({"applied_rule": "X", "expected_value": 1})).is_err());
    assert!(validate_answer(&t, &json!({"applied_rule": "DQC_US_0015", "expected_value": 1, "why": "x"})).is_err());
}

#[test]
fn legal_relation_answers_and_consistency() {
    let g = TaskGroup { domain: Domain::Legal, language: Language::En, split: Split::Predictive };
    let t = task(
        &g.name(),
        Some("structured"),
        "q",
        "The `value` object must contain `n`, `outcome_rate_x1` …",
        Route::LegalEnCases,
    );
    let answer = json!({"option": "positive", "value": {"n": 3, "outcome_rate_x1": 0.6551724, "outcome_rate_x0": 0.4, "odds_ratio": 2.9, "p_value": 0.001}});
    let evidence = [json!("cluster_1"), json!("CLUSTER_2"), json!(3), json!("cluster_0003")];
    let fin = check_final(&t, &answer, &evidence, None).expect("valid");
    assert_eq!(fin.evidence.items, [json!("cluster_1"), json!("cluster_2"), json!("cluster_3")]);
    assert_eq!(fin.evidence.duplicates_removed, 1);
    assert_eq!(fin.consistency.n_matches_evidence, Some(true));
    assert_eq!(fin.answer.parsed["value"]["outcome_rate_x1"], json!(0.655172));
    let fin = check_final(&t, &answer, &evidence[..2], None).expect("valid");
    assert_eq!(fin.consistency.n_matches_evidence, Some(false));
    assert!(check_final(&t, &json!({"option": "positive", "value": {"n": 3}}), &evidence, None).is_err());
    assert!(check_final(&t, &json!({"option": "maybe", "value": {}}), &evidence, None).is_err());
    let err = check_final(&t, &answer, &[json!("（2024）粤0106刑初1765号")], None).expect_err("wrong route ids");
    assert!(err.to_string().contains("cluster_id"), "{err}");

    let zh = task(
        "finance_zh_descriptive",
        Some("statistic"),
        "q",
        "直接给出满足条件的上市公司数量。",
        Route::FinanceZhReports,
    );
    let fin = check_final(
        &zh,
        &json!("2"),
        &[json!("600688_2015-12-31_annual"), json!("600688_2016-12-31_annual"), json!("600001")],
        None,
    )
    .expect("valid");
    assert_eq!(
        fin.evidence.items,
        [json!({"stock_code": "600688", "type": "company"}), json!({"stock_code": "600001", "type": "company"})]
    );
    assert_eq!(fin.consistency.count_matches_evidence, Some(true));
    assert!(validate_answer(&zh, &json!(-1)).is_err() && validate_answer(&zh, &json!("2.5")).is_err());
}
