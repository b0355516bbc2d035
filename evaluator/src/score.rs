//! Scoring one record against its task (spec §1.3, §4, §5, §6.1): the detail with its answer
//! and evidence metrics, errors, generation fields and answer kind, plus the work left for the
//! asynchronous passes (the LLM judge prompt, the BERTScore pair).

use anser_gold::Reference;
use anser_manifest::{Domain, Language, PublicTask, Split, TaskGroup};
use sha2::{Digest, Sha256};

use crate::{
    Profile,
    answer::{AnswerKind, accuracy_10, answer_kind, choice_accuracy, json_object, number, number_opt, smape, token_f1},
    evidence::{Canonicalizer, EvidenceScope, RuleIndex, population_scores, retrieval_scores},
    prompts::{JudgeTemplate, Prompts},
    pyjson::{Dict, DumpStyle, Py, dumps},
    pytext::{normalized_opt, text},
    report::{Detail, EvidenceCount, Metric},
};

/// How a task's answer is scored (the branches of `evaluate_answer`, in their order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerRule {
    /// legal descriptive: MAE, Accuracy@10% (unparseable → null).
    LegalNumeric,
    /// legal predictive: Relation Accuracy of the structured answer's `option`.
    Relation,
    /// finance_en_prescriptive FinAuditing: Rule Accuracy and SMAPE of `expected_value`.
    FinAuditing,
    /// finance descriptive `statistic`: MAE, Accuracy@10% (unparseable → 0).
    Statistic,
    /// finance descriptive (other types) and predictive: by answer kind.
    FinanceKind,
    /// science: Token-F1, then the judge.
    Science,
    /// legal prescriptive, finance prescriptive (zh, RegBench): the judge only.
    JudgeOnly,
}

impl AnswerRule {
    pub fn of(group: TaskGroup, task_type: Option<&str>) -> AnswerRule {
        match (group.domain, group.split) {
            (Domain::Legal, Split::Descriptive) => AnswerRule::LegalNumeric,
            (Domain::Legal, Split::Predictive) => AnswerRule::Relation,
            (Domain::Finance, Split::Prescriptive)
                if group.language == Language::En && task_type == Some("FinAuditing") =>
            {
                AnswerRule::FinAuditing
            }
            (Domain::Finance, Split::Descriptive) if task_type == Some("statistic") => AnswerRule::Statistic,
            (Domain::Finance, Split::Descriptive | Split::Predictive) => AnswerRule::FinanceKind,
            (Domain::Science, _) => AnswerRule::Science,
            _ => AnswerRule::JudgeOnly,
        }
    }
}

/// Set metrics (legal descriptive/predictive, finance descriptive statistic) or ranked ones.
pub fn uses_population(group: TaskGroup, task_type: Option<&str>) -> bool {
    (group.domain == Domain::Legal && group.split != Split::Prescriptive)
        || (group.domain == Domain::Finance && group.split == Split::Descriptive && task_type == Some("statistic"))
}

/// The ranked metric reported next to Recall@5 (`None`: Recall@5 only).
fn second_ranked(group: TaskGroup) -> Option<Metric> {
    match (group.domain, group.split) {
        (Domain::Legal, Split::Prescriptive) => {
            Some(if group.language == Language::Zh { Metric::RPrecision } else { Metric::Mrr })
        }
        (Domain::Finance, Split::Prescriptive) => Some(Metric::RPrecision),
        (Domain::Finance, Split::Predictive) => None,
        _ => Some(Metric::PrecisionAt5),
    }
}

/// `allowed_metrics(task)`: the official metric names a task may carry. The card profile's
/// extras are appended after this filter.
pub fn allowed_metrics(group: TaskGroup, task_type: Option<&str>) -> Vec<Metric> {
    let mut allowed = Vec::with_capacity(8);
    if uses_population(group, task_type) {
        allowed.extend([Metric::SetPrecision, Metric::SetRecall, Metric::SetF1]);
    } else {
        allowed.push(Metric::RecallAt5);
        allowed.extend(second_ranked(group));
    }
    match group.domain {
        Domain::Legal => match group.split {
            Split::Descriptive => allowed.extend([Metric::Mae, Metric::Accuracy10]),
            Split::Predictive => allowed.push(Metric::RelationAccuracy),
            Split::Prescriptive => allowed.push(Metric::LlmJudge),
        },
        Domain::Science => allowed.extend([Metric::TokenF1, Metric::LlmJudge]),
        Domain::Finance => match group.split {
            Split::Descriptive if task_type == Some("statistic") => allowed.extend([Metric::Mae, Metric::Accuracy10]),
            Split::Descriptive => allowed.extend([Metric::Smape, Metric::Accuracy, Metric::LlmJudge]),
            Split::Predictive => allowed.extend([Metric::Accuracy, Metric::LlmJudge]),
            Split::Prescriptive if task_type == Some("FinAuditing") => {
                allowed.extend([Metric::RuleAccuracy, Metric::Smape])
            }
            Split::Prescriptive => allowed.push(Metric::LlmJudge),
        },
    }
    allowed
}

/// The card profile's additions to one detail, appended after the official metrics and errors.
#[derive(Debug, Default)]
struct CardExtras {
    metrics: Vec<(Metric, Option<f64>)>,
    errors: Vec<String>,
}

impl CardExtras {
    fn push(&mut self, metric: Metric, value: Result<f64, String>) {
        match value {
            Ok(v) => self.metrics.push((metric, Some(v))),
            Err(reason) => {
                self.metrics.push((metric, None));
                self.errors.push(reason);
            }
        }
    }
}

/// Work a detail still needs after the synchronous pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The rendered judge prompt, when the task is judge-scored.
    pub judge_prompt: Option<(JudgeTemplate, String)>,
    /// (candidate, reference) texts for BERTScore-F1 (card profile).
    pub bert_pair: Option<(String, String)>,
}

/// What the scorer needs besides the task.
#[derive(Debug, Clone, Copy)]
pub struct ScoreContext<'a> {
    pub profile: Profile,
    pub prompts: &'a Prompts,
    /// The regulatory-rule index, loaded on first need by the caller.
    pub rules: Option<&'a RuleIndex>,
}

/// `result_signature(record)`: SHA-256 of the compact sorted JSON of the fields that can change
/// a task's evaluation.
pub fn result_signature(record: &Dict) -> String {
    let relevant: Dict = ["id", "answer", "prediction", "retrieved_evidence", "retrieved"]
        .iter()
        .filter_map(|k| record.get(k).map(|v| (k.to_string(), v.clone())))
        .collect();
    let encoded = dumps(&Py::Dict(relevant), DumpStyle::COMPACT_SORTED);
    let digest = Sha256::digest(encoded.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a record cannot be evaluated at all (the official evaluator aborts on these).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError(pub String);

/// The `generation` fields of a record (spec §6.1), plus latency fields for the card profile.
pub fn generation(record: &Dict, profile: Profile) -> Result<Option<Dict>, RecordError> {
    let mut out = Dict::new();
    for key in ["prompt_tokens", "completion_tokens", "total_tokens"] {
        if let Some(v) = record.get(key) {
            out.insert(key, v.clone());
        }
    }
    let mut token = record.get("token_usage").filter(|v| v.truthy());
    if token.is_none() {
        token = record.get("tokens").filter(|v| v.truthy());
    }
    if token.is_none() {
        token = match record.get("run_metadata") {
            None => None,
            Some(Py::Dict(meta)) => meta.get("token_usage"),
            Some(_) => {
                return Err(RecordError(
                    "`run_metadata` is not an object (the official evaluator aborts here); fix or drop the field"
                        .into(),
                ));
            }
        };
    }
    if let Some(Py::Dict(token)) = token {
        let mut total = if token.contains_key("total_tokens") { token.get("total_tokens") } else { token.get("total") };
        if let Some(Py::Dict(t)) = total {
            total = if t.get("unknown_calls").is_some_and(Py::truthy) { None } else { t.get("known_sum") };
        }
        if let Some(total) = total.filter(|t| t.is_number_or_bool()) {
            out.insert("total_tokens", total.clone());
        }
    }
    if profile == Profile::Card {
        for key in ["request_latency_seconds", "latency"] {
            if let Some(v) = record.get(key) {
                out.insert(key, v.clone());
            }
        }
    }
    Ok((!out.is_empty()).then_some(out))
}

/// Score one record of a known task.
pub fn score_record(
    ctx: &ScoreContext<'_>,
    task: &PublicTask,
    reference: &Reference,
    record: &Dict,
) -> Result<(Detail, Pending), RecordError> {
    let group = task.group;
    let task_type = task.task_type.as_deref();
    let mut detail = Detail {
        id: task.id.clone(),
        result_signature: result_signature(record),
        benchmark_file: task.source_file.clone(),
        task_group: group.name(),
        task_type: task.task_type.clone(),
        metrics: Vec::with_capacity(6),
        errors: Vec::new(),
        generation: generation(record, ctx.profile)?,
        answer_kind: None,
        llm_judge: None,
        evidence_count: EvidenceCount::default(),
    };
    if !record.contains_key("answer") && !record.contains_key("prediction") {
        detail.errors.push("missing answer".into());
    }
    let answer = if record.contains_key("answer") { record.get("answer") } else { record.get("prediction") };
    let answer = answer.unwrap_or(&Py::Null);
    let gold = Py::from_serde(&reference.ground_truth);
    let mut pending = Pending { judge_prompt: None, bert_pair: None };
    let card = ctx.profile == Profile::Card;
    let mut extras = CardExtras::default();

    let short_answer = |detail: &mut Detail, pending: &mut Pending| {
        if let Some(template) = JudgeTemplate::for_task(group, task_type) {
            let prompt = ctx.prompts.render(template, task, &gold, answer);
            detail.metrics.push((Metric::LlmJudge, None));
            pending.judge_prompt = Some((template, prompt));
        }
        if card {
            pending.bert_pair = Some((text(answer).into_owned(), text(&gold).into_owned()));
        }
    };

    match AnswerRule::of(group, task_type) {
        AnswerRule::LegalNumeric | AnswerRule::Statistic => {
            let statistic = AnswerRule::of(group, task_type) == AnswerRule::Statistic;
            let (pred, refv) = (number(answer), number(&gold));
            match (pred, refv) {
                (Some(p), Some(g)) => {
                    detail.metrics.push((Metric::Mae, Some((p - g).abs())));
                    detail.metrics.push((Metric::Accuracy10, Some(accuracy_10(p, g))));
                }
                _ => {
                    detail.metrics.push((Metric::Mae, None));
                    detail.metrics.push((Metric::Accuracy10, if statistic { Some(0.0) } else { None }));
                    detail.errors.push(
                        if statistic {
                            "statistical numeric answer is not parseable"
                        } else {
                            "numeric answer is not parseable"
                        }
                        .into(),
                    );
                }
            }
        }
        AnswerRule::Relation => match json_object(answer) {
            Ok(pred) => {
                let same = normalized_opt(pred.get("option")) == normalized_opt(gold.get("option"));
                detail.metrics.push((Metric::RelationAccuracy, Some(if same { 1.0 } else { 0.0 })));
                if card {
                    legacy_relation_extras(&mut extras, Ok(pred.as_ref()), &gold);
                }
            }
            Err(e) => {
                detail.metrics.push((Metric::RelationAccuracy, None));
                detail.errors.push(format!("invalid structured legal-predictive answer: {e}"));
                if card {
                    legacy_relation_extras(&mut extras, Err(e.to_string()), &gold);
                }
            }
        },
        AnswerRule::FinAuditing => {
            let outcome = json_object(answer).map_err(|e| e.to_string()).and_then(|pred| {
                let rule = normalized_opt(pred.get("applied_rule")) == normalized_opt(gold.get("applied_rule"));
                let rule = if rule { 1.0 } else { 0.0 };
                match (number_opt(pred.get("expected_value")), number_opt(gold.get("expected_value"))) {
                    (Some(a), Some(b)) => Ok((rule, smape(a, b))),
                    _ => Err("expected_value is not numeric".to_string()),
                }
            });
            match outcome {
                Ok((rule, s)) => {
                    detail.metrics.push((Metric::RuleAccuracy, Some(rule)));
                    detail.metrics.push((Metric::Smape, Some(s)));
                }
                Err(e) => {
                    detail.metrics.push((Metric::RuleAccuracy, None));
                    detail.metrics.push((Metric::Smape, None));
                    detail.errors.push(format!("invalid FinAuditing answer: {e}"));
                }
            }
        }
        AnswerRule::FinanceKind => {
            let kind = answer_kind(&gold, Some(&Py::Str(task.instruction.clone())), task_type);
            detail.answer_kind = Some(kind);
            match kind {
                AnswerKind::Numeric if group.split == Split::Descriptive => match (number(answer), number(&gold)) {
                    (Some(p), Some(g)) => detail.metrics.push((Metric::Smape, Some(smape(p, g)))),
                    _ => {
                        detail.metrics.push((Metric::Smape, None));
                        detail.errors.push("numeric answer is not parseable".into());
                    }
                },
                AnswerKind::Numeric if card => {
                    let value = match (number(answer), number(&gold)) {
                        (Some(p), Some(g)) => Ok(smape(p, g)),
                        _ => Err("SMAPE unavailable: numeric answer is not parseable".to_string()),
                    };
                    extras.push(Metric::Smape, value);
                }
                AnswerKind::Numeric => {}
                AnswerKind::Categorical => {
                    detail.metrics.push((Metric::Accuracy, Some(choice_accuracy(answer, &gold))))
                }
                AnswerKind::ShortAnswer => short_answer(&mut detail, &mut pending),
            }
        }
        AnswerRule::Science => {
            detail.metrics.push((Metric::TokenF1, Some(token_f1(answer, &gold))));
            short_answer(&mut detail, &mut pending);
        }
        AnswerRule::JudgeOnly => short_answer(&mut detail, &mut pending),
    }

    let precision_at_5 = score_evidence(ctx, task, reference, record, &mut detail);
    let allowed = allowed_metrics(group, task_type);
    detail.metrics.retain(|(m, _)| allowed.contains(m));
    if card {
        // Legacy: finance predictive evidence also gets Precision@5.
        if group.domain == Domain::Finance && group.split == Split::Predictive {
            extras.metrics.extend(precision_at_5.map(|p| (Metric::PrecisionAt5, Some(p))));
        }
        if pending.bert_pair.is_some() {
            extras.metrics.push((Metric::BertScoreF1, None));
        }
        detail.metrics.extend(extras.metrics);
        detail.errors.extend(extras.errors);
    }
    Ok((detail, pending))
}

/// Legacy MAE(log OR) / MAE(median difference) for legal predictive (card profile only); unlike
/// legacy, a failure here never touches Relation Accuracy.
fn legacy_relation_extras(extras: &mut CardExtras, pred: Result<&Dict, String>, gold: &Py) {
    let Some(gold_value) = gold.get("value").and_then(Py::as_dict) else { return };
    let (metric, key) = if gold_value.contains_key("odds_ratio") {
        (Metric::MaeLogOr, "odds_ratio")
    } else {
        (Metric::MaeMedianDifference, "median_difference")
    };
    let computed = pred.and_then(|pred| {
        let a = number_opt(pred.get("value").and_then(|v| v.get(key)));
        let b = number_opt(gold_value.get(key));
        match (metric, a, b) {
            (Metric::MaeLogOr, Some(a), Some(b)) if a > 0.0 && b > 0.0 => Ok((a.ln() - b.ln()).abs()),
            (Metric::MaeLogOr, ..) => Err("odds_ratio must be positive".to_string()),
            (_, Some(a), Some(b)) => Ok((a - b).abs()),
            _ => Err("median_difference is not numeric".to_string()),
        }
    });
    extras.push(metric, computed.map_err(|reason| format!("{} unavailable: {reason}", metric.name())));
}

/// Evidence metrics into `detail`; returns Precision@5 of ranked tasks (the card profile adds it
/// for finance predictive).
fn score_evidence(
    ctx: &ScoreContext<'_>,
    task: &PublicTask,
    reference: &Reference,
    record: &Dict,
    detail: &mut Detail,
) -> Option<f64> {
    let group = task.group;
    let task_type = task.task_type.as_deref();
    let canon = Canonicalizer { scope: EvidenceScope::for_task(group, task_type), rules: ctx.rules };
    let expected = canon.list(Some(&Py::from_serde(&reference.evidence)));
    let population = uses_population(group, task_type);
    let mut submitted = if record.contains_key("retrieved_evidence") {
        record.get("retrieved_evidence")
    } else {
        record.get("retrieved")
    };
    if population {
        if let Some(selected @ Py::List(_)) = record.get("selected_population") {
            submitted = Some(selected);
        }
    }
    let predicted = canon.list(submitted);
    detail.evidence_count = EvidenceCount { expected: expected.len(), returned: predicted.len() };
    if population {
        let s = population_scores(&predicted, &expected);
        detail.metrics.push((Metric::SetPrecision, Some(s.precision)));
        detail.metrics.push((Metric::SetRecall, Some(s.recall)));
        detail.metrics.push((Metric::SetF1, Some(s.f1)));
        return None;
    }
    let r = retrieval_scores(&predicted, &expected);
    detail.metrics.push((Metric::RecallAt5, Some(r.recall_at_5)));
    if let Some(second) = second_ranked(group) {
        let value = match second {
            Metric::RPrecision => r.r_precision,
            Metric::Mrr => r.mrr,
            _ => r.precision_at_5,
        };
        detail.metrics.push((second, Some(value)));
    }
    Some(r.precision_at_5)
}

/// Whether a task needs the regulatory-rule index (finance_zh_prescriptive).
pub fn needs_rules(group: TaskGroup) -> bool {
    EvidenceScope::for_task(group, None).rule_lookup
}
