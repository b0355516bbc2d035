//! `anser corpus check`: verify a corpus root against the manifest's expected schemas.

use std::{io::Write, path::PathBuf, process::ExitCode, time::Duration};

use anser_manifest::{CheckOptions, CorpusReport, DEFAULT_INTEGRITY_TIMEOUT, Route, RouteStatus, check_corpus_with};
use clap::{Args, Subcommand};

use super::{CliError, CliResult};

#[derive(Debug, Subcommand)]
pub enum CorpusCommand {
    /// Check files, tables, columns, JSONL fields and row counts of every route.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Corpus root (the release's corpus/ folder or a generated sample's).
    #[arg(long, env = "ANSER_CORPUS_ROOT", default_value = "corpus")]
    pub(super) corpus_root: PathBuf,
    /// Only these routes (comma-separated route names).
    #[arg(long, value_delimiter = ',', value_parser = parse_route)]
    routes: Vec<Route>,
    /// Print the full report as JSON.
    #[arg(long)]
    json: bool,
    /// Time bound, in seconds, of the integrity check (`PRAGMA quick_check`) of each SQLite file;
    /// 0 skips it. A check that does not finish in time is reported as not verified.
    #[arg(long, default_value_t = DEFAULT_INTEGRITY_TIMEOUT.as_secs_f64())]
    integrity_timeout: f64,
}

fn parse_route(s: &str) -> Result<Route, String> {
    s.trim().parse()
}

pub fn run(cmd: CorpusCommand) -> CliResult {
    let CorpusCommand::Check(args) = cmd;
    let integrity_timeout =
        if args.integrity_timeout == 0.0 {
            None
        } else {
            Some(Duration::try_from_secs_f64(args.integrity_timeout).map_err(|_| {
                CliError::user("--integrity-timeout must be a number of seconds ≥ 0 (0 skips the check)")
            })?)
        };
    let options = CheckOptions { integrity_timeout };
    let report = check_corpus_with(&args.corpus_root, &args.routes, &options)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let s = serde_json::to_string_pretty(&report).map_err(CliError::internal)?;
        writeln!(out, "{s}").map_err(CliError::internal)?;
    } else {
        write_report(&mut out, &report).map_err(CliError::internal)?;
    }
    Ok(if report.ok() { ExitCode::SUCCESS } else { ExitCode::from(2) })
}

fn write_report(out: &mut impl Write, report: &CorpusReport) -> std::io::Result<()> {
    writeln!(out, "corpus root: {}", report.corpus_root.display())?;
    for r in &report.routes {
        let status = match r.status {
            RouteStatus::Ok => "ok",
            RouteStatus::Missing => "missing",
            RouteStatus::Mismatch => "MISMATCH",
            RouteStatus::Unreadable => "UNREADABLE",
        };
        let mut detail = Vec::new();
        for t in &r.tables {
            detail.push(format!("{} {} rows", t.name, t.rows));
        }
        if let Some(n) = r.records {
            detail.push(format!("{n} records"));
        }
        if let Some(n) = r.excluded_ground_truth_rows {
            detail.push(format!("{n} ground-truth rows excluded from retrieval"));
        }
        if let Some(integrity) = &r.integrity {
            detail.push(format!("integrity {integrity}"));
        }
        writeln!(out, "{:<26} {:<10} {}  {}", r.route.as_str(), status, r.file, detail.join(", "))?;
        for p in &r.problems {
            writeln!(out, "    - {p}")?;
        }
    }
    if report.ok() {
        writeln!(out, "all present routes match the manifest")
    } else if report.routes.iter().all(|r| r.status == RouteStatus::Missing) {
        writeln!(out, "no route is present under this corpus root; check --corpus-root")
    } else {
        writeln!(out, "some routes do not match the manifest (see above)")
    }
}
