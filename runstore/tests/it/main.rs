//! Integration tests of anser-runstore: run directories, atomic writes, the journal (including a
//! real `kill -9` of a writer process) and fingerprint comparison.

mod atomic;
mod fingerprint;
mod journal;
mod run_dir;
mod shared_journal;
