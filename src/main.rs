//! `anser`: one binary, one subcommand per job. See `anser --help` and ARCHITECTURE.md.

mod cli;

use std::process::ExitCode;

/// mimalloc instead of the system allocator. A search or a small index build makes thousands of
/// short-lived allocations (query terms, postings cursors, tantivy's documents and arenas), and
/// glibc's malloc and free took about a quarter of a small route's query, much of it merging
/// its free lists (`malloc_consolidate`) on a larger request after many small frees. With
/// mimalloc the finance_zh_rules query p95 and build time fell by about a fifth (README,
/// "Indexing and retrieval"). The benchmarks declare the same allocator, so they time what this
/// binary runs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::main()
}
