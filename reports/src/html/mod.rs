//! Self-contained HTML pages: the run report and the comparison. One file each, inline CSS and
//! inline SVG charts ([`charts`]); no scripts, fonts, images or links to fetch, so the page
//! opens the same offline, in a mail attachment or in CI artefacts.

pub mod charts;

use std::fmt::Write as _;

use anser_evaluator::Metric;

use crate::{
    Result,
    compare::{Comparison, format_p, verdict},
    cost::{STAGES, stage_name},
    report::RunReport,
    stats::stars,
    taxonomy::FailureKind,
};
use charts::{Bar, Distribution, Interval, Series};

/// Width of full-width charts and of the charts in the two-column grid, in pixels.
const WIDE: u32 = 1100;
const NARROW: u32 = 520;

/// Escape text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Metrics whose values lie in [0, 1] (drawn as bars; the others are listed in the tables).
pub fn unit_interval(metric: Metric) -> bool {
    !matches!(metric, Metric::Mae | Metric::Smape | Metric::MaeLogOr | Metric::MaeMedianDifference | Metric::LlmJudge)
}

const STYLE: &str = r#"
:root { --ink: #222; --muted: #666; --line: #e3e3e3; --bg: #f6f7f9; --accent: #4c78a8; --good: #2e7d32; --bad: #c62828; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", sans-serif; }
main { max-width: 1160px; margin: 0 auto; padding: 24px 24px 48px; }
header h1 { margin: 0 0 4px; font-size: 24px; font-weight: 650; }
header p { margin: 0; color: var(--muted); }
h2 { font-size: 18px; margin: 32px 0 12px; padding-bottom: 6px; border-bottom: 2px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 8px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; margin-top: 18px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card .v { font-size: 22px; font-weight: 650; }
.card .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 14px; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px; overflow-x: auto; }
.panel { margin-bottom: 14px; }
.grid > .panel { margin-bottom: 0; }
svg { max-width: 100%; height: auto; display: block; }
table { border-collapse: collapse; width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.n, th.n { text-align: right; }
tr.total td { font-weight: 650; border-top: 2px solid var(--line); }
td.heat { text-align: right; }
.better { color: var(--good); font-weight: 650; }
.worse { color: var(--bad); font-weight: 650; }
.muted { color: var(--muted); }
.note { color: var(--muted); font-size: 12px; margin: 8px 0 0; }
code { font-size: 12px; background: #eef0f3; padding: 1px 4px; border-radius: 4px; }
@media (max-width: 900px) { .grid { grid-template-columns: 1fr; } }
"#;

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        escape(title)
    )
}

fn num(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.4}"))
}

/// The factor and axis title for times whose largest value is `longest` seconds: milliseconds
/// below a second, seconds otherwise.
fn time_unit(longest: f64) -> (f64, &'static str) {
    if longest < 1.0 { (1e3, "milliseconds") } else { (1.0, "seconds") }
}

/// Seconds as `850 ms` or `2.4 s`.
fn duration(s: f64) -> String {
    if s < 1.0 { format!("{:.0} ms", s * 1e3) } else { format!("{s:.1} s") }
}

/// A group's heading text: its escaped name and task count.
fn group_title(group: &str, tasks: usize) -> String {
    format!("{} <span class=\"muted\">({tasks} tasks)</span>", escape(group))
}

fn card(out: &mut String, key: &str, value: &str) {
    let _ = write!(
        out,
        "<div class=\"card\"><div class=\"k\">{}</div><div class=\"v\">{}</div></div>",
        escape(key),
        escape(value)
    );
}

/// The run report as one HTML page.
pub fn run_page(report: &RunReport) -> Result<String> {
    let mut b = String::new();
    let meta = |k: &str| report.metadata.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    let method = meta("method").unwrap_or("unknown method");
    let model = meta("generation.model");
    let _ = writeln!(
        b,
        "<header><h1>Run report: {}</h1><p>method <b>{}</b>{}{} · {} tasks</p></header>",
        escape(&report.name),
        escape(method),
        model.map_or(String::new(), |m| format!(" · model <b>{}</b>", escape(m))),
        meta("created_at").map_or(String::new(), |c| format!(" · created {}", escape(c))),
        report.taxonomy.total.tasks
    );

    // Summary cards.
    b.push_str("<section class=\"cards\">");
    let total = report.taxonomy.total.tasks;
    let ok = report.statuses.get("ok").copied().unwrap_or(0);
    card(&mut b, "tasks", &total.to_string());
    card(&mut b, "generation ok", &format!("{ok} ({:.0}%)", 100.0 * ok as f64 / total.max(1) as f64));
    card(&mut b, "tasks with a failure", &report.taxonomy.total.failed.to_string());
    if let Some(l) = &report.cost.total.latency {
        card(&mut b, "latency p50 / p95", &format!("{} / {}", duration(l.p50), duration(l.p95)));
    }
    if let Some(t) = &report.cost.total.total_tokens {
        card(&mut b, "tokens per task", &format!("{:.0}", t.mean));
    }
    b.push_str("</section>\n");

    // Metrics per group.
    b.push_str("<h2>Metrics by task group</h2>\n");
    if report.groups.is_empty() {
        b.push_str("<p class=\"muted\">No scores: evaluate the run (<code>anser eval</code>) or pass <code>--benchmark-dir</code>.</p>\n");
    } else {
        b.push_str("<div class=\"grid\">\n");
        for g in &report.groups {
            let _ = write!(b, "<div class=\"panel\"><h3>{}</h3>", group_title(&g.group, g.tasks));
            let bars: Vec<Bar> = g
                .metrics
                .iter()
                .filter(|m| unit_interval(m.metric))
                .filter_map(|m| Some(Bar { label: m.metric.name().into(), value: m.mean?, ci: m.ci95, color: 0 }))
                .collect();
            if !bars.is_empty() {
                b.push_str(&charts::bars(&format!("{}: mean with 95% CI", g.group), false, &bars, (0.0, 1.0), NARROW)?);
            }
            b.push_str("<table><tr><th>metric</th><th class=\"n\">mean</th><th class=\"n\">95% CI</th><th class=\"n\">n</th><th class=\"n\">unavailable</th></tr>");
            for m in &g.metrics {
                let _ = write!(
                    b,
                    "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                    escape(m.metric.name()),
                    num(m.mean),
                    m.ci95.map_or(String::new(), |(lo, hi)| format!("[{lo:.4}, {hi:.4}]")),
                    m.n,
                    m.unavailable
                );
            }
            b.push_str("</table></div>\n");
        }
        b.push_str("</div>\n");
        let _ = writeln!(
            b,
            "<p class=\"note\">Mean over the group's tasks; 95% percentile bootstrap CI ({} resamples, seed {}). Bars show metrics on a 0–1 scale; MAE, SMAPE and LLM Judge (0–100) are in the tables.</p>",
            report.params.resamples(),
            report.params.seed()
        );
    }

    // Latency and stage time.
    b.push_str("<h2>Latency</h2>\n<div class=\"panel\">");
    let groups: Vec<String> = report.cost.groups.iter().map(|g| g.group.clone()).collect();
    let dists: Vec<Distribution> = groups
        .iter()
        .map(|g| {
            let mut sorted = report.cost.latencies(g);
            sorted.sort_by(f64::total_cmp);
            Distribution { label: g.clone(), sorted }
        })
        .collect();
    let longest = dists.iter().filter_map(|d| d.sorted.last().copied()).fold(0.0, f64::max);
    let (scale, unit) = time_unit(longest);
    let dists: Vec<Distribution> = dists
        .into_iter()
        .map(|d| Distribution { label: d.label, sorted: d.sorted.iter().map(|v| v * scale).collect() })
        .collect();
    b.push_str(&charts::boxes("Task latency by group (box p25–p75, line p50, whiskers p5–p95)", &dists, unit, WIDE)?);
    b.push_str("</div>\n<div class=\"panel\">");
    let stage_series: Vec<Series> = STAGES
        .iter()
        .enumerate()
        .map(|(i, s)| Series {
            label: stage_name(*s).into(),
            values: report.cost.groups.iter().map(|g| g.stages[i].seconds.mean).collect(),
            color: i,
        })
        .collect();
    let longest = (0..groups.len()).map(|g| stage_series.iter().map(|s| s.values[g]).sum::<f64>()).fold(0.0, f64::max);
    let (scale, unit) = time_unit(longest);
    let stage_series: Vec<Series> = stage_series
        .into_iter()
        .map(|s| Series { values: s.values.iter().map(|v| v * scale).collect(), ..s })
        .collect();
    b.push_str(&charts::stacked("Mean time per task by stage", &groups, &stage_series, unit, WIDE)?);
    let _ = writeln!(
        b,
        "<p class=\"note\">Stage times {}.</p></div>",
        if report.cost.from_trace {
            "are summed from trace.jsonl events"
        } else {
            "come from results.json (the run has no trace.jsonl)"
        }
    );

    // Tokens.
    b.push_str("<h2>Token usage</h2>\n<div class=\"panel\">");
    let token_series = vec![
        Series {
            label: "prompt".into(),
            values: report.cost.groups.iter().map(|g| g.prompt_tokens.map_or(0.0, |s| s.mean)).collect(),
            color: 0,
        },
        Series {
            label: "completion".into(),
            values: report.cost.groups.iter().map(|g| g.completion_tokens.map_or(0.0, |s| s.mean)).collect(),
            color: 1,
        },
    ];
    if token_series.iter().flat_map(|s| &s.values).any(|v| *v > 0.0) {
        b.push_str(&charts::stacked("Mean tokens per task", &groups, &token_series, "tokens", WIDE)?);
    } else {
        b.push_str("<p>No task of this run reported LLM tokens.</p>");
    }
    b.push_str("</div>\n");

    // Failure taxonomy.
    b.push_str("<h2>Failure taxonomy</h2>\n<div class=\"panel\">");
    let kinds: Vec<FailureKind> =
        FailureKind::ALL.into_iter().filter(|k| report.taxonomy.total.count(*k) > 0).collect();
    let tax_groups: Vec<String> = report.taxonomy.groups.iter().map(|g| g.group.clone()).collect();
    if kinds.is_empty() {
        b.push_str("<p>No failures.</p>");
    } else {
        let series: Vec<Series> = kinds
            .iter()
            .map(|k| Series {
                label: k.label().into(),
                values: report.taxonomy.groups.iter().map(|g| g.count(*k) as f64).collect(),
                color: FailureKind::ALL.iter().position(|x| x == k).unwrap_or(0),
            })
            .collect();
        b.push_str(&charts::stacked(
            "Failures by group and kind (a task can have several kinds)",
            &tax_groups,
            &series,
            "tasks",
            WIDE,
        )?);
    }
    b.push_str("<table><tr><th>group</th><th class=\"n\">tasks</th><th class=\"n\">failed</th>");
    for k in FailureKind::ALL {
        let _ = write!(b, "<th class=\"n\">{}</th>", escape(k.label()));
    }
    b.push_str("</tr>");
    for g in report.taxonomy.groups.iter().chain(std::iter::once(&report.taxonomy.total)) {
        let total_row = g.group == "all";
        let _ = write!(
            b,
            "<tr{}><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            if total_row { " class=\"total\"" } else { "" },
            escape(&g.group),
            g.tasks,
            g.failed
        );
        for k in FailureKind::ALL {
            let (count, examples) = g.kinds.get(&k).map_or((0, String::new()), |c| (c.count, c.examples.join(", ")));
            let share = count as f64 / g.tasks.max(1) as f64;
            let _ = write!(
                b,
                "<td class=\"heat\" title=\"{}\" style=\"background: rgba(228, 87, 86, {:.2})\">{}</td>",
                escape(&if examples.is_empty() { String::new() } else { format!("e.g. {examples}") }),
                share * 0.55,
                if count == 0 { String::new() } else { count.to_string() }
            );
        }
        b.push_str("</tr>");
    }
    b.push_str("</table>");
    if !kinds.is_empty() {
        b.push_str("<p class=\"note\">Examples: ");
        let ex: Vec<String> = kinds
            .iter()
            .filter_map(|k| {
                let c = report.taxonomy.total.kinds.get(k)?;
                Some(format!("<b>{}</b> {}", escape(k.label()), escape(&c.examples.join(", "))))
            })
            .collect();
        b.push_str(&ex.join(" · "));
        b.push_str("</p>");
    }
    if !report.taxonomy.scored {
        b.push_str("<p class=\"note\">No scores: wrong values are not decided and unparseable answers come from the generation status only.</p>");
    }
    b.push_str("</div>\n");

    // Per-stage cost table.
    b.push_str("<h2>Per-stage cost</h2>\n<div class=\"panel\"><table><tr><th>group</th><th>stage</th><th class=\"n\">calls / task</th><th class=\"n\">seconds mean</th><th class=\"n\">p50</th><th class=\"n\">p95</th><th class=\"n\">tokens mean</th><th class=\"n\">p50</th><th class=\"n\">p95</th></tr>");
    for g in report.cost.groups.iter().chain(std::iter::once(&report.cost.total)) {
        for (i, s) in g.stages.iter().enumerate() {
            let _ = write!(
                b,
                "<tr{}><td>{}</td><td>{}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.4}</td><td class=\"n\">{:.4}</td><td class=\"n\">{:.4}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.1}</td></tr>",
                if g.group == "all" && i == 0 { " class=\"total\"" } else { "" },
                if i == 0 { escape(&format!("{} ({})", g.group, g.tasks)) } else { String::new() },
                s.stage.map_or("", stage_name),
                s.calls,
                s.seconds.mean,
                s.seconds.p50,
                s.seconds.p95,
                s.tokens.mean,
                s.tokens.p50,
                s.tokens.p95
            );
        }
    }
    b.push_str("</table></div>\n");

    // Metadata.
    b.push_str("<h2>Run metadata</h2>\n<div class=\"panel\"><table>");
    let _ = write!(b, "<tr><th>run directory</th><td><code>{}</code></td></tr>", escape(&report.dir));
    if let Some(s) = &report.scores_source {
        let _ = write!(b, "<tr><th>scores</th><td><code>{}</code></td></tr>", escape(s));
    }
    let statuses: Vec<String> = report.statuses.iter().map(|(s, n)| format!("{s} {n}")).collect();
    let _ = write!(b, "<tr><th>generation_status</th><td>{}</td></tr>", escape(&statuses.join(", ")));
    for (k, v) in &report.metadata {
        let _ = write!(b, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
    }
    b.push_str("</table></div>\n");
    Ok(page(&format!("anser report: {}", report.name), &b))
}

/// The comparison as one HTML page: per group a forest plot of the deltas and the table.
pub fn compare_page(c: &Comparison) -> Result<String> {
    let alpha = c.params.alpha();
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<header><h1>Run comparison</h1><p>baseline <b>{}</b> · compared: {} · {} tasks selected by every run</p></header>",
        escape(&c.baseline),
        escape(&c.runs[1..].join(", ")),
        c.common_tasks
    );
    b.push_str("<section class=\"cards\">");
    for (run, ids) in &c.dropped {
        card(&mut b, &format!("dropped from {run}"), &ids.len().to_string());
    }
    let significant =
        c.groups.iter().flat_map(|g| &g.metrics).flat_map(|m| &m.cells).filter(|x| x.significant(alpha)).count();
    card(&mut b, "significant differences", &significant.to_string());
    b.push_str("</section>\n");
    for g in &c.groups {
        let _ = write!(b, "<h2>{}</h2>\n<div class=\"panel\">", group_title(&g.group, g.tasks));
        let rows: Vec<Interval> = g
            .metrics
            .iter()
            .filter(|m| unit_interval(m.metric))
            .flat_map(|m| {
                m.cells.iter().skip(1).filter_map(move |cell| {
                    let (delta, ci) = (cell.delta?, cell.ci95?);
                    let color = match verdict(m.metric, cell, alpha) {
                        "better" => 2,
                        "worse" => 3,
                        _ => 0,
                    };
                    let label = if c.runs.len() > 2 {
                        format!("{} · {}", m.metric.name(), cell.run)
                    } else {
                        m.metric.name().to_string()
                    };
                    Some(Interval { label, delta, ci, color })
                })
            })
            .collect();
        if !rows.is_empty() {
            b.push_str(&charts::forest(&format!("{}: delta vs {} with 95% CI", g.group, c.baseline), &rows, WIDE)?);
        }
        b.push_str("<table><tr><th>metric</th><th>run</th><th class=\"n\">mean</th><th class=\"n\">n</th><th class=\"n\">delta</th><th class=\"n\">95% CI</th><th class=\"n\">p (Holm)</th><th></th></tr>");
        for m in &g.metrics {
            for (i, cell) in m.cells.iter().enumerate() {
                let v = verdict(m.metric, cell, alpha);
                let _ = write!(
                    b,
                    "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"{v}\">{}</td></tr>",
                    if i == 0 { escape(m.metric.name()) } else { String::new() },
                    escape(&if i == 0 { format!("{} (baseline)", cell.run) } else { cell.run.clone() }),
                    num(cell.mean),
                    cell.n,
                    cell.delta.map_or(String::new(), |d| format!("{d:+.4}")),
                    cell.ci95.map_or(String::new(), |(lo, hi)| format!("[{lo:+.4}, {hi:+.4}]")),
                    cell.p_value.map_or(String::new(), |p| format!("{} {}", format_p(p), stars(p, alpha))),
                    v
                );
            }
        }
        b.push_str("</table></div>\n");
    }
    let _ = writeln!(
        b,
        "<p class=\"note\">delta = run − baseline on the tasks both runs have a value for; 95% CI: paired percentile bootstrap ({} resamples, seed {}); \
         p: paired sign-flip test (exact up to {} non-zero pairs, else {} random sign vectors), Holm-adjusted over each group's metrics; \
         * p &lt; {alpha}, ** p &lt; 0.01, *** p &lt; 0.001. Better/worse is direction-aware (lower MAE and SMAPE are better). \
         The forest plots show the metrics on a 0–1 scale.</p>",
        c.params.resamples(),
        c.params.seed(),
        c.params.exact_max_pairs(),
        c.params.permutations()
    );
    Ok(page("anser compare", &b))
}
