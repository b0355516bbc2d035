//! Reduction and aggregation: clipping, the 0.7 boundary, ids out of order and not 1..n,
//! rounding at each level.

use std::collections::BTreeSet;

use anser_omb::{Dataset, SampleValues, Subset, aggregate, parse_strict, score_evalscope};
use serde_json::json;

use crate::{record_json, reply};

fn score(rubrics: &[(i64, i64)], verdicts: &[(i64, &str)]) -> anser_omb::SampleScore {
    let r: Vec<(serde_json::Value, i64)> = rubrics.iter().map(|(n, w)| (json!(n), *w)).collect();
    let d = Dataset::parse(&record_json("x", &r).to_string());
    let record = &d.records[0];
    let expected: BTreeSet<i64> = record.rubrics.iter().map(|r| r.id).collect();
    let judgments = parse_strict(&reply(verdicts), &expected).expect("valid reply");
    score_evalscope(record, &judgments)
}

#[test]
fn pass_boundary_is_inclusive_at_0_7() {
    // 14 / 20 = 0.7 exactly in binary arithmetic (g02 in the measured run): passes.
    let s = score(&[(1, 14), (2, 6)], &[(1, "是"), (2, "否")]);
    assert_eq!((s.expert_score, s.pass), (Some(0.7), 1.0));
    // 69 / 100 = 0.69: fails.
    let s = score(&[(1, 69), (2, 31)], &[(1, "Yes"), (2, "No")]);
    assert_eq!((s.expert_score, s.pass), (Some(0.69), 0.0));
    // 7 / 10 also passes.
    let s = score(&[(1, 7), (2, 3)], &[(1, "命中"), (2, "未命中")]);
    assert_eq!(s.pass, 1.0);
}

#[test]
fn negative_totals_clip_to_zero() {
    // raw = 10 - 20 - 15 = -25 over max 10 + 8 + 3 = 21 → -1.19 → 0.0 (like g06: -32/21).
    let s =
        score(&[(1, -20), (2, 10), (3, -15), (4, 8), (5, 3)], &[(1, "是"), (2, "是"), (3, "是"), (4, "否"), (5, "否")]);
    assert_eq!((s.raw_score.0, s.max_score.0, s.expert_score, s.pass), (-25.0, 21.0, Some(0.0), 0.0));
    // A hit penalty with weight 0 changes nothing.
    let s = score(&[(1, 4), (2, 0)], &[(1, "是"), (2, "是")]);
    assert_eq!(s.expert_score, Some(1.0));
}

#[test]
fn ids_out_of_order_and_not_one_to_n() {
    // Dataset order 4, 2, 9, 1 (as g03); the judge answers in another order.
    let s = score(&[(4, 8), (2, 6), (9, 12), (1, 10)], &[(1, "是"), (9, "是"), (4, "否"), (2, "否")]);
    let ids: Vec<i64> = s.rubrics.iter().map(|r| r.rubric_id).collect();
    assert_eq!(ids, [4, 2, 9, 1], "verdicts are reported in dataset order");
    assert_eq!((s.raw_score.0, s.max_score.0), (22.0, 36.0));
    // Negative and large ids work; a reply using 1..n instead of the real ids is rejected.
    let s = score(&[(-3, 5), (1000, 5)], &[(1000, "是"), (-3, "否")]);
    assert_eq!(s.expert_score, Some(0.5));
    let d = Dataset::parse(&record_json("y", &[(json!(-3), 5), (json!(1000), 5)]).to_string());
    let expected: BTreeSet<i64> = d.records[0].rubrics.iter().map(|r| r.id).collect();
    let err = parse_strict(&reply(&[(1, "是"), (2, "否")]), &expected).expect_err("wrong ids");
    assert_eq!(err.kind, "rubric_id_mismatch");
}

#[test]
fn aggregation_rounds_at_each_level() {
    let v = |subset, e: Option<f64>, p: Option<f64>| SampleValues { subset, expert_score: e, pass: p };
    // global_industry: mean(1/3, 0) = 1/6 → 0.1667; global_law: 0.40625 → 0.4062 (ties to even);
    // cn_law: all excluded; cn_industry: 0.8.
    let samples = [
        v(Subset::GlobalIndustry, Some(1.0 / 3.0), Some(0.0)),
        v(Subset::GlobalIndustry, Some(0.0), Some(0.0)),
        v(Subset::GlobalLaw, Some(0.40625), Some(0.0)),
        v(Subset::CnLaw, None, None),
        v(Subset::CnIndustry, Some(0.8), Some(1.0)),
    ];
    let a = aggregate(&samples);
    assert_eq!(a.subsets.get("global_industry").and_then(|l| l.expert_score), Some(0.1667));
    assert_eq!(a.subsets.get("global_law").and_then(|l| l.expert_score), Some(0.4062));
    let cn_law = a.subsets.get("cn_law").expect("kept");
    assert_eq!((cn_law.expert_score, cn_law.scored, cn_law.excluded), (None, 0, 1));
    let global = a.categories.get("Global").expect("global");
    // micro: (0.1667*2 + 0.4062*1) / 3 = 0.24653.. → 0.2465; macro: the plain mean, rounded.
    assert_eq!(global.expert_score, Some(0.2465));
    assert_eq!(global.macro_expert_score, Some(anser_omb::pycompat::round4((0.1667 + 0.4062) / 2.0)));
    let cn = a.categories.get("CN").expect("cn");
    assert_eq!((cn.expert_score, cn.scored, cn.excluded), (Some(0.8), 1, 1));
    // overall micro over the rounded categories: (0.2465*3 + 0.8*1) / 4 = 0.384875 → 0.3849.
    assert_eq!(a.overall.expert_score, Some(anser_omb::pycompat::round4((0.2465 * 3.0 + 0.8) / 4.0)));
    assert_eq!(a.overall.expert_score, Some(0.3849));
    assert_eq!(a.overall.macro_expert_score, Some(anser_omb::pycompat::round4((0.2465 + 0.8) / 2.0)));
    assert_eq!((a.overall.scored, a.overall.excluded), (4, 1));
    assert_eq!(a.overall.pass_rate, Some(0.25));
}
