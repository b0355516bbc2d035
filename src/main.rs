//! `anser`: one binary, one subcommand per job. See `anser --help` and ARCHITECTURE.md.

mod cli;

use std::process::ExitCode;

/// mimalloc instead of the system allocator. A search or a small index build makes thousands of
/// short-lived allocations (query terms, postings cursors, tantivy's documents and arenas), and
/// glibc's malloc spent a third of a small route's query in them, mostly merging its free lists
/// (`malloc_consolidate`) on the first larger request after many small frees. With mimalloc the
/// finance_zh_rules query p95 fell by a fifth and its build by a fifth (README, "Indexing and
/// retrieval"). The benchmarks declare the same allocator, so they time what this binary runs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::main()
}
