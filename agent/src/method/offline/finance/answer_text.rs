//! Answer text composed from the figures and the reports: a two-decimal number, a short
//! summary of a year (values, changes, the report's own explanation), and a comparison of the
//! risks two reports disclose.

use std::collections::BTreeSet;

use anser_manifest::Language;

use super::{
    Mention,
    data::{Company, Data, Report},
    glossary::{Metric, growth},
};
use crate::method::offline::re;

pub(super) fn fmt2(x: f64) -> String {
    format!("{x:.2}")
}

/// A question about how risk disclosures changed between reports: it names risks and either
/// two years or a change word.
pub(super) fn is_risk_comparison(q: &str, years: &[i32]) -> bool {
    let l = q.to_lowercase();
    let names_risk = q.contains("风险") || l.contains("risk");
    let change_word = ["新增", "不再", "删除", "变化", "对比", "比较", "相比", "强化"].iter().any(|w| q.contains(w))
        || ["added", "removed", "dropped", "new ", "no longer", "change", "compare", "wording"]
            .iter()
            .any(|w| l.contains(w));
    names_risk && (change_word || years.len() >= 2)
}

/// Risk items of a report. Chinese: headings that end in 风险 and stand alone (before a colon, a
/// line break or the end of an enumeration item), numbering stripped. English: the sentences of
/// the section whose own heading names risk factors (`sections.section_name`).
fn risk_items(data: &Data, r: &Report) -> Vec<String> {
    let mut seen = BTreeSet::new();
    match data.lang {
        Language::Zh => re(r"([\p{Han}、]{2,16}风险)\s*(?:[：:\n]|$)")
            .captures_iter(&r.text)
            .map(|c| {
                let head = c[1].rsplit(['，', '。', '；', '：']).next().unwrap_or(&c[1]);
                head.trim_start_matches(|ch: char| "、一二三四五六七八九十（）()".contains(ch)).to_string()
            })
            .filter(|x| x.chars().count() > 2 && seen.insert(x.clone()))
            .collect(),
        Language::En => r
            .text
            .lines()
            .filter_map(|l| l.split_once(" — "))
            .filter(|(name, _)| name.to_lowercase().contains("risk"))
            .flat_map(|(_, body)| {
                body.split(". ").map(|x| x.trim().trim_end_matches('.').to_string()).collect::<Vec<_>>()
            })
            .filter(|x| !x.is_empty() && seen.insert(x.clone()))
            .collect(),
    }
}

/// Risks that appear only in the later report, only in the earlier one, and in both.
pub(super) fn risk_comparison(data: &Data, reports: &[&Report]) -> Option<String> {
    let (first, last) = (reports.first()?, reports.last()?);
    if first.year == last.year {
        return None;
    }
    let (a, b) = (risk_items(data, first), risk_items(data, last));
    if a.is_empty() && b.is_empty() {
        return None;
    }
    let added: Vec<&String> = b.iter().filter(|x| !a.contains(x)).collect();
    let dropped: Vec<&String> = a.iter().filter(|x| !b.contains(x)).collect();
    let kept: Vec<&String> = b.iter().filter(|x| a.contains(x)).collect();
    let (sep, none) = match data.lang {
        Language::Zh => ("、", "无"),
        Language::En => ("; ", "none"),
    };
    let join = |xs: &[&String]| {
        if xs.is_empty() { none.to_string() } else { xs.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(sep) }
    };
    let (added, dropped, kept) = (join(&added), join(&dropped), join(&kept));
    let (y0, y1) = (first.year, last.year);
    Some(match data.lang {
        Language::Zh => format!(
            "{y1}年报告中出现而{y0}年未出现的风险：{added}。{y0}年提及、{y1}年未再出现的风险：{dropped}。两年均提示的风险：{kept}。"
        ),
        Language::En => format!(
            "Risks in the FY{y1} report but not in FY{y0}: {added}. Risks in FY{y0} no longer in FY{y1}: {dropped}. In both \
             years: {kept}."
        ),
    })
}

/// A short answer from the figures of the named year (value and change of each named metric,
/// revenue when none is named) and the report's own explanation of the change.
pub(super) fn summary(data: &Data, company: &Company, years: &[i32], metrics: &[Mention]) -> Option<String> {
    let year = *years.iter().max()?;
    let cur = data.report(&company.key, year)?;
    let prev = data.report(&company.key, year - 1);
    let revenue = match data.lang {
        Language::Zh => ("营业收入".to_string(), Metric::Col("operating_revenue".into())),
        Language::En => ("total revenue".to_string(), Metric::Col("total_revenue".into())),
    };
    let mut named: Vec<(String, Metric)> = metrics.iter().map(|m| (m.2.clone(), m.3.clone())).collect();
    if named.is_empty() {
        named.push(revenue);
    }
    let mut parts = Vec::new();
    for (name, m) in &named {
        let Some(v) = m.value(cur) else { continue };
        let change =
            prev.and_then(|p| m.value(p)).map(|p| if m.is_ratio() { v - p } else { growth(v, p).unwrap_or(0.0) });
        parts.push(match (data.lang, m.is_ratio(), change) {
            (Language::Zh, true, Some(d)) => format!("{name}{v:.2}%，较上年变动{d:+.2}个百分点"),
            (Language::Zh, false, Some(g)) => format!("{name}{:.2}亿元，同比{g:+.2}%", v / 1e8),
            (Language::Zh, true, None) => format!("{name}{v:.2}%"),
            (Language::Zh, false, None) => format!("{name}{:.2}亿元", v / 1e8),
            (Language::En, true, Some(d)) => format!("{name} {v:.2}% ({d:+.2} points)"),
            (Language::En, false, Some(g)) => format!("{name} USD {:.2} million ({g:+.2}%)", v / 1e6),
            (Language::En, true, None) => format!("{name} {v:.2}%"),
            (Language::En, false, None) => format!("{name} USD {:.2} million", v / 1e6),
        });
    }
    let cues = ["主要原因", "归因", "due to", "driven by", "primarily"];
    let why = cur
        .text
        .split(['。', '\n'])
        .flat_map(|s| s.split(". "))
        .find(|s| cues.iter().any(|c| s.contains(c)))
        .map(|s| s.trim().to_string());
    if parts.is_empty() && why.is_none() {
        return None;
    }
    Some(match data.lang {
        Language::Zh => format!(
            "{}{}年{}。{}",
            company.name,
            year,
            parts.join("；"),
            why.map(|w| format!("{w}。")).unwrap_or_default()
        ),
        Language::En => format!(
            "{} FY{}: {}. {}",
            company.name,
            year,
            parts.join("; "),
            why.map(|w| format!("{w}.")).unwrap_or_default()
        ),
    })
}
