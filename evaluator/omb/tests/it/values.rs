//! Economic Value (`--values`, the release's `economic_value.md` format) and the
//! time-sensitivity breakdown, against hand-computed figures.

use anser_omb::{ChatCall, Dataset, JudgeCache, JudgeSettings, Report, ValueTable, judge_all};
use serde_json::json;

use crate::{Scripted, record_json, reply};

const TABLE: &str = "# Economic value of the tasks

Values were estimated by the domain experts.

| id | language | value |
|:---|:---:|---:|
| c1 | cn | ¥12,000 |
| c2 | cn | ¥3,500.50 |
| g1 | global | $1,500 |
| g2 | global | $800 |
| g3 | global | USD 250 |
";

fn dataset() -> Dataset {
    let cn = |id: &str, label: serde_json::Value| {
        let mut r = record_json(id, &[(json!(1), 7), (json!(2), 3)]);
        r["language"] = json!("cn");
        r["tags"] = json!({"topics": ["法律"], "time_sensitivity": label});
        r
    };
    let global = |id: &str, label: serde_json::Value| {
        let mut r = record_json(id, &[(json!(1), 7), (json!(2), 3)]);
        r["tags"]["time_sensitivity"] = label;
        r
    };
    let lines = [
        cn("c1", json!("强时效性")),
        cn("c2", json!({"label": "Weakly time-sensitive", "note": "n"})),
        global("g1", json!({"label": "Time-agnostic"})),
        global("g2", json!("Strongly time-sensitive")),
        global("g3", json!({"label": "Weakly time-sensitive"})),
        global("x", serde_json::Value::Null),
    ];
    Dataset::parse(&lines.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
}

#[test]
fn economic_value_sums_passed_tasks_per_currency() {
    let d = dataset();
    // c1: 7/10 pass; c2: 3/10 fail; g1: 10/10 pass; g2: unusable reply (excluded, not passed);
    // g3: 7/10 pass; x: pass but not in the table.
    let backend = Scripted::new(|call: &ChatCall, _| {
        let prompt = &call.messages[0].1;
        let q = |id: &str| prompt.contains(&format!("question {id}\n"));
        Ok(if q("c1") || q("g3") || q("x") {
            reply(&[(1, "是"), (2, "否")])
        } else if q("c2") {
            reply(&[(1, "否"), (2, "是")])
        } else if q("g1") {
            reply(&[(1, "是"), (2, "是")])
        } else {
            "no verdict".to_string()
        })
    });
    let answers = ["c1", "c2", "g1", "g2", "g3", "x"].iter().map(|i| (i.to_string(), "a".to_string())).collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = JudgeSettings::new("j").expect("valid judge settings");
    let run =
        judge_all(&d, &answers, &settings, &backend, &JudgeCache::open(dir.path()).expect("cache")).expect("judge");
    let table = ValueTable::parse(TABLE).expect("table");
    assert_eq!(table.rows, 5);
    let report = Report::new(&d, &run, &settings).with_values(&d, &run, &table);
    let v = report.economic_value.as_ref().expect("economic value");
    // ¥: c1 = 12,000 (c2 failed). $: g1 1,500 + g3 250 = 1,750 (g2 excluded).
    assert_eq!((v.cny, v.usd), (12_000.0, 1_750.0));
    assert_eq!(v.display, "¥12,000 / $1,750");
    assert_eq!((v.questions_passed, v.questions_total), (3, 5));
    assert_eq!(v.not_in_table, ["x"]);

    let by: std::collections::BTreeMap<&str, &anser_omb::TimeBreakdown> =
        report.time_sensitivity.iter().map(|t| (t.category, t)).collect();
    // agnostic: g1 (1.0), g2 (excluded; "Strongly time-sensitive" is not a harness label), x (0.7).
    let agnostic = by["agnostic"];
    assert_eq!((agnostic.tasks, agnostic.scored, agnostic.questions_passed), (3, 2, 2));
    assert_eq!(agnostic.expert_score, Some((1.0 + 0.7) / 2.0));
    assert_eq!(agnostic.economic_value.as_ref().map(|v| v.display.as_str()), Some("¥0 / $1,500"));
    // weak_sensitive: c2 (0.3, fail), g3 (0.7, pass).
    let weak = by["weak_sensitive"];
    assert_eq!((weak.tasks, weak.scored, weak.questions_passed), (2, 2, 1));
    assert_eq!(weak.pass_rate, Some(0.5));
    assert_eq!(weak.economic_value.as_ref().map(|v| v.display.as_str()), Some("¥0 / $250"));
    // sensitive: c1 (0.7, pass).
    let sensitive = by["sensitive"];
    assert_eq!((sensitive.tasks, sensitive.expert_score), (1, Some(0.7)));
    assert_eq!(sensitive.economic_value.as_ref().map(|v| (v.cny, v.questions_total)), Some((12_000.0, 1)));
}

#[test]
fn value_table_lookup_by_uuid_case_id_and_file_name() {
    let mut a = record_json("a", &[(json!(1), 1)]);
    a["uuid"] = json!("6f1c");
    let mut b = record_json("b", &[(json!(1), 1)]);
    b["case_id"] = json!(90002);
    let c = record_json("c", &[(json!(1), 1)]);
    let d = Dataset::parse(&[a, b, c].iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
    let table = ValueTable::parse(
        "| uuid | case_id | file | 价值 |\n|---|---|---|---|\n| 6f1c | | | 100 |\n| | 90002 | | 2,000.5 |\n| | | c.json | $30 |\n",
    )
    .expect("table");
    let values: Vec<Option<f64>> = ["a", "b", "c"].iter().map(|id| table.lookup(d.get(id).expect("record"))).collect();
    assert_eq!(values, [Some(100.0), Some(2000.5), Some(30.0)]);
    let err = ValueTable::parse("| note | value |\n|---|---|\n| a | 1 |\n").expect_err("no key column");
    assert!(err.contains("task column"), "{err}");
    // Several tables (a summary without a task column is skipped), per-currency columns.
    let table = ValueTable::parse(
        "## Summary\n\n| domain | total value |\n|---|---|\n| law | 99 |\n\n## Tasks\n\n\
         | 题目编号 | Value (CNY) | Value (USD) |\n|---|---|---|\n| a | 1.2万 | - |\n| b | ¥700 | $100 |\n",
    )
    .expect("tables");
    assert_eq!(table.rows, 2);
    let mut cn = d.get("b").expect("b").clone();
    cn.language = "cn".into();
    assert_eq!(
        (table.lookup(d.get("a").expect("a")), table.lookup(d.get("b").expect("b")), table.lookup(&cn)),
        (Some(12_000.0), Some(100.0), Some(700.0))
    );
    let err = ValueTable::parse("| id | value |\n|---|---|\n| a | lots |\n").expect_err("bad value");
    assert!(err.contains("line 3") && err.contains("not a number"), "{err}");
}
