//! The figures of `calltrace compare`, drawn in-process as SVG with
//! plotters (no fonts or system libraries: text stays SVG `<text>`):
//! `sweep.svg`, nodes kept against the method 1 threshold with one line per
//! pattern (the paper's fig. 13), and `rates.svg`, node counts before and
//! after each method as grouped horizontal bars per pattern (figs. 14-15).
//! Legends are drawn beside the plot, so they never hide data.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::abstraction::Share;
use crate::abstraction::registry::{MethodParams, Shown};
use crate::compare::{PatternReport, Report, Stage};
use crate::emit::format::thousands;
use crate::error::{Error, Result, escape_controls};

const FONT: &str = "sans-serif";

/// Line colours, one per pattern (cycled past 20): ten strong hues, then ten darker ones.
const PALETTE: [RGBColor; 20] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(57, 59, 121),
    RGBColor(230, 85, 13),
    RGBColor(49, 163, 84),
    RGBColor(132, 60, 57),
    RGBColor(117, 107, 177),
    RGBColor(140, 109, 49),
    RGBColor(123, 65, 115),
    RGBColor(99, 99, 99),
    RGBColor(99, 121, 57),
    RGBColor(49, 130, 189),
];

/// Bar colours of `rates.svg`, by stage.
const STAGE_COLORS: [RGBColor; 8] = [
    RGBColor(170, 170, 170),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(214, 39, 40),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
];

fn stage_color(s: Stage) -> RGBColor {
    STAGE_COLORS[s.index() % STAGE_COLORS.len()]
}

/// Height of one legend entry, in pixels.
const LEGEND_ROW: u32 = 20;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// A chart with two `f64` axes, as both figures use.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// `sweep.svg`: nodes kept (% of before) against the threshold, method 1.
pub fn sweep_svg(report: &Report) -> Result<Vec<u8>> {
    let names = shown_names(report);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let legend_w = legend_width(&names);
    let size = (
        640 + legend_w,
        (90 + LEGEND_ROW * names.len() as u32).max(480),
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (plot, legend) = root.split_horizontally(size.0 - legend_w);
        sweep_plot(&plot, report)?;
        let entries: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, color(i)))
            .collect();
        draw_legend(&legend, "pattern", &entries, 60)?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg.into_bytes())
}

fn sweep_plot(area: &Area, report: &Report) -> Result<()> {
    let caption = format!(
        "Nodes kept by method 1 against its threshold ({})",
        crate::emit::format::counted(report.patterns.len(), "pattern", "patterns")
    );
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 18))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..1f64, 0f64..100f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("threshold")
        .y_desc("nodes kept (% of nodes before)")
        .x_labels(11)
        .y_labels(11)
        .x_label_formatter(&|x| format!("{:.0}%", 100.0 * x))
        .y_label_formatter(&|y| format!("{y:.0}%"))
        .max_light_lines(0)
        .bold_line_style(RGBColor(225, 225, 225))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .draw()
        .map_err(draw_err)?;
    threshold_marker(&mut chart, area, report.config.threshold)?;
    for (i, p) in report.patterns.iter().enumerate() {
        let points = p
            .sweep
            .iter()
            .filter(|s| s.stage == Stage::threshold())
            .map(|s| (s.threshold, 100.0 * s.kept_ratio));
        chart
            .draw_series(LineSeries::new(points, color(i).stroke_width(2)))
            .map_err(draw_err)?;
    }
    Ok(())
}

/// A thin vertical line at `threshold`, the one `rates.svg` uses, with a
/// label saying so.
fn threshold_marker(chart: &mut Chart, area: &Area, threshold: Share) -> Result<()> {
    let t = threshold.get();
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(t - 0.001, 0.0), (t + 0.001, 100.0)],
            RGBColor(160, 160, 160).filled(),
        )))
        .map_err(draw_err)?;
    // Label on the left of the line when it is near the right edge.
    let (h, dx) = if t > 0.75 {
        (HPos::Right, -6)
    } else {
        (HPos::Left, 6)
    };
    let style = TextStyle::from((FONT, 12).into_font())
        .color(&RGBColor(90, 90, 90))
        .pos(Pos::new(h, VPos::Center));
    let (x, y) = chart.backend_coord(&(t, 3.0));
    let label = format!("T = {threshold}, the threshold of rates.svg");
    area.draw(&Text::new(label, (x + dx, y), style))
        .map_err(draw_err)
}

/// `rates.svg`: per pattern, nodes before and after each method at the threshold.
pub fn rates_svg(report: &Report) -> Result<Vec<u8>> {
    let names = shown_names(report);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let labels = stage_labels(&report.config.params());
    let label_refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    let legend_w = legend_width(&label_refs);
    let size = (
        720 + legend_w,
        130 + 13 * Stage::COUNT as u32 * names.len() as u32,
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (plot, legend) = root.split_horizontally(size.0 - legend_w);
        rates_plot(&plot, report, &names)?;
        let entries: Vec<_> = label_refs
            .iter()
            .zip(Stage::all())
            .map(|(l, s)| (*l, stage_color(s)))
            .collect();
        draw_legend(&legend, "call nodes", &entries, 60)?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg.into_bytes())
}

fn stage_labels(params: &MethodParams) -> Vec<String> {
    Stage::all()
        .map(|s| match s.spec() {
            None => "before".to_string(),
            Some(m) => match m.shown {
                Shown::Nothing => format!("after {}", m.name),
                Shown::Threshold => format!("after {} (T = {})", m.name, params.threshold),
                Shown::MinTotal => format!("after {} (P = {})", m.name, params.min_total),
            },
        })
        .collect()
}

fn rates_plot(area: &Area, report: &Report, names: &[&str]) -> Result<()> {
    let n = names.len();
    let max = report
        .patterns
        .iter()
        .map(|p| p.nodes_before)
        .max()
        .unwrap_or(0)
        .max(1);
    let label_w = names.iter().map(|s| s.len()).max().unwrap_or(0) as u32 * 8 + 24;
    let mut chart = ChartBuilder::on(area)
        .caption("Call nodes before and after abstraction", (FONT, 18))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(label_w)
        .build_cartesian_2d(0f64..max as f64 * 1.12, 0f64..n as f64)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_desc("call nodes")
        .y_desc("pattern")
        .disable_y_mesh()
        .x_labels(8)
        .x_label_formatter(&|x| thousands(x.round() as u64))
        .y_labels(0)
        .max_light_lines(0)
        .bold_line_style(RGBColor(225, 225, 225))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .draw()
        .map_err(draw_err)?;
    for (i, p) in report.patterns.iter().enumerate() {
        // Pattern i sits in band [n-1-i, n-i), so the first one is on top.
        draw_pattern(&mut chart, area, (n - 1 - i) as f64, p)?;
    }
    Ok(())
}

/// A name as drawn: control characters are not allowed in XML even as
/// character references, so they are shown escaped (`\x01`).
fn shown(name: &str) -> String {
    escape_controls(name).into_owned()
}

fn shown_names(report: &Report) -> Vec<String> {
    report.patterns.iter().map(|p| shown(&p.name)).collect()
}

/// A pattern's name left of the axis and its four bars in its band.
fn draw_pattern(chart: &mut Chart, area: &Area, band: f64, p: &PatternReport) -> Result<()> {
    // Drawn by hand: plotters labels float axes only at its own tick positions.
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    let (x, y) = chart.backend_coord(&(0.0, band + 0.5));
    area.draw(&Text::new(shown(&p.name), (x - 8, y), style))
        .map_err(draw_err)?;
    for s in Stage::all() {
        let nodes = p.rate(s).map_or(p.nodes_before, |r| r.nodes_after);
        draw_bar(chart, band, s, nodes)?;
    }
    Ok(())
}

/// One bar (and its value) of stage `s` in the pattern band starting at `band`.
fn draw_bar(chart: &mut Chart, band: f64, s: Stage, nodes: usize) -> Result<()> {
    let step = 0.84 / Stage::COUNT as f64;
    let top = band + 0.92 - step * s.index() as f64;
    let (y0, y1) = (top - 0.9 * step, top);
    let value = nodes as f64;
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(0.0, y0), (value, y1)],
            stage_color(s).filled(),
        )))
        .map_err(draw_err)?;
    let style = TextStyle::from((FONT, 11).into_font())
        .color(&RGBColor(60, 60, 60))
        .pos(Pos::new(HPos::Left, VPos::Center));
    let x_pad = chart.x_range().end * 0.005;
    chart
        .draw_series(std::iter::once(Text::new(
            thousands(nodes as u64),
            (value + x_pad, (y0 + y1) / 2.0),
            style,
        )))
        .map_err(draw_err)?;
    Ok(())
}

/// A legend column: a title, then one colour swatch and label per entry.
fn draw_legend(area: &Area, title: &str, entries: &[(&str, RGBColor)], top: i32) -> Result<()> {
    let title_style =
        TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    area.draw(&Text::new(
        title.to_string(),
        (8, top - LEGEND_ROW as i32),
        title_style,
    ))
    .map_err(draw_err)?;
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (label, c)) in entries.iter().enumerate() {
        let y = top + i as i32 * LEGEND_ROW as i32;
        area.draw(&Rectangle::new([(8, y - 3), (32, y + 3)], c.filled()))
            .map_err(draw_err)?;
        area.draw(&Text::new(label.to_string(), (40, y), style.clone()))
            .map_err(draw_err)?;
    }
    Ok(())
}

/// Width of a legend column for `labels`, in pixels.
fn legend_width(labels: &[&str]) -> u32 {
    let longest = labels.iter().map(|s| s.chars().count()).max().unwrap_or(0) as u32;
    (longest * 8 + 56).clamp(140, 420)
}

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Error {
    Error::Input(format!("cannot draw SVG: {e}"))
}
