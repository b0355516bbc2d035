//! Integration tests of anser-evaluator (one test binary).

mod common;
mod golden;
