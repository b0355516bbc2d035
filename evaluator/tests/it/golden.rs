//! Parity with the official evaluator: `--profile official` on the golden predictions must
//! reproduce the golden evaluation.json byte for byte (the three absolute paths aside).

use anser_evaluator::{EvalOptions, Evaluation, JudgeMode, Profile, ResultsInput, evaluate};

use crate::common::{release_benchmark, shared};

/// Replace the absolute paths the way the golden file was made.
fn with_golden_paths(mut e: Evaluation) -> Evaluation {
    e.input = "predictions.json".into();
    e.benchmark_dir = "query".into();
    for f in &mut e.files {
        f.source_file = "predictions.json".into();
    }
    e
}

fn first_difference(a: &str, b: &str) -> String {
    let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(a.lines().count().min(b.lines().count()));
    let show = |s: &str| s.lines().skip(line.saturating_sub(3)).take(7).collect::<Vec<_>>().join("\n");
    format!("first difference at line {}:\n--- ours\n{}\n--- golden\n{}", line + 1, show(a), show(b))
}

#[test]
fn official_profile_matches_golden_byte_for_byte() {
    let Some(shared) = shared("golden parity") else { return };
    let golden_dir = shared.join("golden/anser-eval");
    let bench = release_benchmark(&shared);
    let options = EvalOptions {
        profile: Profile::Official,
        corpus_root: Some(shared.join("anser/corpus")),
        judge: JudgeMode::Skip,
        bertscore: None,
    };
    let input = ResultsInput::Path { input: golden_dir.join("predictions.json"), output: None };
    let evaluation = match evaluate(&input, bench, &options) {
        Ok(e) => with_golden_paths(e),
        Err(e) => panic!("evaluation failed: {e}"),
    };
    let ours = evaluation.to_json_string();
    let golden = std::fs::read_to_string(golden_dir.join("evaluation.json")).unwrap_or_default();
    assert!(ours == golden, "{}", first_difference(&ours, &golden));
}
