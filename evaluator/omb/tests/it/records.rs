//! Record loading: every exclusion rule, with id and reason; valid records load with
//! EvalScope's field semantics.

use anser_omb::{Dataset, Subset};
use serde_json::json;

use crate::record_json;

fn reason_of(record: serde_json::Value) -> String {
    let d = Dataset::parse(&record.to_string());
    assert!(d.records.is_empty(), "accepted: {record}");
    d.invalid[0].reason.clone()
}

#[test]
fn each_invalid_record_is_reported_with_id_and_reason() {
    let base = record_json("r1", &[(json!(1), 5)]);
    let with = |key: &str, value: serde_json::Value| {
        let mut r = base.clone();
        r[key] = value;
        r
    };
    let without = |key: &str| {
        let mut r = base.clone();
        r.as_object_mut().expect("object").remove(key);
        r
    };
    assert_eq!(reason_of(with("language", json!("fr"))), "unknown language/domain pair (\"fr\", \"Industry\")");
    assert_eq!(
        reason_of(with("tags", json!({"topics": ["工业"]}))),
        "unknown language/domain pair (\"global\", \"工业\")"
    );
    assert_eq!(
        reason_of(with("tags", json!({"topics": ["industry"]}))),
        "unknown language/domain pair (\"global\", \"industry\")"
    );
    assert_eq!(reason_of(with("tags", json!({"topics": []}))), "tags.topics is missing or empty (no domain topic)");
    assert_eq!(reason_of(without("tags")), "tags.topics is missing or empty (no domain topic)");
    assert_eq!(reason_of(with("tags", json!(["Industry"]))), "tags is not an object");
    assert_eq!(reason_of(without("rubrics")), "rubrics is missing");
    assert_eq!(reason_of(with("rubrics", json!([]))), "rubrics is empty");
    assert_eq!(reason_of(with("rubrics", json!({"1": 5}))), "rubrics is not a list");
    assert_eq!(reason_of(without("question")), "question is missing");
    // No positive weight: kept, judged, then excluded with its reason (spec §9.6).
    let no_positive = Dataset::parse(&record_json("r2", &[(json!(1), -5), (json!(2), 0)]).to_string());
    assert!(no_positive.records[0].no_positive_weight().is_some_and(|r| r.starts_with("no_positive_weight")));
    assert_eq!(reason_of(record_json("r3", &[(json!("x"), 5)])), "rubrics[0]: rubric_number is not an integer");
    let mut string_weight = base.clone();
    string_weight["rubrics"][0]["rubric_weight"] = json!("5");
    assert_eq!(reason_of(string_weight), "rubrics[0]: rubric_weight is not a number");
    let mut no_detail = base.clone();
    no_detail["rubrics"][0].as_object_mut().expect("rubric").remove("rubric_detail");
    assert_eq!(reason_of(no_detail), "rubrics[0]: rubric_detail is missing");
}

#[test]
fn invalid_records_do_not_stop_the_others() {
    let text = [
        record_json("ok1", &[(json!(1), 5)]).to_string(),
        "{not json".to_string(),
        String::new(),
        json!({"id": "bad", "language": "global", "tags": {"topics": ["Astrology"]}, "question": "q",
            "rubrics": [{"rubric_number": 1, "rubric_detail": "d", "rubric_weight": 1, "rubric_tag": "t"}]})
        .to_string(),
        record_json("ok1", &[(json!(1), 5)]).to_string(),
        record_json("ok2", &[(json!(1), 5)]).to_string(),
    ]
    .join("\n");
    let d = Dataset::parse(&text);
    let ids: Vec<&str> = d.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["ok1", "ok2"]);
    let invalid: Vec<(&str, usize)> = d.invalid.iter().map(|i| (i.id.as_str(), i.line)).collect();
    assert_eq!(invalid, [("line-2", 2), ("bad", 4), ("ok1", 5)]);
    assert!(d.invalid[2].reason.starts_with("duplicate id"));
}

#[test]
fn field_semantics_follow_evalscope() {
    let record = json!({
        "id": 7, "language": " cn ", "tags": {"topics": [" 法律 ", "x"], "time_sensitivity": {"label": "强时效性"}},
        "question": "  keep my spaces  ", "system_prompt": "  be brief \n",
        "rubrics": [{"rubric_number": "3", "rubric_detail": "d", "rubric_weight": 2.9},
                    {"rubric_number": 1.0, "rubric_detail": 5, "rubric_weight": -0.5},
                    {"rubric_number": 2, "rubric_detail": "p", "rubric_weight": 0.5}]
    });
    let d = Dataset::parse(&record.to_string());
    let r = &d.records[0];
    assert_eq!((r.id.as_str(), r.subset, r.question.as_str()), ("7", Subset::CnLaw, "  keep my spaces  "));
    assert_eq!(r.system_prompt.as_deref(), Some("be brief"));
    let rubrics: Vec<(i64, &str, i64, bool)> =
        r.rubrics.iter().map(|x| (x.id, x.number_text.as_str(), x.weight, x.positive)).collect();
    assert_eq!(rubrics, [(3, "3", 2, true), (1, "1.0", 0, false), (2, "2", 0, true)]);
    // 0.5 > 0 counts toward the denominator but int(0.5) adds 0: max = 2 + 0.
    assert_eq!(r.max_score(), 2);
    let blank_system = json!({"id": "s", "language": "global", "tags": {"topics": ["Law"]}, "question": "q",
        "system_prompt": "   ", "rubrics": [{"rubric_number": 1, "rubric_detail": "d", "rubric_weight": 1}]});
    assert_eq!(Dataset::parse(&blank_system.to_string()).records[0].system_prompt, None);
}

#[test]
fn generation_messages_are_system_then_question() {
    let d = Dataset::parse(
        &json!({"id": "s", "language": "global", "tags": {"topics": ["Law"]}, "question": "Q?", "system_prompt": " S ",
            "rubrics": [{"rubric_number": 1, "rubric_detail": "d", "rubric_weight": 1}]})
        .to_string(),
    );
    let call = anser_omb::generation_call(&d.records[0], "m");
    assert_eq!(call.messages, [(anser_omb::Role::System, "S".to_string()), (anser_omb::Role::User, "Q?".to_string())]);
    assert_eq!((call.temperature, call.max_tokens), (0.0, None));
}
