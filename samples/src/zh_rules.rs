//! Chinese securities regulatory rules (`finance/zh/regulatory_rules.jsonl`) and the
//! finance_zh_prescriptive tasks: announcement facts with dates, and whether the disclosure
//! deadline or procedure complied with the rule revision in force on the announcement date.
//!
//! Every rule the tasks use exists in several revisions with the same text (as in the real
//! collection); the gold evidence is the revision in force at the announcement date, as
//! `{"law": law_name, "item": item}` without a `type` key, the release's shape. Content keeps
//! hard line breaks every few characters, like text extracted from a PDF.

use std::path::Path;

use anser_manifest::{Route, TaskGroup};
use serde::Serialize;
use serde_json::{Value, json};

use crate::{
    Ctx, DomainOutput, Result,
    date::Date,
    db::write_jsonl,
    names::{ZH_BRANDS, ZH_INDUSTRIES},
    rng::Rng,
    task::{Task, fill, plan_types},
};

#[derive(Debug, Serialize)]
struct RuleRecord {
    id: u64,
    law_name: String,
    item: String,
    content: String,
}

/// A law with its revisions: (name template with `{}` for the revision label, revisions as
/// (effective date, label)).
struct Law {
    base: &'static str,
    revisions: &'static [((i32, u32), &'static str)],
}

const LISTING: Law = Law {
    base: "上海证券交易所股票上市规则",
    revisions: &[
        ((2019, 4), "（2019年4月修订）"),
        ((2020, 12), "（2020年12月修订）"),
        ((2022, 1), "（2022年1月修订）"),
        ((2023, 8), "（2023年8月修订）"),
        ((2024, 4), "（2024年4月修订）"),
    ],
};

const TAKEOVER: Law = Law {
    base: "上市公司收购管理办法",
    revisions: &[((2014, 10), "（2014年修订）"), ((2020, 3), "（2020年修正）")],
};

const DISCLOSURE: Law = Law {
    base: "上市公司信息披露管理办法",
    revisions: &[((2007, 1), "（2007年发布）"), ((2021, 5), "（2021年修订）")],
};

impl Law {
    fn name_at(&self, k: usize) -> String {
        format!("{}{}", self.base, self.revisions[k].1)
    }

    /// The revision in force on `date`.
    fn in_force(&self, date: Date) -> Option<String> {
        let k = self.revisions.iter().rposition(|((y, m), _)| Date::ymd(*y, *m, 1) <= date)?;
        Some(self.name_at(k))
    }
}

/// Parameters of the rules the tasks apply.
const FORECAST_MONTHS: u32 = 1;
const BOARD_DAYS: i64 = 2;
const AGM_DAYS: i64 = 20;
const EGM_DAYS: i64 = 15;
const STAKE_DAYS: i64 = 3;

fn hard_wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for (k, ch) in text.chars().enumerate() {
        if k > 0 && k % width == 0 && ch != '。' && ch != '；' {
            out.push('\n');
        }
        out.push(ch);
    }
    out
}

/// (law, item, content) of the rules the tasks cite.
fn core_rules() -> Vec<(&'static Law, &'static str, String)> {
    vec![
        (
            &LISTING,
            "2.1.1条",
            "上市公司及相关信息披露义务人应当按照法律法规和本规则的规定，及时、公平地披露信息，并保证所披露的信息真实、准确、完整。".into(),
        ),
        (
            &LISTING,
            "5.1.1条",
            format!(
                "上市公司预计年度经营业绩出现下列情形之一的，应当在会计年度结束后{FORECAST_MONTHS}个月内进行业绩预告：（一）净利润为负值；（二）净利润实现扭亏为盈；\
                 （三）实现盈利，且净利润与上年同期相比上升或者下降50%以上。未出现上述情形的，公司可以自愿进行业绩预告。"
            ),
        ),
        (
            &LISTING,
            "4.1.4条",
            format!("上市公司召开董事会会议，应当在会议结束后{BOARD_DAYS}个交易日内披露董事会决议公告。本规则所称交易日为周一至周五。"),
        ),
        (
            &LISTING,
            "4.2.3条",
            format!(
                "召开年度股东大会的，召集人应当在会议召开{AGM_DAYS}日前以公告方式通知各股东；召开临时股东大会的，应当在会议召开{EGM_DAYS}日前以公告方式通知各股东。\
                 计算上述期限时，不包括会议召开当日，但包括公告当日。"
            ),
        ),
        (
            &TAKEOVER,
            "13条",
            format!(
                "通过证券交易所的证券交易，投资者及其一致行动人拥有权益的股份达到一个上市公司已发行股份的5%时，应当在该事实发生之日起{STAKE_DAYS}日内编制权益变动报告书，\
                 向证券交易所提交书面报告并予以公告；在上述期限内，不得再行买卖该上市公司的股票。"
            ),
        ),
        (
            &DISCLOSURE,
            "22条",
            "发生可能对上市公司证券交易价格产生较大影响的重大事件，投资者尚未得知时，上市公司应当立即披露，说明事件的起因、目前的状态和可能产生的影响。".into(),
        ),
    ]
}

/// Generic provisions that fill out the collection (never cited by the tasks).
const FILLER: &[&str] = &[
    "上市公司应当建立募集资金专项存储制度，募集资金应当存放于董事会批准设立的专项账户集中管理。",
    "上市公司与关联人发生的交易金额在{n}万元以上，且占上市公司最近一期经审计净资产绝对值{p}%以上的，应当提交股东大会审议。",
    "上市公司回购股份的，应当在董事会作出回购股份决议后的{d}个交易日内披露回购股份方案。",
    "上市公司控股股东、实际控制人应当诚实守信，不得利用其控制地位损害上市公司和中小股东的合法权益。",
    "上市公司应当在每个会计年度结束之日起{m}个月内披露年度报告，在每个会计年度的上半年结束之日起{q}个月内披露半年度报告。",
    "上市公司股票交易出现异常波动的，应当于次一交易日披露股票交易异常波动公告。",
    "独立董事应当对上市公司重大事项发表独立意见，并督促公司规范运作。",
    "上市公司为他人提供担保的，应当经董事会审议后及时对外披露，单笔担保额超过最近一期经审计净资产{p}%的，还应当提交股东大会审议。",
];

/// Generate rules and tasks.
pub fn generate(ctx: &Ctx, corpus: &Path) -> Result<DomainOutput> {
    let mut rng = Rng::derive(ctx.seed, "finance_zh_rules");
    let mut records = Vec::new();
    let mut id = 0;
    for (law, item, content) in core_rules() {
        for k in 0..law.revisions.len() {
            id += 1;
            records.push(RuleRecord {
                id,
                law_name: law.name_at(k),
                item: item.into(),
                content: hard_wrap(&content, 24),
            });
        }
    }
    for n in 0..ctx.scale.zh_rule_extra {
        let law = [&LISTING, &TAKEOVER, &DISCLOSURE][n % 3];
        let k = rng.below(law.revisions.len());
        let text = rng
            .pick(FILLER)
            .replace("{n}", &rng.range(300, 3000).to_string())
            .replace("{p}", &rng.range(1, 10).to_string())
            .replace("{d}", &rng.range(2, 5).to_string())
            .replace("{m}", "4")
            .replace("{q}", "2");
        id += 1;
        records.push(RuleRecord {
            id,
            law_name: law.name_at(k),
            item: format!("{}.{}.{}条", 6 + n % 9, 1 + (n / 9) % 9, 1 + n / 81),
            content: hard_wrap(&text, 24),
        });
    }
    let route = Route::FinanceZhRules;
    let path = corpus.join(&anser_manifest::Manifest::get().route(route).file);
    let rows = write_jsonl(&path, &records)?;
    let group: TaskGroup = "finance_zh_prescriptive".parse().map_err(crate::Error::bug)?;
    let plan = plan_types(&ctx.scale, group, &["null"], ctx.scale.tasks_per_type * 5, ctx.scale.min_tasks_per_group);
    let mut trng = Rng::derive(ctx.seed, "finance_zh_rules_tasks");
    let tasks = fill(group, &plan, &mut trng, |_, rng| task(rng))?;
    Ok(DomainOutput { files: vec![(route, rows)], tasks: vec![(group, tasks)] })
}

fn law_item(law: String, item: &str) -> Value {
    json!({"law": law, "item": item})
}

/// A task whose gold evidence is `items` of the revision `law`, in that order.
fn rule_task(query: String, law: &str, items: &[&str], ground_truth: String) -> Option<Task> {
    let evidence = items.iter().map(|item| law_item(law.to_string(), item)).collect();
    Some(Task::untyped(query, INSTRUCTION, Value::Array(evidence), json!(ground_truth)))
}

const INSTRUCTION: &str = "请根据题目所述公告事实和适用的监管规则，判断披露时限、审议程序或后续动作是否符合要求，先给出“符合”“不符合”或“无法判断”的结论，再说明理由；回答不超过220字。";

fn company(rng: &mut Rng) -> (String, String) {
    let ind = rng.pick(ZH_INDUSTRIES);
    (
        format!("{}{}", rng.pick(ZH_BRANDS), ind.word),
        format!("{}{:03}", rng.pick(&["600", "601", "603", "688"]), rng.below(1000)),
    )
}

fn task(rng: &mut Rng) -> Option<Task> {
    let (name, code) = company(rng);
    let who = format!("{name}（{code}）");
    let year = rng.range(2020, 2024) as i32;
    match rng.below(5) {
        0 => {
            // Annual results forecast.
            let situations = [
                ("预计净利润为负值", true),
                ("预计净利润实现扭亏为盈", true),
                ("预计净利润较上年同期上升约65%", true),
                ("预计净利润较上年同期下降约58%", true),
                ("预计净利润较上年同期上升约22%", false),
            ];
            let (situation, mandatory) = *rng.pick(&situations);
            let deadline = Date::ymd(year + 1, 1 + FORECAST_MONTHS, 1).plus(-1);
            let announced = deadline.plus(rng.range(-20, 12));
            let law = LISTING.in_force(announced)?;
            let q = format!(
                "{who}于{}披露《{}年年度业绩预告》，公告称公司{}。请判断该业绩预告的披露时点是否符合监管要求。回答请控制在220字以内。",
                announced.zh(),
                year,
                situation
            );
            let (verdict, why) = if !mandatory {
                ("符合", "净利润变动幅度未达到50%，不属于应当强制预告的情形，公司自愿预告不违反规定".to_string())
            } else if announced <= deadline {
                (
                    "符合",
                    format!(
                        "该情形属于应当预告的情形，应于{}前披露，公司于{}披露，未超过期限",
                        deadline.zh(),
                        announced.zh()
                    ),
                )
            } else {
                (
                    "不符合",
                    format!(
                        "该情形属于应当预告的情形，应于{}前披露，公司迟至{}才披露，超过期限",
                        deadline.zh(),
                        announced.zh()
                    ),
                )
            };
            let gt = format!(
                "{verdict}。根据《{law}》5.1.1条，年度净利润为负、扭亏为盈或变动50%以上的，应在会计年度结束后{FORECAST_MONTHS}个月内预告；{why}。"
            );
            rule_task(q, &law, &["5.1.1条", "2.1.1条"], gt)
        }
        1 => {
            // Board resolution announcement.
            let meeting = Date::ymd(year, rng.range(1, 12) as u32, rng.range(1, 28) as u32);
            let announced = meeting.plus(rng.range(1, 6));
            let law = LISTING.in_force(announced)?;
            let known = rng.chance(0.8);
            let days = meeting.trading_days_until(announced);
            let q = if known {
                format!(
                    "{who}第{}届董事会第{}次会议于{}召开，审议通过了对外投资议案，公司于{}披露董事会决议公告。该公告的披露时限是否符合规定？回答请控制在220字以内。",
                    rng.range(5, 9),
                    rng.range(2, 20),
                    meeting.zh(),
                    announced.zh()
                )
            } else {
                format!(
                    "{who}于{}披露董事会决议公告，称董事会审议通过了对外投资议案，公告未载明董事会会议召开日期。请判断该公告的披露时限是否符合规定。回答请控制在220字以内。",
                    announced.zh()
                )
            };
            let gt = if !known {
                format!(
                    "无法判断。根据《{law}》4.1.4条，董事会决议应在会议结束后{BOARD_DAYS}个交易日内披露；题述材料未载明会议召开日期，无法计算披露间隔，现有材料不足以判断是否及时。"
                )
            } else if days <= BOARD_DAYS {
                format!(
                    "符合。根据《{law}》4.1.4条，董事会决议应在会议结束后{BOARD_DAYS}个交易日内披露；会议于{}召开，{}披露，间隔{}个交易日，未超过期限。",
                    meeting.zh(),
                    announced.zh(),
                    days
                )
            } else {
                format!(
                    "不符合。根据《{law}》4.1.4条，董事会决议应在会议结束后{BOARD_DAYS}个交易日内披露；会议于{}召开，{}才披露，间隔{}个交易日，超过期限。",
                    meeting.zh(),
                    announced.zh(),
                    days
                )
            };
            rule_task(q, &law, &["4.1.4条", "2.1.1条"], gt)
        }
        2 => {
            // Shareholders' meeting notice.
            let annual = rng.chance(0.5);
            let meeting = Date::ymd(year, rng.range(3, 12) as u32, rng.range(1, 28) as u32);
            let notice = meeting.plus(-rng.range(10, 25));
            let law = LISTING.in_force(notice)?;
            let need = if annual { AGM_DAYS } else { EGM_DAYS };
            let gap = notice.days_until(meeting);
            let kind = if annual { "年度股东大会" } else { "临时股东大会" };
            let q = format!(
                "{who}于{}发布召开{}年{}的通知，会议定于{}召开。该会议通知的发出时间是否符合规定？回答请控制在220字以内。",
                notice.zh(),
                if annual { year - 1 } else { year },
                if annual {
                    "年度股东大会".to_string()
                } else {
                    format!("第{}次临时股东大会", rng.range(1, 4))
                },
                meeting.zh()
            );
            let ok = gap >= need;
            let gt = format!(
                "{}。根据《{law}》4.2.3条，召开{kind}应当在会议召开{need}日前公告通知（含公告当日、不含会议当日）；公告日{}至会议日{}相隔{}日，{}。",
                if ok { "符合" } else { "不符合" },
                notice.zh(),
                meeting.zh(),
                gap,
                if ok { "满足提前通知期限" } else { "不足法定通知期限" }
            );
            rule_task(q, &law, &["4.2.3条"], gt)
        }
        3 => {
            // Reaching 5%.
            let reached = Date::ymd(year, rng.range(1, 12) as u32, rng.range(1, 28) as u32);
            let reported = reached.plus(rng.range(1, 6));
            let traded = rng.chance(0.3);
            let law = TAKEOVER.in_force(reported)?;
            let investor =
                format!("{}{}投资有限公司", rng.pick(ZH_BRANDS), rng.pick(&["创新", "产业", "资本", "控股"]));
            let q = format!(
                "{investor}通过集中竞价交易持有{who}股份，于{}持股比例达到5%，并于{}编制权益变动报告书并公告。{}请判断该投资者的报告及后续行为是否符合规定。回答请控制在220字以内。",
                reached.zh(),
                reported.zh(),
                if traded {
                    format!("{}，该投资者又买入公司股票50万股。", reached.plus(1).zh())
                } else {
                    String::new()
                }
            );
            let late = reached.days_until(reported) > STAKE_DAYS;
            let ok = !late && !traded;
            let mut reasons = Vec::new();
            if late {
                reasons.push(format!(
                    "报告于事实发生后第{}日才公告，超过{STAKE_DAYS}日期限",
                    reached.days_until(reported)
                ));
            } else {
                reasons.push(format!(
                    "报告于事实发生后第{}日公告，未超过{STAKE_DAYS}日期限",
                    reached.days_until(reported)
                ));
            }
            if traded {
                reasons.push("在限制期内又买入股票，违反了期限内不得买卖的要求".to_string());
            }
            let gt = format!(
                "{}。根据《{law}》13条，持股达到5%的，应在事实发生之日起{STAKE_DAYS}日内编制权益变动报告书并公告，期限内不得再行买卖；{}。",
                if ok { "符合" } else { "不符合" },
                reasons.join("；")
            );
            rule_task(q, &law, &["13条"], gt)
        }
        _ => {
            // Major event disclosed immediately or not.
            let event = Date::ymd(year, rng.range(1, 12) as u32, rng.range(1, 28) as u32);
            let delay = rng.range(0, 9);
            let announced = event.plus(delay);
            let law = DISCLOSURE.in_force(announced)?;
            let q = format!(
                "{who}于{}收到主要生产基地所在地政府的停产整改通知，预计影响全年产能约三成，公司于{}披露该事项。请判断公司的信息披露是否及时。回答请控制在220字以内。",
                event.zh(),
                announced.zh()
            );
            let ok = delay <= 1;
            let gt = format!(
                "{}。停产整改预计影响约三成产能，属于可能对股票交易价格产生较大影响的重大事件；根据《{law}》22条，应当立即披露；公司在事件发生后{}日披露，{}。",
                if ok { "符合" } else { "不符合" },
                delay,
                if ok { "可以认定为立即披露" } else { "未做到立即披露" }
            );
            rule_task(q, &law, &["22条"], gt)
        }
    }
}
