//! Integration tests of anser-samples: the generated corpus passes the manifest's schema check,
//! the task folder loads with every group and type, files are byte-identical for a seed,
//! ground truth is recomputed with hand-written SQL for a few tasks per group, and the output
//! folder rules (reuse, refusal) hold.

mod common;
mod corpus;
mod determinism;
mod finance_checks;
mod legal_checks;
mod medium;
mod oracle;
mod other_checks;
mod output_dir;
mod release;
mod tasks;
