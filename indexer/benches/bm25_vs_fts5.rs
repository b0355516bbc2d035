//! tantivy + our BM25 (block-max MaxScore top-k) versus SQLite FTS5 with the official sparse
//! baseline's scheme (rusqlite bundled, contentless FTS5 table, `unicode61` over space-joined
//! analyzer terms, OR query of distinct quoted terms, ranked by `rank`), on the same units in the
//! same run: index build time and size, query latency p50/p95 (top 10), and for our side the
//! time to open the index, the exhaustive scorer (every posting of every term, the pre-pruning
//! design) and the share of postings the pruned top 10 scored.
//!
//! Data, by default: the Chinese routes of a generated `medium` sample (legal_zh_cases,
//! finance_zh_reports) with the sample's own task queries (query + instruction), and the real
//! finance_zh_rules corpus with its 100 real task queries when ../shared is present.
//!
//! Environment:
//! - `ANSER_BENCH_CORPUS=DIR`: use this corpus root instead of a generated sample (e.g. the
//!   release-size sample `/work/release/corpus`); tasks from `ANSER_BENCH_QUERY` (default
//!   `DIR/../query`);
//! - `ANSER_BENCH_ROUTES=r1,r2`: routes (default with a corpus root: finance_zh_reports,
//!   legal_en_cases, science_articles);
//! - `ANSER_BENCH_THREADS=N`: tantivy indexing threads (default 2; FTS5 is single-threaded);
//! - `ANSER_BENCH_SMALL_BUILD_BYTES=N`: text bytes up to which our index is written by our own
//!   segment writers after every unit is read (default `DEFAULT_SMALL_BUILD_BYTES`; 0: always
//!   tantivy's threaded writer);
//! - `ANSER_BENCH_MAX_QUERIES=N`: time only the route's first N tasks (default: all);
//! - `ANSER_BENCH_WINDOW=N`: pruning window in documents (default the index's default);
//! - `ANSER_BENCH_QUERY_THREADS=N`: threads one query may be split over (default the machine's;
//!   only queries with at least `DEFAULT_PARALLEL_MIN_POSTINGS` postings are split);
//! - `ANSER_BENCH_COMPARE_THREADS=1,2` (with `ANSER_BENCH_PROFILE=1`): run every query again
//!   with each listed thread count right after the first run (same load for all), assert the
//!   same top 10, and print p50 / p95 per count;
//! - `ANSER_BENCH_SEED=N`: windows of each slice searched first (default `DEFAULT_SEED_WINDOWS`;
//!   0 searches in document order);
//! - `ANSER_BENCH_SKIP_FTS5=1`: leave FTS5 out (to iterate on our side alone);
//! - `ANSER_BENCH_PROFILE=1`: print each query's time and pruning counters, and time only the
//!   pruned path (no exhaustive check, no FTS5);
//! - `ANSER_BENCH_INDEX_DIR=DIR`: keep our index of each route in `DIR/<route>` and reuse it on
//!   the next run instead of rebuilding (the build column then shows NaN: a reused index was not
//!   timed). Delete the folder after a change of the index format or of the writer.
//!
//! Build times: a build whose fastest run is shorter than [`REPEAT_BUILDS_UNDER_S`] is
//! repeated, from scratch each time, for at least [`BUILD_RUNS`] runs and [`MIN_BUILD_SPAN_S`]
//! of its own build time (at most [`MAX_BUILD_RUNS`] runs; a first run under
//! [`SECOND_RUN_UNDER_S`] always gets a second), and the median is reported, for our index and
//! for FTS5 alike (one run of a few milliseconds varies by half from run to run), with the
//! fastest and the slowest run and the number of runs beside it. Our builds and FTS5's take
//! turns, so a slower spell of the machine (a fraction of a second to seconds long on this
//! shared VM) weighs on both, and a build of a few milliseconds is timed over a second or more
//! rather than over the 50 ms that seven runs take, which one such spell could cover. Beside
//! them, the CPU time the hypervisor took from the machine during each side's builds ("steal",
//! all runs summed), and each side's CPU time per second of wall time (the process's user and
//! system time, all threads; median over the runs). On this VM the second CPU is at times not
//! there in parallel: two-thread builds then take as long as one thread's, with no steal
//! counted, and the CPU / wall of our builds written as two segments drops from about 1.8
//! towards 1 (finance_zh_rules' 47 kB of text, under the 128 KiB a second segment takes, are one
//! segment on one thread).
//! That slows our two-thread builds and not FTS5's one, and the column shows when it happened.
//!
//! Our index stores each unit's filter attributes as `anser index` makes them (its record's
//! dates on dated routes, the mask of the evidence kinds it names); the official baseline's FTS5
//! table has none.
//!
//! Chinese routes use `zh_bigram` (the official baseline's terms), English ones `en`. BM25 is
//! k1 1.2, b 0.75 with FTS5's idf, i.e. FTS5's ranking function; the pruned top 10 is asserted
//! equal to the exhaustive top 10.
//!
//! Run: `cargo bench -p anser-indexer --bench bm25_vs_fts5`

use std::{
    path::{Path, PathBuf},
    time::Instant,
};

use anser_indexer::{
    Analyzer, Bm25Params, Chunking, Tokens, UnitAttrs, UnitFilter,
    bm25::{Bm25Index, Bm25Writer},
    corpus_file,
    units::{Unit, read_units, route_evidence_kinds},
};
use anser_manifest::{Route, load_public_tasks};
use anser_samples::{SampleOptions, Size, generate};

/// Builds whose fastest run is faster than this (seconds) are repeated (see the module docs).
const REPEAT_BUILDS_UNDER_S: f64 = 1.0;
/// A first run shorter than this (seconds) but not under [`REPEAT_BUILDS_UNDER_S`] gets a second
/// one, which is repeated in turn if it is under [`REPEAT_BUILDS_UNDER_S`]: one slow spell of the
/// machine made a 0.3 s build take 1.03 s in its first run, which was then reported alone.
const SECOND_RUN_UNDER_S: f64 = 3.0;
/// Fewest runs of a repeated build; the median is reported.
const BUILD_RUNS: usize = 7;
/// Build time (seconds, summed over its runs) for which a repeated build goes on past
/// [`BUILD_RUNS`] runs.
const MIN_BUILD_SPAN_S: f64 = 1.0;
/// Most runs of a repeated build.
const MAX_BUILD_RUNS: usize = 101;
/// Opens of our index timed; the median is reported.
const OPEN_RUNS: usize = 5;

/// One timed build: its wall time and the CPU time the process used meanwhile (seconds).
#[derive(Clone, Copy)]
struct Run {
    wall: f64,
    cpu: f64,
}

/// Wall time and the process's CPU time (user and system, all threads) since it was started.
struct Stopwatch {
    wall: Instant,
    cpu: cpu_time::ProcessTime,
}

impl Stopwatch {
    fn start() -> Self {
        Self { wall: Instant::now(), cpu: cpu_time::ProcessTime::now() }
    }

    fn stop(&self) -> Run {
        Run { wall: self.wall.elapsed().as_secs_f64(), cpu: self.cpu.elapsed().as_secs_f64() }
    }
}

/// One side's repeated build: its median, fastest and slowest run (seconds), its number of
/// runs, the median over its runs of the CPU time used per second of wall time (two threads
/// that ran side by side all along: about 2; that took turns on one CPU: about 1), and the CPU
/// time the machine's hypervisor took from it over all its runs ([`steal_ms`]).
#[derive(Clone, Copy)]
struct BuildTimes {
    median: f64,
    min: f64,
    max: f64,
    runs: usize,
    cpu_per_wall: f64,
    steal_ms: f64,
}

impl BuildTimes {
    /// The median with the fastest and slowest run and the number of runs ([`seconds`]); the
    /// median alone when the build ran once.
    fn show(&self) -> String {
        if self.runs > 1 {
            format!("{} ({}–{}, {} runs)", seconds(self.median), seconds(self.min), seconds(self.max), self.runs)
        } else {
            seconds(self.median)
        }
    }
}

/// The times of `builds` (each returns its own [`Run`]; `None`: not run, NaN), each
/// run twice when its first run was shorter than [`SECOND_RUN_UNDER_S`], and repeated while its
/// fastest run is shorter than [`REPEAT_BUILDS_UNDER_S`], for at least
/// [`BUILD_RUNS`] runs and [`MIN_BUILD_SPAN_S`] of build time, at most [`MAX_BUILD_RUNS`] runs,
/// the builds taking turns.
fn repeated_builds<const N: usize>(mut builds: [Option<&mut dyn FnMut() -> Run>; N]) -> [BuildTimes; N] {
    let mut times: [Vec<Run>; N] = std::array::from_fn(|_| Vec::new());
    let mut steal = [0.0; N];
    let again = |t: &[Run]| {
        let fastest = t.iter().map(|r| r.wall).fold(f64::INFINITY, f64::min);
        t.is_empty()
            || (t.len() == 1 && fastest < SECOND_RUN_UNDER_S)
            || (fastest < REPEAT_BUILDS_UNDER_S
                && t.len() < MAX_BUILD_RUNS
                && (t.len() < BUILD_RUNS || t.iter().map(|r| r.wall).sum::<f64>() < MIN_BUILD_SPAN_S))
    };
    loop {
        let mut ran = false;
        for ((build, times), steal) in builds.iter_mut().zip(&mut times).zip(&mut steal) {
            let Some(build) = build else { continue };
            if again(times) {
                let before = steal_ms();
                times.push(build());
                *steal += steal_ms() - before;
                ran = true;
            }
        }
        if !ran {
            break;
        }
    }
    let mut steal = steal.into_iter();
    times.map(|runs| {
        let sorted = |f: fn(&Run) -> f64| {
            let mut v: Vec<f64> = runs.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let wall = sorted(|r| r.wall);
        BuildTimes {
            median: percentile(&wall, 0.5),
            min: wall.first().copied().unwrap_or(f64::NAN),
            max: wall.last().copied().unwrap_or(f64::NAN),
            runs: runs.len(),
            cpu_per_wall: percentile(&sorted(|r| r.cpu / r.wall), 0.5),
            steal_ms: steal.next().unwrap_or(f64::NAN),
        }
    })
}

/// CPU time, in milliseconds summed over the CPUs, that the hypervisor has given to other
/// guests while this one wanted to run ("steal" in `/proc/stat`, counted in 1/100 s); NaN where
/// it is not reported. A build during which the machine lost CPU this way is slower for a reason
/// outside the build: this machine is a shared VM, and the bench prints it beside the builds.
fn steal_ms() -> f64 {
    let stat = fs_err::read_to_string("/proc/stat").unwrap_or_default();
    stat.lines()
        .find_map(|l| l.strip_prefix("cpu "))
        .and_then(|l| l.split_whitespace().nth(7))
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(f64::NAN, |ticks| ticks * 10.0)
}

/// A build time: in milliseconds (two decimals) under a second, else in seconds; NaN (not
/// built) as is.
fn seconds(s: f64) -> String {
    if s < 1.0 { format!("{:.2} ms", s * 1e3) } else { format!("{s:.3} s") }
}

/// Linearly interpolated percentile (numpy's default) of sorted values; NaN when empty.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    anser_pycompat::numeric::percentile_linear(sorted, q).unwrap_or(f64::NAN)
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = fs_err::read_dir(path) else { return 0 };
    entries
        .filter_map(|e| e.ok())
        .map(|e| {
            let p = e.path();
            if p.is_dir() { dir_size(&p) } else { p.metadata().map_or(0, |m| m.len()) }
        })
        .sum()
}

/// Peak resident set of this process so far (VmHWM), MiB.
fn peak_rss_mib() -> f64 {
    let status = fs_err::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .unwrap_or(f64::NAN);
    kb / 1024.0
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// Bench one route; `load` reads its units (not needed when a kept index is profiled alone).
fn bench_route(name: &str, route: Route, load: &dyn Fn() -> Vec<Unit>, queries: &[String], threads: usize) {
    let cell = std::cell::OnceCell::new();
    let units = || cell.get_or_init(load).as_slice();
    // Each unit's filter attributes as `anser index` makes them (dates, evidence-kind mask):
    // our index stores them, and the official baseline's FTS5 table has no filters.
    let attrs_cell = std::cell::OnceCell::new();
    let attrs = || {
        attrs_cell
            .get_or_init(|| {
                let kinds: Vec<String> = route_evidence_kinds(route).into_iter().collect();
                units().iter().map(|u| UnitAttrs::of_unit(u, &kinds)).collect::<Vec<_>>()
            })
            .as_slice()
    };
    let analyzer = if route.as_str().contains("_zh_") { Analyzer::ZhBigram } else { Analyzer::En };
    let tmp = tempfile::tempdir().expect("tmp");
    // A kept index (ANSER_BENCH_INDEX_DIR) is complete once its marker file exists.
    let kept = std::env::var_os("ANSER_BENCH_INDEX_DIR").map(|d| PathBuf::from(d).join(route.as_str()));
    let ours_dir = kept.clone().unwrap_or_else(|| tmp.path().join("tantivy"));
    let done = ours_dir.join("bench-complete");

    // tantivy + our BM25 (k1 1.2, b 0.75, FTS5 idf: the same ranking function).
    let reuse = kept.is_some() && done.is_file();
    let small = std::env::var("ANSER_BENCH_SMALL_BUILD_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(anser_indexer::DEFAULT_SMALL_BUILD_BYTES);
    let mut ours_build = || {
        // Read the units before the clock starts, as for FTS5 (they are loaded lazily).
        let (all, all_attrs) = (units(), attrs());
        if ours_dir.exists() {
            fs_err::remove_dir_all(&ours_dir).expect("remove a partial or earlier index");
        }
        fs_err::create_dir_all(&ours_dir).expect("mkdir");
        let clock = Stopwatch::start();
        let mut w = Bm25Writer::create(&ours_dir, analyzer, threads, small).expect("writer");
        for (u, a) in all.iter().zip(all_attrs) {
            w.add(u, a).expect("add");
        }
        w.finish().expect("commit");
        clock.stop()
    };

    // SQLite FTS5, the official baseline's scheme (skipped with ANSER_BENCH_SKIP_FTS5=1, to
    // iterate on our side alone).
    let profile = env_flag("ANSER_BENCH_PROFILE");
    let with_fts = !env_flag("ANSER_BENCH_SKIP_FTS5") && !profile;
    let fts_path = tmp.path().join("fts5.sqlite");
    let mut tokens = Tokens::new(analyzer);
    let mut conn = None;
    let mut fts_build = || {
        // The earlier run's database is closed before its file is replaced.
        drop(conn.take());
        if fts_path.exists() {
            fs_err::remove_file(&fts_path).expect("remove the earlier FTS5 build");
        }
        let all = units();
        let clock = Stopwatch::start();
        let c = rusqlite::Connection::open(&fts_path).expect("sqlite");
        c.execute_batch("CREATE VIRTUAL TABLE u USING fts5(terms, content='', tokenize='unicode61'); BEGIN;")
            .expect("fts5");
        {
            let mut ins = c.prepare("INSERT INTO u(rowid, terms) VALUES (?1, ?2)").expect("prepare");
            for u in all {
                ins.execute((i64::from(u.ord) + 1, tokens.terms(&u.text).join(" "))).expect("insert");
            }
        }
        c.execute_batch("COMMIT;").expect("commit");
        let run = clock.stop();
        conn = Some(c);
        run
    };
    // Taking turns, so that a drift of the machine's speed over a few seconds (a shared VM's)
    // weighs on both alike.
    let [ours_times, fts_times] = repeated_builds([
        (!reuse).then_some(&mut ours_build as &mut dyn FnMut() -> Run),
        with_fts.then_some(&mut fts_build as &mut dyn FnMut() -> Run),
    ]);
    if !reuse {
        fs_err::write(&done, b"").expect("marker");
    }
    // `conn` is the last FTS5 build's database, queried below (none when FTS5 is skipped).
    let fts_size = conn.as_ref().map_or(0, |_| fs_err::metadata(&fts_path).map_or(0, |m| m.len()));
    let ours_size = dir_size(&ours_dir);
    // Opening reads each segment's document lengths, block fronts and filter attributes, and a
    // small segment's term dictionary, into memory: the median of OPEN_RUNS opens.
    let mut opens = Vec::with_capacity(OPEN_RUNS);
    let mut opened = None;
    for _ in 0..OPEN_RUNS {
        drop(opened.take());
        let t0 = Instant::now();
        opened = Some(Bm25Index::open(&ours_dir, analyzer).expect("open"));
        opens.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    let index = opened.expect("opened");
    opens.sort_by(f64::total_cmp);
    let open_ms = percentile(&opens, 0.5);
    let params = Bm25Params::new(1.2, 0.75, anser_indexer::Idf::Fts5).expect("params");

    let (mut ours, mut exhaustive, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
    let (mut postings, mut scored) = (0u64, 0u64);
    let mut same_top1 = 0usize;
    let mut stmt = conn
        .as_ref()
        .map(|c| c.prepare("SELECT rowid FROM u WHERE u MATCH ?1 ORDER BY rank LIMIT 10").expect("prepare"));
    let none = UnitFilter::none();
    let window: Option<u32> = std::env::var("ANSER_BENCH_WINDOW").ok().and_then(|w| w.parse().ok());
    let query_threads: Option<usize> = std::env::var("ANSER_BENCH_QUERY_THREADS").ok().and_then(|t| t.parse().ok());
    let seed: Option<u32> = std::env::var("ANSER_BENCH_SEED").ok().and_then(|n| n.parse().ok());
    let compare: Vec<usize> = std::env::var("ANSER_BENCH_COMPARE_THREADS")
        .map(|l| l.split(',').filter_map(|t| t.trim().parse().ok()).collect())
        .unwrap_or_default();
    let mut compared: Vec<Vec<f64>> = vec![Vec::new(); compare.len()];
    for (qi, q) in queries.iter().enumerate() {
        let t0 = Instant::now();
        let terms = index.query_terms(q);
        let mut query = index.query(&terms, &params, &none).expect("query");
        if let Some(w) = window {
            query = query.with_window(w);
        }
        if let Some(t) = query_threads {
            query = query.with_threads(t, anser_indexer::bm25_query::DEFAULT_PARALLEL_MIN_POSTINGS);
        }
        if let Some(n) = seed {
            query = query.with_seed_windows(n);
        }
        let (hits, stats) = index.top_k(&query, 10).expect("search");
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        ours.push(ms);
        postings += stats.postings;
        scored += stats.scored;
        if profile {
            println!("  {ms:8.2} ms  terms {:3}  {stats:?}", terms.len());
            // The same query again with each listed thread count, in turn (the order rotating
            // from query to query), so the counts are compared under the same load.
            for j in 0..compare.len() {
                let (t, times) = (&compare[(j + qi) % compare.len()], &mut compared[(j + qi) % compare.len()]);
                let t0 = Instant::now();
                let terms = index.query_terms(q);
                let query = index
                    .query(&terms, &params, &none)
                    .expect("query")
                    .with_threads(*t, anser_indexer::bm25_query::DEFAULT_PARALLEL_MIN_POSTINGS);
                let (again, _) = index.top_k(&query, 10).expect("search");
                times.push(t0.elapsed().as_secs_f64() * 1e3);
                assert_eq!(again, hits, "{name}: {t} threads changed the top 10 of {q:?}");
            }
            continue;
        }
        let t0 = Instant::now();
        let terms = index.query_terms(q);
        let all = index.search_exhaustive(&terms, 10, &params, &none).expect("exhaustive");
        exhaustive.push(t0.elapsed().as_secs_f64() * 1e3);
        assert_eq!(hits, all, "{name}: pruned and exhaustive top 10 differ for {q:?}");
        let Some(stmt) = stmt.as_mut() else { continue };
        let t0 = Instant::now();
        let terms = tokens.terms(q);
        let mut seen = std::collections::HashSet::new();
        let fq = terms
            .iter()
            .filter(|t| seen.insert((*t).clone()))
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(" OR ");
        let rows: Vec<i64> = if fq.is_empty() {
            Vec::new()
        } else {
            stmt.query_map([&fq], |r| r.get(0)).expect("query").map(|r| r.expect("row")).collect()
        };
        theirs.push(t0.elapsed().as_secs_f64() * 1e3);
        if hits.first().map(|h| i64::from(h.ord) + 1) == rows.first().copied() {
            same_top1 += 1;
        }
    }
    for v in [&mut ours, &mut exhaustive, &mut theirs].into_iter().chain(&mut compared) {
        v.sort_by(f64::total_cmp);
    }
    for (t, times) in compare.iter().zip(&compared) {
        println!(
            "  {name}: {t} query thread(s), interleaved: p50 / p95 {:.2} / {:.2} ms",
            percentile(times, 0.5),
            percentile(times, 0.95)
        );
    }
    let (p50, p95) = (percentile(&ours, 0.5), percentile(&ours, 0.95));
    let (fp50, fp95) = (percentile(&theirs, 0.5), percentile(&theirs, 0.95));
    println!(
        "| {name} | {} | {} | {threads} | {} | {} | {:.2}× | {:.2} / {:.2} | {:.0} / {:.0} ms | {:.0} / {:.0} MiB | {open_ms:.2} ms | {p50:.2} / {p95:.2} ms | {:.2} / {:.2} ms | {fp50:.1} / {fp95:.1} ms | {:.1}× | {:.1} % | {same_top1}/{} | {:.0} MiB |",
        index.num_docs(),
        queries.len(),
        ours_times.show(),
        fts_times.show(),
        fts_times.median / ours_times.median,
        ours_times.cpu_per_wall,
        fts_times.cpu_per_wall,
        ours_times.steal_ms,
        fts_times.steal_ms,
        mib(ours_size),
        mib(fts_size),
        percentile(&exhaustive, 0.5),
        percentile(&exhaustive, 0.95),
        fp95 / p95,
        100.0 * scored as f64 / postings.max(1) as f64,
        queries.len(),
        peak_rss_mib(),
    );
}

fn units_of(root: &Path, route: Route) -> Vec<Unit> {
    let mut units = Vec::new();
    read_units(
        route,
        &corpus_file(root, route),
        Chunking::default(),
        |u| {
            units.push(u);
            Ok(())
        },
        || {},
    )
    .expect("units");
    units
}

fn queries_of(query_dir: &Path, route: Route) -> Vec<String> {
    let max: usize = std::env::var("ANSER_BENCH_MAX_QUERIES").ok().and_then(|n| n.parse().ok()).unwrap_or(usize::MAX);
    load_public_tasks(query_dir)
        .expect("tasks")
        .into_iter()
        .filter(|t| t.route == route)
        .map(|t| format!("{}\n{}", t.query, t.instruction))
        .take(max)
        .collect()
}

fn routes_from_env(default: &[Route]) -> Vec<Route> {
    match std::env::var("ANSER_BENCH_ROUTES") {
        Ok(list) => list
            .split(',')
            .map(|r| {
                Route::ALL
                    .into_iter()
                    .find(|x| x.as_str() == r.trim())
                    .unwrap_or_else(|| panic!("ANSER_BENCH_ROUTES: unknown route {r:?}"))
            })
            .collect(),
        Err(_) => default.to_vec(),
    }
}

fn main() {
    let threads: usize = std::env::var("ANSER_BENCH_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(2);
    println!(
        "| corpus | units | queries | tantivy threads | build ours (fastest–slowest, runs) | build FTS5 (fastest–slowest, runs) | build FTS5/ours | CPU / wall ours / FTS5 (median run) | CPU stolen during the builds ours / FTS5 | size ours / FTS5 | open ours | query p50 / p95 ours (pruned) | p50 / p95 exhaustive | p50 / p95 FTS5 | p95 FTS5/ours | postings scored | same top-1 | peak RSS so far |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    if let Some(root) = std::env::var_os("ANSER_BENCH_CORPUS").map(PathBuf::from) {
        let query_dir = std::env::var_os("ANSER_BENCH_QUERY")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.parent().unwrap_or(Path::new(".")).join("query"));
        for route in routes_from_env(&[Route::FinanceZhReports, Route::LegalEnCases, Route::ScienceArticles]) {
            let queries = queries_of(&query_dir, route);
            bench_route(&format!("{} {route}", root.display()), route, &|| units_of(&root, route), &queries, threads);
        }
        return;
    }
    let sample = tempfile::tempdir().expect("tmp");
    let summary = generate(&SampleOptions { size: Size::Medium, ..Default::default() }, sample.path()).expect("sample");
    for route in routes_from_env(&[Route::LegalZhCases, Route::FinanceZhReports]) {
        let queries = queries_of(&summary.query_dir(), route);
        let load = || units_of(&summary.corpus_dir(), route);
        bench_route(&format!("medium sample {route}"), route, &load, &queries, threads);
    }
    if let Some(shared) = anser_manifest::shared_dir() {
        let queries = queries_of(&shared.join("anser/query"), Route::FinanceZhRules);
        let load = || units_of(&shared.join("anser/corpus"), Route::FinanceZhRules);
        bench_route("real finance_zh_rules", Route::FinanceZhRules, &load, &queries, threads);
    }
}

/// The `anser` binary's allocator (src/main.rs), so that the times measured here are its.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
