//! `anser eval` as a command: the official profile reproduces the official evaluator's output
//! byte for byte on the golden predictions (paths aside), the table formats, and bad input.

use crate::common::{anser, shared, stderr, stdout};

/// JSON-encode `s` the way evaluation.json writes strings.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("string encodes")
}

#[test]
fn official_profile_is_byte_identical_to_the_golden_file() {
    let Some(shared) = shared("anser eval golden parity") else { return };
    let golden = shared.join("golden/anser-eval");
    let predictions = golden.join("predictions.json");
    let tmp = tempfile::tempdir().expect("tempdir");
    let output = tmp.path().join("evaluation.json");
    let o = anser(&[
        "eval",
        "--profile",
        "official",
        predictions.to_str().expect("utf8"),
        "--benchmark-dir",
        shared.join("anser/query").to_str().expect("utf8"),
        "--corpus-root",
        shared.join("anser/corpus").to_str().expect("utf8"),
        "--skip-llm-judge",
        "--output",
        output.to_str().expect("utf8"),
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The golden file had its absolute paths (as the evaluator writes them: resolved) replaced
    // by these two names.
    let resolved = |p: &std::path::Path| {
        let p = std::fs::canonicalize(p).expect("path resolves");
        json_string(p.to_str().expect("utf8"))
    };
    let ours = std::fs::read_to_string(&output)
        .expect("evaluation.json written")
        .replace(&resolved(&predictions), "\"predictions.json\"")
        .replace(&resolved(&shared.join("anser/query")), "\"query\"");
    let want = std::fs::read_to_string(golden.join("evaluation.json")).expect("golden evaluation.json");
    if ours != want {
        let line = ours.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "evaluation.json differs from the golden file at line {}:\nours:   {:?}\ngolden: {:?}",
            line + 1,
            ours.lines().nth(line),
            want.lines().nth(line)
        );
    }
    // The CSV table on stdout: header, then one row per (group, metric).
    let table = stdout(&o);
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some("group,metric,mean,count,unavailable"));
    assert!(lines.any(|l| l.starts_with("finance_zh_prescriptive,Recall@5,")), "{table}");
    // Warnings are printed once each on stderr.
    let err = stderr(&o);
    assert_eq!(err.matches("duplicate result id").count(), 1, "{err}");
}

#[test]
fn bad_inputs_are_one_line_errors_with_exit_code_2() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bench = crate::common::examples_query();
    let missing = tmp.path().join("missing.json");
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "{\"results\": [ {\"id\": 1,").expect("write");
    for (input, needle) in [(&missing, "missing.json"), (&bad, "bad.json")] {
        let o = anser(&["eval", input.to_str().expect("utf8"), "--benchmark-dir", bench.to_str().expect("utf8")]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(err.contains(needle), "names the file: {err}");
    }
}

/// A small results file (every example task, empty answers) and its bytes.
fn example_results(path: &std::path::Path) -> Vec<u8> {
    let bench = anser_manifest::load_public_tasks(&crate::common::examples_query()).expect("examples load");
    let records: Vec<serde_json::Value> = bench
        .iter()
        .map(|t| serde_json::json!({"id": t.id, "answer": "", "retrieved_evidence": [], "latency": 0.5, "generation_status": "ok"}))
        .collect();
    let bytes = serde_json::to_vec_pretty(&records).expect("json");
    std::fs::write(path, &bytes).expect("write results");
    bytes
}

/// `anser eval` of `input` against the examples without the LLM judge, then `extra` flags.
fn eval_examples(input: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let bench = crate::common::examples_query();
    let mut args = vec![
        "eval",
        input.to_str().expect("utf8"),
        "--benchmark-dir",
        bench.to_str().expect("utf8"),
        "--skip-llm-judge",
    ];
    args.extend(extra);
    anser(&args)
}

fn eval_to(input: &std::path::Path, output: Option<&std::path::Path>, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--format", "csv"];
    if let Some(o) = output {
        args.extend(["--output", o.to_str().expect("utf8")]);
    }
    args.extend(extra);
    eval_examples(input, &args)
}

/// `--output` naming an input — the results file itself, under another spelling, through a
/// symlink or a hard link, a run directory's results.json, a file of a results directory — is
/// refused with exit code 2 and the input is left byte for byte, even with `--force`.
#[test]
fn eval_never_writes_over_an_input() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let results = tmp.path().join("results.json");
    let bytes = example_results(&results);
    let respelled = tmp.path().join(".").join("results.json");
    let link = tmp.path().join("link.json");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&results, &link).expect("symlink");
    let hard = tmp.path().join("hard.json");
    std::fs::hard_link(&results, &hard).expect("hard link");
    for (input, output) in [(&results, &results), (&results, &respelled), (&link, &results), (&results, &hard)] {
        if !input.exists() {
            continue;
        }
        for force in [false, true] {
            let o = eval_to(input, Some(output), if force { &["--force"] } else { &[] });
            assert_eq!(o.status.code(), Some(2), "{} -> {}: {}", input.display(), output.display(), stderr(&o));
            assert!(stderr(&o).contains("input"), "{}", stderr(&o));
            assert_eq!(std::fs::read(&results).expect("read"), bytes, "the input is untouched");
        }
    }

    let run_dir = tmp.path().join("run");
    std::fs::create_dir(&run_dir).expect("mkdir");
    let run_results = run_dir.join("results.json");
    let run_bytes = example_results(&run_results);
    let o = eval_to(&run_dir, Some(&run_results), &["--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(&run_results).expect("read"), run_bytes);

    let many = tmp.path().join("many");
    std::fs::create_dir(&many).expect("mkdir");
    let a = many.join("a.json");
    let a_bytes = example_results(&a);
    example_results(&many.join("b.json"));
    let o = eval_to(&many, Some(&a), &["--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(&a).expect("read"), a_bytes);
}

/// An existing `--output` is replaced only with `--force`; the default output (the evaluation's
/// own derived file) is regenerated.
#[test]
fn an_existing_output_needs_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let results = tmp.path().join("results.json");
    example_results(&results);
    let output = tmp.path().join("scores.json");
    std::fs::write(&output, "keep me").expect("write");
    let o = eval_to(&results, Some(&output), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&output).expect("read"), "keep me");
    let o = eval_to(&results, Some(&output), &["--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&output).expect("read")).expect("json");
    assert!(written.get("files").is_some());
    for _ in 0..2 {
        let o = eval_to(&results, None, &[]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert!(tmp.path().join("results.evaluation.json").is_file());
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("ls")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file left");
}

/// Write 100,000 lines, line `n` from `line(n)`, to `path`.
fn write_lines(path: &std::path::Path, line: impl Fn(usize) -> String) {
    let lines: Vec<String> = (0..100_000).map(line).collect();
    std::fs::write(path, lines.join("\n") + "\n").expect("write");
}

/// 100,000 malformed records give one stderr line per kind of warning, with its count; the
/// evaluation file still lists every warning (as the official evaluator writes them).
#[test]
fn warnings_print_once_per_kind_with_a_count() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let results = tmp.path().join("results.jsonl");
    write_lines(&results, |n| match n % 10 {
        0 => "{\"answer\": \"no id\"}".to_string(),
        1 => "{\"id\": \"legal_zh_descriptive_1\", \"answer\": \"3\"}".to_string(),
        _ => format!("{{\"id\": \"unknown_{n}\", \"answer\": \"x\"}}"),
    });
    let output = tmp.path().join("evaluation.json");
    let o = eval_examples(&results, &["--no-judge-cache", "--output", output.to_str().expect("utf8")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 3, "one line per kind: {}", &err[..err.len().min(2000)]);
    let expect = [
        ("80000 × not found in benchmark", "unknown_2"),
        ("10000 × missing id", "record 1"),
        ("9999 × duplicate result id", "legal_zh_descriptive_1"),
    ];
    for (kind, example) in expect {
        let line = warnings.iter().find(|l| l.contains(kind)).unwrap_or_else(|| panic!("no {kind:?} line in {err}"));
        assert!(line.contains(example), "{line}");
    }
    let evaluation: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&output).expect("evaluation")).expect("json");
    let listed = evaluation["files"][0]["warnings"].as_array().map_or(0, Vec::len);
    assert_eq!(listed, 99_999, "the file keeps every warning");
    assert!(stdout(&o).contains("99999 warning(s)"), "{}", stdout(&o));
}

/// The same for a $OneMillion-Bench dataset with 100,000 malformed records: one line per kind.
#[test]
fn omb_dataset_warnings_print_once_per_kind_with_a_count() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dataset = tmp.path().join("bad.jsonl");
    write_lines(&dataset, |n| match n % 4 {
        0 => format!("{{\"id\": \"r{n}\", \"question\": \"q\""),
        1 => format!("{{\"id\": \"r{n}\", \"question\": \"q\", \"rubrics\": []}}"),
        _ => format!("{{\"id\": \"r{n}\", \"question\": \"q\", \"rubrics\": 5}}"),
    });
    let o = anser(&[
        "omb",
        "generate",
        "--dataset",
        dataset.to_str().expect("utf8"),
        "--run-name",
        "bad",
        "--output-dir",
        tmp.path().join("runs").to_str().expect("utf8"),
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "none",
    ]);
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:") && l.contains("skipped")).collect();
    assert_eq!(warnings.len(), 3, "one line per kind: {}", &err[..err.len().min(2000)]);
    for (count, kind) in [(25_000, "not valid JSON"), (25_000, "rubrics is empty"), (50_000, "rubrics is not a list")] {
        let needle = format!("{count} record(s) skipped: {kind}");
        assert!(warnings.iter().any(|l| l.contains(&needle)), "no {needle:?} in {warnings:?}");
    }
}
