//! Acceptance: on ../shared/golden/omb/dataset.jsonl with the mock judge's replies, prompts,
//! per-sample scores, exclusions and aggregates equal EvalScope 1.14.1's measured output
//! (tests/data/evalscope-1.14.1-mock-run.json), both with the replies replayed in-process and
//! end to end over HTTP against the mock server itself.

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use anser_llm::{ApiKey, EndpointConfig};
use anser_omb::{
    Dataset, EvalscopeBackend, GenerateSettings, JudgeCache, JudgeRun, JudgeSettings, JudgeSettingsBuilder, Report,
    RetryScheduleBuilder, SampleStatus, generate, judge_all, load_generations, prompt::judge_prompt,
};
use anser_runstore::{RunName, sha256_hex};
use serde_json::Value;

use crate::{by_prompt, data, golden_dir};

fn golden() -> Value {
    data("evalscope-1.14.1-mock-run.json")
}

fn answers(g: &Value) -> BTreeMap<String, String> {
    g["answers"]
        .as_object()
        .expect("answers")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("answer").to_string()))
        .collect()
}

#[test]
fn judge_prompts_are_byte_identical_to_evalscope() {
    let Some(dir) = golden_dir("omb prompt bytes") else { return };
    let g = golden();
    let dataset = Dataset::load(&dir.join("dataset.jsonl")).expect("dataset");
    assert_eq!(dataset.records.len(), 12);
    let answers = answers(&g);
    for record in &dataset.records {
        let prompt = judge_prompt(&record.question, &answers[&record.id], &record.rubrics);
        let want = &g["judge_prompts"][&record.id];
        assert_eq!(Some(sha256_hex(prompt.as_bytes()).as_str()), want["sha256"].as_str(), "{}", record.id);
        assert_eq!(Some(prompt.chars().count() as u64), want["chars"].as_u64(), "{}", record.id);
    }
    // The two prompts printed in full, compared byte for byte.
    let example = std::fs::read_to_string(dir.join("judge_prompt_example.txt")).expect("example");
    let mut compared = 0;
    for block in example.split("===== BEGIN judge prompt ").skip(1) {
        let id = block.split_whitespace().next().expect("id");
        let body = block.split_once("=====\n").expect("header end").1;
        let text = body.split_once("\n===== END judge prompt").expect("end marker").0;
        let record = dataset.get(id).expect("record");
        assert_eq!(judge_prompt(&record.question, &answers[id], &record.rubrics), text, "{id}");
        compared += 1;
    }
    assert_eq!(compared, 2);
}

/// Compare a judge run with EvalScope's per-sample results and report.
fn assert_matches_evalscope(dataset: &Dataset, run: &JudgeRun, settings: &JudgeSettings) {
    let g = golden();
    for want in g["samples"].as_array().expect("samples") {
        let id = want["id"].as_str().expect("id");
        let got = run.samples.iter().find(|s| s.id == id).expect("sample");
        assert_eq!(got.subset.map(|s| s.key()), want["subset"].as_str(), "{id}");
        let scored = want["status"] == "success";
        assert_eq!(got.status == SampleStatus::Scored, scored, "{id}: {got:?}");
        assert_eq!(got.expert_score, want["expert_score"].as_f64(), "{id}");
        assert_eq!(got.pass, want["pass_rate"].as_f64(), "{id}");
        assert_eq!(got.raw_score.map(|p| p.0 as i64), want["raw_score"].as_i64(), "{id}");
        assert_eq!(got.max_score.map(|p| p.0 as i64), want["max_score"].as_i64(), "{id}");
        assert_eq!(got.excluded_reason.is_some(), !scored, "{id}");
        let rubric_scores = want["rubric_scores"].as_array().expect("rubric scores");
        assert_eq!(got.rubrics.len(), rubric_scores.len(), "{id}");
        for (r, w) in got.rubrics.iter().zip(rubric_scores) {
            assert_eq!(Some(r.rubric_id), w["rubric_id"].as_i64(), "{id}");
            assert_eq!(r.status.as_deref(), w["status"].as_str(), "{id}");
            assert_eq!(r.awarded.map(|p| p.0 as i64), w["score"].as_i64(), "{id}");
        }
    }
    // Exclusion reasons name what EvalScope's error said.
    let reason =
        |id: &str| run.samples.iter().find(|s| s.id == id).and_then(|s| s.excluded_reason.clone()).unwrap_or_default();
    assert!(reason("omb-syn-g04").starts_with("rubric_id_mismatch"), "{}", reason("omb-syn-g04"));
    assert!(reason("omb-syn-c02").starts_with("duplicate_rubric_id"), "{}", reason("omb-syn-c02"));
    assert!(reason("omb-syn-c04").starts_with("no_json_object"), "{}", reason("omb-syn-c04"));

    let report = Report::new(dataset, run, settings);
    for (metric, pick) in [("expert_score", 0usize), ("pass_rate", 1)] {
        let get = |l: &anser_omb::Level| {
            if pick == 0 { (l.expert_score, l.macro_expert_score) } else { (l.pass_rate, l.macro_pass_rate) }
        };
        let want = &g["report"][metric];
        assert_eq!(get(&report.overall), (want["score"].as_f64(), want["macro_score"].as_f64()), "{metric} overall");
        assert_eq!(report.overall.scored as u64, want["num"].as_u64().expect("num"), "{metric}");
        for (cat, wc) in want["categories"].as_object().expect("categories") {
            let level = report.categories.get(cat).expect("category");
            assert_eq!(get(level), (wc["score"].as_f64(), wc["macro_score"].as_f64()), "{metric} {cat}");
            assert_eq!(level.scored as u64, wc["num"].as_u64().expect("num"), "{metric} {cat}");
            for (subset, ws) in wc["subsets"].as_object().expect("subsets") {
                let level = report.subsets.get(subset).expect("subset");
                assert_eq!(get(level).0, ws["score"].as_f64(), "{metric} {subset}");
                assert_eq!(level.scored as u64, ws["num"].as_u64().expect("num"), "{metric} {subset}");
            }
        }
    }
    // Subsets whose samples were all excluded: absent from EvalScope's report, kept here.
    for subset in ["global_law", "cn_law"] {
        let level = report.subsets.get(subset).expect("kept");
        assert_eq!((level.expert_score, level.scored, level.excluded), (None, 0, 1), "{subset}");
    }
    assert_eq!((report.overall.scored, report.overall.excluded), (9, 3));
    assert_eq!(report.categories.get("CN").map(|l| l.excluded), Some(2));
    assert_eq!(report.categories.get("Global").map(|l| l.excluded), Some(1));
}

#[test]
fn replayed_mock_replies_score_like_evalscope() {
    let Some(dir) = golden_dir("omb acceptance (replayed replies)") else { return };
    let g = golden();
    let dataset = Dataset::load(&dir.join("dataset.jsonl")).expect("dataset");
    let answers = answers(&g);
    let replies: HashMap<String, String> = dataset
        .records
        .iter()
        .map(|r| {
            let prompt = judge_prompt(&r.question, &answers[&r.id], &r.rubrics);
            (prompt, g["judge_replies"][&r.id].as_str().expect("reply").to_string())
        })
        .collect();
    let backend = by_prompt(replies);
    let out = tempfile::tempdir().expect("tempdir");
    let cache = JudgeCache::open(out.path()).expect("cache");
    let settings = JudgeSettings::new("mock-judge").expect("valid judge settings");
    let run = judge_all(&dataset, &answers, &settings, &backend, &cache).expect("judge");
    assert_eq!(backend.count(), 12, "one judge call per sample");
    assert_matches_evalscope(&dataset, &run, &settings);
}

struct MockProcess(Child);

impl Drop for MockProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port")
}

fn start_mock(dir: &Path, log: &Path) -> Option<(MockProcess, u16)> {
    if Command::new("python3").arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
        anser_manifest::missing_prerequisite("omb end-to-end", "python3 not available for mock_server.py");
        return None;
    }
    let port = free_port();
    let child = Command::new("python3")
        .arg(dir.join("mock_server.py"))
        .args(["--dataset"])
        .arg(dir.join("dataset.jsonl"))
        .args(["--port", &port.to_string(), "--log"])
        .arg(log)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mock server");
    let mock = MockProcess(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "mock server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some((mock, port))
}

#[test]
fn end_to_end_over_http_against_the_mock_server() {
    let Some(dir) = golden_dir("omb end-to-end") else { return };
    let tmp = tempfile::tempdir().expect("tempdir");
    let log = tmp.path().join("requests.jsonl");
    let Some((_mock, port)) = start_mock(&dir, &log) else { return };
    let base = format!("http://127.0.0.1:{port}/v1");
    // EvalScope's transport (what `anser omb` uses in --mode evalscope), one attempt.
    let schedule = RetryScheduleBuilder { attempts: 1, ..RetryScheduleBuilder::default() }.build().expect("valid");
    let dataset_path = dir.join("dataset.jsonl");
    let dataset = Dataset::load(&dataset_path).expect("dataset");

    let answerer =
        EvalscopeBackend::new(EndpointConfig::new(&base, "mock-answerer", ApiKey::none()).expect("endpoint"), schedule)
            .expect("backend");
    let settings = GenerateSettings { model: "mock-answerer".into(), concurrency: 3, resume: false };
    let runs = tmp.path().join("runs");
    let name = RunName::new("mock").expect("name");
    let summary = generate(&dataset_path, &dataset, &runs, &name, Value::Null, &settings, &answerer).expect("generate");
    assert_eq!((summary.generated, summary.failed, summary.already_done), (12, 0, 0));
    let generations = load_generations(&runs.join("mock")).expect("generations");
    let responses: BTreeMap<String, String> =
        generations.iter().map(|g| (g.id.clone(), g.prediction(anser_omb::Mode::Evalscope))).collect();
    assert_eq!(responses, answers(&golden()), "generated answers are the mock's canned answers");

    let judge =
        EvalscopeBackend::new(EndpointConfig::new(&base, "mock-judge", ApiKey::none()).expect("endpoint"), schedule)
            .expect("backend");
    let out = tmp.path().join("judged");
    std::fs::create_dir_all(&out).expect("mkdir");
    let cache = JudgeCache::open(&out).expect("cache");
    let js = JudgeSettingsBuilder { concurrency: 3, ..JudgeSettingsBuilder::new("mock-judge") }
        .build()
        .expect("valid judge settings");
    let run = judge_all(&dataset, &responses, &js, &judge, &cache).expect("judge");
    assert_matches_evalscope(&dataset, &run, &js);
    assert_eq!(run.usage.sent, 12);

    // The requests had EvalScope's shape and parameters.
    let golden = golden();
    let logged: Vec<Value> = std::fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("log line"))
        .collect();
    assert_eq!(logged.len(), 24);
    for entry in &logged {
        let id = entry["record_id"].as_str().expect("id");
        let request = &entry["request"];
        let roles: Vec<&str> = request["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| m["role"].as_str().unwrap_or(""))
            .collect();
        if entry["kind"] == "judge" {
            assert_eq!(roles, ["user"]);
            assert_eq!(request["temperature"], 0.0);
            assert_eq!(request["max_tokens"], 4096);
            let prompt = request["messages"][0]["content"].as_str().expect("prompt");
            assert_eq!(Some(sha256_hex(prompt.as_bytes()).as_str()), golden["judge_prompts"][id]["sha256"].as_str());
        } else {
            let want = &golden["generation_requests"][id];
            let want_roles: Vec<&str> =
                want["roles"].as_array().expect("roles").iter().map(|r| r.as_str().unwrap_or("")).collect();
            assert_eq!(roles, want_roles, "{id}");
            assert_eq!(request["temperature"], 0.0);
            assert!(request.get("max_tokens").is_none(), "no max_tokens in generation requests");
        }
    }
}
