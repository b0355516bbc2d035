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
///
/// mimalloc asks the kernel for transparent huge pages on its arenas. That makes the first
/// builds of a process slower (the first touch of a 2 MiB page zeroes all of it:
/// finance_en_capital_rules 39–62 ms for the first build against 16–20 ms without them, 10 ms once
/// warm) but the largest route's queries faster with cold caches (science_articles p50 / p95
/// 5.37 / 8.48 ms against 7.42 / 10.33 ms without them), so they stay on.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::main()
}
