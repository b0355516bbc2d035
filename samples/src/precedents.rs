//! US precedent documents (`legal/en/precedents.sqlite`) and the legal_en_prescriptive tasks.
//!
//! Each document is a short opinion applying one of a handful of doctrines (Title VII pretext,
//! qualified immunity, extended traffic stops, the statute of frauds for goods, premises
//! liability notice, Miranda custody) to facts drawn at random: a setting, amounts or minutes,
//! and the one fact that decides the outcome. A task retells one document's facts with other
//! party names and asks the legal question; the ground truth is that document's holding with
//! the rule and its application, and the gold evidence is its `docid`.

use std::path::Path;

use anser_manifest::{Route, TaskGroup};
use serde_json::json;

use crate::{
    Ctx, DomainOutput, Result,
    db::{DbWriter, t},
    names::{EN_GIVEN, EN_SURNAMES},
    rng::Rng,
    task::{Task, fill, plan_types},
};

/// The facts and holding of one precedent.
#[derive(Debug, Clone)]
struct Scenario {
    /// Facts with `{P}` (plaintiff/defendant person) and `{O}` (other party) placeholders.
    facts: String,
    question: String,
    holding: String,
}

const JOBS: &[(&str, &str)] = &[
    ("convenience-store clerk", "closing the store forty minutes early and failing to record a final sale"),
    ("warehouse forklift operator", "skipping the mandatory pre-shift safety inspection twice"),
    ("hotel night auditor", "leaving the front desk unattended for over an hour"),
    ("bank teller", "exceeding the cash-drawer variance limit three times in a month"),
    ("hospital orderly", "failing to log patient transfers on two shifts"),
    ("call-center representative", "disclosing account details without verifying the caller"),
];

const FORCE: &[&str] = &[
    "used a taser on a handcuffed arrestee who was not resisting",
    "released a police dog on a suspect who had already surrendered",
    "entered a home without a warrant to retrieve a cell phone",
    "pepper-sprayed a protester who was standing still on a sidewalk",
];

const GOODS: &[&str] =
    &["industrial ovens", "custom display cases", "used delivery vans", "bulk coffee beans", "printing presses"];
const HAZARDS: &[&str] =
    &["spilled yogurt", "a puddle from a leaking cooler", "loose grapes", "a torn floor mat", "spilled detergent"];

/// A doctrine decided by one fact: the question, the sentence stating the deciding fact (when it
/// holds, when it does not) and the holding (when the outcome is yes, when it is no).
struct Doctrine {
    question: &'static str,
    facts: [&'static str; 2],
    holdings: [&'static str; 2],
}

impl Doctrine {
    /// The scenario whose `facts` hold `{F}` where the deciding fact's sentence goes.
    fn scenario(&self, facts: String, fact: bool, outcome: bool) -> Scenario {
        Scenario {
            facts: facts.replace("{F}", self.facts[usize::from(!fact)]),
            question: self.question.into(),
            holding: self.holdings[usize::from(!outcome)].into(),
        }
    }
}

/// Title VII pretext: a comparator outside the protected class decides.
const TITLE_VII: Doctrine = Doctrine {
    question: "Does this record support a Title VII discrimination claim?",
    facts: [
        "A coworker of a different race who committed the same violations was given only a warning.",
        "No other employee with similar violations was treated more favorably.",
    ],
    holdings: [
        "Yes. Under the Title VII burden-shifting framework, after the employer offers a legitimate, nondiscriminatory reason the plaintiff must show pretext; evidence that a similarly situated coworker outside the protected class committed the same violations and was only warned is sufficient evidence of pretext, so the claim survives summary judgment.",
        "No. Under the Title VII burden-shifting framework, the documented policy violations are a legitimate, nondiscriminatory reason for discharge, and without comparator or other evidence that this reason was pretextual the claim fails.",
    ],
};

/// A traffic stop extended for a dog sniff: reasonable suspicion decides.
const EXTENDED_STOP: Doctrine = Doctrine {
    question: "Must the evidence found in the dog sniff be suppressed?",
    facts: [
        "Before the citation was complete, the officer smelled marijuana and saw a digital scale on the seat.",
        "Nothing during the stop suggested criminal activity beyond the traffic violation.",
    ],
    holdings: [
        "No, the evidence is not suppressed. A traffic stop may be prolonged beyond its mission only with reasonable suspicion; the odor of marijuana and the scale observed during the stop supplied that suspicion, so extending the stop for the dog sniff was lawful.",
        "Yes, the evidence must be suppressed. Authority for a traffic stop ends when its tasks are or reasonably should be completed; prolonging the stop for a dog sniff without independent reasonable suspicion violates the Fourth Amendment.",
    ],
};

/// The statute of frauds for goods: the specially manufactured goods exception decides.
const STATUTE_OF_FRAUDS: Doctrine = Doctrine {
    question: "Is the oral contract enforceable?",
    facts: [
        "The goods were specially manufactured for {P}, were not suitable for sale to others, and {O} had substantially begun their manufacture.",
        "The goods were standard inventory that {O} could resell to other buyers.",
    ],
    holdings: [
        "Yes, the contract is enforceable. A contract for the sale of goods for $500 or more generally requires a signed writing, but the specially manufactured goods exception applies when the goods are not suitable for sale to others and the seller has substantially begun their manufacture.",
        "No, the contract is not enforceable. A contract for the sale of goods for $500 or more requires a writing signed by the party against whom enforcement is sought, and no exception applies to standard goods the seller can resell.",
    ],
};

/// Premises liability: constructive notice (time on the floor, no inspection) decides.
const PREMISES_NOTICE: Doctrine = Doctrine {
    question: "Is the store liable for the injury?",
    facts: [
        "An employee had walked the aisle and inspected it five minutes before the fall.",
        "The store's inspection log shows no inspection of that aisle during that time.",
    ],
    holdings: [
        "Yes, the store is liable. A business owes invitees reasonable care and is liable for a hazard it knew of or would have discovered through reasonable inspection; a hazard left for this long without any inspection gives constructive notice.",
        "No, the store is not liable. Liability to an invitee requires actual or constructive notice of the hazard; the hazard had not existed long enough, or the store had reasonably inspected, so constructive notice is not established.",
    ],
};

/// Miranda: custody decides.
const MIRANDA_CUSTODY: Doctrine = Doctrine {
    question: "Must the statements be suppressed?",
    facts: [
        "The questioning took place in a locked interrogation room at the station, and {P} asked to leave but was told to stay.",
        "The questioning took place at {P}'s kitchen table, and the detectives told {P} at the outset that {P} was free to end the interview at any time.",
    ],
    holdings: [
        "Yes, the statements must be suppressed. Miranda warnings are required before custodial interrogation; a reasonable person held in a locked room and told to stay would not feel free to leave, so the questioning was custodial.",
        "No, the statements are admissible. Miranda applies only to custodial interrogation; questioning in one's own home after being told one is free to end it is not custody.",
    ],
};

fn scenario(kind: usize, rng: &mut Rng) -> Scenario {
    match kind {
        0 => {
            let (job, violation) = *rng.pick(JOBS);
            let comparator = rng.chance(0.5);
            let tenure = rng.range(2, 19);
            let facts = format!(
                "After {tenure} years as a {job}, {{P}} was discharged for {violation}. The employer documented both violations. {{F}} {{P}} alleges race discrimination under Title VII."
            );
            TITLE_VII.scenario(facts, comparator, comparator)
        }
        1 => {
            let act = *rng.pick(FORCE);
            let year = rng.range(2012, 2022);
            let prior = rng.chance(0.5);
            let facts = format!(
                "In {year} a police officer, {{O}}, {act}. {{P}} sued the officer under Section 1983. {}",
                if prior {
                    format!(
                        "A published circuit decision from {} had held materially identical conduct unconstitutional.",
                        year - rng.range(2, 8)
                    )
                } else {
                    "No prior decision of the Supreme Court or the circuit addressed materially similar conduct.".into()
                }
            );
            let holding = if prior {
                "No, the officer is not entitled to qualified immunity. Qualified immunity protects officials unless they violated a clearly established right; a prior circuit decision holding materially identical conduct unconstitutional gave fair warning, so the right was clearly established."
            } else {
                "Yes, the officer is entitled to qualified immunity. Even if the conduct violated the Constitution, no controlling precedent addressed materially similar facts, so the right was not clearly established at the time."
            };
            Scenario {
                facts,
                question: "Is the officer entitled to qualified immunity?".into(),
                holding: holding.into(),
            }
        }
        2 => {
            let minutes = rng.range(7, 25);
            let reason = *rng.pick(&[
                "speeding",
                "a broken taillight",
                "an expired registration",
                "failing to signal a lane change",
            ]);
            let suspicion = rng.chance(0.5);
            let facts = format!(
                "An officer stopped {{P}} for {reason}. After writing the citation, the officer held {{P}} for another {minutes} minutes to conduct a dog sniff, which led to the discovery of drugs. {{F}}"
            );
            EXTENDED_STOP.scenario(facts, suspicion, suspicion)
        }
        3 => {
            let goods = *rng.pick(GOODS);
            let price = rng.range(2, 90) * 1000;
            let exception = rng.chance(0.5);
            let facts = format!(
                "{{P}} orally agreed to buy {goods} from {{O}} for ${price}. No signed writing exists. {{F}} {{P}} later refused the goods and invokes the statute of frauds."
            );
            STATUTE_OF_FRAUDS.scenario(facts, exception, exception)
        }
        4 => {
            let hazard = *rng.pick(HAZARDS);
            let minutes = rng.range(5, 120);
            let inspected = rng.chance(0.4);
            let notice = minutes >= 30 && !inspected;
            let facts = format!(
                "{{P}} slipped on {hazard} in an aisle of {{O}}'s grocery store. Video shows the hazard had been on the floor for {minutes} minutes. {{F}}"
            );
            PREMISES_NOTICE.scenario(facts, inspected, notice)
        }
        _ => {
            let hours = rng.range(1, 5);
            let custodial = rng.chance(0.5);
            let facts = format!(
                "Detectives questioned {{P}} for {hours} hours about a burglary without giving Miranda warnings. {{F}}"
            );
            MIRANDA_CUSTODY.scenario(facts, custodial, custodial)
        }
    }
}

fn person(rng: &mut Rng) -> String {
    format!("{} {}", rng.pick(EN_GIVEN), rng.pick(EN_SURNAMES))
}

/// Generate documents and tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let mut rng = Rng::derive(ctx.seed, "legal_en_precedents");
    let mut docs = Vec::with_capacity(ctx.scale.precedents);
    for k in 0..ctx.scale.precedents {
        let s = scenario(k % 6, &mut rng);
        let (p, o) = (person(&mut rng), person(&mut rng));
        let text = format!(
            "{p} v. {o}\n{} ({})\n\nFACTS: {}\n\nQUESTION: {}\n\nHOLDING: {}",
            rng.pick(&[
                "Court of Appeals, Ninth Circuit",
                "Court of Appeals, Fifth Circuit",
                "Supreme Court of Ohio",
                "Court of Appeals of Texas"
            ]),
            rng.range(1995, 2023),
            s.facts.replace("{P}", &p).replace("{O}", &o),
            s.question,
            s.holding
        );
        docs.push((format!("{}", 10_000 + k * 7 + rng.below(7)), text, s));
    }
    let route = Route::LegalEnPrecedents;
    let mut db = DbWriter::in_corpus(corpus, route, &ctx.scale)?;
    for (docid, text, _) in &docs {
        db.insert("documents", &[("docid", t(docid)), ("case_text", t(text)), ("corpus_role", t("precedent"))])?;
    }
    let rows = db.finish()?;
    let group: TaskGroup = "legal_en_prescriptive".parse().map_err(crate::Error::bug)?;
    let plan = plan_types(&ctx.scale, group, &["null"], ctx.scale.tasks_per_type * 5, ctx.scale.min_tasks_per_group);
    let mut trng = Rng::derive(ctx.seed, "legal_en_precedents_tasks");
    let tasks = fill(group, &plan, &mut trng, |_, rng| {
        let (docid, _, s) = rng.pick(&docs);
        let (p, o) = (person(rng), person(rng));
        let q = format!("{} {}", s.facts.replace("{P}", &p).replace("{O}", &o), s.question);
        Some(Task::untyped(
            q,
            "Answer the legal question by retrieving the controlling precedent from the provided case-law corpus. State the governing rule and briefly explain how it applies to these facts.",
            json!([{"docid": docid, "type": "precedent_case"}]),
            json!(s.holding),
        ))
    })?;
    Ok(DomainOutput { files: vec![(route, rows)], tasks: vec![(group, tasks)] })
}
