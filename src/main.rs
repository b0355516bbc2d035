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
/// mimalloc asks the kernel for transparent huge pages on its arenas; the first touch of each
/// zeroes 2 MiB. Measured both ways (README, "Indexing and retrieval", sessions 12 and 13): in a
/// loop binary the first builds of a process were slower with them (finance_en_capital_rules
/// 39–62 ms against 16–20 ms, 10 ms once warm), and one run of cold science_articles queries was
/// faster with them (p50 / p95 5.37 / 8.48 ms against 7.42 / 10.33 ms); later, three alternated
/// bench runs showed no difference in those queries (p95 4.73–8.79 ms with them, 5.74–7.74 ms
/// without), and a whole fresh `anser index` process of a small route was as fast or slightly
/// faster with them (finance_en_audit 45–70 ms against 53–64 ms). So they stay on.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::main()
}
