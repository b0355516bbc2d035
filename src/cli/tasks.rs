//! `anser tasks`: counts per task group and type for a selection (the official `--list`).

use std::{io::Write, path::PathBuf, process::ExitCode};

use anser_manifest::{TaskCounts, TaskSet};
use clap::Args;

use super::{CliError, CliResult, SelectionArgs};

#[derive(Debug, Args)]
pub struct TasksArgs {
    /// ANSER task folder (query/; a release checkout or the older benchmark/ layout also work).
    #[arg(long, default_value = "query")]
    pub(super) benchmark_dir: PathBuf,
    #[command(flatten)]
    selection: SelectionArgs,
    /// Print JSON: {"total": N, "groups": {GROUP: {"count": N, "types": {TYPE: N}}}}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: TasksArgs) -> CliResult {
    let selection = args.selection.selection()?;
    let bench = TaskSet::load(&args.benchmark_dir)?;
    let tasks = selection.apply(bench.tasks())?;
    let counts = TaskCounts::of(&tasks);
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        serde_json::to_string_pretty(&counts)
            .map_err(CliError::internal)
            .and_then(|s| writeln!(out, "{s}").map_err(CliError::internal))
    } else {
        write_table(&mut out, &counts).map_err(CliError::internal)
    };
    written?;
    Ok(ExitCode::SUCCESS)
}

fn write_table(out: &mut impl Write, counts: &TaskCounts) -> std::io::Result<()> {
    writeln!(out, "{:<26} {:>6}  types", "group", "tasks")?;
    for (group, g) in &counts.groups {
        let types: Vec<String> = g.types.iter().map(|(t, n)| format!("{t}: {n}")).collect();
        writeln!(out, "{group:<26} {:>6}  {}", g.count, types.join(", "))?;
    }
    writeln!(out, "{:<26} {:>6}", "total", counts.total)
}
