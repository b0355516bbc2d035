//! The judging loop: one judge request per (response, judge model, repeat) with all rubrics in
//! it, run on `concurrency` worker threads, every reply journaled in the [`JudgeCache`] before it
//! is used. Replies are read per [`Mode`]; per-sample values are combined over repeats and
//! judges ([`crate::score::combine`]); exclusions carry their reason and never become zeros.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use serde::{Deserialize, Serialize};

use crate::{
    Error, Result,
    aggregate::{SampleValues, aggregate},
    backend::{ChatBackend, ChatCall, Role, TokenUsage},
    cache::{CacheEntry, JudgeCache, cache_key},
    prompt::{JUDGE_MAX_TOKENS, JUDGE_TEMPERATURE, judge_prompt},
    record::{Dataset, Record},
    score::{Points, RubricScore, SampleScore, Spread, combine, score_evalscope, score_official, spread},
    subset::Subset,
    transport::completion_text,
    verdict::{Mode, parse_official, parse_strict},
};

/// Judge requests per response and judge (EvalScope's default).
pub const DEFAULT_REPEATS: u32 = 1;
/// Concurrent judge requests.
pub const DEFAULT_JUDGE_CONCURRENCY: usize = 4;
/// Official mode: extra requests when nothing in a reply parses (the harness's 8 retries).
pub const DEFAULT_OFFICIAL_REASKS: u32 = 8;
/// Official mode: wait before each re-ask (the harness's `retry_delay`).
pub const DEFAULT_REASK_DELAY: Duration = Duration::from_secs(10);

/// How to judge, valid by construction: built from a [`JudgeSettingsBuilder`] (or
/// [`JudgeSettings::new`] for one judge with the defaults); read through the getters.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSettings(JudgeSettingsBuilder);

/// The unchecked judge settings; [`JudgeSettingsBuilder::build`] checks them.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSettingsBuilder {
    /// Judge models, equally weighted; the first is the primary (its verdicts are the ones
    /// written per rubric). At least one, none empty, none twice (`--judge-model`).
    pub judges: Vec<String>,
    /// Requests per response and judge, ≥ 1 (`--repeats`).
    pub repeats: u32,
    pub mode: Mode,
    /// Concurrent judge requests, ≥ 1 (`--judge-concurrency`).
    pub concurrency: usize,
    /// Official mode: extra requests when nothing in a reply parses.
    pub official_reasks: u32,
    /// Official mode: wait before each re-ask.
    pub reask_delay: Duration,
}

impl JudgeSettingsBuilder {
    /// Defaults for one judge model.
    pub fn new(judge: impl Into<String>) -> Self {
        Self {
            judges: vec![judge.into()],
            repeats: DEFAULT_REPEATS,
            mode: Mode::default(),
            concurrency: DEFAULT_JUDGE_CONCURRENCY,
            official_reasks: DEFAULT_OFFICIAL_REASKS,
            reask_delay: DEFAULT_REASK_DELAY,
        }
    }

    /// The settings, when there is at least one judge, no judge twice, repeats ≥ 1 and
    /// concurrency ≥ 1 (the error names the flag).
    pub fn build(self) -> Result<JudgeSettings> {
        if self.judges.is_empty() || self.judges.iter().any(|j| j.trim().is_empty()) {
            return Err(Error::Setting("give at least one non-empty --judge-model".into()));
        }
        let unique: BTreeSet<&String> = self.judges.iter().collect();
        if unique.len() != self.judges.len() {
            return Err(Error::Setting("a judge model is listed twice; use --repeats to ask one judge again".into()));
        }
        if self.repeats == 0 {
            return Err(Error::Setting("--repeats must be at least 1".into()));
        }
        if self.concurrency == 0 {
            return Err(Error::Setting("--judge-concurrency must be at least 1".into()));
        }
        Ok(JudgeSettings(self))
    }
}

impl JudgeSettings {
    /// The defaults for one judge model (an empty name is refused).
    pub fn new(judge: impl Into<String>) -> Result<Self> {
        JudgeSettingsBuilder::new(judge).build()
    }

    /// Judge models; the first is the primary.
    pub fn judges(&self) -> &[String] {
        &self.0.judges
    }

    /// Requests per response and judge.
    pub fn repeats(&self) -> u32 {
        self.0.repeats
    }

    pub fn mode(&self) -> Mode {
        self.0.mode
    }

    /// Concurrent judge requests.
    pub fn concurrency(&self) -> usize {
        self.0.concurrency
    }

    /// Official mode: extra requests when nothing in a reply parses.
    pub fn official_reasks(&self) -> u32 {
        self.0.official_reasks
    }

    /// Official mode: wait before each re-ask.
    pub fn reask_delay(&self) -> Duration {
        self.0.reask_delay
    }
}

/// What one judge request (and its official-mode re-asks) gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub judge_model: String,
    pub repeat: u32,
    /// Requests made for this observation (re-asks included), cached or not.
    pub judge_calls: u32,
    /// Of those, answered from the judge cache.
    pub cached_calls: u32,
    pub usage: TokenUsage,
    /// Wall time of the uncached requests, milliseconds.
    pub latency_ms: f64,
    /// The reduction, when the reply was usable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<SampleScore>,
    /// Why this observation is unusable (or, official mode, why it has no expert score).
    pub excluded_reason: Option<String>,
    /// The last raw reply when it was not usable, for inspection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
}

/// Per-sample status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleStatus {
    /// Every observation usable.
    Scored,
    /// Some observations unusable; the others are used (EvalScope's `degraded`).
    Degraded,
    /// No usable observation (or no response to judge).
    Excluded,
    /// The record itself is invalid and was skipped.
    Invalid,
}

/// One line of `samples.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleResult {
    pub id: String,
    pub subset: Option<Subset>,
    pub status: SampleStatus,
    /// `null` when excluded.
    pub expert_score: Option<f64>,
    /// EvalScope's `pass_rate` value of the sample (1.0/0.0; a fraction when averaged over
    /// repeats or judges); `null` when excluded.
    pub pass: Option<f64>,
    /// From the primary observation (first judge, first usable repeat).
    pub raw_score: Option<Points>,
    pub max_score: Option<Points>,
    /// `null` when scored.
    pub excluded_reason: Option<String>,
    /// Verdicts of the primary observation, in dataset order.
    pub rubrics: Vec<RubricScore>,
    /// Spread of the expert score over usable observations (two or more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    pub observations: Vec<Observation>,
}

impl SampleResult {
    fn values(&self) -> Option<SampleValues> {
        Some(SampleValues { subset: self.subset?, expert_score: self.expert_score, pass: self.pass })
    }
}

/// One (judge, repeat) pass over all samples, aggregated on its own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub judge_model: String,
    pub repeat: u32,
    pub expert_score: Option<f64>,
    pub pass_rate: Option<f64>,
    pub scored: usize,
    pub excluded: usize,
}

/// Judge-side cost, reported apart from generation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct JudgeUsage {
    /// Judge requests needed (re-asks included).
    pub requests: u64,
    /// Of those, sent over the network.
    pub sent: u64,
    /// Of those, answered from the judge cache.
    pub cached: u64,
    /// Observations lost to transport failures after retries.
    pub transport_failures: u64,
    pub tokens: TokenUsage,
    /// Sum of the wall times of sent requests, milliseconds.
    pub latency_ms_total: f64,
    /// Mean wall time of a sent request, milliseconds.
    pub latency_ms_mean: Option<f64>,
}

/// The outcome of judging a dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeRun {
    /// One per dataset line (valid or invalid), in file order.
    pub samples: Vec<SampleResult>,
    pub runs: Vec<RunSummary>,
    pub usage: JudgeUsage,
    /// Response ids that match no dataset record.
    pub unknown_response_ids: Vec<String>,
}

impl JudgeRun {
    /// The values the aggregate is computed from (invalid records have none).
    pub fn values(&self) -> Vec<SampleValues> {
        self.samples.iter().filter_map(SampleResult::values).collect()
    }
}

/// Judge every record that has a response. Only storage failures (the judge cache) are errors.
pub fn judge_all(
    dataset: &Dataset,
    responses: &BTreeMap<String, String>,
    settings: &JudgeSettings,
    backend: &dyn ChatBackend,
    cache: &JudgeCache,
) -> Result<JudgeRun> {
    let mut jobs = Vec::new();
    for (r, record) in dataset.records.iter().enumerate() {
        if responses.contains_key(&record.id) {
            for j in 0..settings.judges().len() {
                for repeat in 0..settings.repeats() {
                    jobs.push((r, j, repeat));
                }
            }
        }
    }
    let results: Mutex<Vec<Option<Observation>>> = Mutex::new(vec![None; jobs.len()]);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..settings.concurrency().min(jobs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(r, j, repeat)) = jobs.get(i) else { break };
                    if failure.lock().map_or(true, |f| f.is_some()) {
                        break;
                    }
                    let record = &dataset.records[r];
                    let answer = responses.get(&record.id).map_or("", String::as_str);
                    match observe(record, answer, &settings.judges()[j], repeat, settings, backend, cache) {
                        Ok(obs) => {
                            if let Ok(mut all) = results.lock() {
                                all[i] = Some(obs);
                            }
                        }
                        Err(e) => {
                            if let Ok(mut f) = failure.lock() {
                                f.get_or_insert(e);
                            }
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let observations = results.into_inner().map_err(|_| Error::Setting("a judge worker panicked".into()))?;
    let mut by_record: BTreeMap<usize, Vec<Observation>> = BTreeMap::new();
    for ((r, _, _), obs) in jobs.iter().zip(observations) {
        by_record.entry(*r).or_default().extend(obs);
    }

    let mut lines: Vec<(usize, SampleResult)> = Vec::new();
    for (r, record) in dataset.records.iter().enumerate() {
        let result = match by_record.remove(&r) {
            Some(obs) => combine_sample(record, obs, settings),
            None => excluded(record, "no response to judge".into()),
        };
        lines.push((record.line, result));
    }
    for invalid in &dataset.invalid {
        lines.push((
            invalid.line,
            SampleResult {
                id: invalid.id.clone(),
                subset: None,
                status: SampleStatus::Invalid,
                expert_score: None,
                pass: None,
                raw_score: None,
                max_score: None,
                excluded_reason: Some(format!("invalid record: {}", invalid.reason)),
                rubrics: Vec::new(),
                spread: None,
                observations: Vec::new(),
            },
        ));
    }
    lines.sort_by_key(|(line, _)| *line);
    let samples: Vec<SampleResult> = lines.into_iter().map(|(_, s)| s).collect();

    let ids: BTreeSet<&str> = dataset.records.iter().map(|r| r.id.as_str()).collect();
    let unknown_response_ids = responses.keys().filter(|k| !ids.contains(k.as_str())).cloned().collect();
    Ok(JudgeRun { runs: run_summaries(&samples, settings), usage: usage_of(&samples), samples, unknown_response_ids })
}

fn observe(
    record: &Record,
    answer: &str,
    judge_model: &str,
    repeat: u32,
    settings: &JudgeSettings,
    backend: &dyn ChatBackend,
    cache: &JudgeCache,
) -> Result<Observation> {
    let prompt = judge_prompt(&record.question, answer, &record.rubrics);
    let expected: BTreeSet<i64> = record.rubrics.iter().map(|r| r.id).collect();
    let call = ChatCall {
        model: judge_model.to_string(),
        messages: vec![(Role::User, prompt.clone())],
        temperature: JUDGE_TEMPERATURE,
        max_tokens: Some(JUDGE_MAX_TOKENS),
    };
    let mut obs = Observation {
        judge_model: judge_model.to_string(),
        repeat,
        judge_calls: 0,
        cached_calls: 0,
        usage: TokenUsage::default(),
        latency_ms: 0.0,
        score: None,
        excluded_reason: None,
        reply: None,
    };
    let mut attempt = 0;
    loop {
        let key = cache_key(&prompt, judge_model, repeat, attempt);
        obs.judge_calls += 1;
        let (reply, cached) = match cache.get(&key) {
            Some(reply) => (reply, true),
            None => match backend.chat(&call) {
                Ok(reply) => {
                    cache.put(CacheEntry {
                        key,
                        record_id: record.id.clone(),
                        judge_model: judge_model.to_string(),
                        repeat,
                        attempt,
                        prompt_sha256: anser_runstore::sha256_hex(prompt.as_bytes()),
                        reply: reply.clone(),
                    })?;
                    (reply, false)
                }
                Err(e) => {
                    obs.excluded_reason = Some(format!("transport_error: {e}"));
                    return Ok(obs);
                }
            },
        };
        if cached {
            obs.cached_calls += 1;
        } else {
            obs.usage.add(&reply.delivery.usage);
            obs.latency_ms += reply.delivery.latency_ms;
        }
        match settings.mode() {
            Mode::Evalscope => {
                // EvalScope's message validator cuts the first think block before the contract.
                match parse_strict(&completion_text(&reply), &expected) {
                    Ok(_) if record.no_positive_weight().is_some() => {
                        obs.excluded_reason = record.no_positive_weight();
                    }
                    Ok(judgments) => obs.score = Some(score_evalscope(record, &judgments)),
                    Err(e) => {
                        obs.excluded_reason = Some(e.to_string());
                        obs.reply = Some(reply.text);
                    }
                }
                return Ok(obs);
            }
            Mode::Official => {
                let parsed = parse_official(&reply.text);
                if parsed.is_empty() && attempt < settings.official_reasks() {
                    if !cached {
                        std::thread::sleep(settings.reask_delay());
                    }
                    attempt += 1;
                    continue;
                }
                if record.rubrics.iter().all(|r| !r.positive) {
                    // The harness's ExpertScore is None: never passes, never averaged.
                    obs.excluded_reason = Some("no_positive_weight: no rubric has a positive weight".into());
                    return Ok(obs);
                }
                let score = score_official(record, &parsed);
                if score.expert_score.is_none() {
                    let na: Vec<i64> =
                        score.rubrics.iter().filter(|r| r.awarded.is_none()).map(|r| r.rubric_id).collect();
                    obs.excluded_reason = Some(format!("na_rubrics: no verdict for rubric(s) {na:?}"));
                    obs.reply = Some(reply.text);
                }
                obs.score = Some(score);
                return Ok(obs);
            }
        }
    }
}

fn excluded(record: &Record, reason: String) -> SampleResult {
    SampleResult {
        id: record.id.clone(),
        subset: Some(record.subset),
        status: SampleStatus::Excluded,
        expert_score: None,
        pass: None,
        raw_score: None,
        max_score: None,
        excluded_reason: Some(reason),
        rubrics: Vec::new(),
        spread: None,
        observations: Vec::new(),
    }
}

fn combine_sample(record: &Record, observations: Vec<Observation>, settings: &JudgeSettings) -> SampleResult {
    let per_judge = |metric: fn(&SampleScore) -> Option<f64>| -> Vec<Vec<Option<f64>>> {
        settings
            .judges()
            .iter()
            .map(|j| {
                observations
                    .iter()
                    .filter(|o| &o.judge_model == j)
                    .filter_map(|o| o.score.as_ref().map(metric))
                    .collect()
            })
            .collect()
    };
    let expert_score = combine(&per_judge(|s| s.expert_score));
    let pass = combine(&per_judge(|s| Some(s.pass)));
    let usable = observations.iter().filter(|o| o.score.is_some()).count();
    let primary = observations.iter().find_map(|o| o.score.as_ref());
    let expert_values: Vec<f64> = observations.iter().filter_map(|o| o.score.as_ref()?.expert_score).collect();
    let reasons: Vec<String> =
        observations.iter().filter_map(|o| o.excluded_reason.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let status = match (usable, observations.len()) {
        _ if expert_score.is_none() => SampleStatus::Excluded,
        (u, n) if u < n => SampleStatus::Degraded,
        _ => SampleStatus::Scored,
    };
    SampleResult {
        id: record.id.clone(),
        subset: Some(record.subset),
        status,
        expert_score,
        pass: if usable == 0 { None } else { pass },
        raw_score: primary.map(|s| s.raw_score),
        max_score: primary.map(|s| s.max_score),
        excluded_reason: (expert_score.is_none()).then(|| reasons.join("; ")),
        rubrics: primary.map(|s| s.rubrics.clone()).unwrap_or_default(),
        spread: spread(&expert_values),
        observations,
    }
}

fn run_summaries(samples: &[SampleResult], settings: &JudgeSettings) -> Vec<RunSummary> {
    let mut runs = Vec::new();
    for judge in settings.judges() {
        for repeat in 0..settings.repeats() {
            let values: Vec<SampleValues> = samples
                .iter()
                .filter_map(|s| {
                    let subset = s.subset?;
                    let score = s
                        .observations
                        .iter()
                        .find(|o| &o.judge_model == judge && o.repeat == repeat)
                        .and_then(|o| o.score.as_ref());
                    Some(SampleValues {
                        subset,
                        expert_score: score.and_then(|s| s.expert_score),
                        pass: score.map(|s| s.pass),
                    })
                })
                .collect();
            let overall = aggregate(&values).overall;
            runs.push(RunSummary {
                judge_model: judge.clone(),
                repeat,
                expert_score: overall.expert_score,
                pass_rate: overall.pass_rate,
                scored: overall.scored,
                excluded: overall.excluded,
            });
        }
    }
    runs
}

fn usage_of(samples: &[SampleResult]) -> JudgeUsage {
    let mut u = JudgeUsage::default();
    for o in samples.iter().flat_map(|s| &s.observations) {
        u.requests += u64::from(o.judge_calls);
        u.cached += u64::from(o.cached_calls);
        u.tokens.add(&o.usage);
        u.latency_ms_total += o.latency_ms;
        if o.excluded_reason.as_deref().is_some_and(|r| r.starts_with("transport_error")) {
            u.transport_failures += 1;
        }
    }
    u.sent = u.requests - u.cached;
    u.latency_ms_mean = (u.sent > 0).then(|| u.latency_ms_total / u.sent as f64);
    u
}
