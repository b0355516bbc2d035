//! The charts of the HTML pages, drawn with plotters into SVG strings (inline in the page).
//!
//! All charts are horizontal: one row per category (metric, group, run), so long names fit.
//! Text uses the browser's `sans-serif`; plotters only estimates text widths for layout.

use plotters::{
    coord::{
        ranged1d::{SegmentValue, SegmentedCoord},
        types::{RangedCoordf64, RangedCoordi32},
    },
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

/// The chart type of every chart here: a numeric x axis, one segment per category on y.
type CategoryChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, SegmentedCoord<RangedCoordi32>>>;

/// Row `i` of `n` from the top (plotters counts y upwards).
fn row(i: usize, n: usize) -> i32 {
    (n - 1 - i) as i32
}

/// A chart with `labels` on y (first label on top), x over `x`, the mesh drawn.
fn category_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: Option<&str>,
    labels: &[String],
    x: (f64, f64),
    x_desc: &str,
    err: &dyn Fn(String) -> Error,
) -> Result<CategoryChart<'a, 'b>> {
    let n = labels.len().max(1);
    let mut builder = ChartBuilder::on(area);
    if let Some(caption) = caption {
        builder.caption(caption, (FONT, 15).into_font().color(&INK));
    }
    let mut chart = builder
        .margin(8)
        .margin_right(52)
        .x_label_area_size(if x_desc.is_empty() { 24 } else { 40 })
        .y_label_area_size(label_width(labels))
        .build_cartesian_2d(x.0..x.1, (0..n as i32).into_segmented())
        .map_err(|e| err(e.to_string()))?;
    let label_of = |v: &SegmentValue<i32>| match v {
        // Two no-break spaces keep the label off the axis (SVG drops trailing plain spaces).
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) if (*i as usize) < n => {
            labels.get(n - 1 - *i as usize).map_or(String::new(), |l| format!("{l}\u{a0}\u{a0}"))
        }
        _ => String::new(),
    };
    let step = (x.1 - x.0) / 5.0;
    let x_label = |v: &f64| axis_label(*v, step);
    chart
        .configure_mesh()
        .disable_y_mesh()
        .set_tick_mark_size(LabelAreaPosition::Left, 0)
        .x_max_light_lines(1)
        .bold_line_style(GRID)
        .y_labels(n)
        .y_label_formatter(&label_of)
        .x_labels(6)
        .x_label_formatter(&x_label)
        .x_desc(x_desc)
        .label_style((FONT, 13).into_font().color(&INK))
        .axis_desc_style((FONT, 13).into_font().color(&INK))
        .axis_style(INK.mix(0.6))
        .draw()
        .map_err(|e| err(e.to_string()))?;
    Ok(chart)
}

/// An x tick label with as many decimals as the tick step needs.
fn axis_label(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-step.log10()).ceil().max(0.0) as usize };
    format!("{v:.decimals$}")
}

/// `text` printed after x = `x` on row `y`, vertically centred.
fn value_text(text: String, x: f64, y: i32) -> Text<'static, (f64, SegmentValue<i32>), String> {
    let style = TextStyle::from((FONT, 12).into_font()).color(&INK).pos(Pos::new(HPos::Left, VPos::Center));
    Text::new(text, (x, SegmentValue::CenterOf(y)), style)
}

/// An SVG of `size` on white, drawn by `draw` and tagged with `title`.
fn render(
    title: &str,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> Result<()>,
) -> Result<String> {
    let err = chart_err(title);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        draw(&root)?;
        root.present().map_err(|e| err(e.to_string()))?;
    }
    Ok(tag_svg(svg, title))
}

/// Width of the label column for `labels` at 12 px (about 6.5 px per character).
fn label_width(labels: &[String]) -> u32 {
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32;
    (longest * 8 + 16).clamp(60, 280)
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

/// Horizontal bars over `x_range` with CI whiskers and the value printed after each bar;
/// `title` is the SVG's accessible title and, when `caption`, also drawn.
pub fn bars(title: &str, caption: bool, bars: &[Bar], x_range: (f64, f64), width: u32) -> Result<String> {
    let err = chart_err(title);
    let labels: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
    let height = if caption { 62 } else { 40 } + ROW * bars.len().max(1) as u32;
    render(title, (width, height), |root| {
        let mut chart = category_chart(root, caption.then_some(title), &labels, x_range, "", &err)?;
        let clamp = |v: f64| v.clamp(x_range.0, x_range.1);
        for (i, b) in bars.iter().enumerate() {
            let y = row(i, bars.len());
            let color = PALETTE[b.color % PALETTE.len()];
            let mut rect = Rectangle::new(
                [(x_range.0, SegmentValue::Exact(y)), (clamp(b.value), SegmentValue::Exact(y + 1))],
                color.mix(0.85).filled(),
            );
            rect.set_margin(5, 5, 0, 0);
            chart.draw_series(std::iter::once(rect)).map_err(|e| err(e.to_string()))?;
            if let Some((lo, hi)) = b.ci.filter(|(lo, hi)| hi > lo) {
                let whisker = PathElement::new(
                    vec![(clamp(lo), SegmentValue::CenterOf(y)), (clamp(hi), SegmentValue::CenterOf(y))],
                    INK.stroke_width(1),
                );
                chart.draw_series(std::iter::once(whisker)).map_err(|e| err(e.to_string()))?;
                for end in [lo, hi] {
                    let mut cap = Rectangle::new(
                        [(clamp(end), SegmentValue::Exact(y)), (clamp(end), SegmentValue::Exact(y + 1))],
                        INK.stroke_width(1),
                    );
                    cap.set_margin(8, 8, 0, 0);
                    chart.draw_series(std::iter::once(cap)).map_err(|e| err(e.to_string()))?;
                }
            }
            let end = clamp(b.ci.map_or(b.value, |(_, hi)| hi.max(b.value)));
            chart
                .draw_series(std::iter::once(value_text(format!(" {}", format_value(b.value)), end, y)))
                .map_err(|e| err(e.to_string()))?;
        }
        Ok(())
    })
}

/// A stacked series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    /// One value per category.
    pub values: Vec<f64>,
    pub color: usize,
}

/// Horizontal stacked bars (one row per category) with the title and a legend on top.
pub fn stacked(title: &str, categories: &[String], series: &[Series], x_desc: &str, width: u32) -> Result<String> {
    let err = chart_err(title);
    let totals: Vec<f64> =
        (0..categories.len()).map(|c| series.iter().map(|s| s.values.get(c).copied().unwrap_or(0.0)).sum()).collect();
    let x_max = nice_max(totals.iter().copied().fold(0.0, f64::max));
    let height = 104 + ROW * categories.len().max(1) as u32;
    render(title, (width, height), |root| {
        let (legend, body) = root.split_vertically(50);
        legend
            .draw(&Text::new(title.to_string(), (8, 6), (FONT, 15).into_font().color(&INK)))
            .map_err(|e| err(e.to_string()))?;
        let mut x = 8i32;
        for s in series {
            let color = PALETTE[s.color % PALETTE.len()];
            legend.draw(&Rectangle::new([(x, 30), (x + 12, 42)], color.filled())).map_err(|e| err(e.to_string()))?;
            legend
                .draw(&Text::new(s.label.clone(), (x + 17, 30), (FONT, 13).into_font().color(&INK)))
                .map_err(|e| err(e.to_string()))?;
            x += 17 + 7 * s.label.chars().count() as i32 + 20;
        }
        let mut chart = category_chart(&body, None, categories, (0.0, x_max), x_desc, &err)?;
        for (c, total) in totals.iter().enumerate() {
            let y = row(c, categories.len());
            let mut start = 0.0;
            for s in series {
                let v = s.values.get(c).copied().unwrap_or(0.0);
                if v <= 0.0 {
                    continue;
                }
                let mut rect = Rectangle::new(
                    [(start, SegmentValue::Exact(y)), (start + v, SegmentValue::Exact(y + 1))],
                    PALETTE[s.color % PALETTE.len()].filled(),
                );
                rect.set_margin(5, 5, 0, 0);
                chart.draw_series(std::iter::once(rect)).map_err(|e| err(e.to_string()))?;
                start += v;
            }
            chart
                .draw_series(std::iter::once(value_text(format!(" {}", format_value(*total)), *total, y)))
                .map_err(|e| err(e.to_string()))?;
        }
        Ok(())
    })
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
    let x_max = nice_max(rows.iter().filter_map(|r| r.sorted.last().copied()).fold(0.0, f64::max));
    let height = 84 + ROW * rows.len().max(1) as u32;
    render(title, (width, height), |root| {
        let mut chart = category_chart(root, Some(title), &labels, (0.0, x_max), x_desc, &err)?;
        let color = PALETTE[0];
        for (i, r) in rows.iter().enumerate() {
            let q = |p: f64| percentile(&r.sorted, p);
            let (Some(p5), Some(p25), Some(p50), Some(p75), Some(p95)) = (q(0.05), q(0.25), q(0.5), q(0.75), q(0.95))
            else {
                continue;
            };
            let y = row(i, rows.len());
            let seg = |a: f64, b: f64, margin: u32, style: ShapeStyle| {
                let mut r = Rectangle::new([(a, SegmentValue::Exact(y)), (b, SegmentValue::Exact(y + 1))], style);
                r.set_margin(margin, margin, 0, 0);
                r
            };
            let whisker = PathElement::new(
                vec![(p5, SegmentValue::CenterOf(y)), (p95, SegmentValue::CenterOf(y))],
                INK.stroke_width(1),
            );
            chart.draw_series(std::iter::once(whisker)).map_err(|e| err(e.to_string()))?;
            let shapes = [
                seg(p5, p5, 8, INK.stroke_width(1)),
                seg(p95, p95, 8, INK.stroke_width(1)),
                seg(p25, p75, 4, color.mix(0.35).filled()),
                seg(p25, p75, 4, color.stroke_width(1)),
                seg(p50, p50, 3, INK.stroke_width(2)),
            ];
            chart.draw_series(shapes).map_err(|e| err(e.to_string()))?;
            let outliers = r.sorted.iter().filter(|v| **v < p5 || **v > p95);
            chart
                .draw_series(outliers.map(|v| Circle::new((*v, SegmentValue::CenterOf(y)), 2, color.mix(0.7).filled())))
                .map_err(|e| err(e.to_string()))?;
        }
        Ok(())
    })
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
    let height = 84 + ROW * rows.len().max(1) as u32;
    render(title, (width, height), |root| {
        let mut chart = category_chart(root, Some(title), &labels, (-x, x), "delta (run − baseline)", &err)?;
        let n = rows.len().max(1) as i32;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, SegmentValue::Exact(0)), (0.0, SegmentValue::Exact(n))],
                INK.mix(0.5).stroke_width(1),
            )))
            .map_err(|e| err(e.to_string()))?;
        for (i, r) in rows.iter().enumerate() {
            let y = row(i, rows.len());
            let color = PALETTE[r.color % PALETTE.len()];
            let line = PathElement::new(
                vec![(r.ci.0, SegmentValue::CenterOf(y)), (r.ci.1, SegmentValue::CenterOf(y))],
                color.stroke_width(2),
            );
            chart.draw_series(std::iter::once(line)).map_err(|e| err(e.to_string()))?;
            chart
                .draw_series(std::iter::once(Circle::new((r.delta, SegmentValue::CenterOf(y)), 5, color.filled())))
                .map_err(|e| err(e.to_string()))?;
            chart
                .draw_series(std::iter::once(value_text(
                    format!("  {:+.3} [{:+.3}, {:+.3}]", r.delta, r.ci.0, r.ci.1),
                    r.ci.1,
                    y,
                )))
                .map_err(|e| err(e.to_string()))?;
        }
        Ok(())
    })
}

/// A round axis end ≥ `max` (1, 2, 2.5 or 5 times a power of ten); 1 for nothing.
pub fn nice_max(max: f64) -> f64 {
    if !(max.is_finite() && max > 0.0) {
        return 1.0;
    }
    let exp = max.log10().floor();
    let base = 10f64.powf(exp);
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * base).find(|v| *v >= max).unwrap_or(10.0 * base)
}

/// Value labels: integers as integers, 3 decimals for small numbers, fewer for large ones.
pub fn format_value(v: f64) -> String {
    let a = v.abs();
    if (v.fract() == 0.0 && a < 1e15) || a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else if a >= 0.001 {
        format!("{v:.4}")
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
        assert_eq!(nice_max(1.0), 1.0);
        assert_eq!(nice_max(1.01), 2.0);
        assert_eq!(nice_max(0.0123), 0.02);
        assert_eq!(nice_max(170.0), 200.0);
        assert_eq!(nice_max(230.0), 250.0);
        assert_eq!(nice_max(4000.0), 5000.0);
    }

    #[test]
    fn axis_labels_follow_the_step() {
        assert_eq!(axis_label(0.2, 0.2), "0.2");
        assert_eq!(axis_label(100.0, 100.0), "100");
        assert_eq!(axis_label(0.005, 0.004), "0.005");
        assert_eq!(axis_label(-0.5, 0.25), "-0.5");
    }

    #[test]
    fn value_labels() {
        assert_eq!(format_value(0.5), "0.500");
        assert_eq!(format_value(12.0), "12");
        assert_eq!(format_value(0.0), "0");
        assert_eq!(format_value(34.54), "34.5");
        assert_eq!(format_value(245.37), "245");
        assert_eq!(format_value(0.0002), "2.00e-4");
        assert_eq!(format_value(0.00955), "0.0095");
    }

    #[test]
    fn charts_are_svg_with_titles_and_bars() {
        let svg = bars(
            "Recall <5>",
            true,
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
