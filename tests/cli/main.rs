//! End-to-end tests of the `anser` binary (one test binary; one module per command family).

mod agent;
mod boundary;
mod common;
mod corpus;
mod dense_resume;
mod eval;
mod leak;
mod mcp;
mod methods;
mod newcomer;
mod omb;
mod reports;
mod run;
mod sample;
mod tasks;
