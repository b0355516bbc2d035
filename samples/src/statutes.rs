//! Chinese statutes and judicial interpretations (`legal/zh/law_corpus.jsonl`) and the
//! legal_zh_prescriptive tasks (types 民事 / 刑事 / 行政).
//!
//! The provisions the tasks apply are stated in the sample's own words after the statutes'
//! well-known rules (surrender, recidivism, probation, limitation periods, deposits, interest
//! caps, time limits for suing an agency, hearings, the limitation on administrative penalties);
//! the rest of the collection is filler provisions of the same and other laws. Each task is a
//! fact pattern whose decisive facts (dates, amounts, conduct) are drawn at random; the ground
//! truth applies the rule to them, and the gold evidence lists the applied articles as
//! `{"id", "type": "law_article", "law", "index"}`, the release's shape.

use std::{collections::BTreeMap, path::Path};

use anser_manifest::{Route, TaskGroup};
use serde::Serialize;
use serde_json::{Value, json};

use crate::{
    Ctx, DomainOutput, Result,
    date::Date,
    db::write_jsonl,
    names::ZH_SURNAMES,
    rng::Rng,
    task::{Task, fill, plan_types},
};

const CRIMINAL: &str = "中华人民共和国刑法";
const CIVIL: &str = "中华人民共和国民法典";
const LOANS: &str = "最高人民法院关于审理民间借贷案件适用法律若干问题的规定";
const ADMIN_LITIGATION: &str = "中华人民共和国行政诉讼法";
const ADMIN_PENALTY: &str = "中华人民共和国行政处罚法";

/// Years after which an unnoticed violation is no longer punished.
const PENALTY_LIMIT_YEARS: i32 = 2;

fn core() -> Vec<(&'static str, u32, &'static str)> {
    vec![
        (
            CRIMINAL,
            65,
            "被判处有期徒刑以上刑罚的犯罪分子，刑罚执行完毕或者赦免以后，在五年以内再犯应当判处有期徒刑以上刑罚之罪的，是累犯，应当从重处罚，但是过失犯罪和不满十八周岁的人犯罪的除外。",
        ),
        (
            CRIMINAL,
            67,
            "犯罪以后自动投案，如实供述自己的罪行的，是自首。对于自首的犯罪分子，可以从轻或者减轻处罚。其中，犯罪较轻的，可以免除处罚。",
        ),
        (
            CRIMINAL,
            72,
            "对于被判处拘役、三年以下有期徒刑的犯罪分子，同时符合犯罪情节较轻、有悔罪表现、没有再犯罪的危险、宣告缓刑对所居住社区没有重大不良影响等条件的，可以宣告缓刑。",
        ),
        (CRIMINAL, 74, "对于累犯和犯罪集团的首要分子，不适用缓刑。"),
        (
            CIVIL,
            188,
            "向人民法院请求保护民事权利的诉讼时效期间为三年。诉讼时效期间自权利人知道或者应当知道权利受到损害以及义务人之日起计算。",
        ),
        (CIVIL, 195, "权利人向义务人提出履行请求的，诉讼时效中断，从中断时起，诉讼时效期间重新计算。"),
        (
            CIVIL,
            586,
            "当事人可以约定一方向对方给付定金作为债权的担保。定金的数额由当事人约定；但是，不得超过主合同标的额的百分之二十，超过部分不产生定金的效力。",
        ),
        (
            CIVIL,
            587,
            "给付定金的一方不履行债务，致使不能实现合同目的的，无权请求返还定金；收受定金的一方不履行债务，致使不能实现合同目的的，应当双倍返还定金。",
        ),
        (
            LOANS,
            25,
            "出借人请求借款人按照合同约定利率支付利息的，人民法院应予支持，但是双方约定的利率超过合同成立时一年期贷款市场报价利率四倍的除外。",
        ),
        (
            ADMIN_LITIGATION,
            46,
            "公民、法人或者其他组织直接向人民法院提起诉讼的，应当自知道或者应当知道作出行政行为之日起六个月内提出。",
        ),
        (
            ADMIN_PENALTY,
            36,
            "违法行为在二年内未被发现的，不再给予行政处罚；涉及公民生命健康安全、金融安全且有危害后果的，上述期限延长至五年。期限从违法行为发生之日起计算。",
        ),
        (
            ADMIN_PENALTY,
            63,
            "行政机关拟作出较大数额罚款、没收较大数额违法所得、降低资质等级、吊销许可证件、责令停产停业、责令关闭、限制从业等行政处罚决定，应当告知当事人有要求听证的权利。",
        ),
    ]
}

const OTHER_LAWS: &[&str] = &[
    "中华人民共和国公司法",
    "中华人民共和国劳动合同法",
    "中华人民共和国道路交通安全法",
    "中华人民共和国消费者权益保护法",
    "中华人民共和国治安管理处罚法",
];

const REGION_NAMES: &[&str] = &["广东省", "山东省", "江苏省", "浙江省", "江西省", "四川省", "北京市", "上海市"];

const REGULATION_TOPICS: &[&str] = &[
    "物业管理",
    "道路交通安全",
    "食品安全",
    "城市市容和环境卫生",
    "劳动保障监察",
    "消费者权益保护",
    "安全生产",
    "市场监督管理",
];

const FILLER: &[&str] = &[
    "当事人应当遵循诚信原则，按照约定全面履行自己的义务。",
    "有关主管部门应当依照本法规定履行监督管理职责，对违法行为依法予以处理。",
    "违反本法规定，给他人造成损害的，应当依法承担赔偿责任。",
    "当事人对决定不服的，可以依法申请复议或者提起诉讼。",
    "本法所称的主管部门，是指县级以上人民政府负责该项工作的部门。",
    "单位违反本法规定的，对单位判处罚金，并对其直接负责的主管人员和其他直接责任人员依法处罚。",
];

#[derive(Debug, Serialize)]
struct LawRecord {
    id: u64,
    law_name: String,
    item: String,
    content: String,
}

/// Generate statutes and tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let mut rng = Rng::derive(ctx.seed, "legal_zh_statutes");
    let mut articles: BTreeMap<(String, u32), String> = BTreeMap::new();
    for (law, art, text) in core() {
        articles.insert((law.to_string(), art), text.to_string());
    }
    // Filler provisions: consecutive article numbers, law after law in turn, so that every law
    // reads like a numbered statute.
    let mut laws: Vec<String> = [CRIMINAL, CIVIL, LOANS, ADMIN_LITIGATION, ADMIN_PENALTY]
        .into_iter()
        .chain(OTHER_LAWS.iter().copied())
        .map(str::to_string)
        .collect();
    for province in REGION_NAMES {
        for topic in REGULATION_TOPICS {
            laws.push(format!("{province}{topic}条例"));
        }
    }
    let mut next_article = vec![1u32; laws.len()];
    for k in 0..ctx.scale.statute_extra {
        let l = k % laws.len();
        while articles.contains_key(&(laws[l].clone(), next_article[l])) {
            next_article[l] += 1;
        }
        articles.insert((laws[l].clone(), next_article[l]), rng.pick(FILLER).to_string());
        next_article[l] += 1;
    }
    let mut records = Vec::with_capacity(articles.len());
    let mut ids = BTreeMap::new();
    for (k, ((law, art), content)) in articles.into_iter().enumerate() {
        let id = k as u64 + 1;
        ids.insert((law.clone(), art), id);
        records.push(LawRecord { id, law_name: law, item: format!("第{art}条"), content });
    }
    let route = Route::LegalZhStatutes;
    let path = corpus.join(&anser_manifest::Manifest::get().route(route).file);
    let rows = write_jsonl(&path, &records)?;
    let cite = |law: &str, art: u32| -> Value {
        let id = ids.get(&(law.to_string(), art)).copied().unwrap_or_default();
        json!({"id": id, "type": "law_article", "law": law, "index": format!("第{art}条")})
    };
    let group: TaskGroup = "legal_zh_prescriptive".parse().map_err(crate::Error::bug)?;
    let plan = plan_types(
        &ctx.scale,
        group,
        &["民事", "刑事", "行政"],
        ctx.scale.tasks_per_type * 2,
        ctx.scale.min_tasks_per_group,
    );
    let mut trng = Rng::derive(ctx.seed, "legal_zh_statutes_tasks");
    let tasks = fill(group, &plan, &mut trng, |ty, rng| task(ty, rng, &cite))?;
    Ok(DomainOutput { files: vec![(route, rows)], tasks: vec![(group, tasks)] })
}

const INSTRUCTION: &str = "请根据题目所述事实和适用的法律规范作出判断，检索并引用关键法律依据，结合案件事实说明理由。回答按“法律规则—案件适用—最终结论”组织；有多个子问题时逐项作答，控制在400字以内。";

fn add_years(d: Date, years: i32) -> Date {
    let (y, m, day) = d.parts();
    Date::ymd(y + years, m, if m == 2 && day == 29 { 28 } else { day })
}

fn add_months(d: Date, months: u32) -> Date {
    let (y, m, day) = d.parts();
    let total = m - 1 + months;
    Date::ymd(y + (total / 12) as i32, total % 12 + 1, day.min(28))
}

fn task(ty: &'static str, rng: &mut Rng, cite: &dyn Fn(&str, u32) -> Value) -> Option<Task> {
    let who = format!("{}某", rng.pick(ZH_SURNAMES));
    let other = format!("{}某", rng.pick(ZH_SURNAMES));
    let day = |rng: &mut Rng, y0: i64, y1: i64| {
        Date::ymd(rng.range(y0, y1) as i32, rng.range(1, 12) as u32, rng.range(1, 28) as u32)
    };
    let mk = |q: String, gt: String, ev: Vec<Value>| Some(Task::new(ty, q, INSTRUCTION, Value::Array(ev), json!(gt)));
    match (ty, rng.below(2)) {
        ("刑事", 0) => {
            let crime = day(rng, 2021, 2023);
            let how = rng.below(3);
            let facts = match how {
                0 => format!("案发后次日，{who}在家人陪同下主动到公安机关投案，如实供述了全部犯罪事实"),
                1 => format!("群众报警后，公安人员在现场将{who}抓获，{who}到案后如实供述了犯罪事实"),
                _ => format!("案发后{who}主动到公安机关投案，但对盗窃数额等主要犯罪事实予以否认"),
            };
            let q = format!(
                "案情：{}凌晨，{who}在某小区盗窃电动车一辆，价值人民币{}元。{facts}。问题：{who}是否构成自首？",
                crime.zh(),
                rng.range(3, 9) * 1000
            );
            let gt = match how {
                0 => format!(
                    "{who}构成自首。犯罪以后自动投案并如实供述自己罪行的是自首；{who}在未被抓获前主动投案并如实供述全部犯罪事实，符合自动投案和如实供述两个要件，可以从轻或者减轻处罚。"
                ),
                1 => format!(
                    "{who}不构成自首。自首要求自动投案并如实供述；{who}系被公安人员当场抓获，不具有投案的主动性，到案后如实供述只能作为坦白从轻处罚。"
                ),
                _ => format!(
                    "{who}不构成自首。虽然{who}主动投案，但否认主要犯罪事实，不符合如实供述自己罪行的要件，不能认定为自首。"
                ),
            };
            mk(q, gt, vec![cite(CRIMINAL, 67)])
        }
        ("刑事", _) => {
            let released = day(rng, 2014, 2020);
            let new_crime = released.plus(rng.range(200, 2600));
            let negligent = rng.chance(0.25);
            let years5 = add_years(released, 5);
            let recidivist = new_crime <= years5 && !negligent;
            let new_desc = if negligent {
                "驾驶机动车因疏忽大意发生交通事故致一人死亡（过失犯罪）"
            } else {
                "在商场内盗窃他人财物价值人民币八千元"
            };
            let q = format!(
                "案情：{who}曾因故意伤害罪被判处有期徒刑二年，于{}刑满释放。{}，{who}{new_desc}，预计判处有期徒刑一年左右，到案后认罪悔罪。问题：一是{who}是否构成累犯；二是能否对其宣告缓刑？",
                released.zh(),
                new_crime.zh()
            );
            let gt = if recidivist {
                format!(
                    "{who}构成累犯，不能宣告缓刑。前罪为有期徒刑，刑满释放后五年内（{}前）再犯应判处有期徒刑以上刑罚的故意犯罪，构成累犯，应从重处罚；对累犯不适用缓刑。",
                    years5.zh()
                )
            } else if negligent {
                format!(
                    "{who}不构成累犯，可以依法考虑缓刑。后罪为过失犯罪，属于累犯的法定除外情形；拟判三年以下有期徒刑且有悔罪表现，符合条件的可以宣告缓刑。"
                )
            } else {
                format!(
                    "{who}不构成累犯，可以依法考虑缓刑。再犯时间已超过刑满释放后五年（{}），不构成累犯；拟判三年以下有期徒刑且有悔罪表现，符合条件的可以宣告缓刑。",
                    years5.zh()
                )
            };
            let mut ev = vec![cite(CRIMINAL, 65), cite(CRIMINAL, 72)];
            if recidivist {
                ev.push(cite(CRIMINAL, 74));
            }
            mk(q, gt, ev)
        }
        ("民事", 0) => {
            let known = day(rng, 2017, 2020);
            let interrupted = rng.chance(0.4).then(|| known.plus(rng.range(300, 1000)));
            let start = interrupted.unwrap_or(known);
            let end = add_years(start, 3);
            let sued = known.plus(rng.range(700, 1900));
            let within = sued <= end;
            let mut q = format!(
                "案情：{}，{other}得知{who}拒不偿还借款本金{}万元，且当日即知道债务人身份。",
                known.zh(),
                rng.range(5, 50)
            );
            if let Some(i) = interrupted {
                q.push_str(&format!("{}，{other}通过快递向{who}发出催款函，{who}签收。", i.zh()));
            }
            q.push_str(&format!(
                "{}，{other}起诉请求{who}还款，{who}以超过诉讼时效为由抗辩。问题：该抗辩能否成立？",
                sued.zh()
            ));
            let gt = format!(
                "{}。诉讼时效期间为三年，自权利人知道权利受损及义务人之日起算{}；本案时效应至{}届满，{other}于{}起诉，{}。",
                if within {
                    "抗辩不能成立，法院应支持还款请求"
                } else {
                    "抗辩成立，法院对还款请求不予支持"
                },
                if interrupted.is_some() {
                    "，权利人提出履行请求的，时效中断并重新计算"
                } else {
                    ""
                },
                end.zh(),
                sued.zh(),
                if within { "未超过诉讼时效" } else { "已超过诉讼时效" }
            );
            let mut ev = vec![cite(CIVIL, 188)];
            if interrupted.is_some() {
                ev.push(cite(CIVIL, 195));
            }
            mk(q, gt, ev)
        }
        ("民事", _) => {
            if rng.chance(0.5) {
                let price = rng.range(10, 200) * 10_000;
                let deposit = price * rng.range(10, 35) / 100 / 1000 * 1000;
                let cap = price / 5;
                let effective = deposit.min(cap);
                let payer_breach = rng.chance(0.5);
                let q = format!(
                    "案情：{who}与{other}签订设备买卖合同，总价款{price}元，约定{who}向{other}支付定金{deposit}元并已实际交付。后{}拒不履行合同，致使合同目的不能实现。问题：定金应如何处理？",
                    if payer_breach { &who } else { &other }
                );
                let excess = deposit - effective;
                let gt = if payer_breach {
                    format!(
                        "定金不得超过主合同标的额的20%（{cap}元），超过部分不产生定金效力。{who}作为给付定金一方违约，无权请求返还{effective}元定金{}。",
                        if excess > 0 { format!("，但超出部分{excess}元应予返还") } else { String::new() }
                    )
                } else {
                    format!(
                        "定金不得超过主合同标的额的20%（{cap}元），超过部分不产生定金效力。{other}作为收受定金一方违约，应双倍返还定金{}元{}。",
                        effective * 2,
                        if excess > 0 {
                            format!("，并返还不产生定金效力的{excess}元")
                        } else {
                            String::new()
                        }
                    )
                };
                mk(q, gt, vec![cite(CIVIL, 586), cite(CIVIL, 587)])
            } else {
                let lpr = *rng.pick(&[3.45, 3.65, 3.85, 4.2]);
                let agreed = *rng.pick(&[10.0, 12.0, 15.0, 18.0, 24.0]);
                let cap = lpr * 4.0;
                let q = format!(
                    "案情：{who}向{other}借款{}万元，借款合同约定年利率{agreed}%，合同成立时一年期贷款市场报价利率为{lpr}%。{who}到期未还，{other}起诉要求按约定利率支付利息。问题：利息请求能否全部得到支持？",
                    rng.range(5, 80)
                );
                let gt = if agreed > cap {
                    format!(
                        "不能全部支持。约定利率超过合同成立时一年期LPR的四倍（{cap:.2}%）的部分不予支持，利息应按年利率{cap:.2}%计算。"
                    )
                } else {
                    format!(
                        "可以全部支持。约定年利率{agreed}%未超过合同成立时一年期LPR的四倍（{cap:.2}%），法院应按约定利率支持利息请求。"
                    )
                };
                mk(q, gt, vec![cite(LOANS, 25)])
            }
        }
        (_, k) => match k + 2 * rng.below(2) {
            0 | 2 => {
                let known = day(rng, 2020, 2023);
                let filed = add_months(known, rng.range(3, 9) as u32).plus(rng.range(-10, 10));
                let deadline = add_months(known, 6);
                let ok = filed <= deadline;
                let q = format!(
                    "案情：{}，某区市场监督管理局向{who}经营的商店送达行政处罚决定书，{who}当日签收。{who}未申请行政复议，于{}直接向人民法院提起行政诉讼。问题：{who}的起诉是否超过法定起诉期限？",
                    known.zh(),
                    filed.zh()
                );
                let gt = format!(
                    "{}。直接起诉的，应当自知道作出行政行为之日起六个月内提出；{who}于{}知道处罚决定，起诉期限至{}，其于{}起诉，{}。",
                    if ok { "未超过起诉期限" } else { "已超过起诉期限" },
                    known.zh(),
                    deadline.zh(),
                    filed.zh(),
                    if ok {
                        "法院应当依法受理"
                    } else {
                        "无正当理由的，法院应裁定不予立案或驳回起诉"
                    }
                );
                mk(q, gt, vec![cite(ADMIN_LITIGATION, 46)])
            }
            1 => {
                let heavy = rng.chance(0.6);
                let informed = rng.chance(0.5);
                let penalty =
                    if heavy { *rng.pick(&["吊销食品经营许可证", "责令停产停业"]) } else { "警告" };
                let q = format!(
                    "案情：某区市场监督管理局查明{who}经营的餐馆存在违法经营行为，拟对其作出{penalty}的行政处罚，{}。{who}诉请撤销该处罚决定。问题：该处罚程序是否合法？",
                    if informed {
                        "作出决定前书面告知了{who}有要求听证的权利".replace("{who}", &who)
                    } else {
                        "作出决定前未告知其有要求听证的权利".to_string()
                    }
                );
                let gt = if !heavy {
                    "程序不因听证问题违法。警告不属于应当告知听证权利的处罚种类，未组织听证不构成程序违法。".to_string()
                } else if informed {
                    format!(
                        "程序合法。{penalty}属于应当告知听证权利的处罚，行政机关已依法告知，听证程序方面不存在违法。"
                    )
                } else {
                    format!(
                        "程序违法，处罚决定应予撤销。{penalty}属于应当告知当事人有要求听证权利的处罚，行政机关未告知即作出决定，违反法定程序。"
                    )
                };
                mk(q, gt, vec![cite(ADMIN_PENALTY, 63)])
            }
            _ => {
                let act = day(rng, 2018, 2021);
                let found = act.plus(rng.range(300, 1200));
                let limit = add_years(act, PENALTY_LIMIT_YEARS);
                let late = found > limit;
                let q = format!(
                    "案情：{who}经营的建材店于{}擅自占用人行道堆放建材，该行为未造成人身或财产损害后果。城管部门于{}才发现该违法行为，并拟给予罚款。问题：城管部门能否对该行为给予行政处罚？",
                    act.zh(),
                    found.zh()
                );
                let gt = format!(
                    "{}。违法行为在二年内未被发现的，不再给予行政处罚，期限自违法行为发生之日起计算；本案违法行为发生于{}，至{}届满二年，城管部门于{}发现，{}。",
                    if late { "不能给予行政处罚" } else { "可以依法给予行政处罚" },
                    act.zh(),
                    limit.zh(),
                    found.zh(),
                    if late { "已超过追责期限" } else { "仍在追责期限内" }
                );
                mk(q, gt, vec![cite(ADMIN_PENALTY, 36)])
            }
        },
    }
}
