//! `anser`: one binary, one subcommand per job. See `anser --help` and ARCHITECTURE.md.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
