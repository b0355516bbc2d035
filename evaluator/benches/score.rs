//! Measures scoring all 2,235 release tasks without the judge (`--profile official` and
//! `--profile card` without an encoder): parsing a generated results file of one prediction per
//! task, scoring answers and evidence, aggregating, and rendering evaluation.json. The
//! predictions are generated deterministically from the task files (exact, perturbed, prose,
//! structured and empty answers; exact, partial, reordered and empty evidence). divan prints
//! the wall times (fastest, slowest, median, mean of 7 runs). Needs ../shared (or
//! $ANSER_SHARED); prints a skip reason otherwise. Target: well under a second.
//!
//! Run: `cargo bench -p anser-evaluator --bench score`.

use std::{path::PathBuf, sync::OnceLock};

use anser_evaluator::{EvalOptions, JudgeMode, Profile, ResultsInput, evaluate};
use anser_gold::Benchmark;
use divan::{Bencher, black_box};
use serde_json::{Value, json};

/// The release tasks, the generated predictions and their results file, made once in `main`.
struct Fixture {
    bench: Benchmark,
    records: Vec<Value>,
    path: PathBuf,
    corpus: PathBuf,
    _dir: tempfile::TempDir,
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

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

fn fixture() -> Option<Fixture> {
    let shared = anser_manifest::shared_dir_or_skip("evaluator benchmark")?;
    let bench = match Benchmark::load(&shared.join("anser/query")) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("skipped evaluator benchmark: release task files do not load: {e}");
            return None;
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
            return None;
        }
    };
    let path = dir.path().join("results.json");
    if let Err(e) = std::fs::write(&path, Value::Array(records.clone()).to_string()) {
        eprintln!("skipped evaluator benchmark: cannot write {}: {e}", path.display());
        return None;
    }
    println!("{} tasks, results file {} bytes", records.len(), std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0));
    Some(Fixture { bench, records, path, corpus: shared.join("anser/corpus"), _dir: dir })
}

fn main() {
    let Some(f) = fixture() else { return };
    if FIXTURE.set(f).is_ok() {
        divan::main();
    }
}

fn options(f: &Fixture, profile: Profile) -> EvalOptions {
    EvalOptions { profile, corpus_root: Some(f.corpus.clone()), judge: JudgeMode::Skip, bertscore: None }
}

/// Results file → evaluation.json text.
#[divan::bench(args = [Profile::Official, Profile::Card], sample_count = 7, sample_size = 1)]
fn file_to_evaluation_json(bencher: Bencher, profile: Profile) {
    let Some(f) = FIXTURE.get() else { return };
    let input = ResultsInput::Path { input: f.path.clone(), output: None };
    let opts = options(f, profile);
    bencher.bench_local(|| {
        let e = evaluate(&input, &f.bench, &opts).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.evaluated_records(), f.records.len());
        e.to_json_string()
    });
}

/// In-memory records → metrics, official profile.
#[divan::bench(sample_count = 7, sample_size = 1)]
fn records_to_metrics_official(bencher: Bencher) {
    let Some(f) = FIXTURE.get() else { return };
    let input = ResultsInput::Records { source: "records".into(), records: f.records.clone() };
    let opts = options(f, Profile::Official);
    bencher.bench_local(|| black_box(evaluate(&input, &f.bench, &opts).unwrap_or_else(|e| panic!("{e}"))));
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
