//! `anser corpus check`: does a corpus root hold the files, tables, columns and JSONL fields the
//! manifest expects? Each route is reported as ok, missing, mismatched or unreadable; a corrupt
//! or non-SQLite file is a finding, never a panic.
//!
//! A schema that reads fine says little about the pages behind it (a truncated file or a zeroed
//! b-tree page still shows its tables), so every SQLite file also gets `PRAGMA quick_check`
//! (b-tree structure, page and record formats, without the slower index cross-check of
//! `integrity_check`), bounded in time by a watchdog that interrupts it.

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    sync::mpsc,
    time::Duration,
};

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use crate::{CorpusFormat, Error, Manifest, Result, Route, RouteSpec};

/// Outcome for one route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RouteStatus {
    Ok,
    Missing,
    /// Present but a table, column or field differs from the expectation.
    Mismatch,
    /// Present but unreadable (not SQLite, corrupt, not JSON lines).
    Unreadable,
}

/// Default time bound of `PRAGMA quick_check` per SQLite file (about 2 GB of release data; a check
/// that does not finish in time is reported as not verified, never as ok).
pub const DEFAULT_INTEGRITY_TIMEOUT: Duration = Duration::from_secs(120);

/// Most problems `quick_check` lists for one file.
const QUICK_CHECK_MAX_ERRORS: usize = 10;

/// Options of [`check_corpus_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOptions {
    /// Bound of `PRAGMA quick_check` per SQLite file; `None` skips the integrity check.
    pub integrity_timeout: Option<Duration>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions { integrity_timeout: Some(DEFAULT_INTEGRITY_TIMEOUT) }
    }
}

/// Observed column of a SQLite table.
#[derive(Debug, Clone, Serialize)]
pub struct ColumnReport {
    pub name: String,
    #[serde(rename = "type")]
    pub decl_type: String,
    pub not_null: bool,
    pub pk: u32,
}

/// Observed table.
#[derive(Debug, Clone, Serialize)]
pub struct TableReport {
    pub name: String,
    pub rows: u64,
    pub columns: Vec<ColumnReport>,
}

/// Report for one route.
#[derive(Debug, Clone, Serialize)]
pub struct RouteReport {
    pub route: Route,
    pub file: String,
    pub path: PathBuf,
    pub format: &'static str,
    pub status: RouteStatus,
    /// One line per finding, naming the table/column/line.
    pub problems: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<TableReport>,
    /// JSONL: number of records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<u64>,
    /// Finance report routes: rows with `split = 'ground_truth'` that indexing excludes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded_ground_truth_rows: Option<u64>,
    /// SQLite: the outcome of `PRAGMA quick_check` (`ok`, `corrupt`, `not verified: …`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
}

/// Report for a whole corpus root.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusReport {
    pub corpus_root: PathBuf,
    pub routes: Vec<RouteReport>,
}

impl CorpusReport {
    /// True when at least one route is present and every present route matches.
    pub fn ok(&self) -> bool {
        let present = self.routes.iter().filter(|r| r.status != RouteStatus::Missing);
        let mut any = false;
        for r in present {
            any = true;
            if r.status != RouteStatus::Ok {
                return false;
            }
        }
        any
    }
}

/// Check the given routes (all ten when empty) under `root` with the default options.
pub fn check_corpus(root: &Path, routes: &[Route]) -> Result<CorpusReport> {
    check_corpus_with(root, routes, &CheckOptions::default())
}

/// Check the given routes (all ten when empty) under `root`.
pub fn check_corpus_with(root: &Path, routes: &[Route], options: &CheckOptions) -> Result<CorpusReport> {
    if !root.is_dir() {
        return Err(Error::corpus(root, "corpus root is not a directory; pass --corpus-root DIR"));
    }
    let manifest = Manifest::get();
    let routes: Vec<Route> = if routes.is_empty() { Route::ALL.to_vec() } else { routes.to_vec() };
    let reports = routes.into_iter().map(|r| check_route(root, manifest.route(r), options)).collect();
    Ok(CorpusReport { corpus_root: root.to_path_buf(), routes: reports })
}

fn check_route(root: &Path, spec: &RouteSpec, options: &CheckOptions) -> RouteReport {
    let path = root.join(&spec.file);
    let mut report = RouteReport {
        route: spec.route,
        file: spec.file.clone(),
        path: path.clone(),
        format: match spec.format {
            CorpusFormat::Sqlite => "sqlite",
            CorpusFormat::Jsonl => "jsonl",
        },
        status: RouteStatus::Ok,
        problems: Vec::new(),
        tables: Vec::new(),
        records: None,
        excluded_ground_truth_rows: None,
        integrity: None,
    };
    if !path.is_file() {
        report.status = RouteStatus::Missing;
        return report;
    }
    let outcome = match spec.format {
        CorpusFormat::Sqlite => check_sqlite(&path, spec, options, &mut report),
        CorpusFormat::Jsonl => check_jsonl(&path, spec, &mut report),
    };
    if let Err(message) = outcome {
        report.status = RouteStatus::Unreadable;
        report.problems.push(message);
    } else if !report.problems.is_empty() {
        report.status = RouteStatus::Mismatch;
    }
    report
}

/// Open a corpus SQLite file read-only and make sure it really is one.
pub fn open_sqlite_readonly(path: &Path) -> std::result::Result<Connection, String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| format!("cannot open as SQLite: {e}"))?;
    // Opening is lazy; reading the schema is what detects a file that is not a database.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))
        .map_err(|e| format!("not a readable SQLite database ({e}); replace the file with the release's copy"))?;
    Ok(conn)
}

fn check_sqlite(
    path: &Path,
    spec: &RouteSpec,
    options: &CheckOptions,
    report: &mut RouteReport,
) -> std::result::Result<(), String> {
    let conn = open_sqlite_readonly(path)?;
    // Structure first: a corrupt file may still show a plausible schema.
    if let Some(timeout) = options.integrity_timeout {
        match quick_check(&conn, timeout) {
            Integrity::Ok => report.integrity = Some("ok".into()),
            Integrity::TimedOut => {
                report.integrity = Some(format!(
                    "not verified: quick_check did not finish within {} s (raise --integrity-timeout)",
                    timeout.as_secs_f64()
                ));
            }
            Integrity::Corrupt(findings) => {
                report.integrity = Some("corrupt".into());
                return Err(format!(
                    "the database is corrupt (PRAGMA quick_check: {}); replace the file with the release's copy",
                    findings.join("; ")
                ));
            }
        }
    }
    for table in &spec.schema.tables {
        let columns = table_columns(&conn, &table.name).map_err(|e| format!("table {}: {e}", table.name))?;
        if columns.is_empty() {
            report.problems.push(format!("table {} is missing", table.name));
            continue;
        }
        for want in &table.columns {
            match columns.iter().find(|c| c.name == want.name) {
                None => report
                    .problems
                    .push(format!("table {}: column {} ({}) is missing", table.name, want.name, want.decl_type)),
                Some(have) => {
                    if !have.decl_type.eq_ignore_ascii_case(&want.decl_type) {
                        report.problems.push(format!(
                            "table {}: column {} is declared {} (expected {})",
                            table.name, want.name, have.decl_type, want.decl_type
                        ));
                    }
                    if have.pk != want.pk {
                        report.problems.push(format!(
                            "table {}: column {} has primary-key position {} (expected {})",
                            table.name, want.name, have.pk, want.pk
                        ));
                    }
                }
            }
        }
        let rows: u64 = conn
            .query_row(&format!("SELECT count(*) FROM \"{}\"", table.name), [], |r| r.get::<_, i64>(0))
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|e| format!("table {}: cannot count rows: {e}", table.name))?;
        report.tables.push(TableReport { name: table.name.clone(), rows, columns });
    }
    if let Some(ex) = &spec.exclude
        && report.problems.is_empty()
    {
        let sql = format!("SELECT count(*) FROM \"{}\" WHERE NOT ({})", ex.table, ex.keep_when());
        let n: i64 = conn
            .query_row(&sql, [], |r| r.get(0))
            .map_err(|e| format!("table {}: cannot count excluded rows: {e}", ex.table))?;
        report.excluded_ground_truth_rows = Some(u64::try_from(n).unwrap_or(0));
    }
    Ok(())
}

/// What `PRAGMA quick_check` found.
#[derive(Debug)]
enum Integrity {
    Ok,
    Corrupt(Vec<String>),
    TimedOut,
}

/// `PRAGMA quick_check` on `conn`, interrupted by a watchdog thread after `timeout`.
fn quick_check(conn: &Connection, timeout: Duration) -> Integrity {
    let handle = conn.get_interrupt_handle();
    let (done, wait) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let timed_out = matches!(wait.recv_timeout(timeout), Err(mpsc::RecvTimeoutError::Timeout));
        if timed_out {
            handle.interrupt();
        }
        timed_out
    });
    let rows = conn
        .prepare(&format!("PRAGMA quick_check({QUICK_CHECK_MAX_ERRORS})"))
        .and_then(|mut stmt| stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<String>>>());
    drop(done);
    let timed_out = watchdog.join().unwrap_or(false);
    match rows {
        Ok(rows) if rows.len() == 1 && rows[0] == "ok" => Integrity::Ok,
        Ok(rows) => {
            // One finding per line, without SQLite's "*** in database main ***" banner.
            let findings: Vec<String> = rows
                .iter()
                .flat_map(|r| r.lines())
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with("***"))
                .take(QUICK_CHECK_MAX_ERRORS)
                .map(str::to_string)
                .collect();
            Integrity::Corrupt(if findings.is_empty() { vec!["no result".into()] } else { findings })
        }
        Err(_) if timed_out => Integrity::TimedOut,
        Err(e) => Integrity::Corrupt(vec![e.to_string()]),
    }
}

fn table_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<ColumnReport>> {
    let mut stmt = conn.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)")?;
    let rows = stmt.query_map([table], |r| {
        Ok(ColumnReport {
            name: r.get(0)?,
            decl_type: r.get(1)?,
            not_null: r.get::<_, i64>(2)? != 0,
            pk: u32::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
        })
    })?;
    rows.collect()
}

fn check_jsonl(path: &Path, spec: &RouteSpec, report: &mut RouteReport) -> std::result::Result<(), String> {
    let file = fs_err::File::open(path).map_err(|e| e.to_string())?;
    let mut records = 0u64;
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: cannot read ({e}); is this a text file?", n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                report.problems.push(format!("line {}: invalid JSON ({e}); first bad line", n + 1));
                break;
            }
        };
        let Some(obj) = value.as_object() else {
            report.problems.push(format!("line {}: expected a JSON object; first bad line", n + 1));
            break;
        };
        if let Some(missing) = spec.schema.fields.iter().find(|f| !obj.contains_key(f.as_str())) {
            report.problems.push(format!("line {}: field `{missing}` is missing; first bad line", n + 1));
            break;
        }
        records += 1;
    }
    if records == 0 && report.problems.is_empty() {
        report.problems.push("file has no records".into());
    }
    report.records = Some(records);
    Ok(())
}
