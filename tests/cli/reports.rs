//! `anser compare`, `anser report` and `anser export-trec` end to end on the generated sample:
//! a vanilla run against the loopback mock (baseline) and a run whose mock answers every task
//! with its gold answer (the "better" system), then the comparison, the report (rendered in
//! headless Chromium when it is installed, which leaves a screenshot) and the TREC export.
//! Then issue 9's acceptance pair: the offline method with `--retriever bm25` against the same
//! method with `hybrid:bm25+dense@rrf60` (dense vectors from the mock's `/v1/embeddings`).

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anser_llm::mock::{Matcher, MockConfig, MockServer, Reply, Rule};
use serde_json::Value;

use crate::common::{IndexedSample, anser, anser_env, stderr, stdout, vanilla_run_args};

fn run(base_url: &str, sample: &Path, out: &Path, name: &str) {
    let bench = sample.join("query");
    let cache = out.join(format!("cache-{name}"));
    let (bench, corpus) = (bench.to_str().expect("utf8"), sample.join("corpus"));
    let mut args = vanilla_run_args(name, bench, corpus.to_str().expect("utf8"), out.to_str().expect("utf8"), base_url);
    args.extend(["--cache-dir", cache.to_str().expect("utf8"), "--concurrency", "4"]);
    let o = anser(&args);
    assert!(o.status.success(), "anser run {name}: {}", stderr(&o));
}

/// The generated sample and two runs of it: `base` (mock answers) and `gold` (gold answers).
fn two_runs(tmp: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let sample = tmp.join("sample");
    let o = anser(&["sample", "--out", sample.to_str().expect("utf8")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tmp.join("runs");
    let mock = MockServer::start(MockConfig::instant()).expect("mock starts");
    run(&mock.base_url(), &sample, &out, "base");
    let bench = anser_gold::Benchmark::load(&sample.join("query")).expect("sample loads");
    for task in bench.tasks() {
        let gold = &bench.reference(&task.id).expect("reference").ground_truth;
        let text = match gold {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        mock.add_rule(Rule::new(Matcher::UserContains(task.query.clone())).reply(Reply::text(text)).repeat_last());
    }
    run(&mock.base_url(), &sample, &out, "gold");
    (sample, out.join("base"), out.join("gold"))
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf8")
}

#[test]
fn compare_report_and_export_on_two_sample_runs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (sample, base, gold) = two_runs(tmp.path());

    // JSON: the documented shape, nothing dropped, and significant improvements.
    let o = anser(&["compare", path(&base), path(&gold), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(json["dropped_tasks"], serde_json::json!({"base": 0, "gold": 0}));
    let groups = json["groups"].as_object().expect("groups");
    assert_eq!(groups.len(), 14, "every group of the sample");
    let mut significant = 0;
    for metrics in groups.values() {
        for runs in metrics.as_object().expect("metrics").values() {
            assert!(runs["base"]["delta"].is_null() && runs["base"]["p_value"].is_null());
            let g = &runs["gold"];
            if let (Some(p), Some(d)) = (g["p_value"].as_f64(), g["delta"].as_f64()) {
                let ci = g["ci95"].as_array().expect("ci");
                let (lo, hi) = (ci[0].as_f64().expect("lo"), ci[1].as_f64().expect("hi"));
                assert!(lo <= d + 1e-12 && d <= hi + 1e-12, "delta inside its CI");
                if p < 0.05 {
                    significant += 1;
                }
            }
        }
    }
    assert!(significant >= 3, "gold answers beat the mock in several groups ({significant})");
    let acc = &json["groups"]["legal_zh_descriptive"]["Accuracy@10%"]["gold"];
    assert_eq!(acc["mean"], 1.0, "gold answers are within 10%");

    // The table with CIs, Holm p-values and marks; an HTML comparison page.
    let html = tmp.path().join("compare.html");
    let o = anser(&["compare", path(&base), path(&gold), "--html", path(&html)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(
        table.starts_with("baseline: base · 170 tasks selected by every run · dropped tasks: base 0, gold 0"),
        "{table}"
    );
    assert!(table.contains("95% CI") && table.contains("p (Holm)") && table.contains("better"), "{table}");
    let page = std::fs::read_to_string(&html).expect("compare html");
    assert!(page.contains("<svg") && !page.contains("<script"));
    let o = anser(&["compare", path(&base), path(&gold), "--baseline", "gold", "--format", "markdown"]);
    assert!(stdout(&o).starts_with("baseline: gold"), "{}", stdout(&o));
    assert!(stdout(&o).contains("| metric | run |") && stdout(&o).contains("worse"));

    // The report: text with every section, HTML in the run directory.
    let o = anser(&["report", path(&gold), "--redact-timings"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for section in
        ["metrics per group", "failure taxonomy", "per-stage time per task in ms (from trace.jsonl", "tokens per task"]
    {
        assert!(text.contains(section), "{section}: {text}");
    }
    assert!(!text.contains("Latency p50") && text.contains("<t>"), "timings redacted");
    let report_html = gold.join("report.html");
    let page = std::fs::read_to_string(&report_html).expect("report.html");
    assert!(page.matches("<svg").count() >= 14 + 3, "one chart per group plus latency, stages, tokens");
    screenshot(&report_html, "report");
    screenshot(&html, "compare");

    // TREC export: run and qrels in the run directory.
    let o = anser(&["export-trec", path(&base), "--benchmark-dir", path(&sample.join("query"))]);
    assert!(o.status.success(), "{}", stderr(&o));
    let qrels = std::fs::read_to_string(base.join("qrels.trec")).expect("qrels");
    assert!(qrels.lines().count() >= 170, "gold evidence of every task");
    let trec_run = std::fs::read_to_string(base.join("run.trec")).expect("run");
    assert!(trec_run.is_empty(), "vanilla returns no evidence");
}

/// Issue 9's acceptance: two offline runs of the sample, BM25 vs hybrid retrieval; `anser
/// compare` prints the table with CIs and p-values, `anser report` renders in Chromium.
#[test]
fn ablation_offline_bm25_vs_hybrid() {
    let fixture = IndexedSample::get();
    let env = fixture.env();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("runs");
    let pair = [("offline-bm25", "bm25"), ("offline-hybrid", "hybrid:bm25+dense@rrf60")];
    for (name, spec) in pair {
        let args = fixture.run_args("offline", name, path(&out)).args(&["--retriever", spec, "--concurrency", "4"]);
        let o = anser_env(&args.strs(), &env);
        assert!(o.status.success(), "anser run {name}: {}", stderr(&o));
        let metadata: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join(name).join("metadata.json")).expect("metadata"))
                .expect("json");
        assert_eq!(metadata["settings"]["retriever"], spec);
    }
    let (bm25, hybrid) = (out.join(pair[0].0), out.join(pair[1].0));

    // JSON: every group, every metric; the hybrid run has a delta inside its CI and a p-value.
    let o = anser(&["compare", path(&bm25), path(&hybrid), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(json["dropped_tasks"], serde_json::json!({"offline-bm25": 0, "offline-hybrid": 0}));
    let groups = json["groups"].as_object().expect("groups");
    assert_eq!(groups.len(), 14);
    let mut tested = 0;
    for (group, metrics) in groups {
        let before = tested;
        for (metric, runs) in metrics.as_object().expect("metrics") {
            assert!(runs["offline-bm25"]["delta"].is_null(), "the baseline has no delta");
            let h = &runs["offline-hybrid"];
            let (Some(d), Some(p)) = (h["delta"].as_f64(), h["p_value"].as_f64()) else { continue };
            let ci = h["ci95"].as_array().expect("ci95");
            let (lo, hi) = (ci[0].as_f64().expect("lo"), ci[1].as_f64().expect("hi"));
            assert!(lo <= d + 1e-12 && d <= hi + 1e-12, "{group} {metric}: {d} outside [{lo}, {hi}]");
            assert!((0.0..=1.0).contains(&p), "{group} {metric}: p = {p}");
            tested += 1;
        }
        assert!(tested > before, "{group}: no paired test");
    }

    // The table: a header with the CI and Holm p-value columns per group, and one row per tested
    // metric for the hybrid run with its CI bounds and p-value.
    let o = anser(&["compare", path(&bm25), path(&hybrid)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    eprintln!("{table}");
    assert!(
        table.starts_with(
            "baseline: offline-bm25 · 170 tasks selected by every run · dropped tasks: offline-bm25 0, \
             offline-hybrid 0"
        ),
        "{table}"
    );
    let headers: Vec<&str> = table.lines().filter(|l| l.trim_start().starts_with("metric ")).collect();
    assert_eq!(headers.len(), 14, "one block per group: {table}");
    for h in &headers {
        let columns: Vec<&str> = h.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        assert!(columns.starts_with(&["metric", "run", "mean", "n", "delta", "95% CI", "p (Holm)"]), "{h}");
        assert_eq!(columns.last(), Some(&"verdict"), "{h}");
    }
    let mut rows = 0;
    for line in table.lines().filter(|l| l.contains(" offline-hybrid ") && l.contains('[')) {
        let (ci, rest) = line.split_once('[').and_then(|(_, r)| r.split_once(']')).expect("CI in brackets");
        let bounds: Vec<f64> = ci.split(',').map(|b| b.trim().parse().expect("CI bound")).collect();
        assert!(bounds.len() == 2 && bounds[0] <= bounds[1], "{line}");
        let p: f64 = rest.split_whitespace().next().expect("p-value").parse().expect("numeric p-value");
        assert!((0.0..=1.0).contains(&p), "{line}");
        rows += 1;
    }
    assert_eq!(rows, tested, "one table row per paired test");

    // The report of the hybrid run renders in a browser.
    let o = anser(&["report", path(&hybrid)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = hybrid.join("report.html");
    let page = std::fs::read_to_string(&html).expect("report.html");
    assert!(page.matches("<svg").count() >= 14 && !page.contains("<script"), "self-contained charts");
    screenshot(&html, "ablation-report");
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let missing = tmp.path().join("nope");
    let o = anser(&["report", path(&missing)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("nope") && stderr(&o).contains("run directory"), "{}", stderr(&o));

    // A run without evaluation.json: compare says how to get one; --benchmark-dir scores it.
    let run_dir = tmp.path().join("r");
    std::fs::create_dir_all(&run_dir).expect("mkdir");
    std::fs::write(run_dir.join("results.json"), "[{\"id\": 1}]").expect("write");
    let html = tmp.path().join("out.html");
    let o = anser(&["compare", path(&run_dir), path(&run_dir), "--html", path(&html)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("results.json: record 1"), "{}", stderr(&o));
    assert!(!html.exists(), "nothing written on bad input");
    let o = anser(&["compare", path(&run_dir)]);
    assert_eq!(o.status.code(), Some(2), "two runs needed");
}

/// Render `page` in headless Chromium and keep the screenshot under the target directory; skips
/// (printing why) when `chromium` is not installed.
fn screenshot(page: &Path, name: &str) {
    let Some(chromium) = which("chromium").or_else(|| which("chromium-browser")) else {
        anser_manifest::missing_prerequisite(
            "the browser check",
            "chromium is not on PATH (apt-get install -y chromium)",
        );
        return;
    };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-screenshot.png"));
    let _ = std::fs::remove_file(&out);
    let profile = tempfile::tempdir().expect("profile dir");
    let o = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            &format!("--user-data-dir={}", profile.path().display()),
            &format!("--screenshot={}", out.display()),
            "--window-size=1280,2000",
            &format!("file://{}", page.canonicalize().expect("absolute").display()),
        ])
        .output()
        .expect("chromium starts");
    assert!(out.is_file(), "chromium wrote no screenshot: {}", String::from_utf8_lossy(&o.stderr));
    let png = std::fs::read(&out).expect("png");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let (w, h) = (
        u32::from_be_bytes([png[16], png[17], png[18], png[19]]),
        u32::from_be_bytes([png[20], png[21], png[22], png[23]]),
    );
    assert_eq!((w, h), (1280, 2000));
    assert!(png.len() > 30_000, "a rendered page, not a blank one ({} bytes)", png.len());
    eprintln!("screenshot: {}", out.display());
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(program)).find(|p| p.is_file())
}
