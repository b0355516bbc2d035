//! Every accepted input shape (spec §1.2) and the errors for the rejected ones.

use std::path::Path;

use anser_evaluator::{
    Metric, ResultsInput, evaluate,
    records::{InputKind, default_output, input_kind},
};

use crate::common::{Synthetic, official, value};

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
}

fn run(s: &Synthetic, input: &Path) -> anser_evaluator::Result<anser_evaluator::Evaluation> {
    evaluate(&ResultsInput::Path { input: input.to_path_buf(), output: None }, &s.bench, &official())
}

const RECORD: &str = r#"{"id": "ld_100", "answer": "100"}"#;

#[test]
fn file_shapes() {
    let s = Synthetic::new();
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let shapes = [
        ("array.json", format!("[{RECORD}]")),
        ("results.json", format!("{{\"results\": [{RECORD}], \"predictions\": []}}")),
        ("predictions.json", format!("{{\"predictions\": [{RECORD}]}}")),
        ("single.json", RECORD.to_string()),
        ("lines.jsonl", format!("\n{RECORD}\r\n   \n")),
    ];
    for (name, text) in shapes {
        let path = tmp.path().join(name);
        write(&path, &text);
        let e = run(&s, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(e.evaluated_records(), 1, "{name}");
        assert_eq!(value(&e, "ld_100", Metric::Mae), Some(Some(0.0)), "{name}");
        assert_eq!(e.files[0].source_file, std::fs::canonicalize(&path).unwrap_or_default().display().to_string());
    }
}

#[test]
fn rejected_shapes_name_the_file() {
    let s = Synthetic::new();
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (name, text, message) in [
        ("obj.json", r#"{"answer": 1}"#, "result JSON must be a list, a result object, or contain results/predictions"),
        ("num.json", "3", "result JSON must be a list, a result object, or contain results/predictions"),
        ("rows.json", r#"[{"id": "ld_100"}, 7]"#, "record 2: each result record must be an object"),
        (
            "bad.json",
            r#"[{"id": "ld_100",}]"#,
            "invalid JSON: Expecting property name enclosed in double quotes: line 1 column 18 (char 17)",
        ),
        ("bad.jsonl", "{\"id\": 1}\n{oops}\n", "line 2: invalid JSON: Expecting property name"),
    ] {
        let path = tmp.path().join(name);
        write(&path, text);
        let err = run(&s, &path).map(|_| ()).expect_err(name).to_string();
        assert!(err.contains(name) && err.contains(message), "{name}: {err}");
    }
    let missing = run(&s, &tmp.path().join("absent.json")).map(|_| ()).expect_err("absent").to_string();
    assert!(missing.contains("absent.json") && missing.contains("no such file"), "{missing}");
}

#[test]
fn run_directory_and_directory_of_files() {
    let s = Synthetic::new();
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // A run directory: only results.json is read (trace.jsonl and metadata.json are not results).
    let run_dir = tmp.path().join("run");
    write(&run_dir.join("results.json"), &format!("[{RECORD}]"));
    write(&run_dir.join("trace.jsonl"), "{\"event\": \"x\"}\n");
    write(&run_dir.join("metadata.json"), "{}");
    assert_eq!(input_kind(&run_dir).ok(), Some(InputKind::RunDir));
    assert_eq!(default_output(&run_dir, &InputKind::RunDir), run_dir.join("evaluation.json"));
    let e = run(&s, &run_dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e.files.len(), 1);
    assert!(e.files[0].source_file.ends_with("results.json"));

    // A directory of result files: each evaluated on its own, in path order; evaluation
    // outputs and bookkeeping files are skipped.
    let dir = tmp.path().join("many");
    write(&dir.join("b.json"), &format!("[{RECORD}]"));
    write(&dir.join("a/x.jsonl"), "{\"id\": \"sp_1\", \"answer\": \"positive association\"}\n");
    write(&dir.join("a-b.json"), "[{\"id\": \"nope\"}]");
    for skipped in
        ["evaluation.json", "selection.json", "summary.json", "b.evaluation.json", "run.errors.jsonl", "notes.txt"]
    {
        write(&dir.join(skipped), "not json");
    }
    assert_eq!(input_kind(&dir).ok(), Some(InputKind::Dir));
    assert_eq!(default_output(&dir, &InputKind::Dir), dir.join("evaluation_results.json"));
    let e = run(&s, &dir).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> =
        e.files.iter().map(|f| f.source_file.rsplit('/').take(2).collect::<Vec<_>>().join("<")).collect();
    // Path order is component-wise: a/x.jsonl < a-b.json < b.json.
    assert_eq!(names, ["x.jsonl<a", "a-b.json<many", "b.json<many"]);
    assert_eq!(e.evaluated_records(), 2);
    assert_eq!(e.files[1].warnings, ["nope: not found in benchmark"]);
    let json = e.to_json_string();
    assert!(json.contains("\"files\": 3,"), "summary counts files");

    // The output file is never read back as a result file.
    write(&dir.join("out.json"), "[{\"id\": \"ld_zero\", \"answer\": 0}]");
    let with_output =
        evaluate(&ResultsInput::Path { input: dir.clone(), output: Some(dir.join("out.json")) }, &s.bench, &official())
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(with_output.files.len(), 3);
}

#[test]
fn default_output_of_a_file() {
    assert_eq!(default_output(Path::new("/x/run1.jsonl"), &InputKind::File), Path::new("/x/run1.evaluation.json"));
}

#[test]
fn numbers_keep_python_types_in_text_and_signatures() {
    let s = Synthetic::new();
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = tmp.path().join("r.json");
    // 1.0 stays a float in text() ("1.0"), 1 an int ("1"); NaN is accepted as Python does.
    write(&path, r#"[{"id": "sp_1", "answer": 1.0}, {"id": "ld_100", "answer": NaN}]"#);
    let e = run(&s, &path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(value(&e, "sp_1", Metric::TokenF1), Some(Some(0.0)));
    assert!(value(&e, "ld_100", Metric::Mae).flatten().is_some_and(f64::is_nan));
    // sha256 of {"answer":1.0,"id":"sp_1"} as Python's json.dumps writes it.
    let sig = e.details().next().map(|d| d.result_signature.clone()).unwrap_or_default();
    assert_eq!(sig, "3346b8138e051abbf6aec72b95e2f90e48bcfc184eb9bcb0de4427d44d698794");
    assert!(e.to_json_string().contains("\"MAE\": NaN"));
}
