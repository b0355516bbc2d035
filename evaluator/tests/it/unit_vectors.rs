//! The official helpers' input → output vectors (`../shared/golden/anser-eval/unit_vectors.json`).

use anser_evaluator::{
    answer::{accuracy_10, answer_kind, choice, choice_accuracy, json_object, number, smape, token_f1},
    evidence::{Canonicalizer, EvidenceScope, RuleIndex, population_scores, retrieval_scores},
    exact::exact_mean,
    pyjson::{Py, loads},
    pytext::normalized,
};

use crate::common::shared;

fn vectors() -> Option<(Py, std::path::PathBuf)> {
    let shared = shared("unit vectors")?;
    let path = shared.join("golden/anser-eval/unit_vectors.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v = loads(&text).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    Some((v, shared))
}

fn cases<'a>(v: &'a Py, key: &str) -> &'a [Py] {
    match v.get(key) {
        Some(Py::List(l)) => l,
        _ => panic!("unit_vectors.json has no {key} list"),
    }
}

fn f(v: Option<&Py>) -> f64 {
    v.and_then(Py::as_f64).unwrap_or(f64::NAN)
}

fn s(v: Option<&Py>) -> &str {
    v.and_then(Py::as_str).unwrap_or_default()
}

fn strings(v: Option<&Py>) -> Vec<String> {
    match v {
        Some(Py::List(l)) => l.iter().map(|x| s(Some(x)).to_string()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn number_parsing() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "number") {
        let input = c.get("input").unwrap_or(&Py::Null);
        let got = number(input).map(f64::to_bits);
        let want = c.get("output").and_then(Py::as_f64).map(f64::to_bits);
        assert_eq!(got, want, "number({input:?})");
    }
}

#[test]
fn normalisation() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "normalized") {
        assert_eq!(normalized(c.get("input").unwrap_or(&Py::Null)), s(c.get("output")), "{c:?}");
    }
}

#[test]
fn option_choice_and_accuracy() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "choice_accuracy") {
        let (answer, gold) = (c.get("answer").unwrap_or(&Py::Null), c.get("gold").unwrap_or(&Py::Null));
        assert_eq!(choice(answer, gold).as_deref(), c.get("choice").and_then(Py::as_str), "{c:?}");
        assert_eq!(choice_accuracy(answer, gold), f(c.get("accuracy")), "{c:?}");
    }
}

#[test]
fn token_f1_values() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "token_f1") {
        let got = token_f1(c.get("prediction").unwrap_or(&Py::Null), c.get("reference").unwrap_or(&Py::Null));
        assert_eq!(got, f(c.get("output")), "{c:?}");
    }
}

#[test]
fn smape_and_relaxed_accuracy() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "smape") {
        assert_eq!(smape(f(c.get("p")), f(c.get("g"))), f(c.get("output")), "{c:?}");
    }
    for c in cases(&v, "accuracy_10") {
        assert_eq!(accuracy_10(f(c.get("p")), f(c.get("g"))), f(c.get("output")), "{c:?}");
    }
}

#[test]
fn canonical_evidence_ids() {
    let Some((v, shared)) = vectors() else { return };
    let rules = RuleIndex::load(&shared.join("anser/corpus")).unwrap_or_default();
    assert!(!rules.is_empty(), "the sample regulatory rules should load");
    for c in cases(&v, "canonical_evidence") {
        let group = s(c.get("task_group")).parse().unwrap_or_else(|e: String| panic!("{e}"));
        let scope = EvidenceScope::for_task(group, c.get("task_type").and_then(Py::as_str));
        let canon = Canonicalizer { scope, rules: Some(&rules) };
        assert_eq!(canon.canonical(c.get("input").unwrap_or(&Py::Null)), s(c.get("output")), "{c:?}");
    }
}

#[test]
fn ranked_and_set_metrics() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "retrieval_scores") {
        let r = retrieval_scores(&strings(c.get("predicted")), &strings(c.get("expected")));
        let out = c.get("output");
        let want = |k: &str| f(out.and_then(|o| o.get(k)));
        assert_eq!(
            (r.recall_at_5, r.precision_at_5, r.r_precision, r.mrr),
            (want("Recall@5"), want("Precision@5"), want("R-Precision"), want("MRR")),
            "{c:?}"
        );
    }
    for c in cases(&v, "population_scores") {
        let r = population_scores(&strings(c.get("predicted")), &strings(c.get("expected")));
        let out = c.get("output");
        let want = |k: &str| f(out.and_then(|o| o.get(k)));
        assert_eq!((r.precision, r.recall, r.f1), (want("Set Precision"), want("Set Recall"), want("Set F1")), "{c:?}");
    }
}

#[test]
fn structured_answer_extraction() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "json_object") {
        let got = json_object(c.get("input").unwrap_or(&Py::Null));
        match (got, c.get("output"), c.get("error").and_then(Py::as_str)) {
            (Ok(d), Some(Py::Dict(want)), _) => assert_eq!(d.as_ref(), want, "{c:?}"),
            (Err(e), None, Some(want)) => {
                let message = want.split_once(": ").map_or(want, |(_, m)| m);
                assert_eq!(e.to_string(), message, "{c:?}");
            }
            (got, ..) => panic!("{c:?}: got {got:?}"),
        }
    }
}

#[test]
fn finance_answer_kind() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "answer_kind") {
        let kind = answer_kind(
            c.get("ground_truth").unwrap_or(&Py::Null),
            c.get("instruction").filter(|i| **i != Py::Null),
            c.get("type").and_then(Py::as_str),
        );
        assert_eq!(kind.as_str(), s(c.get("output")), "{c:?}");
    }
}

#[test]
fn exact_mean_vs_naive_sum() {
    let Some((v, _)) = vectors() else { return };
    for c in cases(&v, "exact_mean") {
        let values: Vec<f64> = match c.get("values") {
            Some(Py::List(l)) => l.iter().map(|x| f(Some(x))).collect(),
            _ => Vec::new(),
        };
        assert_eq!(exact_mean(&values), Some(f(c.get("statistics_mean"))), "{c:?}");
        let naive = values.iter().sum::<f64>() / values.len() as f64;
        assert_eq!(naive, f(c.get("naive_sum_div_n")), "{c:?}");
    }
}
