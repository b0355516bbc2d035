//! Frame operations and association requests, against hand-computed results.

use anser_agent::tools::compute::{ComputeRequest, ComputeResult, Table, compute, run_frame};
use anser_manifest::Language;
use serde_json::{Value, json};

/// Revenue of three companies over three years; one missing value.
fn revenue() -> Table {
    let rows = [
        ("600001", "steel", 2021, json!(100.0)),
        ("600001", "steel", 2022, json!(110.0)),
        ("600001", "steel", 2023, json!(99.0)),
        ("600002", "steel", 2021, json!(50.0)),
        ("600002", "steel", 2022, json!(75.0)),
        ("600002", "steel", 2023, Value::Null),
        ("600003", "auto", 2022, json!(200)),
        ("600003", "auto", 2023, json!(150)),
    ];
    Table {
        columns: vec!["stock_code".into(), "industry".into(), "year".into(), "revenue".into()],
        rows: rows.into_iter().map(|(c, i, y, r)| vec![json!(c), json!(i), json!(y), r]).collect(),
    }
}

fn frame(ops: Value) -> Table {
    let req: ComputeRequest = serde_json::from_value(json!({"kind": "frame", "ops": ops})).expect("request parses");
    match compute(&revenue(), &req, Language::Zh).expect("runs") {
        ComputeResult::Frame { table } => table,
        other => panic!("{other:?}"),
    }
}

#[test]
fn group_count_distinct_and_sum() {
    let t = frame(json!([
        {"op": "filter", "column": "year", "cmp": "ge", "value": 2022},
        {"op": "group_by", "by": ["industry"], "aggs": [
            {"fn": "count_distinct", "column": "stock_code", "as": "companies"},
            {"fn": "count", "as": "rows"},
            {"fn": "sum", "column": "revenue", "as": "revenue"}
        ]},
        {"op": "sort", "by": ["industry"]}
    ]));
    assert_eq!(t.columns, ["industry", "companies", "rows", "revenue"]);
    // auto: 600003 (2 rows, 350); steel 2022-23: 600001, 600002 (4 rows, 110 + 99 + 75 = 284).
    assert_eq!(
        t.rows,
        vec![
            vec![json!("auto"), json!(1), json!(2), json!(350.0)],
            vec![json!("steel"), json!(2), json!(4), json!(284.0)]
        ]
    );
}

#[test]
fn period_over_period_change_and_ranking() {
    let t = frame(json!([
        {"op": "change", "column": "revenue", "order_by": "year", "by": ["stock_code"], "kind": "percent", "as": "yoy"},
        {"op": "filter", "column": "year", "cmp": "eq", "value": 2023},
        {"op": "rank", "column": "yoy", "as": "rank"},
        {"op": "sort", "by": ["stock_code"]},
        {"op": "select", "columns": ["stock_code", "yoy", "rank"]}
    ]));
    // 600001: (99 - 110) / 110 = -10 %; 600002: null (no 2023 value); 600003: (150 - 200) / 200 = -25 %.
    assert_eq!(t.rows[1][1], Value::Null);
    let yoy1 = t.rows[0][1].as_f64().expect("yoy");
    assert!((yoy1 + 10.0).abs() < 1e-12, "{yoy1}");
    assert_eq!(t.rows[2][1], json!(-25.0));
    assert_eq!(t.rows[0][2], json!(1), "descending: -10 % ranks first");
    assert_eq!(t.rows[2][2], json!(2));
}

#[test]
fn rates_distinct_limit_and_membership() {
    let t = frame(json!([
        {"op": "filter", "column": "stock_code", "cmp": "in", "value": ["600001", "600003"]},
        {"op": "rate", "numerator": "revenue", "denominator": "year", "as": "per_year"},
        {"op": "distinct", "columns": ["stock_code"]},
        {"op": "limit", "n": 5}
    ]));
    assert_eq!(t.rows.len(), 2);
    assert_eq!(t.rows[0][4], json!(100.0 / 2021.0));
    let err = compute(
        &revenue(),
        &serde_json::from_value(json!({"kind": "frame", "ops": [{"op": "select", "columns": ["nope"]}]}))
            .expect("parses"),
        Language::En,
    )
    .expect_err("unknown column");
    assert!(err.to_string().contains("nope") && err.to_string().contains("stock_code"), "{err}");
    assert!(
        serde_json::from_value::<ComputeRequest>(json!({"kind": "frame", "ops": [{"op": "explode"}]})).is_err(),
        "unknown operations are rejected"
    );
    // No operations: the same table, with the integer revenues of a mixed column as floats.
    let same = run_frame(&revenue(), &[]).expect("identity");
    assert_eq!(same.columns, revenue().columns);
    assert_eq!(same.rows[6], vec![json!("600003"), json!("auto"), json!(2022), json!(200.0)]);
}

#[test]
fn associations_from_case_rows() {
    // 10 cases: X = 1 in six (four with Y = 1), X = 0 in four (one with Y = 1), one null row.
    let mut rows: Vec<Vec<Value>> = Vec::new();
    for (x, y, months) in [
        (1, 1, 12),
        (1, 1, 10),
        (1, 1, 14),
        (1, 1, 9),
        (1, 0, 8),
        (1, 0, 11),
        (0, 1, 5),
        (0, 0, 6),
        (0, 0, 4),
        (0, 0, 7),
    ] {
        rows.push(vec![json!(x), json!(y), json!(months)]);
    }
    rows.push(vec![Value::Null, json!(1), json!(3)]);
    let table = Table { columns: vec!["x".into(), "y".into(), "months".into()], rows };
    let req = serde_json::from_value(json!({"kind": "binary_association", "x": "x", "y": "y"})).expect("parses");
    let ComputeResult::BinaryAssociation { stats, answer, dropped_rows, .. } =
        compute(&table, &req, Language::Zh).expect("runs")
    else {
        panic!("kind")
    };
    assert_eq!(dropped_rows, 1);
    assert_eq!((stats.n, stats.n_x1, stats.table.x1_y1, stats.table.x0_y1), (10, 6, 4, 1));
    // Haldane on every cell (zh release convention): (4.5·3.5)/(2.5·1.5) = 4.2.
    assert_eq!(answer.value["odds_ratio"], json!(4.2));
    assert_eq!(answer.value["outcome_rate_x1"], json!(0.666667));
    assert_eq!(answer.option, "无明确关联");
    let req =
        serde_json::from_value(json!({"kind": "continuous_association", "x": "x", "y": "months"})).expect("parses");
    let ComputeResult::ContinuousAssociation { stats, .. } = compute(&table, &req, Language::En).expect("runs") else {
        panic!("kind")
    };
    // Medians: X=1 {8,9,10,11,12,14} -> 10.5; X=0 {4,5,6,7} -> 5.5.
    assert_eq!((stats.median_x1, stats.median_x0, stats.median_difference), (10.5, 5.5, 5.0));
    let bad = Table { columns: vec!["x".into(), "y".into()], rows: vec![vec![json!(2), json!(1)]] };
    let req = serde_json::from_value(json!({"kind": "binary_association", "x": "x", "y": "y"})).expect("parses");
    assert!(compute(&bad, &req, Language::En).is_err(), "2 is not a 0/1 value");
}
