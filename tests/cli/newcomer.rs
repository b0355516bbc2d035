//! A newcomer's path from `git clone` to a run (issue 18): the README's commands run as written
//! with `anser` on the PATH, every later command finds what `anser demo` wrote without path
//! flags, a run directory is all `eval`, `compare` and `report` need, and the rough edges the
//! newcomer hit (per-task failures of a retriever the index lacks, one missing setting at a
//! time, colour codes in logs, inconsistent retriever names, a mock that never calls a tool, a
//! CI script tied to `./target/debug`) stay fixed. One test per item of the issue.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output},
    sync::OnceLock,
};

use serde_json::Value;

use crate::common::{spawn_mock_llm, stderr, stdout};

const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// Variables that would change what a newcomer's shell sees; removed from every child.
const CLEARED_ENV: &[&str] = &[
    "ANSER_WORKSPACE",
    "ANSER_CORPUS_ROOT",
    "NO_COLOR",
    "RUST_LOG",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GENERATION_BASE_URL",
    "GENERATION_MODEL",
    "GENERATION_API_KEY",
    "EMBEDDING_BACKEND",
];

/// `anser ARGS` run in `dir` with a clean environment.
fn anser_in(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_anser"));
    for var in CLEARED_ENV {
        command.env_remove(var);
    }
    command.current_dir(dir).args(args).output().expect("the anser binary runs")
}

fn utf8(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(REPO).join("README.md")).expect("README.md")
}

/// The first fenced code block after the line `heading` in the README.
fn block_after(text: &str, heading: &str) -> String {
    let start = text.find(heading).unwrap_or_else(|| panic!("README has no {heading:?}"));
    let rest = &text[start..];
    let open = rest.find("```bash\n").expect("a bash block") + "```bash\n".len();
    let len = rest[open..].find("```").expect("closed block");
    rest[open..open + len].to_string()
}

/// `anser demo` into a workspace under the test target's tmp folder, built once per test
/// process (wiped first, so runs from an earlier process never collide) and shared by the tests,
/// which only add runs of their own names to it.
struct Demo {
    ws: PathBuf,
    stdout: String,
}

static DEMO: OnceLock<Demo> = OnceLock::new();

impl Demo {
    fn get() -> &'static Demo {
        DEMO.get_or_init(|| {
            let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("newcomer-demo");
            if root.exists() {
                std::fs::remove_dir_all(&root).expect("wipe the previous demo workspace");
            }
            std::fs::create_dir_all(&root).expect("mkdir");
            let o = anser_in(&root, &["demo", "--out", "ws", "--quiet"]);
            assert!(o.status.success(), "anser demo: {}", stderr(&o));
            Demo { ws: root.join("ws"), stdout: stdout(&o) }
        })
    }

    fn run(&self, args: &[&str]) -> Output {
        anser_in(&self.ws, args)
    }
}

/// Item 1 and the acceptance: the README's block after set-up runs as written with `anser` on
/// the PATH — demo, a run in the demo's folder without path flags, eval of the run directory
/// alone, report.
#[test]
fn the_readme_newcomer_path_runs_as_written() {
    let text = readme();
    let script = block_after(&text, "## After set-up: your first own run");
    for step in ["anser demo", "cd anser-demo", "anser run ", "anser eval runs/", "anser report runs/"] {
        assert!(script.contains(step), "the newcomer block walks `{step}`:\n{script}");
    }
    assert!(!script.contains("--benchmark-dir") && !script.contains("--corpus-root"), "no path flags:\n{script}");

    // "Install": the binary the tests built, on the PATH under its installed name.
    let tmp = tempfile::tempdir().expect("tempdir");
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_anser"), bin.join("anser")).expect("symlink");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut command = Command::new("bash");
    for var in CLEARED_ENV {
        command.env_remove(var);
    }
    let o = command
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(&home)
        .env("PATH", path)
        .output()
        .expect("bash runs");
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "the README block failed:\n{script}\nstdout:\n{out}\nstderr:\n{err}");
    let ws = home.join("anser-demo");
    for dir in ["query", "corpus", "indices", "runs/offline"] {
        assert!(ws.join(dir).is_dir(), "the demo wrote the workspace layout: {dir} missing");
    }
    let run = ws.join("runs/first");
    for file in ["metadata.json", "results.json", "evaluation.json", "report.html"] {
        assert!(run.join(file).is_file(), "runs/first/{file} written");
    }
    assert!(out.contains("main answer metric"), "the demo's compact summary:\n{out}");
    assert!(out.contains("next: cd anser-demo && anser report runs/offline"), "{out}");
    assert!(!err.contains('\u{1b}') && !out.contains('\u{1b}'), "no colour codes in piped output:\n{err}");
}

/// Item 1: the README says how to put `anser` on the PATH and how long the first build takes,
/// and set-up keeps exactly the two commands that work on a fresh machine.
#[test]
fn readme_says_how_to_put_anser_on_the_path() {
    let text = readme();
    let setup = block_after(&text, "## Set up");
    let commands: Vec<&str> = setup.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(commands.len(), 2, "set-up keeps two commands: {commands:?}");
    assert!(commands[0].starts_with("cargo run -- demo") && commands[1].starts_with("cargo test --workspace"));
    let after_setup = &text[text.find("## Set up").expect("set up")..text.find("## After set-up").expect("next")];
    assert!(after_setup.contains("cargo install --path ."), "install command right after set-up");
    assert!(after_setup.contains("cargo run --release --"), "the no-install alternative");
    assert!(after_setup.contains("15 minutes"), "first-build time stated");
    // `cargo install --path .` installs a binary named anser from the root package.
    let manifest = std::fs::read_to_string(Path::new(REPO).join("Cargo.toml")).expect("Cargo.toml");
    assert!(manifest.contains("[[bin]]\nname = \"anser\""), "the root package's binary is `anser`");
}

/// Item 2: `anser demo` writes the workspace layout and every command finds it by default —
/// `anser run` in the demo's folder with no path flags, and `--workspace DIR` from elsewhere.
#[test]
fn commands_in_the_demo_workspace_need_no_path_flags() {
    let demo = Demo::get();
    for dir in ["query", "corpus", "indices", "runs/offline"] {
        assert!(demo.ws.join(dir).is_dir(), "demo layout: {dir}");
    }
    let o = demo.run(&[
        "run",
        "--method",
        "offline",
        "--run-name",
        "item2",
        "--domain",
        "legal",
        "--language",
        "zh",
        "--quiet",
    ]);
    assert!(o.status.success(), "run in the demo folder: {}", stderr(&o));
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(demo.ws.join("runs/item2/metadata.json")).expect("the run went to runs/"),
    )
    .expect("metadata");
    let recorded = PathBuf::from(meta["extra"]["benchmark_dir"].as_str().expect("benchmark_dir"));
    assert!(recorded.is_absolute(), "recorded folders work from anywhere: {recorded:?}");

    for args in [&["tasks"][..], &["corpus", "check"], &["index", "--quiet"]] {
        let o = demo.run(args);
        assert!(o.status.success(), "anser {args:?} in the workspace: {}", stderr(&o));
    }
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let o = anser_in(
        elsewhere.path(),
        &[
            "--workspace",
            utf8(&demo.ws),
            "run",
            "--method",
            "offline",
            "--run-name",
            "item2b",
            "--limit",
            "3",
            "--quiet",
        ],
    );
    assert!(o.status.success(), "--workspace from elsewhere: {}", stderr(&o));
    assert!(demo.ws.join("runs/item2b/results.json").is_file(), "the run lands in the workspace's runs/");
}

/// Item 3: `eval RUN_DIR`, `compare` and `report` read the task folder from the run's
/// metadata — from any folder, with no --benchmark-dir.
#[test]
fn eval_compare_and_report_need_only_run_directories() {
    let demo = Demo::get();
    for (name, limit) in [("item3a", "0"), ("item3b", "4")] {
        let o = demo.run(&[
            "run",
            "--method",
            "offline",
            "--run-name",
            name,
            "--domain",
            "finance",
            "--language",
            "en",
            "--split",
            "prescriptive",
            "--limit",
            limit,
            "--no-evaluate",
            "--quiet",
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
    let (a, b) = (demo.ws.join("runs/item3a"), demo.ws.join("runs/item3b"));
    assert!(!a.join("evaluation.json").exists(), "not evaluated yet");
    let elsewhere = tempfile::tempdir().expect("tempdir");

    let o = anser_in(elsewhere.path(), &["compare", utf8(&a), utf8(&b), "--format", "json", "--resamples", "10000"]);
    assert!(o.status.success(), "compare without --benchmark-dir: {}", stderr(&o));
    let comparison: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert!(comparison["groups"]["finance_en_prescriptive"].is_object(), "{comparison}");

    let o = anser_in(elsewhere.path(), &["report", utf8(&a), "--no-html"]);
    assert!(o.status.success(), "report: {}", stderr(&o));
    let text = stdout(&o);
    assert!(!text.contains("no scores"), "the report scored the run from its recorded task folder:\n{text}");
    assert!(text.contains("Recall@5"), "{text}");

    let o = anser_in(elsewhere.path(), &["eval", utf8(&a), "--skip-llm-judge"]);
    assert!(o.status.success(), "eval of a run directory alone: {}", stderr(&o));
    assert!(a.join("evaluation.json").is_file());
}

/// Item 4: a retriever the index cannot serve on a selected route fails before the first task,
/// naming every route; missing endpoint settings are named all at once.
#[test]
fn unservable_retrievers_and_missing_settings_fail_up_front_and_completely() {
    let demo = Demo::get();
    let o = demo.run(&[
        "run",
        "--method",
        "retrieval",
        "--run-name",
        "item4",
        "--retriever",
        "bm25:zh_jieba",
        "--language",
        "en",
    ]);
    assert_eq!(o.status.code(), Some(2), "bad input: {}", stderr(&o));
    let err = stderr(&o);
    for route in ["legal_en_cases", "legal_en_precedents", "finance_en_reports", "science_articles"] {
        assert!(err.contains(route), "every English route named: {route} in {err}");
    }
    assert!(err.contains("zh_jieba") && err.lines().count() == 1, "one line: {err}");
    assert!(!demo.ws.join("runs/item4").exists(), "nothing ran");

    let o = demo.run(&[
        "run",
        "--method",
        "retrieval",
        "--run-name",
        "item4d",
        "--retriever",
        "hybrid:bm25+dense",
        "--limit",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no dense vectors"), "{}", stderr(&o));

    let o = demo.run(&["run", "--method", "vanilla", "--run-name", "item4v", "--limit", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("GENERATION_BASE_URL") && err.contains("GENERATION_MODEL"), "both at once: {err}");
    assert!(err.contains("--base-url") && err.contains("--model"), "{err}");
}

/// Item 5: the demo prints a compact per-group summary, explains the n/a metrics in one line,
/// ends with the next command, and its metadata carries fingerprints like any run.
#[test]
fn the_demo_prints_a_compact_summary_and_records_fingerprints() {
    let demo = Demo::get();
    let out = &demo.stdout;
    assert!(out.lines().count() <= 30, "compact (was ~200 lines):\n{out}");
    let groups: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("legal_") || l.starts_with("finance_") || l.starts_with("science_"))
        .collect();
    assert_eq!(groups.len(), 14, "one line per group:\n{out}");
    assert!(groups.iter().all(|l| !l.contains("null")), "{out}");
    assert!(groups.iter().any(|l| l.contains("Set F1")) && groups.iter().any(|l| l.contains("Recall@5")), "{out}");
    let na: Vec<&str> = out.lines().filter(|l| l.starts_with("n/a:")).collect();
    assert_eq!(na.len(), 1, "one line on unavailable metrics:\n{out}");
    assert!(
        na[0].contains("LLM Judge") && na[0].contains("OPENAI_API_KEY") && na[0].contains("Token Usage"),
        "{}",
        na[0]
    );
    assert!(
        out.trim_end().lines().last().is_some_and(|l| l.starts_with("next: ") && l.contains("anser report")),
        "{out}"
    );

    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(demo.ws.join("runs/offline/metadata.json")).expect("metadata.json"),
    )
    .expect("json");
    let fingerprints = meta["fingerprints"].as_object().expect("fingerprints");
    for kind in ["task file ", "corpus ", "index "] {
        assert!(fingerprints.keys().any(|k| k.starts_with(kind)), "{kind}fingerprints recorded: {fingerprints:?}");
    }
    assert!(meta["extra"]["benchmark_dir"].is_string(), "the demo records its task folder like a run");
}

/// Item 6: diagnostics carry no ANSI colour codes when stderr is not a terminal.
#[test]
fn logs_have_no_colour_codes_when_stderr_is_not_a_terminal() {
    let demo = Demo::get();
    let out = tempfile::tempdir().expect("tempdir");
    let output = out.path().join("eval.json");
    // The judge is not skipped and no key is set: the evaluator warns through tracing.
    let o = demo.run(&["eval", "runs/offline", "--output", utf8(&output)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("WARN") && err.contains("OPENAI_API_KEY"), "the warning is logged: {err}");
    assert!(!err.contains('\u{1b}'), "no escape codes in a piped stderr: {err:?}");
}

/// Item 7: one vocabulary of retriever names, the spec error lists `/in_force`, the
/// missing-index hint says it once, and plain `bm25` does not depend on the analyzer order.
#[test]
fn retriever_names_are_consistent_and_bm25_is_named_per_language() {
    let demo = Demo::get();
    for cmd in ["run", "search", "retrieve"] {
        let help = stdout(&demo.run(&[cmd, "--help"]));
        assert!(help.contains("bm25:zh_"), "{cmd} --help names analyzers as the README does:\n{help}");
        assert!(!help.contains("bm25:jieba") && !help.contains("bm25:bigram"), "{cmd} --help:\n{help}");
    }
    let index = demo.ws.join("indices");
    let o = demo.run(&["search", "--index-dir", utf8(&index), "--route", "legal_en_cases", "--retriever", "bm26", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/in_force"), "the spec error lists every form: {}", stderr(&o));

    let empty = tempfile::tempdir().expect("tempdir");
    let o = demo.run(&[
        "run",
        "--method",
        "offline",
        "--run-name",
        "item7",
        "--index-dir",
        utf8(empty.path()),
        "--limit",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).matches("anser index").count(), 1, "the hint once: {}", stderr(&o));

    // The same analyzers in both orders: `bm25` is zh_jieba on a Chinese route either way.
    let mut hits = Vec::new();
    for (name, order) in [("bigram-first", "zh_bigram,zh_jieba"), ("jieba-first", "zh_jieba,zh_bigram")] {
        let dir = empty.path().join(name);
        let o = demo.run(&[
            "index",
            "--index-dir",
            utf8(&dir),
            "--routes",
            "finance_zh_rules",
            "--analyzers",
            order,
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        for spec in ["bm25", "bm25:zh_jieba"] {
            let o = demo.run(&[
                "search",
                "--index-dir",
                utf8(&dir),
                "--route",
                "finance_zh_rules",
                "--retriever",
                spec,
                "--json",
                "上市公司信息披露违规的处罚",
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            let v: Value = serde_json::from_str(&stdout(&o)).expect("json hits");
            hits.push((format!("{name} {spec}"), v));
        }
    }
    let first = &hits[0].1;
    assert!(first.as_array().is_some_and(|a| !a.is_empty()) || first.is_object(), "some hits: {first}");
    for (label, v) in &hits[1..] {
        assert_eq!(v, first, "{label} ranks as bm25:zh_jieba does");
    }
}

/// Item 8: `anser mock-llm --script FILE` plays a recorded tool-calling session, and its help
/// says that without a script it tests plumbing only.
#[test]
fn mock_llm_script_plays_a_tool_calling_session() {
    let demo = Demo::get();
    let help = stdout(&demo.run(&["mock-llm", "--help"]));
    assert!(help.contains("--script") && help.contains("plumbing"), "{help}");

    let tasks: Value = serde_json::from_str(
        &std::fs::read_to_string(demo.ws.join("query/legal/en/prescriptive.json")).expect("task file"),
    )
    .expect("json");
    let id = tasks[0]["id"].as_str().expect("id").to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("session.json");
    let session = serde_json::json!({"rules": [{"match": "any", "replies": [
        {"tool_calls": [{"name": "schema", "arguments": {}}]},
        {"tool_calls": [{"name": "answer", "arguments": {"answer": "Scripted answer from the recorded session.", "evidence": []}}]}
    ]}]});
    std::fs::write(&script, session.to_string()).expect("write");

    let (mut child, first, url) = spawn_mock_llm(&["--port", "0", "--delay-ms", "0", "--script", utf8(&script)]);
    let o = url.as_ref().map(|url| {
        demo.run(&[
            "run",
            "--method",
            "agent",
            "--run-name",
            "item8",
            "--ids",
            &id,
            "--base-url",
            url,
            "--model",
            "mock-llm",
            "--no-evaluate",
            "--quiet",
        ])
    });
    let _ = child.kill();
    let _ = child.wait();
    let o = o.unwrap_or_else(|| panic!("no URL in {first:?}"));
    assert!(o.status.success(), "{}", stderr(&o));
    let run = demo.ws.join("runs/item8");
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("results.json")).expect("results")).expect("json");
    assert_eq!(results[0]["answer"], "Scripted answer from the recorded session.", "{results}");
    let trace = std::fs::read_to_string(run.join("trace.jsonl")).expect("trace");
    let tools: Vec<String> = trace
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "tool_call")
        .filter_map(|e| e["detail"]["tool"].as_str().map(str::to_string))
        .collect();
    assert_eq!(tools, ["schema", "answer"], "the scripted tool calls ran");
}

/// Item 9: `.ci/run` finds the binary through cargo (so CARGO_TARGET_DIR works) and exports
/// only variables something reads.
#[test]
fn ci_script_respects_the_target_dir_and_exports_only_what_is_read() {
    let ci = std::fs::read_to_string(Path::new(REPO).join(".ci/run")).expect(".ci/run");
    assert!(!ci.contains("target/debug"), ".ci/run must not hard-code ./target/debug");
    let mut sources = String::new();
    collect_sources(Path::new(REPO), &mut sources);
    for line in ci.lines().map(str::trim).filter(|l| l.starts_with("export ")) {
        let name = line["export ".len()..].split('=').next().unwrap_or_default().trim();
        if name.starts_with("CARGO_") {
            continue; // read by cargo itself
        }
        assert!(sources.contains(name), ".ci/run exports {name}, which no source file reads");
    }
}

/// The text of the repository's source files (Rust, shell, Python), without target/ and
/// hidden folders.
fn collect_sources(dir: &Path, out: &mut String) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            collect_sources(&path, out);
        } else if ["rs", "sh", "py"].iter().any(|e| path.extension().is_some_and(|x| x == *e)) {
            out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
}
