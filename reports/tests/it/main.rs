//! Integration tests of anser-reports (one test binary; one module per area).

mod compare;
mod fixture;
mod report;
mod stats;
mod trec;
