//! `anser mock-llm`: runs the loopback OpenAI-compatible mock server of `anser-llm` by hand,
//! so a run, the judge or the embeddings backend can be tried without a real model. Without
//! `--script` it answers in prose and calls no tools, so it tests plumbing only (an agent run
//! scores 0); `--script FILE` plays a recorded tool-calling session ([`super::mock_script`]).

use std::{path::PathBuf, process::ExitCode, time::Duration};

use anser_llm::mock::{FaultInjection, MockConfig, MockServer};
use clap::Args;

use super::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct MockLlmArgs {
    /// Port on 127.0.0.1 (0 = a free port, printed at start).
    #[arg(long)]
    port: u16,
    /// Delay before every answer, in milliseconds.
    #[arg(long, default_value_t = anser_llm::mock::DEFAULT_MOCK_DELAY.as_millis() as u64)]
    delay_ms: u64,
    /// Share of requests answered with a random transient fault (500, 503, 429, cut-off or
    /// non-JSON body), in [0, 1].
    #[arg(long, default_value_t = 0.0)]
    fault_rate: f64,
    /// Seed of the fault generator.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Length of embeddings when a request does not ask for `dimensions`.
    #[arg(long, default_value_t = anser_llm::mock::DEFAULT_MOCK_EMBEDDING_DIM)]
    embedding_dim: usize,
    /// Leave `usage` out of responses (clients then estimate tokens).
    #[arg(long)]
    no_usage: bool,
    /// Play this recorded tool-calling session (JSON rules: match → replies, see the README).
    /// Without it the mock answers in prose with no tool calls: it tests plumbing only.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Answer rubric-judging requests (`**Rubric N**` lines, as in `anser omb judge` and
    /// EvalScope's 1M-Bench prompt) with a valid verdict for every rubric, hit or miss drawn
    /// from this seed and the prompt; other requests keep the prose answer.
    #[arg(long, value_name = "SEED")]
    rubric_verdicts: Option<u64>,
}

pub fn run(args: MockLlmArgs) -> CliResult {
    let rules = args.script.as_deref().map(super::mock_script::load).transpose()?.unwrap_or_default();
    let llm_error = |e: anser_llm::Error| if e.is_user_error() { CliError::user(e) } else { CliError::internal(e) };
    // A server that runs for hours keeps counters, not a record of every request.
    let config = MockConfig::server()
        .with_delay(Duration::from_millis(args.delay_ms))
        .with_embedding_dim(args.embedding_dim)
        .and_then(|c| {
            c.with_faults((args.fault_rate > 0.0).then(|| FaultInjection::transient(args.fault_rate, args.seed)))
        })
        .map_err(llm_error)?
        .with_report_usage(!args.no_usage);
    let server = MockServer::start_on(args.port, config).map_err(llm_error)?;
    server.set_rubric_verdicts(args.rubric_verdicts);
    let scripted = rules.len();
    for rule in rules {
        server.add_rule(rule);
    }
    println!("mock LLM listening on {} (Ctrl-C to stop)", server.base_url());
    if scripted == 0 {
        println!("  no --script: chat answers are prose without tool calls (plumbing only; agent tasks score 0)");
    } else {
        println!("  playing {scripted} scripted rule(s)");
    }
    if let Some(seed) = args.rubric_verdicts {
        println!("  rubric-judging requests get a valid verdict per rubric (seed {seed})");
    }
    println!("  GENERATION_BASE_URL={} GENERATION_MODEL={}", server.base_url(), anser_llm::mock::DEFAULT_MOCK_MODEL);
    server.wait_for_ctrl_c().map_err(CliError::internal)?;
    println!("served {} request(s), {} with an injected fault", server.served(), server.faults_injected());
    Ok(ExitCode::SUCCESS)
}
