//! Spec §9 ("measured addenda"), one test per item, over HTTP against the loopback mock of
//! `anser-llm` with EvalScope's transport ([`EvalscopeBackend`]); waits are recorded by a
//! [`RecordingSleeper`] instead of slept, so the retry schedule is asserted exactly.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use anser_llm::{
    ApiKey, EndpointConfig,
    mock::{Fault, Matcher, MockConfig, MockServer, Reply},
};
use anser_omb::{
    Dataset, EvalscopeBackend, GenerateSettings, JudgeCache, JudgeRun, JudgeSettingsBuilder, Mode, RecordingSleeper,
    RetrySchedule, SampleResult, SampleStatus, generate, judge_all, load_generations, prompt::judge_prompt,
};
use anser_runstore::RunName;
use serde_json::{Value, json};

use crate::{record_json, reply};

const JUDGE_MARK: &str = "### 评分项（Rubrics）";

struct Env {
    mock: MockServer,
    /// Error-message answers of the last `generate_and_judge`.
    error_answers: std::sync::atomic::AtomicUsize,
    sleeper: Arc<RecordingSleeper>,
    backend: EvalscopeBackend,
}

fn env() -> Env {
    let mock = MockServer::start(MockConfig::instant()).expect("mock server");
    let sleeper = Arc::new(RecordingSleeper::default());
    let endpoint = EndpointConfig::new(&mock.base_url(), "m", ApiKey::none()).expect("endpoint");
    let backend =
        EvalscopeBackend::with_sleeper(endpoint, RetrySchedule::default(), Box::new(sleeper.clone())).expect("backend");
    Env { mock, sleeper, backend, error_answers: Default::default() }
}

impl Env {
    /// Judge requests are answered with `replies`, in order.
    fn judge_replies(&self, replies: Vec<Reply>) {
        self.mock.script(Matcher::UserContains(JUDGE_MARK.into()), replies);
    }

    fn judge(&self, dataset: &Dataset, answers: &BTreeMap<String, String>) -> JudgeRun {
        self.judge_with(dataset, answers, JudgeSettingsBuilder::new("judge"))
    }

    /// Judged by one worker, so scripted replies are taken in the file's order.
    fn judge_in_file_order(&self, dataset: &Dataset, answers: &BTreeMap<String, String>) -> JudgeRun {
        self.judge_with(dataset, answers, JudgeSettingsBuilder { concurrency: 1, ..JudgeSettingsBuilder::new("judge") })
    }

    fn judge_with(
        &self,
        dataset: &Dataset,
        answers: &BTreeMap<String, String>,
        settings: JudgeSettingsBuilder,
    ) -> JudgeRun {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = JudgeCache::open(dir.path()).expect("cache");
        let settings = settings.build().expect("valid judge settings");
        judge_all(dataset, answers, &settings, &self.backend, &cache).expect("judge")
    }

    /// `generate` then `judge`, as `anser omb generate` + `anser omb judge --run-name`.
    fn generate_and_judge(&self, text: &str) -> (Dataset, JudgeRun) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("test.jsonl");
        std::fs::write(&path, text).expect("write dataset");
        let dataset = Dataset::load(&path).expect("dataset");
        let settings = GenerateSettings { model: "answerer".into(), concurrency: 2, resume: false };
        let name = RunName::new("r").expect("name");
        let runs = dir.path().join("runs");
        let summary = generate(&path, &dataset, &runs, &name, Value::Null, &settings, &self.backend).expect("generate");
        self.error_answers.store(summary.error_answers, std::sync::atomic::Ordering::SeqCst);
        let answers: BTreeMap<String, String> = load_generations(&runs.join("r"))
            .expect("generations")
            .iter()
            .map(|g| (g.id.clone(), g.prediction(Mode::Evalscope)))
            .collect();
        let run = self.judge(&dataset, &answers);
        (dataset, run)
    }

    /// The judge prompts the mock received.
    fn judge_prompts(&self) -> Vec<String> {
        self.mock
            .requests()
            .iter()
            .filter_map(|r| r.last_user_message().map(str::to_string))
            .filter(|m| m.contains(JUDGE_MARK))
            .collect()
    }
}

fn sample<'a>(run: &'a JudgeRun, id: &str) -> &'a SampleResult {
    run.samples.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no sample {id}"))
}

fn reason(run: &JudgeRun, id: &str) -> String {
    sample(run, id).excluded_reason.clone().unwrap_or_default()
}

fn lines(records: &[Value]) -> String {
    records.iter().map(Value::to_string).collect::<Vec<_>>().join("\n")
}

fn one_answer(id: &str) -> BTreeMap<String, String> {
    [(id.to_string(), format!("answer {id}"))].into()
}

fn completion_body(choices: Value) -> String {
    json!({"id": "x", "object": "chat.completion", "model": "m", "choices": choices}).to_string()
}

/// §9.1: the first think block is cut on both sides before anything is read.
#[test]
fn item01_think_blocks_are_cut_on_both_sides() {
    let e = env();
    e.judge_replies(vec![
        Reply::text(format!("<think>check {{x}} and {{y}}</think>\n{}", reply(&[(1, "是"), (2, "否")]))),
        Reply::text(format!("<think>unclosed {{x}}\n{}", reply(&[(1, "是"), (2, "否")]))),
    ]);
    e.mock.script(
        Matcher::UserContains("question a".into()),
        [Reply::text("  <think>draft {a}</think>\n  Final answer A.  ")],
    );
    e.mock.script(Matcher::UserContains("question b".into()), [Reply::text("<think>never closed")]);
    let text =
        lines(&[record_json("a", &[(json!(1), 6), (json!(2), 4)]), record_json("b", &[(json!(1), 6), (json!(2), 4)])]);
    let (dataset, run) = e.generate_and_judge(&text);
    let prompts = e.judge_prompts();
    let a = dataset.get("a").expect("a");
    assert!(
        prompts.contains(&judge_prompt(&a.question, "Final answer A.", &a.rubrics)),
        "prediction is cut and stripped"
    );
    let b = dataset.get("b").expect("b");
    assert!(prompts.contains(&judge_prompt(&b.question, "<think>never closed", &b.rubrics)), "unclosed think kept");
    // Judge side: one sample got the reply whose think block held braces (scored), the other
    // the unclosed one whose braces count (two objects: excluded).
    let statuses: Vec<SampleStatus> = ["a", "b"].iter().map(|id| sample(&run, id).status).collect();
    assert!(statuses.contains(&SampleStatus::Scored) && statuses.contains(&SampleStatus::Excluded), "{statuses:?}");
    let excluded = run.samples.iter().find(|s| s.status == SampleStatus::Excluded).expect("excluded");
    assert!(excluded.excluded_reason.as_deref().is_some_and(|r| r.starts_with("multiple_json_objects")));

    // `reasoning_content` alongside the content: the content is not a plain string, nothing is cut.
    let e = env();
    let raw = completion_body(json!([{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
        "content": format!("<think>{{x}}</think>{}", reply(&[(1, "是")])), "reasoning_content": "thought"}}]));
    e.judge_replies(vec![Reply::Raw { status: 200, body: raw }]);
    let d = Dataset::parse(&record_json("c", &[(json!(1), 1)]).to_string());
    let run = e.judge(&d, &one_answer("c"));
    assert!(reason(&run, "c").starts_with("multiple_json_objects"), "{}", reason(&run, "c"));
}

/// §9.2: a bare array of n ≥ 2 objects is "n JSON objects"; one object fails the schema.
#[test]
fn item02_bare_arrays_fail() {
    let e = env();
    let items = |ids: &[i64]| {
        Value::Array(ids.iter().map(|i| json!({"rubric_id": i, "status": "是", "justification": "j"})).collect())
            .to_string()
    };
    e.judge_replies(vec![Reply::text(items(&[1, 2, 3])), Reply::text(items(&[1]))]);
    let d = Dataset::parse(&lines(&[
        record_json("a", &[(json!(1), 1), (json!(2), 1), (json!(3), 1)]),
        record_json("b", &[(json!(1), 1)]),
    ]));
    let answers = [("a".to_string(), "x".to_string()), ("b".to_string(), "y".to_string())].into();
    let run = e.judge_in_file_order(&d, &answers);
    assert!(reason(&run, "a").starts_with("multiple_json_objects: 3 JSON objects"), "{}", reason(&run, "a"));
    assert!(reason(&run, "b").starts_with("schema"), "{}", reason(&run, "b"));
}

/// §9.3: choices are sorted by `index` and index 0 is used, on both sides.
#[test]
fn item03_choices_are_taken_by_index() {
    let e = env();
    let judge_body = completion_body(json!([
        {"index": 1, "finish_reason": "stop", "message": {"role": "assistant", "content": reply(&[(1, "否")])}},
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply(&[(1, "是")])}},
    ]));
    e.judge_replies(vec![Reply::Raw { status: 200, body: judge_body }]);
    let answer_body = completion_body(json!([
        {"index": 2, "finish_reason": "stop", "message": {"role": "assistant", "content": "third"}},
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "first"}},
        {"index": 1, "finish_reason": "stop", "message": {"role": "assistant", "content": "second"}},
    ]));
    e.mock.script(Matcher::UserContains("question a".into()), [Reply::Raw { status: 200, body: answer_body }]);
    let (dataset, run) = e.generate_and_judge(&record_json("a", &[(json!(1), 1)]).to_string());
    let a = dataset.get("a").expect("a");
    assert_eq!(e.judge_prompts(), [judge_prompt(&a.question, "first", &a.rubrics)]);
    assert_eq!((sample(&run, "a").status, sample(&run, "a").expert_score), (SampleStatus::Scored, Some(1.0)));
}

/// §9.4: 5 attempts 10 s apart, each with 2 SDK retries after 0.5 s and 1 s (Retry-After
/// honoured); a 400 is never retried.
#[test]
fn item04_retries_follow_evalscope_schedule() {
    let ms = Duration::from_millis;
    // One transient 500: one extra request, 0.5 s, scored.
    let e = env();
    e.judge_replies(vec![Reply::Fault(Fault::Status(500)), Reply::text(reply(&[(1, "是")]))]);
    let d = Dataset::parse(&record_json("a", &[(json!(1), 1)]).to_string());
    let run = e.judge(&d, &one_answer("a"));
    assert_eq!(sample(&run, "a").status, SampleStatus::Scored);
    assert_eq!(e.mock.requests().len(), 2);
    assert_eq!(e.sleeper.waits(), [ms(500)]);

    // 429 with Retry-After: the server's delay is used.
    let e = env();
    e.judge_replies(vec![
        Reply::Fault(Fault::RateLimited { retry_after: "3".into() }),
        Reply::text(reply(&[(1, "否")])),
    ]);
    let run = e.judge(&d, &one_answer("a"));
    assert_eq!((sample(&run, "a").status, e.sleeper.waits()), (SampleStatus::Scored, vec![ms(3000)]));

    // A persistent 500: 15 requests, then a transport_error exclusion.
    let e = env();
    e.judge_replies(vec![Reply::Fault(Fault::Status(503)); 20]);
    let run = e.judge(&d, &one_answer("a"));
    assert!(reason(&run, "a").starts_with("transport_error"), "{}", reason(&run, "a"));
    assert_eq!(e.mock.requests().len(), 15);
    let attempt = [ms(500), ms(1000)];
    let mut want = Vec::new();
    for i in 0..5 {
        want.extend(attempt);
        if i < 4 {
            want.push(Duration::from_secs(10));
        }
    }
    assert_eq!(e.sleeper.waits(), want);
    assert_eq!(want.iter().sum::<Duration>(), ms(47_500));

    // 400 (not a context-length error): one request, no wait.
    let e = env();
    e.judge_replies(vec![Reply::Raw {
        status: 400,
        body: r#"{"error":{"message":"bad parameter","code":"invalid"}}"#.into(),
    }]);
    let run = e.judge(&d, &one_answer("a"));
    assert!(reason(&run, "a").contains("Error code: 400 - bad parameter"), "{}", reason(&run, "a"));
    assert_eq!((e.mock.requests().len(), e.sleeper.waits().len()), (1, 0));
}

/// §9.5: a generation that fails with a context-length error is judged with the error message
/// as its answer.
#[test]
fn item05_context_length_error_is_the_answer() {
    let e = env();
    let message = "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.";
    let body =
        json!({"error": {"message": message, "type": "invalid_request_error", "code": "context_length_exceeded"}});
    e.mock.script(Matcher::UserContains("question a".into()), [Reply::Raw { status: 400, body: body.to_string() }]);
    e.judge_replies(vec![Reply::text(reply(&[(1, "否"), (2, "否")]))]);
    let (dataset, run) = e.generate_and_judge(&record_json("a", &[(json!(1), 5), (json!(2), 5)]).to_string());
    let a = dataset.get("a").expect("a");
    assert_eq!(e.judge_prompts(), [judge_prompt(&a.question, message, &a.rubrics)]);
    assert_eq!((sample(&run, "a").status, sample(&run, "a").expert_score), (SampleStatus::Scored, Some(0.0)));
    assert_eq!(e.sleeper.waits().len(), 0, "never retried");
    assert_eq!(e.error_answers.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// §9.6: no positive weight: judged, then excluded with its reason (EvalScope aborts); the
/// other samples keep their scores.
#[test]
fn item06_no_positive_weight_is_excluded_not_an_abort() {
    let e = env();
    e.judge_replies(vec![Reply::text(reply(&[(1, "是"), (2, "否")])); 3]);
    let mut fractional = record_json("frac", &[(json!(1), 0), (json!(2), -3)]);
    fractional["rubrics"][0]["rubric_weight"] = json!(0.5);
    let d = Dataset::parse(&lines(&[
        record_json("ok", &[(json!(1), 6), (json!(2), 4)]),
        record_json("neg", &[(json!(1), -5), (json!(2), 0)]),
        fractional,
    ]));
    assert!(d.invalid.is_empty(), "kept as records: {:?}", d.invalid);
    let answers = ["ok", "neg", "frac"].iter().map(|i| (i.to_string(), "x".to_string())).collect();
    let run = e.judge(&d, &answers);
    assert_eq!(sample(&run, "ok").expert_score, Some(0.6));
    for id in ["neg", "frac"] {
        assert_eq!(sample(&run, id).status, SampleStatus::Excluded, "{id}");
        assert!(reason(&run, id).starts_with("no_positive_weight"), "{id}: {}", reason(&run, id));
    }
    assert_eq!(e.judge_prompts().len(), 3, "each sample judged once");
    // The fractional weight is truncated in the prompt.
    assert!(e.judge_prompts().iter().any(|p| p.contains("rubricWeight: +0分")));
}

/// §9.7: Python's lenient JSON: NaN/Infinity accepted, the last duplicate key wins.
#[test]
fn item07_lenient_json() {
    let e = env();
    let text = r#"{"results": [{"rubric_id": 1, "status": "否", "status": "是", "justification": "j", "conf": NaN},
        {"rubric_id": 2, "status": "否", "justification": "j", "w": -Infinity}], "score": Infinity}"#;
    e.judge_replies(vec![Reply::text(text)]);
    let d = Dataset::parse(&record_json("a", &[(json!(1), 7), (json!(2), 3)]).to_string());
    let run = e.judge(&d, &one_answer("a"));
    assert_eq!((sample(&run, "a").status, sample(&run, "a").expert_score), (SampleStatus::Scored, Some(0.7)));
    assert_eq!(sample(&run, "a").pass, Some(1.0));
}

/// §9.8: the brace scanner ignores a `}` before and an unclosed `{` after the object; a lone
/// `"` before it hides it.
#[test]
fn item08_brace_scanner() {
    let e = env();
    let body = reply(&[(1, "是")]);
    e.judge_replies(vec![Reply::text(format!("done }} here: {body} and then {{ never closed"))]);
    let d = Dataset::parse(&record_json("a", &[(json!(1), 1)]).to_string());
    assert_eq!(sample(&e.judge(&d, &one_answer("a")), "a").status, SampleStatus::Scored);
    let e = env();
    e.judge_replies(vec![Reply::text(format!("the \"best answer: {body}"))]);
    assert!(reason(&e.judge(&d, &one_answer("a")), "a").starts_with("no_json_object"));
}

/// §9.9: `rubric_id` through pydantic's lax int.
#[test]
fn item09_rubric_id_coercion() {
    let accepted = [json!(" 3 "), json!("+3"), json!("03"), json!(3.0), json!(3)];
    let rejected = [json!("３"), json!("3e0"), json!(3.5)];
    let e = env();
    let replies: Vec<Reply> = accepted
        .iter()
        .chain(&rejected)
        .map(|id| {
            Reply::text(json!({"results": [{"rubric_id": id, "status": "是", "justification": "j"}]}).to_string())
        })
        .collect();
    let n = replies.len();
    e.judge_replies(replies);
    let d =
        Dataset::parse(&lines(&(0..n).map(|i| record_json(&format!("r{i}"), &[(json!(3), 1)])).collect::<Vec<_>>()));
    let answers = (0..n).map(|i| (format!("r{i}"), "x".to_string())).collect();
    let run = e.judge_in_file_order(&d, &answers);
    // Replies are taken in request order; with one worker that is file order.
    for i in 0..n {
        let want = if i < accepted.len() { SampleStatus::Scored } else { SampleStatus::Excluded };
        assert_eq!(sample(&run, &format!("r{i}")).status, want, "reply {i}");
    }
    // `"1_0"` is rubric 10 and the JSON number 3e0 is 3 (pydantic, not Python int()).
    let e = env();
    e.judge_replies(vec![Reply::text(r#"{"results": [{"rubric_id": "1_0", "status": "是", "justification": "j"}, {"rubric_id": 3e0, "status": "否", "justification": "j"}]}"#)]);
    let d = Dataset::parse(&record_json("a", &[(json!(10), 2), (json!(3), 2)]).to_string());
    assert_eq!(sample(&e.judge(&d, &one_answer("a")), "a").expert_score, Some(0.5));
}

/// §9.10: the stripped system prompt is sent; whitespace-only sends none.
#[test]
fn item10_system_prompt() {
    let e = env();
    let mut a = record_json("a", &[(json!(1), 1)]);
    a["system_prompt"] = json!("\n  Be brief.  \t");
    let mut b = record_json("b", &[(json!(1), 1)]);
    b["system_prompt"] = json!(" \n\t ");
    e.judge_replies(vec![Reply::text(reply(&[(1, "是")])); 2]);
    e.generate_and_judge(&lines(&[a, b]));
    let requests = e.mock.requests();
    let messages_of = |q: &str| {
        requests
            .iter()
            .find(|r| r.last_user_message() == Some(q))
            .map(|r| r.body["messages"].clone())
            .unwrap_or_else(|| panic!("no request for {q}"))
    };
    assert_eq!(
        messages_of("question a"),
        json!([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "question a"}])
    );
    assert_eq!(messages_of("question b"), json!([{"role": "user", "content": "question b"}]));
}

/// §9.11: one verdict for a repeated rubric number scores every rubric carrying it.
#[test]
fn item11_repeated_rubric_number() {
    let e = env();
    e.judge_replies(vec![Reply::text(reply(&[(1, "是"), (2, "否")]))]);
    let d = Dataset::parse(&record_json("a", &[(json!(1), 5), (json!(1), 3), (json!(2), 2)]).to_string());
    let run = e.judge(&d, &one_answer("a"));
    let s = sample(&run, "a");
    assert_eq!(
        (s.raw_score.map(|p| p.0), s.max_score.map(|p| p.0), s.expert_score),
        (Some(8.0), Some(10.0), Some(0.8))
    );
    assert_eq!(s.rubrics.iter().filter_map(|r| r.awarded.map(|p| p.0)).collect::<Vec<_>>(), [5.0, 3.0, 0.0]);
}

/// §9.12: the loader's rewriting of mixed-type fields decides what the judge prompt shows.
#[test]
fn item12_mixed_type_fields_are_rewritten_file_wide() {
    let e = env();
    e.judge_replies(vec![Reply::text(reply(&[(7, "是"), (1, "是"), (3, "否")])); 4]);
    let mut mixed = record_json("a", &[(json!("07"), 4), (json!("true"), 3), (json!("3e0"), 3)]);
    mixed["rubrics"][1]["rubric_weight"] = json!("5");
    let mut no_question = record_json("b", &[(json!(7), 2), (json!(1), 2), (json!(3), 2)]);
    no_question.as_object_mut().expect("object").remove("question");
    let d = Dataset::parse(&lines(&[mixed, no_question]));
    assert!(d.invalid.is_empty(), "{:?}", d.invalid);
    let a = d.get("a").expect("a");
    let rubric_text = anser_omb::prompt::render_rubrics(&a.rubrics);
    assert!(
        rubric_text.starts_with("**Rubric 7**\nrubricDetail: detail \"07\"\nrubricWeight: +4分\n\n**Rubric True**"),
        "{rubric_text}"
    );
    assert!(rubric_text.contains("**Rubric 3.0**\nrubricDetail: detail \"3e0\"\nrubricWeight: +3分"), "{rubric_text}");
    assert!(rubric_text.contains("rubricWeight: +5分"), "a lone string weight becomes 5: {rubric_text}");
    assert_eq!(d.get("b").map(|r| r.question.as_str()), Some("None"));
    let answers = [("a".to_string(), "x".to_string()), ("b".to_string(), "y".to_string())].into();
    let run = e.judge(&d, &answers);
    assert_eq!(sample(&run, "a").expert_score, Some((4.0 + 5.0) / 12.0));
    assert!(e.judge_prompts().iter().any(|p| p.contains("### 用户问题（prompt）\nNone\n")));

    // The same "07" in a file where the column is all strings stays "07".
    let d = Dataset::parse(&lines(&[record_json("c", &[(json!("07"), 4)]), record_json("d", &[(json!("x1"), 4)])]));
    assert!(anser_omb::prompt::render_rubrics(&d.get("c").expect("c").rubrics).starts_with("**Rubric 07**"));
    // Integers and floats in one field are all floats.
    let d = Dataset::parse(&lines(&[record_json("e", &[(json!(1), 4)]), record_json("f", &[(json!(2.0), 4)])]));
    assert!(anser_omb::prompt::render_rubrics(&d.get("e").expect("e").rubrics).starts_with("**Rubric 1.0**"));
}

/// §9.13: inputs that abort EvalScope's whole run are invalid records with their reason here;
/// the rest of the run is judged and scored.
#[test]
fn item13_aborting_inputs_are_invalid_records_and_the_run_finishes() {
    let e = env();
    e.judge_replies(vec![Reply::text(reply(&[(1, "是"), (2, "否")]))]);
    let mut unknown = record_json("unknown", &[(json!(1), 1)]);
    unknown["tags"] = json!({"topics": ["Astrology"]});
    let mut empty = record_json("empty", &[]);
    empty["rubrics"] = json!([]);
    let mut tags_list = record_json("tags_list", &[(json!(1), 1)]);
    tags_list["tags"] = json!(["Industry"]);
    let d = Dataset::parse(&lines(&[record_json("ok", &[(json!(1), 6), (json!(2), 4)]), unknown, empty, tags_list]));
    let reasons: BTreeMap<&str, &str> = d.invalid.iter().map(|i| (i.id.as_str(), i.reason.as_str())).collect();
    assert!(reasons["unknown"].contains("unknown language/domain pair"), "{reasons:?}");
    assert!(reasons["empty"].contains("rubrics is empty"), "{reasons:?}");
    assert!(reasons["tags_list"].contains("tags is not an object"), "{reasons:?}");
    let answers = ["ok", "unknown", "empty", "tags_list"].iter().map(|i| (i.to_string(), "x".to_string())).collect();
    let run = e.judge(&d, &answers);
    assert_eq!(run.samples.len(), 4);
    assert_eq!(sample(&run, "ok").expert_score, Some(0.6));
    for id in ["unknown", "empty", "tags_list"] {
        assert_eq!(sample(&run, id).status, SampleStatus::Invalid, "{id}");
        assert!(reason(&run, id).starts_with("invalid record: "), "{id}");
    }
    // String weights everywhere (the column is all strings): `"5" > 0` raises in EvalScope.
    let mut s1 = record_json("s1", &[(json!(1), 1)]);
    s1["rubrics"][0]["rubric_weight"] = json!("5");
    let mut s2 = record_json("s2", &[(json!(1), 1)]);
    s2["rubrics"][0]["rubric_weight"] = json!("3");
    let d = Dataset::parse(&lines(&[s1, s2]));
    assert_eq!(d.invalid.len(), 2);
    assert!(d.invalid[0].reason.contains("rubric_weight is not a number"));
}
