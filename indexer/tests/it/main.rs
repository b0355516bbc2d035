//! Integration tests of anser-indexer: fixture corpora built in temporary folders (JSONL and
//! SQLite databases created from the manifest's schema), BM25 against SQLite FTS5, HNSW against
//! exact search, embeddings (local ONNX when available, the mock API always), fingerprints.

mod bm25_fts5;
mod bm25_pruning;
mod build;
mod dense;
mod dense_resume;
mod fixtures;
mod hnsw_recall;
mod law_corpus;
mod recording;
mod small_build;
