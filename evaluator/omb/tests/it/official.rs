//! Official mode: the humanlaya harness's leniencies.

use std::{collections::BTreeMap, time::Duration};

use anser_omb::{
    Dataset, JudgeCache, JudgeSettingsBuilder, Mode, SampleStatus, judge_all, parse_official, score_official,
};
use serde_json::json;

use crate::{Scripted, record_json};

fn record() -> anser_omb::Record {
    let d = Dataset::parse(&record_json("o", &[(json!(1), 10), (json!(2), 6), (json!(3), -4)]).to_string());
    d.records[0].clone()
}

#[test]
fn repairs_trailing_commas_and_curly_quotes() {
    let reply = "Here:\n```json\n[{“rubric_id”: 1, “status”: “是”, “justification”: “ok”,},\n {\"rubric_id\": 2, \"status\": \"否\",},]\n```";
    let p = parse_official(reply);
    assert!(p.get(1).is_some_and(|v| v.hit));
    assert!(p.get(2).is_some_and(|v| !v.hit));
    assert!(p.get(3).is_none());
    let s = score_official(&record(), &p);
    // Rubric 3 is NA: OMB Norm is dropped, ExpertScore counts NA as 0 → 10/16 = 0.625.
    assert_eq!((s.expert_score, s.pass, s.na), (None, 0.0, 1));
}

#[test]
fn later_duplicate_wins_unknown_status_is_a_miss_extra_ids_ignored() {
    let reply = r#"[{"rubric_id": 1, "status": "否"}, {"rubric_id": "1", "status": " 是 "},
        {"rubric_id": 2, "status": "部分命中"}, {"rubric_id": 3, "status": "No"}, {"rubric_id": 99, "status": "是"},
        {"rubric_id": 0, "status": "是"}]"#;
    let p = parse_official(reply);
    assert!(p.get(1).is_some_and(|v| v.hit && v.status == "是"), "later entry, stripped status");
    assert!(p.get(2).is_some_and(|v| !v.hit), "unknown status = miss");
    assert!(p.get(0).is_none(), "falsy id skipped");
    let s = score_official(&record(), &p);
    assert_eq!((s.expert_score, s.pass, s.na), (Some(10.0 / 16.0), 0.0, 0));
}

#[test]
fn reads_the_results_array_of_an_evalscope_style_object() {
    let reply = crate::reply(&[(1, "是"), (2, "是"), (3, "否")]);
    let s = score_official(&record(), &parse_official(&reply));
    assert_eq!((s.expert_score, s.pass), (Some(1.0), 1.0));
}

#[test]
fn a_bad_item_stops_reading_but_keeps_earlier_items() {
    let p = parse_official(r#"[{"rubric_id": 1, "status": "是"}, 7, {"rubric_id": 2, "status": "是"}]"#);
    assert!(p.get(1).is_some());
    assert!(p.get(2).is_none());
    assert!(p.warning.is_some());
    assert!(parse_official("no array here").is_empty());
}

#[test]
fn re_asks_only_when_nothing_parses() {
    let d = Dataset::parse(&record_json("o", &[(json!(1), 10), (json!(2), 6)]).to_string());
    let answers: BTreeMap<String, String> = [("o".to_string(), "answer".to_string())].into();
    let settings =
        JudgeSettingsBuilder { mode: Mode::Official, reask_delay: Duration::ZERO, ..JudgeSettingsBuilder::new("j") }
            .build()
            .expect("valid judge settings");

    // Two unparsable replies, then a good one: three calls.
    let backend =
        Scripted::new(|_, n| Ok(if n < 2 { "cannot comply".into() } else { crate::reply(&[(1, "是"), (2, "否")]) }));
    let dir = tempfile::tempdir().expect("tempdir");
    let run =
        judge_all(&d, &answers, &settings, &backend, &JudgeCache::open(dir.path()).expect("cache")).expect("judge");
    assert_eq!(backend.count(), 3);
    assert_eq!(run.samples[0].observations[0].judge_calls, 3);
    assert_eq!(run.samples[0].expert_score, Some(10.0 / 16.0));

    // Never parsable: 1 + 8 calls, the last all-NA result is kept (no expert score, pass 0).
    let backend = Scripted::new(|_, _| Ok("still prose".into()));
    let dir = tempfile::tempdir().expect("tempdir");
    let run =
        judge_all(&d, &answers, &settings, &backend, &JudgeCache::open(dir.path()).expect("cache")).expect("judge");
    assert_eq!(backend.count(), 9);
    let s = &run.samples[0];
    assert_eq!((s.expert_score, s.pass, s.status), (None, Some(0.0), SampleStatus::Excluded));
    assert!(s.excluded_reason.as_deref().is_some_and(|r| r.starts_with("na_rubrics")), "{:?}", s.excluded_reason);

    // A partial reply is not re-asked: rubric 2 stays NA (no expert score), pass uses 10/16.
    let backend = Scripted::new(|_, _| Ok(crate::reply(&[(1, "是")])));
    let dir = tempfile::tempdir().expect("tempdir");
    let run =
        judge_all(&d, &answers, &settings, &backend, &JudgeCache::open(dir.path()).expect("cache")).expect("judge");
    assert_eq!(backend.count(), 1);
    assert_eq!((run.samples[0].expert_score, run.samples[0].pass), (None, Some(0.0)));
}
