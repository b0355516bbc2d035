//! `anser index`: build the per-route retrieval indexes (units, BM25 per analyzer, optional
//! embeddings + HNSW) under an index folder, with fingerprints that later commands check.

use std::{io::Write, path::PathBuf, process::ExitCode};

use anser_indexer::{
    Analyzer, ApiEmbedder, Bm25Params, BuildOptions, Chunking, DenseParams, Embedder, HnswParams, Idf, OnnxEmbedder,
    build_route, corpus_file,
};
use anser_manifest::Route;
use clap::{Args, ValueEnum};

use super::{CliError, CliResult};

/// Map an indexer error to an exit code.
pub(crate) fn index_err(e: anser_indexer::Error) -> CliError {
    if e.is_user_error() { CliError::user(e) } else { CliError::internal(e) }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// Local ONNX encoder directory given by --embedding-model.
    Onnx,
    /// OpenAI-compatible /embeddings API (EMBEDDING_BASE_URL, EMBEDDING_API_KEY, EMBEDDING_MODEL, EMBEDDING_DIM).
    Api,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum IdfArg {
    Lucene,
    Fts5,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Corpus root (holding finance/, legal/, science/ as in the release).
    #[arg(long, default_value = "corpus")]
    pub(super) corpus_root: PathBuf,
    /// Folder for the indexes (one sub-folder per route).
    #[arg(long, default_value = "indices")]
    pub(super) index_dir: PathBuf,
    /// Routes to index (comma-separated); default: every route whose corpus file exists.
    #[arg(long)]
    routes: Option<String>,
    /// Replace existing indexes (also when they are up to date or were built differently).
    #[arg(long)]
    rebuild: bool,
    /// Check corpus files against the index fingerprints by full SHA-256 (default: size, and
    /// sampled blocks when the modification time is unchanged).
    #[arg(long)]
    verify: bool,
    /// ONNX encoder directory (model.onnx + tokenizer.json) for dense vectors.
    #[arg(long, conflicts_with = "embedding_backend")]
    embedding_model: Option<PathBuf>,
    /// Embedding backend: `api` uses the EMBEDDING_* settings; `onnx` needs --embedding-model.
    #[arg(long, value_enum)]
    embedding_backend: Option<Backend>,
    /// BM25 analyzers (comma-separated: zh_bigram, zh_jieba, en, en_stem); default: zh_jieba,zh_bigram
    /// for Chinese routes, en_stem otherwise. `--retriever bm25` means zh_jieba on Chinese routes
    /// (zh_bigram if only that is built) and en_stem on English ones (en if only that), whatever
    /// the order given here.
    #[arg(long, value_delimiter = ',')]
    analyzers: Vec<Analyzer>,
    /// Unit window length in characters.
    #[arg(long, default_value_t = anser_indexer::DEFAULT_CHUNK_SIZE)]
    chunk_size: usize,
    /// Overlap of consecutive windows in characters.
    #[arg(long, default_value_t = anser_indexer::DEFAULT_CHUNK_OVERLAP)]
    chunk_overlap: usize,
    /// BM25 k1 recorded as the index default (searches may override it).
    #[arg(long, default_value_t = anser_indexer::DEFAULT_K1)]
    k1: f64,
    /// BM25 b recorded as the index default (searches may override it).
    #[arg(long, default_value_t = anser_indexer::DEFAULT_B)]
    b: f64,
    /// BM25 idf: lucene (always positive) or fts5 (SQLite FTS5's, as the official baseline).
    #[arg(long, value_enum, default_value = "lucene")]
    idf: IdfArg,
    /// HNSW links per node.
    #[arg(long, default_value_t = anser_indexer::vectors::DEFAULT_HNSW_M)]
    hnsw_m: usize,
    /// HNSW build candidate list size.
    #[arg(long, default_value_t = anser_indexer::vectors::DEFAULT_EF_CONSTRUCTION)]
    ef_construction: usize,
    /// HNSW search candidate list size.
    #[arg(long, default_value_t = anser_indexer::vectors::DEFAULT_EF_SEARCH)]
    ef_search: usize,
    /// Units per embedding call: one API request, one ONNX call, one checkpointed batch (a killed
    /// build resumes after its last finished batch).
    #[arg(long, default_value_t = anser_indexer::DEFAULT_EMBED_BATCH)]
    embedding_batch: usize,
    /// Embedding API requests in flight at once (the local ONNX encoder runs one batch at a time
    /// on --threads threads).
    #[arg(long, default_value_t = anser_indexer::DEFAULT_EMBEDDING_CONCURRENCY)]
    embedding_concurrency: usize,
    /// Threads for indexing and the ONNX encoder.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// ONNX Runtime sessions running encoder batches side by side, sharing --threads (more
    /// memory: one model copy each).
    #[arg(long, default_value_t = anser_indexer::DEFAULT_ONNX_SESSIONS)]
    onnx_sessions: usize,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    /// Print the build reports as JSON.
    #[arg(long)]
    json: bool,
}

fn embedder(args: &IndexArgs) -> Result<Option<Box<dyn Embedder>>, CliError> {
    Ok(match (&args.embedding_model, args.embedding_backend) {
        (Some(dir), None | Some(Backend::Onnx)) => {
            let config = anser_indexer::EncoderConfigBuilder {
                threads: args.threads,
                sessions: args.onnx_sessions,
                ..anser_indexer::EncoderConfigBuilder::default()
            }
            .build()
            .map_err(|e| CliError::user(format!("--threads/--onnx-sessions: {e}")))?;
            Some(Box::new(OnnxEmbedder::with_config(dir, &config).map_err(index_err)?))
        }
        (None, Some(Backend::Onnx)) => {
            return Err(CliError::user(
                "--embedding-backend onnx needs --embedding-model DIR (an ONNX encoder directory)",
            ));
        }
        (_, Some(Backend::Api)) => Some(Box::new(ApiEmbedder::from_env().map_err(index_err)?)),
        (None, None) => None,
    })
}

pub fn run(args: IndexArgs) -> CliResult {
    anser_indexer::fingerprint::set_full_verification(args.verify);
    if !args.corpus_root.is_dir() {
        return Err(CliError::user(format!("{}: corpus root is not a directory", args.corpus_root.display())));
    }
    let routes: Vec<Route> = match &args.routes {
        Some(list) => Route::parse_list(list).map_err(CliError::user)?,
        None => Route::ALL.into_iter().filter(|r| corpus_file(&args.corpus_root, *r).is_file()).collect(),
    };
    if routes.is_empty() {
        return Err(CliError::user(format!(
            "{}: no corpus file of any route found (expected e.g. finance/zh/regulatory_rules.jsonl)",
            args.corpus_root.display()
        )));
    }
    let idf = match args.idf {
        IdfArg::Lucene => Idf::Lucene,
        IdfArg::Fts5 => Idf::Fts5,
    };
    let opts = BuildOptions {
        chunking: Chunking::new(args.chunk_size, args.chunk_overlap).map_err(index_err)?,
        analyzers: args.analyzers.clone(),
        bm25: Bm25Params::new(args.k1, args.b, idf).map_err(index_err)?,
        hnsw: HnswParams::new(args.hnsw_m, args.ef_construction, args.ef_search).map_err(index_err)?,
        dense: DenseParams::new(args.embedding_batch, args.embedding_concurrency).map_err(index_err)?,
        threads: args.threads.max(1),
        rebuild: args.rebuild,
        quiet: args.quiet,
        ..BuildOptions::default()
    };
    let embedder = embedder(&args)?;
    let mut reports = Vec::new();
    let mut out = std::io::stdout().lock();
    for route in routes {
        let report =
            build_route(&args.index_dir, &args.corpus_root, route, &opts, embedder.as_deref()).map_err(index_err)?;
        if !args.json {
            let resumed = match report.dense.resumed_batches {
                0 => String::new(),
                n => format!(" ({n} embedding batches resumed from the checkpoint)"),
            };
            writeln!(
                out,
                "{route}: {} — {} records, {} units, {} excluded, {:.1} s{resumed} → {}",
                report.action,
                report.records,
                report.units,
                report.excluded,
                report.seconds,
                report.dir.display()
            )
            .map_err(CliError::internal)?;
        }
        reports.push(report);
    }
    if args.json {
        let s = serde_json::to_string_pretty(&reports).map_err(CliError::internal)?;
        writeln!(out, "{s}").map_err(CliError::internal)?;
    }
    Ok(ExitCode::SUCCESS)
}
