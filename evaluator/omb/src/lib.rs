//! anser-omb: the $OneMillion-Bench rubric-judging path, exactly as EvalScope 1.14.1 runs it.
//!
//! - [`Dataset`] / [`Record`] / [`Rubric`]: records with EvalScope's field semantics; invalid
//!   records are reported with a reason and skipped ([`InvalidRecord`]).
//! - [`Subset`] / [`Category`]: the ten language × domain subsets, CN / Global.
//! - [`prompt`]: the judge prompt (data file `prompts/omb_judge_prompt.txt`), byte-identical to
//!   EvalScope's.
//! - [`verdict`]: reading replies — [`parse_strict`] (EvalScope's contract) and
//!   [`parse_official`] (the humanlaya harness's leniencies), selected by [`Mode`].
//! - [`score`]: per-sample reduction; [`aggregate()`]: subsets, categories, overall with
//!   EvalScope's rounding order.
//! - [`judge_all`]: the judging loop (cache, concurrency, repeats, several judges);
//!   [`generate()`]: crash-safe one-turn generation; [`Report`] and [`write_outputs`]: files.
//! - [`ChatBackend`]: what the loops call; [`EvalscopeBackend`] ([`transport`]) is EvalScope's
//!   transport (two-level retry schedule, choices by index, think blocks, client errors that
//!   are answers), [`LlmBackend`] the generic `anser-llm` client used by `--mode official`.
//! - [`loader`]: EvalScope's dataset loader's file-wide rewriting of mixed-type fields.
//! - [`value`]: Economic Value from a value table and the time-sensitivity breakdown.

pub mod aggregate;
mod backend;
mod cache;
mod error;
pub mod generate;
pub mod judge;
pub mod loader;
pub mod prompt;
pub mod pycompat;
mod record;
pub mod report;
mod responses;
pub mod score;
mod subset;
pub mod transport;
pub mod value;
pub mod verdict;

pub use aggregate::{Aggregate, Level, Levels, SampleValues, aggregate};
pub use backend::{
    ChatBackend, ChatCall, ChatReply, DEFAULT_RETRIES, DEFAULT_RETRY_DELAY, DEFAULT_TIMEOUT, Delivery, LlmBackend,
    Role, TokenUsage, Transport,
};
pub use cache::{CACHE_FILE, CacheEntry, JudgeCache, cache_key};
pub use error::{Error, Result};
pub use generate::{GenerateSettings, GenerateSummary, Generation, generate, generation_call, load_generations};
pub use judge::{
    JudgeRun, JudgeSettings, JudgeSettingsBuilder, JudgeUsage, Observation, SampleResult, SampleStatus, judge_all,
};
pub use record::{Dataset, InvalidRecord, Loading, Record, Rubric, parse_record};
pub use report::{Report, write_outputs, write_table};
pub use responses::load_responses;
pub use score::{PASS_THRESHOLD, SampleScore, score_evalscope, score_official};
pub use subset::{Category, Subset};
pub use transport::{EvalscopeBackend, RecordingSleeper, RetrySchedule, RetryScheduleBuilder, Sleeper, ThreadSleeper};
pub use value::{EconomicValue, TimeBreakdown, ValueTable};
pub use verdict::{
    ContractError, HIT_STATUSES, Judgment, MISS_STATUSES, Mode, OfficialParse, parse_official, parse_strict,
};
