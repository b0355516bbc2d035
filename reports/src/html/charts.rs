//! The charts of the HTML pages, drawn with plotters into SVG strings (inline in the page).
//!
//! All charts are horizontal: one row per category (metric, group, run), so long names fit.
//! Text uses the browser's `sans-serif`; plotters only estimates text widths for layout.

use plotters::{
    coord::ranged1d::SegmentValue,
    prelude::*,
    style::text_anchor::{HPos, Pos, VPos},
};

use crate::{Error, Result};

/// Categorical colours (Tableau 10).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x4c, 0x78, 0xa8),
    RGBColor(0xf5, 0x85, 0x18),
    RGBColor(0x54, 0xa2, 0x4b),
    RGBColor(0xe4, 0x57, 0x56),
    RGBColor(0x72, 0xb7, 0xb2),
    RGBColor(0xee, 0xca, 0x3b),
    RGBColor(0xb2, 0x79, 0xa2),
    RGBColor(0x9d, 0x75, 0x5d),
];
const INK: RGBColor = RGBColor(0x33, 0x33, 0x33);
const GRID: RGBColor = RGBColor(0xe6, 0xe6, 0xe6);
const FONT: &str = "sans-serif";
/// Pixel height of one category row.
const ROW: u32 = 26;

fn chart_err(chart: &str) -> impl Fn(String) -> Error + '_ {
    move |message| Error::Chart { chart: chart.to_string(), message }
}

/// Width of the label column for `labels` at 12 px (about 6.5 px per character).
fn label_width(labels: &[String]) -> u32 {
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32;
    (longest * 7 + 12).clamp(60, 260)
}

/// One bar with an optional confidence interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub ci: Option<(f64, f64)>,
    /// Index into [`PALETTE`].
    pub color: usize,
}

/// Horizontal bars over `x_range` with CI whiskers and the value printed after each bar.
pub fn bars(title: &str, bars: &[Bar], x_range: (f64, f64), width: u32) -> Result<String> {
    let err = chart_err(title);
    let labels: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
    let height = 60 + ROW * bars.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let n = bars.len().max(1) as i32;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 14).into_font().color(&INK))
            .margin(8)
            .margin_right(48)
            .x_label_area_size(24)
            .y_label_area_size(label_width(&labels))
            .build_cartesian_2d(x_range.0..x_range.1, (0..n).into_segmented())
            .map_err(|e| err(e.to_string()))?;
        let label_of = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(GRID)
            .bold_line_style(GRID)
            .y_labels(bars.len().max(1))
            .y_label_formatter(&label_of)
            .x_labels(6)
            .label_style((FONT, 12).into_font().color(&INK))
            .axis_style(INK.mix(0.6))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (i, b) in bars.iter().enumerate() {
            let i = i as i32;
            let color = PALETTE[b.color % PALETTE.len()];
            let mut rect = Rectangle::new(
                [
                    (x_range.0, SegmentValue::Exact(i)),
                    (b.value.clamp(x_range.0, x_range.1), SegmentValue::Exact(i + 1)),
                ],
                color.mix(0.85).filled(),
            );
            rect.set_margin(5, 5, 0, 0);
            chart.draw_series(std::iter::once(rect)).map_err(|e| err(e.to_string()))?;
            if let Some((lo, hi)) = b.ci {
                let (lo, hi) = (lo.clamp(x_range.0, x_range.1), hi.clamp(x_range.0, x_range.1));
                chart
                    .draw_series(std::iter::once(ErrorBar::new_horizontal(
                        SegmentValue::CenterOf(i),
                        lo,
                        b.value.clamp(x_range.0, x_range.1),
                        hi,
                        INK.stroke_width(1),
                        8,
                    )))
                    .map_err(|e| err(e.to_string()))?;
            }
            let end = b.ci.map_or(b.value, |(_, hi)| hi.max(b.value)).clamp(x_range.0, x_range.1);
            let style = TextStyle::from((FONT, 11).into_font()).color(&INK).pos(Pos::new(HPos::Left, VPos::Center));
            chart
                .draw_series(std::iter::once(Text::new(format_value(b.value), (end, SegmentValue::CenterOf(i)), style)))
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(tag_svg(svg, title))
}

/// A stacked series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    /// One value per category.
    pub values: Vec<f64>,
    pub color: usize,
}

/// Horizontal stacked bars (one row per category) with a legend below the title.
pub fn stacked(title: &str, categories: &[String], series: &[Series], x_desc: &str, width: u32) -> Result<String> {
    let err = chart_err(title);
    let totals: Vec<f64> =
        (0..categories.len()).map(|c| series.iter().map(|s| s.values.get(c).copied().unwrap_or(0.0)).sum()).collect();
    let max = totals.iter().copied().fold(0.0, f64::max);
    let x_max = nice_max(max);
    let height = 96 + ROW * categories.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let (legend, body) = root.split_vertically(46);
        legend
            .draw(&Text::new(title.to_string(), (8, 6), (FONT, 14).into_font().color(&INK)))
            .map_err(|e| err(e.to_string()))?;
        let mut x = 8i32;
        for s in series {
            let color = PALETTE[s.color % PALETTE.len()];
            legend.draw(&Rectangle::new([(x, 28), (x + 12, 40)], color.filled())).map_err(|e| err(e.to_string()))?;
            legend
                .draw(&Text::new(s.label.clone(), (x + 16, 28), (FONT, 12).into_font().color(&INK)))
                .map_err(|e| err(e.to_string()))?;
            x += 16 + 7 * s.label.chars().count() as i32 + 18;
        }
        let n = categories.len().max(1) as i32;
        let mut chart = ChartBuilder::on(&body)
            .margin(8)
            .margin_right(56)
            .x_label_area_size(36)
            .y_label_area_size(label_width(categories))
            .build_cartesian_2d(0.0..x_max, (0..n).into_segmented())
            .map_err(|e| err(e.to_string()))?;
        let label_of = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                categories.get(*i as usize).cloned().unwrap_or_default()
            }
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(GRID)
            .bold_line_style(GRID)
            .y_labels(categories.len().max(1))
            .y_label_formatter(&label_of)
            .x_labels(6)
            .x_desc(x_desc)
            .label_style((FONT, 12).into_font().color(&INK))
            .axis_desc_style((FONT, 12).into_font().color(&INK))
            .axis_style(INK.mix(0.6))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for c in 0..categories.len() {
            let mut start = 0.0;
            let ci = c as i32;
            for s in series {
                let v = s.values.get(c).copied().unwrap_or(0.0);
                if v <= 0.0 {
                    continue;
                }
                let mut rect = Rectangle::new(
                    [(start, SegmentValue::Exact(ci)), (start + v, SegmentValue::Exact(ci + 1))],
                    PALETTE[s.color % PALETTE.len()].filled(),
                );
                rect.set_margin(5, 5, 0, 0);
                chart.draw_series(std::iter::once(rect)).map_err(|e| err(e.to_string()))?;
                start += v;
            }
            let style = TextStyle::from((FONT, 11).into_font()).color(&INK).pos(Pos::new(HPos::Left, VPos::Center));
            chart
                .draw_series(std::iter::once(Text::new(
                    format!(" {}", format_value(totals[c])),
                    (totals[c], SegmentValue::CenterOf(ci)),
                    style,
                )))
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(tag_svg(svg, title))
}

/// One box of a box plot: the distribution of one category.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    pub label: String,
    /// Sorted values.
    pub sorted: Vec<f64>,
}

/// Horizontal box plots: box from p25 to p75, median line, whiskers p5–p95, dots for the rest.
pub fn boxes(title: &str, rows: &[Distribution], x_desc: &str, width: u32) -> Result<String> {
    use anser_evaluator::report::percentile;
    let err = chart_err(title);
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    let max = rows.iter().filter_map(|r| r.sorted.last().copied()).fold(0.0, f64::max);
    let x_max = nice_max(max);
    let height = 70 + ROW * rows.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let n = rows.len().max(1) as i32;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 14).into_font().color(&INK))
            .margin(8)
            .margin_right(24)
            .x_label_area_size(36)
            .y_label_area_size(label_width(&labels))
            .build_cartesian_2d(0.0..x_max, (0..n).into_segmented())
            .map_err(|e| err(e.to_string()))?;
        let label_of = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(GRID)
            .bold_line_style(GRID)
            .y_labels(rows.len().max(1))
            .y_label_formatter(&label_of)
            .x_labels(6)
            .x_desc(x_desc)
            .label_style((FONT, 12).into_font().color(&INK))
            .axis_desc_style((FONT, 12).into_font().color(&INK))
            .axis_style(INK.mix(0.6))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (i, r) in rows.iter().enumerate() {
            let q = |p: f64| percentile(&r.sorted, p);
            let (Some(p5), Some(p25), Some(p50), Some(p75), Some(p95)) = (q(0.05), q(0.25), q(0.5), q(0.75), q(0.95))
            else {
                continue;
            };
            let i = i as i32;
            let color = PALETTE[0];
            chart
                .draw_series(std::iter::once(ErrorBar::new_horizontal(
                    SegmentValue::CenterOf(i),
                    p5,
                    p50,
                    p95,
                    INK.stroke_width(1),
                    10,
                )))
                .map_err(|e| err(e.to_string()))?;
            let mut rect = Rectangle::new(
                [(p25, SegmentValue::Exact(i)), (p75, SegmentValue::Exact(i + 1))],
                color.mix(0.35).filled(),
            );
            rect.set_margin(5, 5, 0, 0);
            chart.draw_series(std::iter::once(rect)).map_err(|e| err(e.to_string()))?;
            let mut outline = Rectangle::new(
                [(p25, SegmentValue::Exact(i)), (p75, SegmentValue::Exact(i + 1))],
                color.stroke_width(1),
            );
            outline.set_margin(5, 5, 0, 0);
            chart.draw_series(std::iter::once(outline)).map_err(|e| err(e.to_string()))?;
            let mut median =
                Rectangle::new([(p50, SegmentValue::Exact(i)), (p50, SegmentValue::Exact(i + 1))], INK.stroke_width(2));
            median.set_margin(4, 4, 0, 0);
            chart.draw_series(std::iter::once(median)).map_err(|e| err(e.to_string()))?;
            let outliers = r.sorted.iter().filter(|v| **v < p5 || **v > p95);
            chart
                .draw_series(outliers.map(|v| Circle::new((*v, SegmentValue::CenterOf(i)), 2, color.mix(0.7).filled())))
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(tag_svg(svg, title))
}

/// A forest-plot row: a delta with its CI.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    pub label: String,
    pub delta: f64,
    pub ci: (f64, f64),
    /// Colour index: better, worse or not significant.
    pub color: usize,
}

/// Deltas with CIs around a zero line (compare pages).
pub fn forest(title: &str, rows: &[Interval], width: u32) -> Result<String> {
    let err = chart_err(title);
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    let reach = rows.iter().map(|r| r.ci.0.abs().max(r.ci.1.abs()).max(r.delta.abs())).fold(0.0, f64::max);
    let x = nice_max(reach);
    let height = 64 + ROW * rows.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let n = rows.len().max(1) as i32;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 14).into_font().color(&INK))
            .margin(8)
            .margin_right(24)
            .x_label_area_size(24)
            .y_label_area_size(label_width(&labels))
            .build_cartesian_2d(-x..x, (0..n).into_segmented())
            .map_err(|e| err(e.to_string()))?;
        let label_of = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(GRID)
            .bold_line_style(GRID)
            .y_labels(rows.len().max(1))
            .y_label_formatter(&label_of)
            .x_labels(7)
            .label_style((FONT, 12).into_font().color(&INK))
            .axis_style(INK.mix(0.6))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, SegmentValue::Exact(0)), (0.0, SegmentValue::Exact(n))],
                INK.mix(0.5).stroke_width(1),
            )))
            .map_err(|e| err(e.to_string()))?;
        for (i, r) in rows.iter().enumerate() {
            let i = i as i32;
            let color = PALETTE[r.color % PALETTE.len()];
            chart
                .draw_series(std::iter::once(ErrorBar::new_horizontal(
                    SegmentValue::CenterOf(i),
                    r.ci.0,
                    r.delta,
                    r.ci.1,
                    color.stroke_width(2),
                    10,
                )))
                .map_err(|e| err(e.to_string()))?;
            chart
                .draw_series(std::iter::once(Circle::new((r.delta, SegmentValue::CenterOf(i)), 4, color.filled())))
                .map_err(|e| err(e.to_string()))?;
        }
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(tag_svg(svg, title))
}

/// A round axis end ≥ `max` (1, 2, 2.5 or 5 times a power of ten); 1 for nothing.
pub fn nice_max(max: f64) -> f64 {
    if !(max.is_finite() && max > 0.0) {
        return 1.0;
    }
    let exp = max.log10().floor();
    let base = 10f64.powf(exp);
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * base).find(|v| *v >= max * 1.02).unwrap_or(10.0 * base)
}

/// Value labels: 3 significant decimals for small numbers, fewer for large ones.
pub fn format_value(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 || a == 0.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

/// Give the SVG an accessible title and let it scale with its container.
fn tag_svg(svg: String, title: &str) -> String {
    let escaped = super::escape(title);
    let Some(end) = svg.find('>') else { return svg };
    let (head, rest) = svg.split_at(end);
    let head = head.replacen("<svg ", "<svg role=\"img\" preserveAspectRatio=\"xMinYMin meet\" ", 1);
    format!("{head}><title>{escaped}</title>{}", &rest[1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_axis_ends() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(0.93), 1.0);
        assert_eq!(nice_max(1.0), 2.0);
        assert_eq!(nice_max(0.0123), 0.02);
        assert_eq!(nice_max(170.0), 200.0);
        assert_eq!(nice_max(230.0), 250.0);
        assert_eq!(nice_max(4000.0), 5000.0);
    }

    #[test]
    fn value_labels() {
        assert_eq!(format_value(0.5), "0.500");
        assert_eq!(format_value(34.54), "34.5");
        assert_eq!(format_value(245.37), "245");
        assert_eq!(format_value(0.0002), "2.00e-4");
    }

    #[test]
    fn charts_are_svg_with_titles_and_bars() {
        let svg = bars(
            "Recall <5>",
            &[Bar { label: "Recall@5".into(), value: 0.4, ci: Some((0.2, 0.6)), color: 0 }],
            (0.0, 1.0),
            400,
        )
        .unwrap_or_default();
        assert!(svg.starts_with("<svg role=\"img\""), "{svg}");
        assert!(svg.contains("<title>Recall &lt;5&gt;</title>"));
        assert!(svg.contains("Recall@5") && svg.contains("0.400") && svg.contains("<rect"));
    }
}
