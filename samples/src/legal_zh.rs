//! Chinese court decisions (`legal/zh/legal_wenshu.db`) and the legal_zh descriptive and
//! predictive tasks.
//!
//! Each cause of action (案由) has a feature registry: structured features (amounts, places,
//! liability shares), semantic features (surrender, forgiveness, professional lenders … facts a
//! reader finds in the judgment text) and outcomes (probation, sentence months, fine, whether
//! the claim was upheld). A case's `case_features` rows are its registry values; its
//! `wenshu_content` states the same facts in prose. Outcomes depend on features through seeded
//! per-feature effects, so some associations are real and some are absent. Features are missing
//! now and then (not every judgment states everything), which is why the predictive cohorts are
//! "valid documents" only.

use std::{collections::BTreeSet, path::Path};

use anser_manifest::Route;
use anser_pycompat::round6_scaled;
use serde_json::{Value, json};

use crate::{
    Ctx, DomainOutput, Result,
    db::{DbWriter, t},
    names::{ZH_COURTS, ZH_SURNAMES},
    rng::Rng,
    stats::{self, Direction},
    task::{Task, descriptive_and_predictive},
};

/// Value type of a feature.
pub type Kind = crate::feature::Kind<()>;

/// One registry entry.
pub type Feat = crate::feature::Feat<Words, ()>;

/// The Chinese wording of a boolean feature (empty for structured ones).
#[derive(Debug, Clone, Copy)]
pub struct Words {
    /// Phrase for "是" as a condition, and a paraphrase used by semantic tasks.
    pub yes: &'static str,
    pub para: &'static str,
    /// Sentence fragment in the judgment text when "是".
    pub text: &'static str,
}

/// Structured features are never phrased.
const UNWORDED: Words = Words { yes: "", para: "", text: "" };

const fn b(
    key: &'static str,
    p: f64,
    semantic: bool,
    yes: &'static str,
    para: &'static str,
    text: &'static str,
) -> Feat {
    Feat::boolean(key, p, semantic, Words { yes, para, text })
}

const fn e(key: &'static str, values: &'static [&'static str]) -> Feat {
    Feat::enumerated(key, values, UNWORDED)
}

const fn n(key: &'static str, lo: f64, hi: f64, step: f64) -> Feat {
    Feat::number(key, (lo, hi, step), (), UNWORDED)
}

/// A cause of action with its registry and outcomes.
#[derive(Debug)]
pub struct Anyou {
    pub name: &'static str,
    /// 刑 / 民 / 行.
    pub kind: &'static str,
    pub feats: &'static [Feat],
    /// Binary outcome key, its condition phrase when "是" and when "否".
    pub outcome: (&'static str, &'static str, &'static str),
    /// Continuous outcomes: (key, phrase, range low, high).
    pub continuous: &'static [(&'static str, &'static str, f64, f64)],
}

const SURRENDER: Feat = b(
    "是否自首",
    0.35,
    true,
    "构成自首",
    "案发后主动投案并如实供述罪行",
    "案发后，被告人主动到公安机关投案，如实供述了自己的罪行。",
);

/// The causes of action of the sample.
pub const ANYOU: &[Anyou] = &[
    Anyou {
        name: "危险驾驶罪",
        kind: "刑",
        feats: &[
            n("血液酒精含量（mg/100ml）", 80.0, 320.0, 1.0),
            b(
                "是否造成交通事故",
                0.3,
                false,
                "造成交通事故",
                "驾车途中与他人车辆或行人发生碰撞",
                "被告人驾车途中与他人车辆发生碰撞，造成交通事故。",
            ),
            b(
                "是否无驾驶资格",
                0.15,
                false,
                "无驾驶资格",
                "未取得机动车驾驶证即驾车上路",
                "被告人未取得机动车驾驶证。",
            ),
            SURRENDER,
            b(
                "是否认罪认罚",
                0.7,
                true,
                "认罪认罚",
                "自愿认罪认罚并签署具结书",
                "被告人自愿认罪认罚，并在辩护人见证下签署认罪认罚具结书。",
            ),
        ],
        outcome: ("是否适用缓刑", "被宣告缓刑", "未适用缓刑"),
        continuous: &[("刑期（月）", "刑期（月）", 1.0, 6.0), ("罚金（元）", "罚金金额（元）", 1000.0, 20_000.0)],
    },
    Anyou {
        name: "盗窃罪",
        kind: "刑",
        feats: &[
            n("盗窃金额（元）", 1000.0, 200_000.0, 100.0),
            e("作案地点", &["住宅", "公共交通工具", "商场超市", "建筑工地", "其他场所"]),
            b("是否多次盗窃", 0.3, false, "属于多次盗窃", "两年内实施盗窃三次以上", "被告人在两年内多次实施盗窃。"),
            b(
                "是否入户盗窃",
                0.2,
                false,
                "属于入户盗窃",
                "非法进入他人生活场所实施盗窃",
                "被告人非法进入被害人住所实施盗窃。",
            ),
            b(
                "是否累犯",
                0.2,
                true,
                "构成累犯",
                "刑满释放后五年内再次故意犯罪",
                "被告人曾因故意犯罪被判处有期徒刑，刑满释放后五年内再犯。",
            ),
            b(
                "是否退赃退赔",
                0.5,
                true,
                "已退赃退赔",
                "案发后退还赃款赃物或赔偿被害人损失",
                "案发后被告人退还了全部赃款。",
            ),
        ],
        outcome: ("是否适用缓刑", "被宣告缓刑", "未适用缓刑"),
        continuous: &[("刑期（月）", "刑期（月）", 6.0, 60.0), ("罚金（元）", "罚金金额（元）", 2000.0, 50_000.0)],
    },
    Anyou {
        name: "诈骗罪",
        kind: "刑",
        feats: &[
            n("诈骗金额（元）", 3000.0, 2_000_000.0, 100.0),
            e("诈骗方式", &["电信网络诈骗", "虚假投资理财", "冒充公职人员", "网络刷单返利"]),
            b(
                "是否系从犯",
                0.3,
                false,
                "系从犯",
                "在共同犯罪中起次要或辅助作用",
                "在共同犯罪中，被告人起次要作用，系从犯。",
            ),
            SURRENDER,
            b("是否取得谅解", 0.4, true, "取得被害人谅解", "获得被害人书面谅解", "被告人取得了被害人的书面谅解。"),
        ],
        outcome: ("是否适用缓刑", "被宣告缓刑", "未适用缓刑"),
        continuous: &[("刑期（月）", "刑期（月）", 6.0, 120.0), ("罚金（元）", "罚金金额（元）", 5000.0, 200_000.0)],
    },
    Anyou {
        name: "交通肇事罪",
        kind: "刑",
        feats: &[
            n("死亡人数", 0.0, 3.0, 1.0),
            e("事故责任", &["全部责任", "主要责任", "同等责任"]),
            b("是否肇事逃逸", 0.2, false, "存在肇事逃逸", "事故发生后驾车逃离现场", "事故发生后，被告人驾车逃离现场。"),
            b("是否超速超载", 0.35, false, "存在超速或超载", "超速或超载驾驶", "经鉴定，事发时被告人超速驾驶。"),
            b(
                "是否赔偿并取得谅解",
                0.6,
                true,
                "赔偿并取得谅解",
                "积极赔偿被害方经济损失并获得谅解",
                "被告人已赔偿被害人近亲属经济损失并取得谅解。",
            ),
        ],
        outcome: ("是否适用缓刑", "被宣告缓刑", "未适用缓刑"),
        continuous: &[("刑期（月）", "刑期（月）", 6.0, 84.0)],
    },
    Anyou {
        name: "民间借贷纠纷",
        kind: "民",
        feats: &[
            n("借款金额（元）", 10_000.0, 2_000_000.0, 1000.0),
            n("约定年利率（%）", 0.0, 36.0, 0.1),
            b("是否有担保人", 0.35, false, "有担保人", "借款由第三人提供保证担保", "借款由第三人提供连带责任保证。"),
            b("是否出具借条", 0.85, false, "出具借条", "借款人向出借人出具了书面借条", "借款人向原告出具借条一张。"),
            b(
                "出借人是否为职业放贷人",
                0.08,
                true,
                "出借人被认定为职业放贷人",
                "出借人以放贷为业、多次向不特定人出借资金",
                "经查，原告在本院涉及多起民间借贷诉讼，系以放贷为业。",
            ),
        ],
        outcome: ("诉讼请求是否获得支持", "原告诉讼请求获得支持", "原告诉讼请求被驳回"),
        continuous: &[("判决支持金额（元）", "判决支持金额（元）", 10_000.0, 2_000_000.0)],
    },
    Anyou {
        name: "机动车交通事故责任纠纷",
        kind: "民",
        feats: &[
            e("受害人伤残等级", &["无伤残", "十级", "九级", "八级及以上"]),
            b("是否主张误工费", 0.8, false, "主张误工费", "原告请求赔偿误工损失", "原告主张误工费。"),
            b(
                "是否主张精神损害抚慰金",
                0.5,
                false,
                "主张精神损害抚慰金",
                "原告请求精神损害赔偿",
                "原告主张精神损害抚慰金。",
            ),
            b(
                "被告是否包括保险公司",
                0.8,
                false,
                "被告包括保险公司",
                "将承保肇事车辆的保险公司列为被告",
                "原告将承保肇事车辆交强险和商业三者险的保险公司列为被告。",
            ),
            b(
                "受害人是否存在过错",
                0.3,
                true,
                "受害人存在过错",
                "受害人自身对事故发生也有过错",
                "受害人驾驶电动自行车未佩戴安全头盔，对损害的发生亦有过错。",
            ),
        ],
        outcome: ("诉讼请求是否获得支持", "原告诉讼请求获得支持", "原告诉讼请求被驳回"),
        continuous: &[("判决赔偿金额（元）", "判决赔偿金额（元）", 5000.0, 600_000.0)],
    },
    Anyou {
        name: "追索劳动报酬纠纷",
        kind: "民",
        feats: &[
            n("拖欠工资金额（元）", 3000.0, 300_000.0, 100.0),
            b(
                "是否签订书面劳动合同",
                0.6,
                false,
                "签订书面劳动合同",
                "双方签有书面劳动合同",
                "双方签订了书面劳动合同。",
            ),
            b("是否经劳动仲裁", 0.9, false, "经过劳动仲裁", "起诉前已申请劳动争议仲裁", "原告起诉前已申请劳动仲裁。"),
            b(
                "证据是否充分",
                0.7,
                true,
                "欠薪证据充分",
                "劳动者提交的考勤记录、工资条等足以证明欠薪事实",
                "原告提交的考勤记录与工资条能够相互印证。",
            ),
        ],
        outcome: ("诉讼请求是否获得支持", "劳动者诉讼请求获得支持", "劳动者诉讼请求被驳回"),
        continuous: &[],
    },
    Anyou {
        name: "行政处罚纠纷",
        kind: "行",
        feats: &[
            e("处罚类型", &["罚款", "责令停产停业", "吊销许可证", "没收违法所得"]),
            n("罚款金额（元）", 1000.0, 500_000.0, 100.0),
            b("是否举行听证", 0.3, false, "举行了听证", "处罚决定作出前组织了听证", "被告在作出处罚决定前组织了听证。"),
            b(
                "是否存在程序违法",
                0.2,
                true,
                "存在程序违法",
                "行政机关未依法告知陈述、申辩权利等程序瑕疵",
                "被告作出处罚决定前未告知原告陈述、申辩的权利。",
            ),
        ],
        outcome: ("行政行为是否被撤销或确认违法", "行政行为被撤销或确认违法", "原告诉讼请求被驳回"),
        continuous: &[],
    },
];

/// One decision.
#[derive(Debug, Clone)]
pub struct Case {
    pub anhao: String,
    pub anyou: usize,
    pub court: String,
    pub date: String,
    pub procedure: &'static str,
    pub doc_type: &'static str,
    /// (feature key, value) in registry order, outcomes last; missing features are absent.
    pub features: Vec<(&'static str, String)>,
    pub content: String,
}

impl Case {
    /// The value of a feature, if recorded.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.features.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_str())
    }
}

fn fmt_num(v: f64, step: f64) -> String {
    if step >= 1.0 { format!("{v:.0}") } else { format!("{v:.1}") }
}

/// Build all cases.
pub fn build(ctx: &Ctx) -> Vec<Case> {
    let mut rng = Rng::derive(ctx.seed, "legal_zh");
    // Effects of each feature on the outcomes: (binary logit shift, continuous factor).
    let effects: Vec<Vec<(f64, f64)>> = ANYOU
        .iter()
        .map(|a| {
            a.feats
                .iter()
                .map(|_| (*rng.pick(&[-1.6, -0.9, 0.0, 0.0, 0.9, 1.6]), *rng.pick(&[-0.4, -0.2, 0.0, 0.0, 0.3, 0.6])))
                .collect()
        })
        .collect();
    let mut seen = BTreeSet::new();
    let mut cases = Vec::with_capacity(ctx.scale.zh_cases);
    while cases.len() < ctx.scale.zh_cases {
        let ai = rng.below(ANYOU.len());
        let a = &ANYOU[ai];
        let year = rng.range(2018, 2024);
        let (prov, city, districts) = *rng.pick(ZH_COURTS);
        let appeal = rng.chance(0.12);
        let d = rng.below(districts.len());
        let (court, code) = if appeal {
            (format!("{city}中级人民法院"), format!("{prov}01"))
        } else {
            (format!("{city}{}人民法院", districts[d]), format!("{prov}01{:02}", d + 2))
        };
        let anhao = format!("（{year}）{code}{}{}{}号", a.kind, if appeal { "终" } else { "初" }, rng.range(1, 9999));
        if !seen.insert(anhao.clone()) {
            continue;
        }
        let mut features = Vec::new();
        let mut logit = if a.kind == "刑" { -0.2 } else { 0.6 };
        let mut factor = 1.0;
        let mut facts = Vec::new();
        for (k, f) in a.feats.iter().enumerate() {
            let (beta, gamma) = effects[ai][k];
            let (value, x) = match f.kind {
                Kind::Bool => {
                    let yes = rng.chance(f.p);
                    if yes {
                        facts.push(f.words.text.to_string());
                    }
                    ((if yes { "是" } else { "否" }).to_string(), if yes { 1.0 } else { 0.0 })
                }
                Kind::Enum(values) => {
                    let j = rng.below(values.len());
                    facts.push(format!("{}：{}。", f.key, values[j]));
                    (values[j].to_string(), if j == 0 { 1.0 } else { 0.0 })
                }
                Kind::Num(lo, hi, step, ()) => {
                    let u = rng.unit() * rng.unit();
                    let v = ((lo + (hi - lo) * u) / step).round() * step;
                    facts.push(format!("经查明，{}为{}。", f.key, fmt_num(v, step)));
                    (fmt_num(v, step), u)
                }
            };
            logit += beta * x;
            factor *= 1.0 + gamma * x;
            // Judgments do not always state everything.
            if !rng.chance(0.06) {
                features.push((f.key, value));
            }
        }
        let p = 1.0 / (1.0 + (-logit).exp());
        let positive = rng.chance(p);
        features.push((a.outcome.0, (if positive { "是" } else { "否" }).to_string()));
        let mut verdict = if positive { a.outcome.1.to_string() } else { a.outcome.2.to_string() };
        for (j, (key, _, lo, hi)) in a.continuous.iter().enumerate() {
            // Fines are not imposed in every case; supported amounts only exist when upheld.
            if (j == 1 && rng.chance(0.3)) || (a.kind == "民" && !positive) {
                continue;
            }
            let base = lo + (hi - lo) * rng.unit() * 0.5;
            let step = if *hi > 1000.0 { 1000.0 } else { 1.0 };
            let v = ((base * factor * rng.uniform(0.8, 1.2)).clamp(*lo, *hi) / step).round() * step;
            features.push((key, fmt_num(v, step)));
            verdict.push_str(&format!("；{}：{}", key, fmt_num(v, step)));
        }
        let surname = rng.pick(ZH_SURNAMES);
        let date = format!("{year}-{:02}-{:02}", rng.range(1, 12), rng.range(1, 28));
        let party = match a.kind {
            "刑" => format!("公诉机关{city}人民检察院。被告人{surname}某，男，{}岁。", rng.range(20, 60)),
            "民" => format!("原告{}某。被告{surname}某。", rng.pick(ZH_SURNAMES)),
            _ => format!("原告{surname}某。被告{city}某行政执法局。"),
        };
        let doc_type = if rng.chance(0.9) { "判决书" } else { "裁定书" };
        let kind_word = match a.kind {
            "刑" => "刑事",
            "民" => "民事",
            _ => "行政",
        };
        let content = format!(
            "{court}\n{kind_word}{doc_type}\n{anhao}\n{party}\n本院审理的{}一案，现已审理终结。经审理查明：{}\n本院认为，根据查明的事实和相关法律规定，判决如下：{}。",
            a.name,
            facts.join(""),
            verdict
        );
        cases.push(Case {
            anhao,
            anyou: ai,
            court,
            date,
            procedure: if appeal { "二审" } else { "一审" },
            doc_type,
            features,
            content,
        });
    }
    cases
}

/// Write `legal/zh/legal_wenshu.db`; returns rows written.
pub fn write(ctx: &Ctx, cases: &[Case], corpus: &Path) -> Result<u64> {
    let route = Route::LegalZhCases;
    let mut db = DbWriter::in_corpus(corpus, route, &ctx.scale)?;
    for c in cases {
        db.insert(
            "cases",
            &[
                ("anhao", t(&c.anhao)),
                ("anyou", t(ANYOU[c.anyou].name)),
                ("wenshuleixing", t(c.doc_type)),
                ("fayuanmingcheng", t(&c.court)),
                ("caipanriqi", t(&c.date)),
                ("shenpanchengxu", t(c.procedure)),
                ("wenshu_content", t(&c.content)),
            ],
        )?;
    }
    for c in cases {
        for (k, v) in &c.features {
            db.insert("case_features", &[("anhao", t(&c.anhao)), ("feature_key", t(*k)), ("feature_value", t(v))])?;
        }
    }
    db.finish()
}

/// A condition on a case: its phrase and test.
struct Cond {
    phrase: String,
    test: Box<dyn Fn(&Case) -> bool>,
}

fn bool_cond(f: &Feat, paraphrase: bool) -> Cond {
    let key = f.key;
    Cond {
        phrase: (if paraphrase { f.words.para } else { f.words.yes }).to_string(),
        test: Box::new(move |c| c.get(key) == Some("是")),
    }
}

fn structured_cond(a: &Anyou, rng: &mut Rng, cases: &[Case], ai: usize) -> Option<Cond> {
    let plain: Vec<&Feat> = a.feats.iter().filter(|f| !f.semantic).collect();
    let f = *rng.pick(&plain);
    feat_cond(f, rng, cases, ai)
}

/// A condition on one feature: "是" for booleans, one value for enums, a threshold drawn from
/// the recorded values for numbers.
fn feat_cond(f: &Feat, rng: &mut Rng, cases: &[Case], ai: usize) -> Option<Cond> {
    match f.kind {
        Kind::Bool => Some(bool_cond(f, false)),
        Kind::Enum(values) => {
            let v = *rng.pick(values);
            let key = f.key;
            Some(Cond { phrase: format!("{key}为{v}"), test: Box::new(move |c| c.get(key) == Some(v)) })
        }
        Kind::Num(_, _, step, ()) => {
            let vals: Vec<f64> = cases
                .iter()
                .filter(|c| c.anyou == ai)
                .filter_map(|c| c.get(f.key).and_then(|v| v.parse::<f64>().ok()))
                .collect();
            if vals.is_empty() {
                return None;
            }
            let mut sorted = vals;
            sorted.sort_by(f64::total_cmp);
            let raw = sorted[rng.below(sorted.len())];
            let th = if step >= 100.0 {
                (raw / 1000.0).round() * 1000.0
            } else if step >= 1.0 {
                raw.round()
            } else {
                (raw * 10.0).round() / 10.0
            };
            let key = f.key;
            let above = rng.chance(0.6);
            let (name, unit) = key.split_once('（').map_or((key, ""), |(n, u)| (n, u.trim_end_matches('）')));
            let phrase = if above {
                format!("{name}超过{}{unit}", fmt_num(th, step))
            } else {
                format!("{name}不超过{}{unit}", fmt_num(th, step))
            };
            Some(Cond {
                phrase,
                test: Box::new(move |c| {
                    c.get(key).and_then(|v| v.parse::<f64>().ok()).is_some_and(|v| if above { v > th } else { v <= th })
                }),
            })
        }
    }
}

fn outcome_cond(a: &Anyou, rng: &mut Rng) -> Cond {
    let yes = rng.chance(0.6);
    let key = a.outcome.0;
    let want = if yes { "是" } else { "否" };
    Cond {
        phrase: (if yes { a.outcome.1 } else { a.outcome.2 }).to_string(),
        test: Box::new(move |c| c.get(key) == Some(want)),
    }
}

fn procedure_cond(rng: &mut Rng) -> Cond {
    if rng.chance(0.5) {
        let year = rng.range(2019, 2024);
        let y = year.to_string();
        Cond { phrase: format!("裁判日期在{year}年"), test: Box::new(move |c| c.date.starts_with(&y)) }
    } else {
        let second = rng.chance(0.3);
        let want = if second { "二审" } else { "一审" };
        Cond { phrase: format!("审判程序为{want}"), test: Box::new(move |c| c.procedure == want) }
    }
}

fn count_task(cases: &[Case], ai: usize, ty: &'static str, conds: &[Cond], q: String) -> Option<Task> {
    let hits: Vec<Value> =
        cases.iter().filter(|c| c.anyou == ai && conds.iter().all(|k| (k.test)(c))).map(|c| json!(c.anhao)).collect();
    let n = hits.len();
    Some(Task::new(ty, q, "请直接写出满足全部条件的裁判文书数量，答案为整数。", Value::Array(hits), json!(n)))
}

fn descriptive(cases: &[Case], ty: &'static str, rng: &mut Rng) -> Option<Task> {
    let ai = rng.below(ANYOU.len());
    let a = &ANYOU[ai];
    match ty {
        "sql" => {
            let mut conds = vec![structured_cond(a, rng, cases, ai)?];
            if rng.chance(0.5) {
                conds.push(if rng.chance(0.5) { outcome_cond(a, rng) } else { procedure_cond(rng) });
            }
            let joined = conds.iter().map(|c| c.phrase.as_str()).collect::<Vec<_>>().join("且");
            let q = match rng.below(5) {
                0 => format!("有多少{}案件{}？", a.name, joined),
                1 => format!("{}中，{}的案件有多少？", a.name, joined),
                2 => format!("{}相关案件中，有多少案件{}？", a.name, joined),
                3 => format!("请统计{}文书里{}的案件数量。", a.name, joined),
                _ => format!("在{}案件中，{}的文书共有几份？", a.name, joined),
            };
            count_task(cases, ai, ty, &conds, q)
        }
        "semantic" => {
            let sem: Vec<&Feat> = a.feats.iter().filter(|f| f.semantic).collect();
            let f = *rng.pick(&sem);
            let mut conds = vec![bool_cond(f, true)];
            if rng.chance(0.4) {
                conds.push(outcome_cond(a, rng));
            }
            let joined = conds.iter().map(|c| c.phrase.as_str()).collect::<Vec<_>>().join("，且");
            let q = match rng.below(4) {
                0 => format!("有多少件{}案件中，{}？", a.name, joined),
                1 => format!("{}案件里，裁判文书认定{}的有几件？", a.name, joined),
                2 => format!("在{}的判决中，{}的案件共有多少件？", a.name, joined),
                _ => format!("在{}中，文书显示{}的案件有多少件？", a.name, joined),
            };
            count_task(cases, ai, ty, &conds, q)
        }
        _ => {
            let mut conds = vec![structured_cond(a, rng, cases, ai)?];
            let sem: Vec<&Feat> = a.feats.iter().filter(|f| f.semantic).collect();
            let f = *rng.pick(&sem);
            conds.push(bool_cond(f, true));
            conds.push(outcome_cond(a, rng));
            if conds[0].phrase == conds[1].phrase {
                return None;
            }
            let q = match rng.below(3) {
                0 => format!(
                    "在{}中，有多少件案件{}、{}，且法院裁判结果为{}？",
                    a.name, conds[0].phrase, conds[1].phrase, conds[2].phrase
                ),
                1 => format!(
                    "{}案件中，同时满足{}、{}并且{}的文书有多少件？",
                    a.name, conds[0].phrase, conds[1].phrase, conds[2].phrase
                ),
                _ => format!(
                    "在{}案件中，有多少件案件{}，{}，最终{}？",
                    a.name, conds[0].phrase, conds[1].phrase, conds[2].phrase
                ),
            };
            count_task(cases, ai, ty, &conds, q)
        }
    }
}

const INS_BINARY: &str = "仅使用定义范围内的有效文书（预测因素和结果均有记录），分析预测因素 X 与裁判结果 Y 的历史统计关联，不作因果推断。\
只输出一个合法 JSON 对象，顶层键为 `option` 和 `value`：`option` 取 `正向关联`、`负向关联` 或 `无明确关联`；`value` 包含 `n`（有效样本数，整数）、\
`outcome_rate_x1` 与 `outcome_rate_x0`（X=1 与 X=0 两组的结果发生率）、`odds_ratio`（优势比）和 `p_value`（双侧 Fisher 精确检验），数值保留六位小数。";

const INS_CONTINUOUS: &str = "仅使用定义范围内的有效文书（预测因素和结果均有记录），分析预测因素 X 与连续裁判结果 Y 的历史统计关联，不作因果推断。\
只输出一个合法 JSON 对象，顶层键为 `option` 和 `value`：`option` 取 `正向关联`、`负向关联` 或 `无明确关联`；`value` 包含 `n`（有效样本数，整数）、\
`median_x1` 与 `median_x0`（两组结果中位数）、`median_difference`（中位数差）以及 `ci95_lower`、`ci95_upper`（bootstrap 中位数差的 95% 置信区间），数值保留六位小数。";

fn option_zh(d: Direction) -> &'static str {
    match d {
        Direction::Positive => "正向关联",
        Direction::Negative => "负向关联",
        Direction::Unclear => "无明确关联",
    }
}

/// X as (phrase, value test returning Some(x) when recorded).
type Factor = (String, Box<dyn Fn(&Case) -> Option<bool>>);

fn factor(a: &Anyou, semantic: bool, rng: &mut Rng, cases: &[Case], ai: usize) -> Option<Factor> {
    let pool: Vec<&Feat> = a.feats.iter().filter(|f| f.semantic == semantic).collect();
    let f = *rng.pick(&pool);
    let key = f.key;
    match f.kind {
        Kind::Bool => Some((
            (if semantic { f.words.para } else { f.words.yes }).to_string(),
            Box::new(move |c: &Case| c.get(key).map(|v| v == "是")),
        )),
        Kind::Enum(values) => {
            let v = *rng.pick(values);
            Some((format!("{key}为{v}"), Box::new(move |c: &Case| c.get(key).map(|x| x == v))))
        }
        Kind::Num(..) => {
            let cond = feat_cond(f, rng, cases, ai)?;
            let test = cond.test;
            Some((cond.phrase, Box::new(move |c: &Case| c.get(key).map(|_| test(c)))))
        }
    }
}

fn predictive(cases: &[Case], ty: &'static str, rng: &mut Rng, seed: u64) -> Option<Task> {
    let ai = rng.below(ANYOU.len());
    let a = &ANYOU[ai];
    let (phrase, x_of) = factor(a, ty == "semantic", rng, cases, ai)?;
    let continuous = !a.continuous.is_empty() && rng.chance(0.6);
    if continuous {
        let (key, label, _, _) = *rng.pick(a.continuous);
        let mut x1 = Vec::new();
        let mut x0 = Vec::new();
        let mut ids = Vec::new();
        for c in cases.iter().filter(|c| c.anyou == ai) {
            let (Some(x), Some(y)) = (x_of(c), c.get(key).and_then(|v| v.parse::<f64>().ok())) else { continue };
            if x {
                x1.push(y)
            } else {
                x0.push(y)
            }
            ids.push(json!(c.anhao));
        }
        if x1.len() < 5 || x0.len() < 5 {
            return None;
        }
        let restrict = if key.starts_with("罚金") {
            "在实际判处罚金且金额可提取的案件中，"
        } else if a.kind == "民" {
            "在诉讼请求获得支持且金额可提取的案件中，"
        } else {
            ""
        };
        let q = match rng.below(4) {
            0 => format!("在{}案件中，{restrict}{phrase}的案件与其他案件的{label}是否存在明确差异？", a.name),
            1 => format!("在{}案件中，{restrict}{phrase}案件与非该因素案件的{label}是否存在明确差异？", a.name),
            2 => format!("就{}案件而言，{restrict}{label}在{phrase}与否的两组之间有没有明显不同？", a.name),
            _ => format!("{}案件里，{restrict}{phrase}与否，对应的{label}有无明确的统计差异？", a.name),
        };
        let s = stats::continuous_association(&x1, &x0, seed ^ Rng::derive(0, &q).next_u64())?;
        let gt = json!({"option": option_zh(s.direction), "value": {
            "n": s.n, "median_x1": round6_scaled(s.median_x1), "median_x0": round6_scaled(s.median_x0),
            "median_difference": round6_scaled(s.median_difference), "ci95_lower": round6_scaled(s.ci95_lower), "ci95_upper": round6_scaled(s.ci95_upper)}});
        Some(Task::new(ty, q, INS_CONTINUOUS, Value::Array(ids), gt))
    } else {
        let mut table = stats::Table2x2::default();
        let mut ids = Vec::new();
        for c in cases.iter().filter(|c| c.anyou == ai) {
            let (Some(x), Some(y)) = (x_of(c), c.get(a.outcome.0).map(|v| v == "是")) else { continue };
            table.add(x, y);
            ids.push(json!(c.anhao));
        }
        if !table.arms_hold(5) {
            return None;
        }
        let outcome = a.outcome.1;
        let q = match rng.below(4) {
            0 => format!("在{}案件中，{phrase}与{outcome}之间是否存在明确的统计关联？", a.name),
            1 => format!("在{}案件中，{phrase}与是否{outcome}之间是否存在明确的统计关联？", a.name),
            2 => format!("{}案件中，{outcome}的比例在{phrase}与否的案件之间是否不同？", a.name),
            _ => format!("{}案件中，{phrase}的案件是否更可能或更不可能{outcome}？", a.name),
        };
        let s = table.association();
        let gt = stats::binary_ground_truth(option_zh(s.direction), &s);
        Some(Task::new(ty, q, INS_BINARY, Value::Array(ids), gt))
    }
}

/// Generate corpus and tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let cases = build(ctx);
    let rows = write(ctx, &cases, corpus)?;
    let tasks = descriptive_and_predictive(
        ctx,
        "legal_zh",
        (&["sql", "semantic", "reasoning"], |ty, rng| descriptive(&cases, ty, rng)),
        (&["structured", "semantic"], |ty, rng| predictive(&cases, ty, rng, ctx.seed)),
    )?;
    Ok(DomainOutput { files: vec![(Route::LegalZhCases, rows)], tasks })
}
