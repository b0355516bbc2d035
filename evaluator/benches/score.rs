//! Measures scoring all 2,235 release tasks without the judge (`--profile official` and
//! `--profile card` without an encoder): parsing a generated results file of one prediction per
//! task, scoring answers and evidence, aggregating, and rendering evaluation.json. The
//! predictions are generated deterministically from the task files (exact, perturbed, prose,
//! structured and empty answers; exact, partial, reordered and empty evidence). Needs
//! ../shared (or $ANSER_SHARED); prints a skip reason otherwise. Target: well under a second.
//!
//! Run: `cargo bench -p anser-evaluator --bench score`.

use std::time::{Duration, Instant};

use anser_evaluator::{EvalOptions, JudgeMode, Profile, ResultsInput, evaluate};
use anser_gold::Benchmark;
use serde_json::{Value, json};

/// Iterations per measurement.
const RUNS: usize = 7;

/// A small deterministic generator (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn pick(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn prediction(rng: &mut Lcg, id: &str, gold: &Value, evidence: &Value) -> Value {
    let answer = match (rng.pick(6), gold) {
        (0, _) => gold.clone(),
        (1, Value::Number(n)) => json!(n.as_f64().unwrap_or(0.0) * 1.05),
        (1, Value::String(s)) => json!(format!("The answer is {s}")),
        (2, Value::Object(_)) => json!(format!("```json\n{gold}\n```")),
        (2, _) => json!(gold.to_string()),
        (3, _) => json!(""),
        (4, _) => json!(format!("Result: {gold} done")),
        _ => Value::Null,
    };
    let items = evidence.as_array().cloned().unwrap_or_default();
    let evidence = match rng.pick(4) {
        0 => items,
        1 => items.iter().take(items.len() / 2).cloned().collect(),
        2 => items.iter().rev().cloned().collect(),
        _ => Vec::new(),
    };
    json!({"id": id, "answer": answer, "retrieved_evidence": evidence, "total_tokens": rng.pick(20_000), "latency": 1.5})
}

fn measure(label: &str, runs: usize, mut f: impl FnMut()) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("{label:<48} min {:>8.1} ms   median {:>8.1} ms   ({runs} runs)", ms(times[0]), ms(times[runs / 2]));
}

fn main() {
    let Some(shared) = anser_manifest::shared_dir_or_skip("evaluator benchmark") else { return };
    let bench = match Benchmark::load(&shared.join("anser/query")) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("skipped evaluator benchmark: release task files do not load: {e}");
            return;
        }
    };
    let mut rng = Lcg(0x5eed_2235);
    let records: Vec<Value> = bench
        .tasks()
        .iter()
        .filter_map(|t| bench.reference(&t.id).map(|r| prediction(&mut rng, &t.id, &r.ground_truth, &r.evidence)))
        .collect();
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("skipped evaluator benchmark: no temporary directory: {e}");
            return;
        }
    };
    let path = dir.path().join("results.json");
    if let Err(e) = std::fs::write(&path, Value::Array(records.clone()).to_string()) {
        eprintln!("skipped evaluator benchmark: cannot write {}: {e}", path.display());
        return;
    }
    let corpus = shared.join("anser/corpus");
    let options =
        |profile| EvalOptions { profile, corpus_root: Some(corpus.clone()), judge: JudgeMode::Skip, bertscore: None };
    println!("{} tasks, results file {} bytes", records.len(), std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0));
    for profile in [Profile::Official, Profile::Card] {
        let input = ResultsInput::Path { input: path.clone(), output: None };
        let opts = options(profile);
        measure(&format!("file → evaluation.json, profile {}", profile.as_str()), RUNS, || {
            let e = evaluate(&input, &bench, &opts).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(e.evaluated_records(), records.len());
            std::hint::black_box(e.to_json_string());
        });
    }
    let input = ResultsInput::Records { source: "records".into(), records };
    let opts = options(Profile::Official);
    measure("in-memory records → metrics (official)", RUNS, || {
        std::hint::black_box(evaluate(&input, &bench, &opts).unwrap_or_else(|e| panic!("{e}")));
    });
}
