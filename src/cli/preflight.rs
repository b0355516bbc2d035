//! Checks made before the first task is answered, so a run with a retriever the indexes cannot
//! serve stops at once with every problem listed, instead of finishing with every task's
//! retrieval failed.

use std::path::Path;

use anser_indexer::Analyzer;
use anser_manifest::Route;
use anser_retriever::{Engine, RetrieverSpec};

use super::CliError;

/// What one part of a spec needs from a route's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Bm25(Option<Analyzer>),
    Dense,
}

fn needs(spec: &RetrieverSpec, out: &mut Vec<Need>) {
    match spec {
        RetrieverSpec::None => {}
        RetrieverSpec::Bm25 { analyzer, .. } => out.push(Need::Bm25(*analyzer)),
        RetrieverSpec::Dense { .. } => out.push(Need::Dense),
        RetrieverSpec::Hybrid { parts, .. } => parts.iter().for_each(|p| needs(p, out)),
        RetrieverSpec::InForce(inner) => needs(inner, out),
    }
}

/// Every selected route is indexed, and its index holds what `spec` needs there (the BM25
/// analyzer, the vectors and their query embedder). All problems are reported in one error.
pub fn check_retriever(
    engine: &Engine,
    spec: &RetrieverSpec,
    routes: &[Route],
    index_dir: &Path,
    corpus_root: &Path,
) -> Result<(), CliError> {
    let mut wanted = Vec::new();
    needs(spec, &mut wanted);
    if wanted.is_empty() {
        return Ok(());
    }
    let mut unbuilt = Vec::new();
    let mut problems = Vec::new();
    let mut rebuild = Vec::new();
    for &route in routes {
        if !anser_indexer::route_dir(index_dir, route).join("fingerprint.json").is_file() {
            unbuilt.push(route.to_string());
            continue;
        }
        let index = match engine.route(route) {
            Ok(index) => index,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        let built: Vec<Analyzer> = index.fingerprint.bm25.iter().map(|p| p.analyzer).collect();
        let before = problems.len();
        for need in &wanted {
            match *need {
                Need::Bm25(analyzer) => {
                    let analyzer = analyzer.unwrap_or_else(|| RetrieverSpec::default_analyzer(route, &built));
                    if !built.contains(&analyzer) {
                        let names: Vec<&str> = built.iter().map(|a| a.as_str()).collect();
                        problems.push(format!(
                            "{route}: no BM25 index for analyzer {analyzer} (built: {})",
                            if names.is_empty() { "none".to_string() } else { names.join(", ") }
                        ));
                    }
                }
                Need::Dense => {
                    if index.dense().is_err() {
                        problems.push(format!(
                            "{route}: no dense vectors (index with --embedding-model DIR or --embedding-backend api)"
                        ));
                    } else if let Err(e) = engine.embedder(&index) {
                        problems.push(format!("{route}: {e}"));
                    }
                }
            }
        }
        if problems.len() > before {
            rebuild.push(route.to_string());
        }
    }
    let mut message = Vec::new();
    if !unbuilt.is_empty() {
        message.push(format!(
            "no index under {} for {}; build it with: anser index --corpus-root {} --index-dir {} --routes {}",
            index_dir.display(),
            unbuilt.join(", "),
            corpus_root.display(),
            index_dir.display(),
            unbuilt.join(",")
        ));
    }
    if !problems.is_empty() {
        message.push(format!(
            "retriever `{spec}` cannot run on the selected tasks: {}; choose a retriever these indexes hold \
             or rebuild them (anser index --routes {} --analyzers ... --rebuild)",
            problems.join("; "),
            rebuild.join(",")
        ));
    }
    if message.is_empty() { Ok(()) } else { Err(CliError::user(message.join("; "))) }
}
