//! One small sample per test binary, generated on first use under the target's test folder.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::OnceLock,
};

use anser_samples::{DEFAULT_SEED, SampleOptions, SampleSummary, Size, generate};
use rusqlite::Connection;
use serde_json::Value;

/// The shared small sample (default seed).
pub fn sample() -> &'static SampleSummary {
    static SAMPLE: OnceLock<SampleSummary> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("anser-samples-it").join("small-default");
        if dir.exists() {
            fs_remove(&dir);
        }
        generate(&SampleOptions { seed: DEFAULT_SEED, size: Size::Small, ..Default::default() }, &dir)
            .expect("small sample generates")
    })
}

fn fs_remove(dir: &Path) {
    std::fs::remove_dir_all(dir).expect("remove previous test sample");
}

/// A fresh temporary folder (removed when dropped).
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// Open a corpus database of the shared sample.
pub fn db(rel: &str) -> Connection {
    Connection::open(sample().corpus_dir().join(rel)).expect("open corpus database")
}

/// The task records of one file, by id.
pub fn tasks(rel: &str) -> Vec<Value> {
    let path: PathBuf = sample().query_dir().join(rel);
    let text = std::fs::read_to_string(&path).expect("task file");
    match serde_json::from_str(&text).expect("task JSON") {
        Value::Array(v) => v,
        other => panic!("{}: not an array: {other}", path.display()),
    }
}

/// Tasks of a file grouped by type key (`"null"` for JSON null).
pub fn by_type(rel: &str) -> BTreeMap<String, Vec<Value>> {
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for t in tasks(rel) {
        let ty = t["type"].as_str().unwrap_or("null").to_string();
        out.entry(ty).or_default().push(t);
    }
    out
}

/// The string of a JSON value (panics with the value otherwise).
pub fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("expected a string, found {v}"))
}

/// Parse the number after `prefix` in `text` (digits, sign, dot).
pub fn number_after(text: &str, prefix: &str) -> Option<f64> {
    let start = text.find(prefix)? + prefix.len();
    let num: String = text[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '-').collect();
    num.trim_end_matches('.').parse().ok()
}

/// Two-sided Fisher exact p-value, written independently of the generator: direct products of
/// hypergeometric probabilities in f64 via ln-gamma-free running products.
pub fn fisher(a: u64, b: u64, c: u64, d: u64) -> f64 {
    let (r1, r2, c1) = (a + b, c + d, a + c);
    let n = r1 + r2;
    let lnf = |k: u64| (1..=k).map(|i| (i as f64).ln()).sum::<f64>();
    let p = |x: u64| {
        (lnf(r1) + lnf(r2) + lnf(c1) + lnf(n - c1) - lnf(n) - lnf(x) - lnf(r1 - x) - lnf(c1 - x) - lnf(r2 + x - c1))
            .exp()
    };
    let lo = c1.saturating_sub(r2);
    let hi = r1.min(c1);
    let p0 = p(a);
    (lo..=hi).map(p).filter(|&q| q <= p0 * (1.0 + 1e-7)).sum::<f64>().min(1.0)
}

/// Recover the 2×2 table of a binary association from n, the two rates and the number of
/// positive outcomes in the cohort (counted independently with SQL): n1·r1 + (n − n1)·r0 = P.
pub fn table_from_rates(n: u64, r1: f64, r0: f64, positives: u64) -> Option<(u64, u64, u64, u64)> {
    (1..n).find_map(|n1| {
        let a = (r1 * n1 as f64).round() as u64;
        let n0 = n - n1;
        let c = (r0 * n0 as f64).round() as u64;
        let ok = a <= n1
            && c <= n0
            && a + c == positives
            && ((a as f64 / n1 as f64) - r1).abs() < 5e-7
            && ((c as f64 / n0 as f64) - r0).abs() < 5e-7;
        ok.then_some((a, n1 - a, c, n0 - c))
    })
}

/// Round to six decimals.
pub fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
