//! US court cases (`legal/en/legal_cases.db`) and the legal_en descriptive and predictive tasks.
//!
//! Every case has one matter type from the annotation registry (`annotation_registry`:
//! matter types, structured features, semantic features judged from the opinion, and one binary
//! outcome per matter type). `case_feature` holds each case's values (with the opinion sentence
//! as evidence, or `value_status = 'missing'` when the opinion does not say), the opinion text
//! states the same facts, and `search_document` chunks the opinion. `case_id` is the normalised
//! cluster id `cluster_<digits>`, the evidence identifier of the tasks.

use std::{collections::BTreeSet, path::Path};

use anser_manifest::Route;
use serde_json::{Value, json};
use sha1::{Digest, Sha1};

use crate::{
    Ctx, DomainOutput, Result,
    db::{DbWriter, i, opt_r, opt_t, r, t},
    names::EN_SURNAMES,
    rng::Rng,
    stats::{self, Direction},
    task::{Task, descriptive_and_predictive},
};

/// Value type of a feature (numbers carry their unit).
pub type Kind = crate::feature::Kind<&'static str>;

/// A registry feature.
pub type Feat = crate::feature::Feat<Words, &'static str>;

/// The English wording of a feature.
#[derive(Debug, Clone, Copy)]
pub struct Words {
    /// Condition phrase (`{}` is replaced by an enum value).
    pub phrase: &'static str,
    /// Opinion sentence when true / for the value (`{}`).
    pub text: &'static str,
}

const fn b(key: &'static str, p: f64, semantic: bool, phrase: &'static str, text: &'static str) -> Feat {
    Feat::boolean(key, p, semantic, Words { phrase, text })
}

const fn e(key: &'static str, values: &'static [&'static str], phrase: &'static str, text: &'static str) -> Feat {
    Feat::enumerated(key, values, Words { phrase, text })
}

const fn n(
    key: &'static str,
    lo: f64,
    hi: f64,
    step: f64,
    unit: &'static str,
    phrase: &'static str,
    text: &'static str,
) -> Feat {
    Feat::number(key, (lo, hi, step), unit, Words { phrase, text })
}

/// A matter type.
#[derive(Debug)]
pub struct Matter {
    pub key: &'static str,
    pub display: &'static str,
    pub description: &'static str,
    pub aliases: &'static [&'static str],
    pub practice_area: &'static str,
    pub feats: &'static [Feat],
    /// Outcome key, phrase, opinion sentences for true and false.
    pub outcome: (&'static str, &'static str, &'static str, &'static str),
}

/// The matter types of the sample.
pub const MATTERS: &[Matter] = &[
    Matter {
        key: "employment_discrimination",
        display: "employment-discrimination",
        description: "Claims that an employer discriminated on the basis of a protected characteristic.",
        aliases: &["Title VII", "ADEA", "ADA employment"],
        practice_area: "employment",
        feats: &[
            e(
                "protected_class",
                &["race", "sex", "age", "disability", "national_origin"],
                "{} as a protected class",
                "The plaintiff alleged discrimination based on {}.",
            ),
            b(
                "retaliation_analysis",
                0.35,
                true,
                "substantive retaliation analysis",
                "We next consider whether the termination was retaliation for the plaintiff's protected complaint.",
            ),
            b(
                "expert_testimony",
                0.2,
                true,
                "expert testimony about the employment claim",
                "The parties offered competing expert testimony on the statistical disparity in promotions.",
            ),
            n(
                "damages_awarded_usd",
                0.0,
                500_000.0,
                1000.0,
                "USD",
                "an award of at least ${}",
                "The jury awarded ${} in damages.",
            ),
        ],
        outcome: (
            "relief_granted_lower",
            "relief granted by the lower court",
            "The district court granted relief to the plaintiff.",
            "The district court denied the plaintiff any relief.",
        ),
    },
    Matter {
        key: "section_1983",
        display: "Section 1983",
        description: "Civil-rights actions under 42 U.S.C. § 1983 against state actors.",
        aliases: &["civil rights", "§ 1983"],
        practice_area: "civil_rights",
        feats: &[
            e(
                "claim_type",
                &["Fourth Amendment", "due-process", "Eighth Amendment", "First Amendment"],
                "a {} claim",
                "The complaint asserts a {} claim.",
            ),
            e(
                "defendant_type",
                &["police", "prison officials", "municipal"],
                "{} involvement",
                "The defendants are {} defendants.",
            ),
            b(
                "excessive_force_alleged",
                0.3,
                false,
                "excessive-force allegations",
                "The plaintiff alleges that officers used excessive force during the arrest.",
            ),
            b(
                "qualified_immunity_analysis",
                0.45,
                true,
                "substantive qualified-immunity analysis",
                "We must decide whether the right was clearly established so as to overcome qualified immunity.",
            ),
            b(
                "medical_care_discussion",
                0.2,
                true,
                "denial or adequacy of medical care",
                "The record shows the plaintiff's requests for medical care were delayed for several days.",
            ),
        ],
        outcome: (
            "relief_denied_current",
            "denial of relief by the current court",
            "We affirm the denial of relief.",
            "We reverse and remand for further proceedings.",
        ),
    },
    Matter {
        key: "drug_offense",
        display: "drug-offense",
        description: "Criminal prosecutions for controlled-substance offenses.",
        aliases: &["narcotics", "controlled substances"],
        practice_area: "criminal",
        feats: &[
            n(
                "sentence_months",
                0.0,
                360.0,
                1.0,
                "months",
                "a sentence of at least {} months",
                "The court imposed a sentence of {} months.",
            ),
            n(
                "conviction_counts",
                1.0,
                6.0,
                1.0,
                "counts",
                "at least {} conviction counts",
                "The defendant was convicted on {} counts.",
            ),
            b(
                "weapon_discussion",
                0.25,
                true,
                "a weapon discussion",
                "Officers recovered a loaded handgun near the drugs, and we address the firearm enhancement.",
            ),
            b(
                "traffic_stop_discussion",
                0.3,
                true,
                "a traffic stop or roadside encounter",
                "The evidence was found after a traffic stop for a broken taillight.",
            ),
        ],
        outcome: (
            "conviction_affirmed",
            "the conviction affirmed by the current court",
            "The judgment of conviction is affirmed.",
            "The conviction is vacated.",
        ),
    },
    Matter {
        key: "asylum",
        display: "asylum and protection",
        description: "Petitions for review of asylum, withholding and CAT protection decisions.",
        aliases: &["immigration", "withholding of removal"],
        practice_area: "immigration",
        feats: &[
            e(
                "country_of_origin",
                &["China", "Mexico", "El Salvador", "Guatemala", "India", "Honduras"],
                "{} as the country of origin",
                "The petitioner is a native and citizen of {}.",
            ),
            b(
                "adverse_credibility",
                0.35,
                false,
                "an adverse credibility finding",
                "The immigration judge made an adverse credibility finding.",
            ),
            b(
                "persecution_analysis",
                0.6,
                true,
                "persecution or fear of persecution",
                "We consider whether the harm the petitioner suffered rises to the level of persecution.",
            ),
        ],
        outcome: (
            "relief_denied_current",
            "no relief awarded",
            "The petition for review is denied.",
            "The petition for review is granted.",
        ),
    },
    Matter {
        key: "breach_of_contract",
        display: "breach-of-contract",
        description: "Disputes over the breach of a private contract.",
        aliases: &["contract dispute"],
        practice_area: "commercial",
        feats: &[
            e(
                "contract_type",
                &["construction", "sale of goods", "employment", "lease"],
                "the contract type included {}",
                "The dispute arises from a {} contract.",
            ),
            n(
                "damages_awarded_usd",
                0.0,
                2_000_000.0,
                1000.0,
                "USD",
                "an award of at least ${}",
                "The court awarded ${} in damages.",
            ),
            b(
                "class_action_alleged",
                0.1,
                false,
                "a class action was alleged",
                "The plaintiffs sued on behalf of a putative class.",
            ),
            b(
                "consequential_damages_analysis",
                0.3,
                true,
                "consequential-damages analysis",
                "We address whether lost profits were recoverable as consequential damages.",
            ),
        ],
        outcome: (
            "plaintiff_prevailed",
            "the plaintiff prevailing",
            "Judgment is entered for the plaintiff.",
            "Judgment is entered for the defendant.",
        ),
    },
    Matter {
        key: "apa_review",
        display: "APA-review",
        description: "Challenges to federal agency action under the Administrative Procedure Act.",
        aliases: &["administrative law", "agency review"],
        practice_area: "administrative",
        feats: &[
            e(
                "agency",
                &["EPA", "DHS", "HHS", "DOL", "FCC"],
                "{} as the agency",
                "The petitioners challenge an action of the {}.",
            ),
            n(
                "penalty_amount_usd",
                0.0,
                1_000_000.0,
                1000.0,
                "USD",
                "an agency penalty of at least ${}",
                "The agency assessed a civil penalty of ${}.",
            ),
            b(
                "final_agency_action",
                0.8,
                false,
                "a final agency action",
                "The order under review is a final agency action.",
            ),
            b(
                "arbitrary_capricious_analysis",
                0.55,
                true,
                "arbitrary-and-capricious review",
                "We ask whether the agency examined the relevant data and articulated a satisfactory explanation.",
            ),
        ],
        outcome: (
            "remanded_to_agency",
            "the matter was remanded to the agency",
            "We vacate and remand to the agency.",
            "The petition is denied and the agency's decision stands.",
        ),
    },
];

/// A case with its recorded feature values (`None` = missing).
#[derive(Debug, Clone)]
pub struct Case {
    pub case_id: String,
    pub cluster: u64,
    pub matter: usize,
    pub name: String,
    pub year: i64,
    pub court: &'static str,
    pub values: Vec<(&'static str, Option<Value>)>,
    pub sentences: Vec<String>,
}

impl Case {
    /// The recorded value of a feature.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_ref())
    }
}

const COURTS: &[(&str, &str, &str)] = &[
    ("ca9", "federal_appellate", "appellate"),
    ("ca5", "federal_appellate", "appellate"),
    ("ca2", "federal_appellate", "appellate"),
    ("nysd", "federal_district", "trial"),
    ("txsd", "federal_district", "trial"),
    ("cal", "state_supreme", "supreme"),
];

fn render_num(v: f64) -> String {
    format!("{v:.0}")
}

/// Build all cases.
pub fn build(ctx: &Ctx) -> Vec<Case> {
    let mut rng = Rng::derive(ctx.seed, "legal_en");
    let effects: Vec<Vec<f64>> = MATTERS
        .iter()
        .map(|m| m.feats.iter().map(|_| *rng.pick(&[-1.4, -0.8, 0.0, 0.0, 0.8, 1.4])).collect())
        .collect();
    let mut seen = BTreeSet::new();
    let mut cases = Vec::with_capacity(ctx.scale.en_cases);
    while cases.len() < ctx.scale.en_cases {
        let cluster =
            if rng.chance(0.2) { rng.range(100_000, 9_999_999) } else { rng.range(10_000_000, 11_999_999) } as u64;
        if !seen.insert(cluster) {
            continue;
        }
        let mi = rng.below(MATTERS.len());
        let m = &MATTERS[mi];
        let mut values = Vec::new();
        let mut sentences = Vec::new();
        let mut logit = 0.0;
        for (k, f) in m.feats.iter().enumerate() {
            let (value, x, sentence) = match f.kind {
                Kind::Bool => {
                    let yes = rng.chance(f.p);
                    (json!(yes), if yes { 1.0 } else { 0.0 }, yes.then(|| f.words.text.to_string()))
                }
                Kind::Enum(vals) => {
                    let j = rng.below(vals.len());
                    (json!(vals[j]), if j == 0 { 1.0 } else { 0.0 }, Some(f.words.text.replace("{}", vals[j])))
                }
                Kind::Num(lo, hi, step, _) => {
                    let u = rng.unit() * rng.unit();
                    let v = ((lo + (hi - lo) * u) / step).round() * step;
                    (json!(v), u, Some(f.words.text.replace("{}", &render_num(v))))
                }
            };
            logit += effects[mi][k] * x;
            let missing = rng.chance(0.05);
            if let Some(s) = sentence.filter(|_| !missing) {
                sentences.push(s);
            }
            values.push((f.key, (!missing).then_some(value)));
        }
        let yes = rng.chance(1.0 / (1.0 + (-logit).exp()));
        sentences.push((if yes { m.outcome.2 } else { m.outcome.3 }).to_string());
        values.push((m.outcome.0, Some(json!(yes))));
        let name = format!(
            "{} v. {}",
            rng.pick(EN_SURNAMES),
            match m.key {
                "drug_offense" => "United States".to_string(),
                "asylum" => "Attorney General".to_string(),
                "apa_review" => format!("{} Administrator", rng.pick(&["EPA", "Agency", "Secretary"])),
                _ => format!("{} Corp.", rng.pick(EN_SURNAMES)),
            }
        );
        cases.push(Case {
            case_id: format!("cluster_{cluster}"),
            cluster,
            matter: mi,
            name,
            year: rng.range(2005, 2024),
            court: rng.pick(COURTS).0,
            values,
            sentences,
        });
    }
    cases
}

fn registry_rows(db: &mut DbWriter) -> Result<()> {
    for m in MATTERS {
        db.insert(
            "annotation_registry",
            &[
                ("registry_type", t("matter_type")),
                ("registry_key", t(m.key)),
                ("display_name", t(m.display)),
                ("description", t(m.description)),
                ("status", t("active")),
                ("aliases_json", t(json!(m.aliases).to_string())),
                ("registry_version", t("2024.1")),
            ],
        )?;
    }
    for m in MATTERS {
        for f in m.feats {
            let (value_type, unit, allowed) = match f.kind {
                Kind::Bool => ("boolean", None, Some(json!([true, false]).to_string())),
                Kind::Enum(v) => ("enum", None, Some(json!(v).to_string())),
                Kind::Num(_, _, _, u) => ("number", Some(u.to_string()), None),
            };
            db.insert(
                "annotation_registry",
                &[
                    ("registry_type", t(if f.semantic { "semantic_feature" } else { "structured_feature" })),
                    ("registry_key", t(format!("{}.{}", m.key, f.key))),
                    ("parent_key", t(m.key)),
                    ("display_name", t(f.words.phrase.replace("{}", "…"))),
                    ("description", t(format!("{}: {}", f.key, f.words.text.replace("{}", "…")))),
                    ("value_type", t(value_type)),
                    ("unit", opt_t(unit)),
                    ("status", t("active")),
                    ("aliases_json", t("[]")),
                    ("allowed_values_json", opt_t(allowed)),
                    ("registry_version", t("2024.1")),
                ],
            )?;
        }
        db.insert(
            "annotation_registry",
            &[
                ("registry_type", t("outcome")),
                ("registry_key", t(format!("{}.{}", m.key, m.outcome.0))),
                ("parent_key", t(m.key)),
                ("display_name", t(m.outcome.1)),
                ("description", t(format!("{}: true when the opinion reports {}", m.outcome.0, m.outcome.1))),
                ("value_type", t("boolean")),
                ("status", t("active")),
                ("aliases_json", t("[]")),
                ("allowed_values_json", t(json!([true, false]).to_string())),
                ("registry_version", t("2024.1")),
            ],
        )?;
    }
    Ok(())
}

/// Write `legal/en/legal_cases.db`; returns rows written.
pub fn write(ctx: &Ctx, cases: &[Case], corpus: &Path) -> Result<u64> {
    let route = Route::LegalEnCases;
    let mut db = DbWriter::in_corpus(corpus, route, &ctx.scale)?;
    registry_rows(&mut db)?;
    for c in cases {
        let m = &MATTERS[c.matter];
        let (court, jurisdiction, level) = *COURTS.iter().find(|x| x.0 == c.court).unwrap_or(&COURTS[0]);
        let opinion_id = format!("op_{}", c.cluster);
        db.insert(
            "case_record",
            &[
                ("case_id", t(&c.case_id)),
                ("cluster_id", t(c.cluster.to_string())),
                ("docket_id", t(format!("dk_{}", c.cluster))),
                ("docket_number", t(format!("{}-{:04}", c.year % 100, c.cluster % 10_000))),
                ("case_name", t(&c.name)),
                ("case_name_docket", t(&c.name)),
                ("court_id", t(court)),
                ("jurisdiction_type", t(jurisdiction)),
                ("court_level", t(level)),
                ("decision_date", t(format!("{}-{:02}-{:02}", c.year, 1 + c.cluster % 12, 1 + c.cluster % 28))),
                ("decision_year", i(c.year)),
                ("publication_status_raw", t("Published")),
                ("precedential_status", t("Precedential")),
                ("source", t("courtlistener")),
                ("opinion_ids_json", t(json!([opinion_id]).to_string())),
                ("primary_practice_area", t(m.practice_area)),
                ("practice_areas_json", t(json!([m.practice_area]).to_string())),
                ("matter_types_json", t(json!([m.key]).to_string())),
                ("legal_issues_json", t(json!(m.aliases).to_string())),
            ],
        )?;
    }
    for c in cases {
        let m = &MATTERS[c.matter];
        let opinion_id = format!("op_{}", c.cluster);
        let extra = match ctx.scale.release {
            Some(_) => release_paragraphs(ctx.seed, c),
            None => Vec::new(),
        };
        let mut text = format!("{}. {}", c.name, c.sentences.join(" "));
        for (_, paragraph) in &extra {
            text.push(' ');
            text.push_str(paragraph);
        }
        db.insert(
            "opinion_record",
            &[
                ("opinion_id", t(&opinion_id)),
                ("case_id", t(&c.case_id)),
                ("cluster_id", t(c.cluster.to_string())),
                ("opinion_type", t("majority")),
                ("preferred_text", t(&text)),
                ("preferred_text_source", t("html_with_citations")),
                ("has_usable_text", i(1)),
                ("text_length", i(text.chars().count() as i64)),
                ("text_sha1", t(format!("{:x}", Sha1::digest(text.as_bytes())))),
                ("quality_metrics_json", t(json!({"sentences": c.sentences.len()}).to_string())),
            ],
        )?;
        for (k, (key, value)) in c.values.iter().enumerate() {
            let feat = m.feats.iter().find(|f| f.key == *key);
            let unit = feat.and_then(|f| match f.kind {
                Kind::Num(_, _, _, u) => Some(u.to_string()),
                _ => None,
            });
            let quote: Option<String> = value.as_ref().and_then(|_| {
                let needle = match feat {
                    Some(f) => f.words.text.split("{}").next().unwrap_or(f.words.text).to_string(),
                    None => String::new(),
                };
                c.sentences.iter().find(|s| !needle.is_empty() && s.starts_with(&needle)).cloned()
            });
            db.insert(
                "case_feature",
                &[
                    ("feature_id", t(format!("cf_{}_{:02}", c.cluster, k + 1))),
                    ("case_id", t(&c.case_id)),
                    ("matter_annotation_id", t(format!("ma_{}_1", c.cluster))),
                    ("matter_type", t(m.key)),
                    ("feature_key", t(*key)),
                    ("value_status", t(if value.is_some() { "observed" } else { "missing" })),
                    ("value_json", opt_t(value.as_ref().map(Value::to_string))),
                    (
                        "value_text",
                        opt_t(value.as_ref().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))),
                    ),
                    ("value_number", opt_r(value.as_ref().and_then(Value::as_f64).filter(|_| unit.is_some()))),
                    ("unit", opt_t(unit.clone())),
                    ("confidence", r(0.9)),
                    ("evidence_json", opt_t(quote.map(|q| json!([q]).to_string()))),
                    ("missing_reason", opt_t(value.is_none().then(|| "not_addressed_in_opinion".to_string()))),
                ],
            )?;
        }
        let mid = c.sentences.len() / 2;
        // An empty half is skipped but keeps its number (`_d2` stays the analysis).
        let mut chunks: Vec<(&str, String)> = [("background", &c.sentences[..mid]), ("analysis", &c.sentences[mid..])]
            .into_iter()
            .map(|(section, sents)| (section, sents.join(" ")))
            .collect();
        chunks.extend(extra);
        for (k, (section, chunk)) in chunks.into_iter().enumerate() {
            if chunk.is_empty() {
                continue;
            }
            let bm25: String = chunk
                .to_lowercase()
                .chars()
                .map(|ch| if ch.is_alphanumeric() || ch == ' ' { ch } else { ' ' })
                .collect();
            db.insert(
                "search_document",
                &[
                    ("document_id", t(format!("{}_d{}", c.case_id, k + 1))),
                    ("case_id", t(&c.case_id)),
                    ("opinion_id", t(&opinion_id)),
                    ("section_type", t(section)),
                    ("chunk_token_count", i(chunk.split_whitespace().count() as i64)),
                    ("bm25_text", t(bm25.split_whitespace().collect::<Vec<_>>().join(" "))),
                    ("chunk_text", t(chunk)),
                ],
            )?;
        }
    }
    db.finish()
}

/// Opinion paragraphs that state no annotated fact (procedure, standard of review, closing),
/// each one search document. At release size they bring an opinion to the release's ≈ 5.3
/// search documents per case; drawn from a stream of the case's own.
const OPINION_BOILERPLATE: &[(&str, &[&str])] = &[
    (
        "procedural_history",
        &[
            "The matter was tried to the district court, which entered judgment after considering the parties' submissions.",
            "Following the entry of judgment, the losing party filed a timely notice of appeal.",
            "The parties submitted briefs, and the court heard oral argument before taking the case under submission.",
            "Jurisdiction is proper because the judgment below disposed of all claims as to all parties.",
        ],
    ),
    (
        "standard_of_review",
        &[
            "We review questions of law de novo and findings of fact for clear error.",
            "A finding is clearly erroneous only when the reviewing court is left with the definite and firm conviction that a mistake has been committed.",
            "Evidentiary rulings are reviewed for abuse of discretion, and we will not reverse unless the error affected a party's substantial rights.",
            "Where the record supports two permissible views of the evidence, the factfinder's choice between them cannot be clearly erroneous.",
        ],
    ),
    (
        "discussion",
        &[
            "The parties dispute how the governing standard applies to the record before us.",
            "We decline to reach arguments raised for the first time on appeal.",
            "Nothing in the text of the provision suggests that the legislature intended a different result.",
            "The remaining contentions have been considered and do not warrant separate discussion.",
            "We are not persuaded that the authorities cited by the parties compel a contrary conclusion.",
        ],
    ),
    (
        "disposition",
        &[
            "For the foregoing reasons, the judgment is resolved as stated in this opinion.",
            "The case is remanded for further proceedings consistent with this opinion where required.",
            "Each party shall bear its own costs on appeal.",
        ],
    ),
];

/// The release-size extra paragraphs of a case's opinion: two to four of the boilerplate
/// sections (a third of the cases get one more), each 2–6 sentences.
fn release_paragraphs(seed: u64, c: &Case) -> Vec<(&'static str, String)> {
    let mut rng = Rng::derive(seed, &format!("legal_en_opinion_{}", c.case_id));
    let n = rng.range(2, 4) as usize + usize::from(rng.chance(0.3));
    OPINION_BOILERPLATE
        .iter()
        .take(n)
        .map(|(section, sentences)| {
            let k = rng.range(2, 6) as usize;
            (*section, (0..k).map(|_| *rng.pick(sentences)).collect::<Vec<_>>().join(" "))
        })
        .collect()
}

/// Whether a case meets a condition (`None` when the feature is missing).
type CaseTest = Box<dyn Fn(&Case) -> Option<bool>>;

/// A condition on a case.
struct Cond {
    phrase: String,
    test: CaseTest,
}

fn feat_cond(f: &Feat, cases: &[Case], mi: usize, rng: &mut Rng) -> Option<Cond> {
    let key = f.key;
    match f.kind {
        Kind::Bool => Some(Cond {
            phrase: f.words.phrase.to_string(),
            test: Box::new(move |c| c.get(key).and_then(Value::as_bool)),
        }),
        Kind::Enum(vals) => {
            let v = *rng.pick(vals);
            Some(Cond {
                phrase: f.words.phrase.replace("{}", v),
                test: Box::new(move |c| c.get(key).and_then(Value::as_str).map(|x| x == v)),
            })
        }
        Kind::Num(_, _, step, _) => {
            let mut vals: Vec<f64> =
                cases.iter().filter(|c| c.matter == mi).filter_map(|c| c.get(key).and_then(Value::as_f64)).collect();
            if vals.is_empty() {
                return None;
            }
            vals.sort_by(f64::total_cmp);
            let raw = vals[vals.len() / 4 + rng.below(vals.len() / 2 + 1).min(vals.len() - 1 - vals.len() / 4)];
            let th = if step >= 1000.0 { (raw / 10_000.0).round() * 10_000.0 } else { raw.round() }.max(step);
            Some(Cond {
                phrase: f.words.phrase.replace("{}", &render_num(th)),
                test: Box::new(move |c| c.get(key).and_then(Value::as_f64).map(|v| v >= th)),
            })
        }
    }
}

fn outcome_cond(m: &Matter) -> Cond {
    let key = m.outcome.0;
    Cond { phrase: m.outcome.1.to_string(), test: Box::new(move |c| c.get(key).and_then(Value::as_bool)) }
}

fn count(cases: &[Case], mi: usize, ty: &'static str, conds: &[Cond], q: String) -> Option<Task> {
    let hits: Vec<Value> = cases
        .iter()
        .filter(|c| c.matter == mi && conds.iter().all(|k| (k.test)(c) == Some(true)))
        .map(|c| json!(c.case_id))
        .collect();
    if hits.is_empty() {
        return None;
    }
    let n = hits.len();
    Some(Task::new(
        ty,
        q,
        "Return the number of distinct cases satisfying all conditions, as an integer.",
        Value::Array(hits),
        json!(n),
    ))
}

fn descriptive(cases: &[Case], ty: &'static str, rng: &mut Rng, release: bool) -> Option<Task> {
    let mi = rng.below(MATTERS.len());
    let m = &MATTERS[mi];
    let plain: Vec<&Feat> = m.feats.iter().filter(|f| !f.semantic).collect();
    let sem: Vec<&Feat> = m.feats.iter().filter(|f| f.semantic).collect();
    match ty {
        "sql" => {
            let cond = if rng.chance(0.25) {
                outcome_cond(m)
            } else {
                {
                    let f = *rng.pick(&plain);
                    feat_cond(f, cases, mi, rng)
                }?
            };
            let q = match rng.below(6) {
                4 => {
                    format!("What number of {} cases were characterized by the following: {}?", m.display, cond.phrase)
                }
                5 => format!("In {} matters, count the cases where {}.", m.display, cond.phrase),
                0 => format!("Within the {} caseload, how many cases met this condition: {}?", m.display, cond.phrase),
                1 => format!(
                    "For the {} docket, how many distinct cases had this characteristic: {}?",
                    m.display, cond.phrase
                ),
                2 => format!("Looking only at {} cases, what was the count for which {}?", m.display, cond.phrase),
                _ => format!("How many {} cases satisfied the following criterion: {}?", m.display, cond.phrase),
            };
            count(cases, mi, ty, &[cond], q)
        }
        "semantic" => {
            let mut cond = {
                let f = *rng.pick(&sem);
                feat_cond(f, cases, mi, rng)
            }?;
            // The release asks more semantic counts than one condition per matter can phrase
            // apart; there half of them also restrict to the matter's outcome.
            if release && rng.chance(0.5) {
                let outcome = outcome_cond(m);
                let (first, second) = (cond.test, outcome.test);
                cond = Cond {
                    phrase: format!("{} (counting only cases with {})", cond.phrase, outcome.phrase),
                    test: Box::new(move |c| Some(first(c) == Some(true) && second(c) == Some(true))),
                };
            }
            let q = match rng.below(5) {
                3 => {
                    format!("What is the count of {} cases in which the opinion addresses {}?", m.display, cond.phrase)
                }
                4 => {
                    format!("Looking across {} cases, what number of opinions engage with {}?", m.display, cond.phrase)
                }
                0 => format!(
                    "Among cases involving {}, how many include an opinion discussion of {}?",
                    m.display, cond.phrase
                ),
                1 => format!(
                    "For {} matters, how many cases have an opinion that substantively addresses {}?",
                    m.display, cond.phrase
                ),
                _ => format!("In the {} caseload, how many opinions contain {}?", m.display, cond.phrase),
            };
            count(cases, mi, ty, &[cond], q)
        }
        _ => {
            let a = {
                let f = *rng.pick(&plain);
                feat_cond(f, cases, mi, rng)
            }?;
            let s = {
                let f = *rng.pick(&sem);
                feat_cond(f, cases, mi, rng)
            }?;
            let q = match rng.below(3) {
                2 => format!(
                    "How many cases in the {} caseload satisfy the complete test of {} with {} discussed in the opinion?",
                    m.display, a.phrase, s.phrase
                ),
                0 => {
                    format!("How many {} cases meet all criteria: {} together with {}?", m.display, a.phrase, s.phrase)
                }
                _ => format!(
                    "Looking only at {} cases, how many satisfy this condition: {} and an opinion discussing {}?",
                    m.display, a.phrase, s.phrase
                ),
            };
            count(cases, mi, ty, &[a, s], q)
        }
    }
}

const INS_STRUCTURED: &str = "Analyze the historical association between the specified case factor and the judicial outcome within the defined case population (cases where both are recorded). Return only one valid JSON object with exactly the keys `option` and `value`. `option` is exactly one of `positive`, `negative` or `no_clear_relationship`. `value` has exactly five numeric fields: `n` (eligible sample size, integer), `outcome_rate_x1`, `outcome_rate_x0` (outcome rates with and without the factor), `odds_ratio` and `p_value` (two-sided Fisher exact test), rounded to six decimals. Do not read the association as causal.";

const INS_SEMANTIC: &str = "Analyze the historical association between the specified case factor and the judicial outcome within the defined case population (cases where both are recorded). A semantic factor counts only when the opinion substantively engages with it, not when a keyword merely appears. Return only one valid JSON object with exactly the keys `option` and `value`. `option` is exactly one of `positive`, `negative` or `no_clear_relationship`. `value` has exactly five numeric fields: `n`, `outcome_rate_x1`, `outcome_rate_x0`, `odds_ratio` and `p_value` (two-sided Fisher exact test), rounded to six decimals. The observed association is not causal.";

fn option_en(d: Direction) -> &'static str {
    match d {
        Direction::Positive => "positive",
        Direction::Negative => "negative",
        Direction::Unclear => "no_clear_relationship",
    }
}

fn predictive(cases: &[Case], ty: &'static str, rng: &mut Rng) -> Option<Task> {
    let mi = rng.below(MATTERS.len());
    let m = &MATTERS[mi];
    let plain: Vec<&Feat> = m.feats.iter().filter(|f| !f.semantic).collect();
    let sem: Vec<&Feat> = m.feats.iter().filter(|f| f.semantic).collect();
    let x = if ty == "structured" {
        {
            let f = *rng.pick(&plain);
            feat_cond(f, cases, mi, rng)
        }?
    } else {
        {
            let f = *rng.pick(&sem);
            feat_cond(f, cases, mi, rng)
        }?
    };
    let restrict = if ty == "multi_step" {
        Some({
            let f = *rng.pick(&plain);
            feat_cond(f, cases, mi, rng)
        }?)
    } else {
        None
    };
    let y = m.outcome.0;
    let mut table = stats::Table2x2::default();
    let mut ids = Vec::new();
    for case in cases.iter().filter(|c| c.matter == mi) {
        if let Some(rc) = &restrict
            && (rc.test)(case) != Some(true)
        {
            continue;
        }
        let (Some(xv), Some(yv)) = ((x.test)(case), case.get(y).and_then(Value::as_bool)) else { continue };
        table.add(xv, yv);
        ids.push(json!(case.case_id));
    }
    if !table.arms_hold(5) {
        return None;
    }
    let scope = match &restrict {
        Some(rc) => format!("{} cases involving {}", m.display, rc.phrase),
        None => format!("{} cases", m.display),
    };
    let q = match rng.below(6) {
        4 => format!("Within {scope}, what association was observed between {} and {}?", x.phrase, m.outcome.1),
        5 => format!("Did the presence of {} correspond to a different rate of {} in {scope}?", x.phrase, m.outcome.1),
        0 => format!("How did {scope} involving {} compare with other cases in the rate of {}?", x.phrase, m.outcome.1),
        1 => format!("Were {scope} involving {} more or less likely to result in {}?", x.phrase, m.outcome.1),
        2 => format!("Among {scope}, was {} associated with a different rate of {}?", x.phrase, m.outcome.1),
        _ => format!("Looking across {scope}, how was {} related to cases involving {}?", m.outcome.1, x.phrase),
    };
    let s = table.association();
    let gt = stats::binary_ground_truth(option_en(s.direction), &s);
    let ins = if ty == "structured" { INS_STRUCTURED } else { INS_SEMANTIC };
    Some(Task::new(ty, q, ins, Value::Array(ids), gt))
}

/// Generate corpus and tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let cases = build(ctx);
    let rows = write(ctx, &cases, corpus)?;
    let release = ctx.scale.release.is_some();
    let tasks = descriptive_and_predictive(
        ctx,
        "legal_en",
        (&["sql", "semantic", "reasoning"], |ty, rng| descriptive(&cases, ty, rng, release)),
        (&["structured", "semantic", "multi_step"], |ty, rng| predictive(&cases, ty, rng)),
    )?;
    Ok(DomainOutput { files: vec![(Route::LegalEnCases, rows)], tasks })
}
