//! Integration tests of anser-evaluator (one test binary).

mod bertscore;
mod card;
mod common;
mod edge_cases;
mod floats;
mod golden;
mod inputs;
mod judge;
mod unit_vectors;
