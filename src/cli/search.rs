//! `anser search`: ranked hits of one query on one route's index.

use std::{io::Write, path::PathBuf, process::ExitCode, sync::Arc};

use anser_manifest::Route;
use anser_retriever::{Engine, Retriever, RetrieverSpec, SpecRetriever};
use clap::Args;

use super::{CliError, CliResult};

/// Map a retriever error to an exit code.
pub(crate) fn retrieval_err(e: anser_retriever::Error) -> CliError {
    if e.is_user_error() { CliError::user(e) } else { CliError::internal(e) }
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Folder of indexes built by `anser index`.
    #[arg(long)]
    index_dir: PathBuf,
    /// Route to search (e.g. finance_zh_rules).
    #[arg(long)]
    route: Route,
    /// Retriever spec: bm25, bm25:zh_jieba, bm25:zh_bigram(k1=0.9,b=0.4), dense, hybrid:bm25+dense@rrf60, any + /in_force, ...
    #[arg(long, default_value = "bm25")]
    retriever: String,
    /// Number of hits.
    #[arg(short, default_value_t = 10)]
    k: usize,
    /// Corpus root to check the index against (default: where the corpus was at build time).
    #[arg(long)]
    corpus_root: Option<PathBuf>,
    /// Print hits as JSON (rank, score, retrieval_id, record_id, text, evidence).
    #[arg(long)]
    json: bool,
    /// Check corpus files against the index fingerprints by full SHA-256 (default: size, and
    /// sampled blocks when the modification time is unchanged).
    #[arg(long)]
    verify: bool,
    /// The query.
    query: String,
}

fn snippet(text: &str, chars: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s: String = flat.chars().take(chars).collect();
    if flat.chars().count() > chars {
        s.push('…');
    }
    s
}

pub fn run(args: SearchArgs) -> CliResult {
    anser_indexer::fingerprint::set_full_verification(args.verify);
    let spec: RetrieverSpec = args.retriever.parse().map_err(retrieval_err)?;
    let engine = Arc::new(Engine::new(&args.index_dir, args.corpus_root.as_deref()));
    let retriever = SpecRetriever::new(engine, spec);
    let hits = retriever.search(args.route, &args.query, args.k).map_err(retrieval_err)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let s = serde_json::to_string_pretty(&hits).map_err(CliError::internal)?;
        writeln!(out, "{s}").map_err(CliError::internal)?;
    } else {
        for h in &hits {
            let evidence: Vec<String> = h.evidence.values().map(|v| v.to_string()).collect();
            writeln!(out, "{:>3}  {:>9.4}  {}  {}", h.rank, h.score, h.retrieval_id, evidence.join(" "))
                .map_err(CliError::internal)?;
            writeln!(out, "     {}", snippet(&h.text, 100)).map_err(CliError::internal)?;
        }
        if hits.is_empty() {
            writeln!(out, "no hits").map_err(CliError::internal)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
