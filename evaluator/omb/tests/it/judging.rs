//! The judging loop (cache, repeats, several judges, transport failures, missing responses) and
//! crash-safe generation (resume, changed dataset).

use std::{collections::BTreeMap, io::Write};

use anser_omb::{
    Dataset, Error, GenerateSettings, JudgeCache, JudgeSettings, JudgeSettingsBuilder, Report, SampleStatus, generate,
    judge_all, load_generations, write_outputs,
};
use anser_runstore::RunName;
use serde_json::json;

use crate::{Scripted, record_json, reply};

fn dataset() -> Dataset {
    let lines = [
        record_json("a", &[(json!(1), 6), (json!(2), 4)]).to_string(),
        record_json("b", &[(json!(1), 5), (json!(2), 5)]).to_string(),
        {
            // An unknown language: an invalid record.
            let mut c = record_json("c", &[(json!(1), 1)]);
            c["language"] = json!("fr");
            c.to_string()
        },
    ];
    Dataset::parse(&lines.join("\n"))
}

fn answers(ids: &[&str]) -> BTreeMap<String, String> {
    ids.iter().map(|i| (i.to_string(), format!("answer {i}"))).collect()
}

#[test]
fn cache_makes_a_rerun_free_and_identical() {
    let d = dataset();
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = JudgeSettings::new("j").expect("valid judge settings");
    let backend = Scripted::new(|_, _| Ok(reply(&[(1, "是"), (2, "否")])));
    let first =
        judge_all(&d, &answers(&["a", "b"]), &settings, &backend, &JudgeCache::open(dir.path()).expect("cache"))
            .expect("judge");
    assert_eq!((backend.count(), first.usage.sent, first.usage.cached), (2, 2, 0));
    assert_eq!(first.usage.tokens.total_tokens, 24);

    let offline = Scripted::new(|_, _| Err("must not be called".into()));
    let second =
        judge_all(&d, &answers(&["a", "b"]), &settings, &offline, &JudgeCache::open(dir.path()).expect("cache"))
            .expect("judge");
    assert_eq!((offline.count(), second.usage.sent, second.usage.cached), (0, 0, 2));
    let scores = |r: &anser_omb::JudgeRun| r.samples.iter().map(|s| s.expert_score).collect::<Vec<_>>();
    assert_eq!(scores(&first), scores(&second));

    // Another judge model or another answer is a different key.
    let other = Scripted::new(|_, _| Ok(reply(&[(1, "是"), (2, "是")])));
    let mut changed = answers(&["a", "b"]);
    changed.insert("a".into(), "a different answer".into());
    judge_all(&d, &changed, &settings, &other, &JudgeCache::open(dir.path()).expect("cache")).expect("judge");
    assert_eq!(other.count(), 1);
}

#[test]
fn missing_responses_invalid_records_and_transport_failures_are_excluded_not_zero() {
    let d = dataset();
    let dir = tempfile::tempdir().expect("tempdir");
    let backend = Scripted::new(|call: &anser_omb::ChatCall, _| {
        if call.messages[0].1.contains("answer b") {
            Err("connection refused".into())
        } else {
            Ok(reply(&[(1, "是"), (2, "否")]))
        }
    });
    let mut responses = answers(&["a", "b"]);
    responses.insert("zzz".into(), "stray".into());
    let run = judge_all(
        &d,
        &responses,
        &JudgeSettings::new("j").expect("valid judge settings"),
        &backend,
        &JudgeCache::open(dir.path()).expect("cache"),
    )
    .expect("judge");
    let by_id = |id: &str| run.samples.iter().find(|s| s.id == id).expect("sample");
    assert_eq!((by_id("a").expert_score, by_id("a").status), (Some(0.6), SampleStatus::Scored));
    assert_eq!((by_id("b").expert_score, by_id("b").status), (None, SampleStatus::Excluded));
    assert!(by_id("b").excluded_reason.as_deref().is_some_and(|r| r.starts_with("transport_error")));
    assert_eq!(by_id("c").status, SampleStatus::Invalid);
    assert_eq!(run.samples.len(), 3);
    assert_eq!(run.unknown_response_ids, ["zzz"]);
    assert_eq!(run.usage.transport_failures, 1);

    let report = Report::new(&d, &run, &JudgeSettings::new("j").expect("valid judge settings"));
    assert_eq!((report.overall.scored, report.overall.excluded), (1, 1));
    assert_eq!(report.invalid_records.len(), 1);
    write_outputs(dir.path(), &run, &report).expect("write");
    let lines = std::fs::read_to_string(dir.path().join("samples.jsonl")).expect("samples");
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().expect("line")).expect("json");
    for key in ["id", "subset", "expert_score", "pass", "raw_score", "max_score", "excluded_reason", "rubrics"] {
        assert!(first.get(key).is_some(), "samples.jsonl lacks {key}");
    }
    assert_eq!(first["rubrics"][0]["justification"], "because");
    let report_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).expect("report")).expect("json");
    for key in ["expert_score", "pass_rate", "scored", "excluded"] {
        assert!(report_json["overall"].get(key).is_some(), "report.overall lacks {key}");
    }
    assert!(report_json["note"].as_str().is_some_and(|n| n.contains("same judge configuration")));
}

#[test]
fn repeats_and_judges_give_mean_and_spread() {
    let d = dataset();
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = JudgeSettingsBuilder {
        judges: vec!["j1".into(), "j2".into()],
        repeats: 2,
        concurrency: 1,
        ..JudgeSettingsBuilder::new("j1")
    }
    .build()
    .expect("valid judge settings");
    // j1: hit/hit then hit/miss (1.0, 0.6 → 0.8); j2: always miss/miss (0.0) → mean(0.8, 0.0) = 0.4.
    let backend = Scripted::new(|call: &anser_omb::ChatCall, n| {
        Ok(if call.model == "j2" {
            reply(&[(1, "否"), (2, "否")])
        } else if n % 2 == 0 {
            reply(&[(1, "是"), (2, "是")])
        } else {
            reply(&[(1, "是"), (2, "否")])
        })
    });
    let run = judge_all(&d, &answers(&["a"]), &settings, &backend, &JudgeCache::open(dir.path()).expect("cache"))
        .expect("judge");
    assert_eq!(backend.count(), 4);
    let a = &run.samples[0];
    let e = a.expert_score.expect("score");
    assert!((e - 0.4).abs() < 1e-12, "{e}");
    assert!(a.pass.is_some_and(|p| (p - 0.25).abs() < 1e-12), "{:?}", a.pass);
    let spread = a.spread.expect("spread");
    assert!((spread.range - 1.0).abs() < 1e-12);
    assert_eq!(run.runs.len(), 4);
    let report = Report::new(&d, &run, &settings);
    let [es, _] = report.run_spread.expect("run spread");
    assert_eq!(es.runs, 4);
    assert!((es.mean - 0.4).abs() < 1e-9, "{es:?}");
}

#[test]
fn settings_are_validated() {
    let b = || JudgeSettingsBuilder::new("j");
    for bad in [
        JudgeSettingsBuilder { repeats: 0, ..b() },
        JudgeSettingsBuilder { judges: vec!["j".into(), "j".into()], ..b() },
        JudgeSettingsBuilder { concurrency: 0, ..b() },
        JudgeSettingsBuilder { judges: Vec::new(), ..b() },
        JudgeSettingsBuilder { judges: vec![" ".into()], ..b() },
    ] {
        assert!(matches!(bad.clone().build(), Err(Error::Setting(_))), "{bad:?}");
    }
    assert!(JudgeSettings::new("").is_err());
    let s = JudgeSettingsBuilder { judges: vec!["j1".into(), "j2".into()], repeats: 3, concurrency: 1, ..b() }
        .build()
        .expect("valid");
    assert_eq!((s.judges(), s.repeats(), s.concurrency()), (&["j1".to_string(), "j2".to_string()][..], 3, 1));
    assert_eq!((s.official_reasks(), s.reask_delay()), (8, std::time::Duration::from_secs(10)));
}

#[test]
fn generation_resumes_after_failures_and_refuses_a_changed_dataset() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("d.jsonl");
    let text: Vec<String> =
        ["a", "b", "c", "d"].iter().map(|id| record_json(id, &[(json!(1), 5)]).to_string()).collect();
    std::fs::write(&path, text.join("\n")).expect("write");
    let d = Dataset::load(&path).expect("load");
    let runs = tmp.path().join("runs");
    let name = RunName::new("g").expect("name");
    let settings = GenerateSettings { model: "m".into(), concurrency: 2, resume: false };

    // First pass: b and d fail (a crash would leave the same journal state: finished ones kept).
    let flaky = Scripted::new(|call: &anser_omb::ChatCall, _| {
        let q = &call.messages.last().expect("message").1;
        if q.ends_with('b') || q.ends_with('d') { Err("timeout".into()) } else { Ok(format!("answer to {q}")) }
    });
    let s1 = generate(&path, &d, &runs, &name, json!({"base_url": "x"}), &settings, &flaky).expect("generate");
    assert_eq!((s1.generated, s1.failed), (2, 2));

    let again = generate(&path, &d, &runs, &name, json!(null), &settings, &flaky);
    assert!(matches!(again, Err(Error::Store(anser_runstore::Error::RunExists { .. }))), "{again:?}");

    let good =
        Scripted::new(|call: &anser_omb::ChatCall, _| Ok(format!("answer to {}", call.messages.last().expect("m").1)));
    let resume = GenerateSettings { resume: true, ..settings.clone() };
    let s2 = generate(&path, &d, &runs, &name, json!(null), &resume, &good).expect("resume");
    assert_eq!((s2.already_done, s2.generated, s2.failed, good.count()), (2, 2, 0, 2));
    let gens = load_generations(&runs.join("g")).expect("generations");
    let mut ids: Vec<String> = gens.iter().map(|g| g.id.clone()).collect();
    ids.sort();
    assert_eq!(ids, ["a", "b", "c", "d"]);

    // A torn last line (kill -9 mid-write) is ignored on resume.
    std::fs::OpenOptions::new()
        .append(true)
        .open(runs.join("g/generations.jsonl"))
        .expect("open")
        .write_all(b"{\"id\":\"a\",\"ok")
        .expect("write");
    let s3 = generate(&path, &d, &runs, &name, json!(null), &resume, &good).expect("resume after torn write");
    assert_eq!((s3.already_done, s3.generated), (4, 0));

    // The dataset changed: resuming is refused and names the change.
    std::fs::write(&path, text[..3].join("\n")).expect("rewrite");
    let d2 = Dataset::load(&path).expect("load");
    let err = generate(&path, &d2, &runs, &name, json!(null), &resume, &good).expect_err("changed");
    assert!(matches!(err, Error::InputsChanged { .. }), "{err}");
    assert!(err.to_string().contains("dataset: content changed"), "{err}");
    assert!(err.is_user_error());

    // Another model on resume is refused.
    std::fs::write(&path, text.join("\n")).expect("restore");
    let other = GenerateSettings { model: "other".into(), ..resume };
    assert!(matches!(generate(&path, &d, &runs, &name, json!(null), &other, &good), Err(Error::Setting(_))));
}
