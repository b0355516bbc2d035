//! Scientific articles (`science/articles.jsonl`) and the science descriptive and predictive
//! tasks.
//!
//! Articles are grouped in review topics. A topic fixes a PICO/PECO scope, a publication
//! cut-off, eligible designs and exclusions; its articles are mostly eligible primary studies
//! plus distractors that fail one criterion (published after the cut-off, animal study,
//! excluded design, another population). Each eligible study reports its design, setting and
//! finding (effect direction, association direction, AUC, or the factors it identified) in its
//! abstract. The ground truth synthesises the eligible studies only: the most common design or
//! setting, the three most frequently reported factors, the majority direction, or the accuracy
//! band of the mean AUC (≥ 0.85 high, ≥ 0.70 moderate, else low); the gold evidence is the set of
//! eligible article IDs.

use std::path::Path;

use anser_manifest::{Route, TaskGroup};
use serde::Serialize;
use serde_json::{Value, json};

use crate::{
    Ctx, DomainOutput, Result,
    db::JsonlWriter,
    names::{EN_GIVEN, EN_SURNAMES},
    rng::Rng,
    task::Task,
};

#[derive(Debug, Serialize)]
struct Article {
    #[serde(rename = "ID")]
    id: u64,
    pmid: String,
    title: String,
    #[serde(rename = "abstract")]
    abstract_text: Option<String>,
    authors: Vec<String>,
    journal: String,
    doi: Option<String>,
    year: String,
    sections: Vec<Section>,
    pmc_id: Option<String>,
    fulltext_source: String,
}

#[derive(Debug, Serialize)]
struct Section {
    heading: String,
    text: String,
}

const POPULATIONS: &[&str] = &[
    "adults with type 2 diabetes",
    "older adults with hypertension",
    "children with persistent asthma",
    "adults with major depressive disorder",
    "patients after total knee arthroplasty",
    "adults with chronic low back pain",
    "pregnant women with gestational diabetes",
    "patients with chronic heart failure",
    "adults with obesity",
    "patients with chronic kidney disease",
    "postmenopausal women",
    "nursing-home residents",
];
const INTERVENTIONS: &[&str] = &[
    "supervised aerobic exercise",
    "mindfulness-based stress reduction",
    "vitamin D supplementation",
    "nurse-led telemonitoring",
    "a low-carbohydrate diet",
    "cognitive behavioural therapy",
    "high-intensity interval training",
    "probiotic supplementation",
    "a smartphone self-management app",
    "acupuncture",
];
const OUTCOMES: &[&str] = &[
    "HbA1c",
    "systolic blood pressure",
    "depressive symptom scores",
    "pain intensity",
    "hospital readmissions",
    "body weight",
    "fall incidence",
    "quality-of-life scores",
    "emergency department visits",
    "fasting glucose",
];
const EXPOSURES: &[&str] = &[
    "short sleep duration",
    "sedentary screen time",
    "long-term PM2.5 exposure",
    "night-shift work",
    "ultra-processed food intake",
    "social isolation",
    "obstructive sleep apnea",
    "periodontal disease",
];
const TESTS: &[(&str, &str)] = &[
    ("a plasma microRNA panel", "colorectal cancer"),
    ("point-of-care lung ultrasound", "community-acquired pneumonia"),
    ("a deep-learning ECG algorithm", "left ventricular systolic dysfunction"),
    ("serum procalcitonin", "bacterial sepsis"),
    ("low-dose computed tomography", "early lung cancer"),
    ("a salivary antigen test", "SARS-CoV-2 infection"),
];
const THEMES: &[(&str, &str, &[&str])] = &[
    (
        "barriers to telemedicine adoption",
        "barriers",
        &[
            "limited internet connectivity",
            "high equipment costs",
            "low digital literacy",
            "privacy concerns",
            "lack of staff training",
            "language barriers",
        ],
    ),
    (
        "facilitators of influenza vaccine uptake",
        "facilitators",
        &[
            "physician recommendation",
            "free vaccination",
            "workplace vaccination clinics",
            "reminder messages",
            "trust in health authorities",
            "prior vaccination",
        ],
    ),
    (
        "reasons for antibiotic non-adherence",
        "reasons",
        &[
            "early symptom relief",
            "adverse effects",
            "forgetting doses",
            "complex dosing schedules",
            "medication costs",
            "misconceptions about resistance",
        ],
    ),
    (
        "risk factors for nurse burnout",
        "risk factors",
        &[
            "high workload",
            "night shifts",
            "low staffing levels",
            "lack of managerial support",
            "workplace violence",
            "long commuting times",
        ],
    ),
];
const DESIGNS: &[(&str, &str)] = &[
    ("randomized controlled trial", "randomized controlled trials"),
    ("prospective cohort study", "prospective cohort studies"),
    ("cross-sectional study", "cross-sectional studies"),
    ("case-control study", "case-control studies"),
];
const SETTINGS: &[&str] = &["hospital-based", "community-based", "primary-care", "school-based"];
const JOURNALS: &[&str] = &[
    "Journal of Clinical Medicine",
    "BMC Public Health",
    "PLoS One",
    "BMJ Open",
    "Frontiers in Medicine",
    "Clinical Nutrition",
    "Preventive Medicine",
    "Journal of Internal Medicine",
    "International Journal of Nursing Studies",
    "Diagnostics",
];

/// The synthesis a topic asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    DominantCategory,
    MainFactors,
    StudyPattern,
    Effect,
    Association,
    Diagnostic,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::DominantCategory,
        Kind::MainFactors,
        Kind::StudyPattern,
        Kind::Effect,
        Kind::Association,
        Kind::Diagnostic,
    ];

    fn type_name(self) -> &'static str {
        match self {
            Kind::DominantCategory => "dominant_category",
            Kind::MainFactors => "main_factors",
            Kind::StudyPattern => "study_pattern",
            Kind::Effect => "effect_direction",
            Kind::Association => "association_direction",
            Kind::Diagnostic => "diagnostic_performance",
        }
    }

    fn predictive(self) -> bool {
        matches!(self, Kind::Effect | Kind::Association | Kind::Diagnostic)
    }
}

/// Per-study finding.
#[derive(Debug, Clone)]
enum Finding {
    /// −1, 0, +1.
    Direction(i8),
    Auc(f64),
    Factors(Vec<usize>),
    None,
}

struct Study {
    id: u64,
    eligible: bool,
    design: usize,
    setting: usize,
    finding: Finding,
}

/// Weighted draw from `weights`.
fn weighted(rng: &mut Rng, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    let mut x = rng.unit() * total;
    for (k, w) in weights.iter().enumerate() {
        if x < *w {
            return k;
        }
        x -= w;
    }
    weights.len() - 1
}

fn person(rng: &mut Rng) -> String {
    format!("{} {}", rng.pick(EN_SURNAMES), &rng.pick(EN_GIVEN)[..1])
}

/// Generate articles and tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let sc = ctx.scale;
    let mut rng = Rng::derive(ctx.seed, "science");
    let route = Route::ScienceArticles;
    let path = corpus.join(&anser_manifest::Manifest::get().route(route).file);
    let mut out = JsonlWriter::create(&path)?;
    let mut kept = [0usize; 6];
    let mut tasks_desc: Vec<(Kind, Task)> = Vec::new();
    let mut tasks_pred: Vec<(Kind, Task)> = Vec::new();
    let mut next_id = 0u64;
    for topic in 0..sc.science_topics {
        let kind = Kind::ALL[topic % Kind::ALL.len()];
        // Redraw a topic whose eligible studies leave the synthesis tied.
        let mut attempt = 0;
        let (population, other_population, cutoff, excluded_design, exposure, outcome, comparison, theme, studies, gt) = loop {
            attempt += 1;
            if attempt > 100 {
                return Err(crate::Error::bug(format!(
                    "science: topic {topic} has no clear synthesis after 100 draws"
                )));
            }
            let population = *rng.pick(POPULATIONS);
            let other_population =
                POPULATIONS[(POPULATIONS.iter().position(|p| *p == population).unwrap_or(0) + 1) % POPULATIONS.len()];
            let cutoff = rng.range(2016, 2023);
            let excluded_design = if kind == Kind::Effect { 2 } else { 3 };
            let (exposure, outcome, comparison) = match kind {
                Kind::Effect => (*rng.pick(INTERVENTIONS), *rng.pick(OUTCOMES), "usual care or placebo"),
                Kind::Association => {
                    (*rng.pick(EXPOSURES), *rng.pick(OUTCOMES), "individuals with lower or no exposure")
                }
                Kind::Diagnostic => {
                    let (t, target) = *rng.pick(TESTS);
                    (t, target, "reference-standard diagnosis")
                }
                Kind::MainFactors => {
                    let (theme, _, _) = *rng.pick(THEMES);
                    (theme, theme, "not applicable")
                }
                _ => (*rng.pick(EXPOSURES), *rng.pick(OUTCOMES), "individuals with lower or no exposure"),
            };
            let theme = THEMES.iter().find(|t| t.0 == exposure);
            // Topic-level tendencies so that the synthesis has a clear answer.
            let lead_design = rng.below(DESIGNS.len());
            let lead_design =
                if lead_design == excluded_design { (lead_design + 1) % DESIGNS.len() } else { lead_design };
            let lead_setting = rng.below(SETTINGS.len());
            let direction: i8 = *rng.pick(&[-1, 1, 1, -1, 0]);
            let auc_center = *rng.pick(&[0.9, 0.78, 0.64]);
            let factor_weights: Vec<f64> =
                (0..6).map(|k| [6.0, 4.5, 3.2, 1.2, 0.8, 0.5][k] * rng.uniform(0.9, 1.1)).collect();
            let mut studies = Vec::new();
            for k in 0..sc.articles_per_topic {
                next_id += 1 + rng.below(3) as u64;
                let distractor = k >= sc.articles_per_topic * 7 / 10;
                let mut design = if kind == Kind::Effect && !distractor {
                    0
                } else {
                    let mut w = [1.0; 4];
                    w[lead_design] = 4.0;
                    w[excluded_design] = 0.0;
                    weighted(&mut rng, &w)
                };
                let mut w = [1.0; 4];
                w[lead_setting] = 4.0;
                let setting = weighted(&mut rng, &w);
                let finding = match kind {
                    Kind::Effect | Kind::Association => {
                        let d = if rng.chance(0.75) { direction } else { *rng.pick(&[-1, 0, 1]) };
                        Finding::Direction(d)
                    }
                    Kind::Diagnostic => {
                        Finding::Auc(((auc_center + rng.uniform(-0.06, 0.06)) * 1000.0f64).round() / 1000.0)
                    }
                    Kind::MainFactors => {
                        let mut f = Vec::new();
                        while f.len() < 3 {
                            let j = weighted(&mut rng, &factor_weights);
                            if !f.contains(&j) {
                                f.push(j);
                            }
                        }
                        f.sort_unstable();
                        Finding::Factors(f)
                    }
                    _ => Finding::None,
                };
                if distractor && rng.chance(0.35) {
                    design = excluded_design;
                }
                studies.push(Study { id: next_id, eligible: !distractor, design, setting, finding });
            }
            let eligible: Vec<&Study> = studies.iter().filter(|s| s.eligible).collect();
            if let Some(gt) = synthesis(kind, &eligible, exposure, outcome, comparison, population, theme) {
                break (
                    population,
                    other_population,
                    cutoff,
                    excluded_design,
                    exposure,
                    outcome,
                    comparison,
                    theme,
                    studies,
                    gt,
                );
            }
        };
        // Distractor reasons: excluded design (set above), late publication, animal, population.
        for s in studies.iter().filter(|s| !s.eligible) {
            let reason = if s.design == excluded_design { 0 } else { 1 + (s.id % 3) as usize };
            let year = if reason == 1 { cutoff + rng.range(1, 3) } else { rng.range(cutoff - 12, cutoff) };
            let a = article(&mut rng, s, kind, year, reason, population, other_population, exposure, outcome, theme);
            emit(&mut out, a, ctx)?;
        }
        for s in studies.iter().filter(|s| s.eligible) {
            let year = rng.range(cutoff - 12, cutoff);
            let a = article(&mut rng, s, kind, year, 99, population, other_population, exposure, outcome, theme);
            emit(&mut out, a, ctx)?;
        }
        let eligible: Vec<&Study> = studies.iter().filter(|s| s.eligible).collect();
        let label = match kind {
            Kind::Effect => "Intervention",
            Kind::Diagnostic => "Index test",
            _ => "Exposure",
        };
        let designs_allowed: Vec<&str> = (0..DESIGNS.len())
            .filter(|&d| d != excluded_design && (kind != Kind::Effect || d == 0))
            .map(|d| DESIGNS[d].1)
            .collect();
        let question = match kind {
            Kind::DominantCategory => "Which study design predominates among the eligible studies?".to_string(),
            Kind::StudyPattern => "Which study setting is most common among the eligible studies?".to_string(),
            Kind::MainFactors => format!(
                "What are the three most frequently reported {} across the eligible studies?",
                theme.map_or("factors", |t| t.1)
            ),
            Kind::Effect => format!("What is the overall direction of the effect of {exposure} on {outcome}?"),
            Kind::Association => format!("What is the direction of the association between {exposure} and {outcome}?"),
            Kind::Diagnostic => format!("How accurate is {exposure} for diagnosing {outcome}?"),
        };
        let q = format!(
            "Evidence-synthesis scope:\nPopulation: {population}\n{label}: {exposure}\nComparison: {comparison}\nOutcome: {outcome}\nPublication period: up to {cutoff}-12-31\nEligible studies: human {} in {population}\nExclude: animal studies; {}; studies in {other_population}\n\nTask: {question}",
            designs_allowed.join(", "),
            DESIGNS[excluded_design].1
        );
        let ev: Vec<Value> = eligible.iter().map(|s| json!({"id": s.id, "type": "article"})).collect();
        let ins = if kind.predictive() {
            "Using only the eligible studies within the stated scope, give the requested conclusion in one concise sentence. Do not include explanations, statistics, citations or lists."
        } else {
            "Using only the eligible studies within the stated scope, give the requested descriptive finding as one concise sentence or phrase. Do not include explanations, statistics, citations or lists."
        };
        let task = Task::new(kind.type_name(), q, ins, Value::Array(ev), json!(gt));
        // At release size the release's count of each kind comes from the first whole topics;
        // the other topics are corpus only.
        if let Some(fraction) = sc.release {
            let group = if kind.predictive() { "science_en_predictive" } else { "science_en_descriptive" };
            let slot = Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
            let whole = sc.science_articles.is_none_or(|cap| out.rows() < cap as u64);
            if !whole || kept[slot] >= crate::scale::release_task_count(group, kind.type_name(), fraction) {
                continue;
            }
            kept[slot] += 1;
        }
        if kind.predictive() { tasks_pred.push((kind, task)) } else { tasks_desc.push((kind, task)) }
    }
    let rows = out.finish()?;
    let desc: TaskGroup = "science_en_descriptive".parse().map_err(crate::Error::bug)?;
    let pred: TaskGroup = "science_en_predictive".parse().map_err(crate::Error::bug)?;
    let order = |tasks: Vec<(Kind, Task)>| -> Vec<Task> {
        let mut t = tasks;
        t.sort_by_key(|(k, _)| Kind::ALL.iter().position(|x| x == k));
        t.into_iter().map(|(_, t)| t).collect()
    };
    let (d, p) = (order(tasks_desc), order(tasks_pred));
    if d.len() < sc.min_tasks_per_group || p.len() < sc.min_tasks_per_group {
        return Err(crate::Error::bug(format!(
            "science: {} descriptive and {} predictive topics with a clear synthesis; need {} of each",
            d.len(),
            p.len(),
            sc.min_tasks_per_group
        )));
    }
    Ok(DomainOutput { files: vec![(route, rows)], tasks: vec![(desc, d), (pred, p)] })
}

/// Write one article, unless the release's article count is reached; at release size first
/// lengthen it to a length drawn from the real sample's distribution.
fn emit(out: &mut JsonlWriter, mut a: Article, ctx: &Ctx) -> Result<()> {
    if ctx.scale.science_articles.is_some_and(|cap| out.rows() >= cap as u64) {
        return Ok(());
    }
    if ctx.scale.release.is_some() {
        lengthen(&mut a, ctx.seed);
    }
    out.write(&a)
}

/// Total characters (title, abstract, section headings and texts) of the 100 articles of the
/// real release sample (`../shared/anser/corpus/science/articles.jsonl`) at the quantiles 0,
/// 0.05, …, 1, measured once. About 70 % are abstract-only (≤ 2,700 characters); the rest
/// carry full text up to ~50,000 characters.
const REAL_LENGTH_QUANTILES: [usize; 21] = [
    105, 528, 1160, 1394, 1513, 1578, 1636, 1713, 1755, 1795, 1835, 1907, 2164, 2383, 2682, 12079, 16160, 19906, 31901,
    37631, 49555,
];

/// Share of the real sample that is abstract-only (the quantiles below 0.7 are abstracts).
const ABSTRACT_ONLY_SHARE: f64 = 0.7;

fn text_len(a: &Article) -> usize {
    a.title.chars().count()
        + a.abstract_text.as_ref().map_or(0, |t| t.chars().count())
        + a.sections.iter().map(|s| s.heading.chars().count() + s.text.chars().count()).sum::<usize>()
}

/// A length drawn from the real quantiles by linear interpolation, within the abstract-only
/// part of the distribution for articles without sections and the full-text part otherwise.
fn target_len(rng: &mut Rng, full_text: bool) -> usize {
    let u = if full_text {
        ABSTRACT_ONLY_SHARE + rng.unit() * (1.0 - ABSTRACT_ONLY_SHARE)
    } else {
        rng.unit() * ABSTRACT_ONLY_SHARE
    };
    let x = u * (REAL_LENGTH_QUANTILES.len() - 1) as f64;
    let k = (x.floor() as usize).min(REAL_LENGTH_QUANTILES.len() - 2);
    let (lo, hi) = (REAL_LENGTH_QUANTILES[k] as f64, REAL_LENGTH_QUANTILES[k + 1] as f64);
    (lo + (hi - lo) * (x - k as f64)).round() as usize
}

/// Methodological sentences that carry no finding, design or setting (the synthesis reads
/// those from the abstract's own sentences, which stay as they are).
const NEUTRAL_SENTENCES: &[&str] = &[
    "Data were collected on standardised case report forms and checked for completeness before analysis.",
    "Missing values were handled by multiple imputation under a missing-at-random assumption.",
    "Sensitivity analyses that excluded participants with incomplete follow-up were prespecified.",
    "The protocol was approved by the responsible ethics committee and participants gave informed consent.",
    "Baseline characteristics were summarised as means with standard deviations or counts with percentages.",
    "Outcome assessors worked from a written manual and met regularly to harmonise their ratings.",
    "Limitations include possible residual confounding, measurement error and loss to follow-up.",
    "Future work should examine long-term outcomes, adherence and costs in routine care.",
    "Previous reports have used heterogeneous definitions, instruments and follow-up periods.",
    "All analyses were performed with standard statistical software by analysts unaware of group labels.",
    "The sample size was chosen to give adequate precision for the primary outcome.",
    "Reporting follows the relevant checklist of the EQUATOR network.",
];

/// Lengthen an article to a length drawn from the real distribution: abstract-only articles
/// get neutral background sentences appended to the abstract, full-text articles get neutral
/// paragraphs in their methods and discussion sections. Draws come from a stream of the
/// article's own, so the corpus rows before it never change.
fn lengthen(a: &mut Article, seed: u64) {
    let mut rng = Rng::derive(seed ^ a.id, "science_article_length");
    let target = target_len(&mut rng, !a.sections.is_empty());
    let mut len = text_len(a);
    let mut k = 0usize;
    while len < target {
        let sentence = NEUTRAL_SENTENCES[rng.below(NEUTRAL_SENTENCES.len())];
        let slot = if a.sections.is_empty() {
            a.abstract_text.as_mut()
        } else {
            let n = a.sections.len();
            // Alternate between the methods and discussion sections.
            a.sections.get_mut(if k % 2 == 0 { 1.min(n - 1) } else { n - 1 }).map(|s| &mut s.text)
        };
        let Some(text) = slot else { break };
        text.push(' ');
        text.push_str(sentence);
        len += sentence.chars().count() + 1;
        k += 1;
    }
}

/// Unique maximum of counts, or `None` on a tie.
fn unique_max(counts: &[usize]) -> Option<usize> {
    let max = *counts.iter().max()?;
    let winners: Vec<usize> = (0..counts.len()).filter(|&k| counts[k] == max).collect();
    (winners.len() == 1).then(|| winners[0])
}

fn synthesis(
    kind: Kind,
    eligible: &[&Study],
    exposure: &str,
    outcome: &str,
    comparison: &str,
    population: &str,
    theme: Option<&(&str, &str, &[&str])>,
) -> Option<String> {
    match kind {
        Kind::DominantCategory => {
            let mut counts = vec![0; DESIGNS.len()];
            eligible.iter().for_each(|s| counts[s.design] += 1);
            Some(DESIGNS[unique_max(&counts)?].1.to_string())
        }
        Kind::StudyPattern => {
            let mut counts = vec![0; SETTINGS.len()];
            eligible.iter().for_each(|s| counts[s.setting] += 1);
            Some(format!("{} studies", SETTINGS[unique_max(&counts)?]))
        }
        Kind::MainFactors => {
            let (_, noun, factors) = theme?;
            let mut counts = vec![0usize; factors.len()];
            for s in eligible {
                if let Finding::Factors(f) = &s.finding {
                    f.iter().for_each(|&j| counts[j] += 1);
                }
            }
            let mut order: Vec<usize> = (0..factors.len()).collect();
            order.sort_by(|a, b| counts[*b].cmp(&counts[*a]).then(a.cmp(b)));
            if counts[order[2]] == counts[order[3]] {
                return None;
            }
            Some(format!(
                "The main {noun} were {}, {} and {}.",
                factors[order[0]], factors[order[1]], factors[order[2]]
            ))
        }
        Kind::Effect | Kind::Association => {
            let mut counts = [0usize; 3];
            for s in eligible {
                if let Finding::Direction(d) = s.finding {
                    counts[(d + 1) as usize] += 1;
                }
            }
            let winner = unique_max(&counts)? as i8 - 1;
            Some(match (kind, winner) {
                (Kind::Effect, 1) => format!("{} increases {outcome} relative to {comparison}.", capitalize(exposure)),
                (Kind::Effect, -1) => format!("{} reduces {outcome} relative to {comparison}.", capitalize(exposure)),
                (Kind::Effect, _) => {
                    format!("{} has no clear effect on {outcome} relative to {comparison}.", capitalize(exposure))
                }
                (_, 1) => format!("Greater {exposure} is associated with higher {outcome} in {population}."),
                (_, -1) => format!("Greater {exposure} is associated with lower {outcome} in {population}."),
                _ => {
                    format!("{} shows no consistent association with {outcome} in {population}.", capitalize(exposure))
                }
            })
        }
        Kind::Diagnostic => {
            let aucs: Vec<f64> =
                eligible.iter().filter_map(|s| if let Finding::Auc(a) = s.finding { Some(a) } else { None }).collect();
            if aucs.is_empty() {
                return None;
            }
            let mean = aucs.iter().sum::<f64>() / aucs.len() as f64;
            let band = if mean >= 0.85 {
                "high"
            } else if mean >= 0.70 {
                "moderate"
            } else {
                "low"
            };
            Some(format!("{} shows {band} diagnostic accuracy for {outcome}.", capitalize(exposure)))
        }
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

#[allow(clippy::too_many_arguments)]
fn article(
    rng: &mut Rng,
    s: &Study,
    kind: Kind,
    year: i64,
    reason: usize,
    population: &str,
    other_population: &str,
    exposure: &str,
    outcome: &str,
    theme: Option<&(&str, &str, &[&str])>,
) -> Article {
    let animal = reason == 2;
    let pop = if reason == 3 { other_population } else { population };
    let design = DESIGNS[s.design].0;
    let n = rng.range(40, 4000);
    let subjects = if animal { format!("{} mice", rng.range(20, 80)) } else { format!("{n} {pop}") };
    let setting = SETTINGS[s.setting];
    let finding = match &s.finding {
        Finding::Direction(d) => {
            let verb = match (kind, d) {
                (Kind::Effect, 1) => format!("{exposure} increased {outcome} compared with the control group"),
                (Kind::Effect, -1) => {
                    format!("{exposure} significantly reduced {outcome} compared with the control group")
                }
                (Kind::Effect, _) => {
                    format!("{exposure} did not significantly change {outcome} compared with the control group")
                }
                (_, 1) => format!("greater {exposure} was associated with higher {outcome}"),
                (_, -1) => format!("greater {exposure} was associated with lower {outcome}"),
                _ => format!("{exposure} was not associated with {outcome}"),
            };
            format!("Results: {verb}.")
        }
        Finding::Auc(a) => {
            format!("Results: {exposure} detected {outcome} with an area under the ROC curve of {a:.3}.")
        }
        Finding::Factors(f) => {
            let (_, noun, factors) = theme.copied().unwrap_or(("", "factors", &[]));
            let names: Vec<&str> = f.iter().filter_map(|&j| factors.get(j).copied()).collect();
            format!("Results: the most frequently reported {noun} were {}.", names.join(", "))
        }
        Finding::None => format!("Results: {exposure} was examined in relation to {outcome}."),
    };
    let title = match kind {
        Kind::Effect => {
            format!("Effect of {exposure} on {outcome} in {}: a {design}", if animal { "a murine model" } else { pop })
        }
        Kind::Diagnostic => format!("Diagnostic accuracy of {exposure} for {outcome}: a {setting} {design}"),
        Kind::MainFactors => format!("{} among {pop}: a {setting} {design}", capitalize(exposure)),
        _ => format!(
            "{} and {outcome} in {}: a {setting} {design}",
            capitalize(exposure),
            if animal { "mice" } else { pop }
        ),
    };
    let abstract_text = format!(
        "Background: evidence on {exposure} and {outcome} remains limited. Methods: this {setting} {design} enrolled {subjects}. {finding} Conclusion: the findings inform practice for {pop}."
    );
    let full = rng.chance(0.3);
    let sections = if full {
        vec![
            Section { heading: "introduction".into(), text: format!("Interest in {exposure} among {pop} has grown.") },
            Section {
                heading: "methods".into(),
                text: format!("We conducted a {setting} {design} including {subjects}."),
            },
            Section { heading: "results".into(), text: finding.clone() },
            Section { heading: "discussion".into(), text: format!("Our results add to the evidence on {outcome}.") },
        ]
    } else {
        Vec::new()
    };
    let authors = (0..rng.range(2, 6)).map(|_| person(rng)).collect();
    Article {
        id: s.id,
        pmid: format!("{}", 20_000_000 + s.id * 13 + rng.below(13) as u64),
        title,
        abstract_text: (s.eligible || !rng.chance(0.1)).then_some(abstract_text),
        authors,
        journal: rng.pick(JOURNALS).to_string(),
        doi: rng.chance(0.9).then(|| format!("10.{}/j.sample.{year}.{:06}", 1000 + rng.below(9000), s.id)),
        year: year.to_string(),
        sections,
        pmc_id: full.then(|| format!("PMC{}", 5_000_000 + s.id)),
        fulltext_source: (if full { "official_pmc_jats_cache" } else { "none_official_pmc_not_available" }).to_string(),
    }
}
