//! The sweep's main figure (also written as `<stamp>.svg`), drawn on the one SVG layer: the primary metric
//! against a swept column on an axis ticked at the swept values, one series per other setting (where the
//! slice counts cross; colour and marker shape from `SeriesStyle`), each point a mean with its CI bar at the
//! verdicts' level (their simultaneous one, not a 95% beside verdicts made at 99.4%), each group's best
//! setting filled and labelled, and the fitted line when one was asked for.

use super::axis::Axis;
use super::number_format::confidence;
use super::series_style::SeriesStyle;
use super::setting_columns::SettingColumns;
use super::svg::{Svg, SMALL};
use super::sweep_report::SweepReport;
use crate::analyse::{GroupOutcome, SweepAnalysis};

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 560.0;
const LEFT: f64 = 96.0;
/// The legend's own column right of the plot, so it never covers a point.
const LEGEND: f64 = 230.0;
const TOP: f64 = 48.0;
const BOTTOM: f64 = 70.0;
/// Pixels between series at one x, so their bars do not overlap.
const DODGE: f64 = 9.0;

/// `primary` against one numeric setting column: the single `group_by` column, else the first swept
/// numeric column (a sweep without `group_by`, or a `--filter` run that kept one value of it); one
/// series per value of the other varying columns, and the fitted line (`y = fixed + per_unit · x`, drawn
/// over the points, which are then not joined) when `[analysis] fit` is `primary` over that column. None
/// when no numeric column takes two values.
pub fn sweep_plot_svg(report: &SweepReport) -> Option<String> {
    let (analysis, config) = (report.analysis, report.config);
    let x_name = plot_column(analysis, &config.group_by)?;
    let level = analysis.verdicts.level;
    let series = series_of(analysis, &config.primary, &x_name, level);
    let xs: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.x)).collect();
    // Settings without a usable run have no point: what is left may sit at one x (no axis then).
    let x = Axis::at_values(&xs)?;
    let (from, to) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), x| (low.min(*x), high.max(*x)));
    let fit = analysis
        .fit
        .as_ref()
        .filter(|_| config.fit.as_ref().is_some_and(|names| names.x == x_name && names.y == config.primary))
        .map(|fit| (fit.fixed, fit.per_unit));
    // The measured axis over every bar's ends and the fitted line's.
    let bars = series.iter().flat_map(|s| &s.points).flat_map(|p| [p.y - p.half_width, p.y + p.half_width]);
    let line_ends = fit.iter().flat_map(|(fixed, per_unit)| [fixed + per_unit * from, fixed + per_unit * to]);
    let frame = Frame { y: Axis::linear(bars.chain(line_ends))?, x };
    let mut svg = Svg::new(WIDTH, HEIGHT, &format!("{} vs {x_name} (mean ± {} CI)", config.primary, confidence(level)));
    frame.draw_axes(&mut svg, &x_name, &report.context.units.header(&config.primary, &config.primary));
    if let Some((fixed, per_unit)) = fit {
        let samples = frame.x.samples(from, to, 64).into_iter();
        let line: Vec<(f64, f64)> = samples.map(|x| frame.at(x, fixed + per_unit * x, 0.0)).collect();
        svg.polyline(&line, "black", 1.5);
    }
    let count = series.len();
    for (index, series) in series.iter().enumerate() {
        let dodge = (index as f64 - (count as f64 - 1.0) / 2.0) * DODGE;
        // Over a fitted line the points stand alone: a line joining them would hide the fit.
        frame.draw_series(&mut svg, series, SeriesStyle::nth(index), dodge, fit.is_none());
    }
    draw_legend(&mut svg, &series, fit.is_some(), level);
    Some(svg.finish())
}

/// The column on the x axis: the single `group_by` column, else the first varying setting column, as
/// long as it is numeric and takes two values or more.
fn plot_column(analysis: &SweepAnalysis, group_by: &[String]) -> Option<String> {
    let columns = SettingColumns::of(analysis.settings.iter().map(|s| &s.setting));
    let grouping = (group_by.len() == 1).then(|| group_by[0].clone());
    grouping.into_iter().chain(columns.varying).find(|name| {
        let values: Option<Vec<f64>> = analysis.settings.iter().map(|s| s.value_of(name)).collect();
        values.and_then(|values| Axis::at_values(&values)).is_some()
    })
}

/// One series per value of the varying columns other than `x_name`, in value order (slices=1, 2, 4,
/// 8), not in the shuffled order the runs happened in; each point's interval at `level`; each group's best
/// setting carries its label.
fn series_of(analysis: &SweepAnalysis, primary: &str, x_name: &str, level: f64) -> Vec<XySeries> {
    let columns = SettingColumns::of(analysis.settings.iter().map(|s| &s.setting)).without(&[x_name.to_string()]);
    let mut series: Vec<(Vec<f64>, XySeries)> = Vec::new();
    for (index, setting) in analysis.settings.iter().enumerate() {
        let (Some(x), Some(stats)) = (setting.value_of(x_name), setting.metric(primary)) else { continue };
        let label = columns.label(&setting.setting);
        let half_width = stats.half_width(level).unwrap_or(0.0);
        let point = XyPoint { x, y: stats.mean, half_width, best: best_label(analysis, index) };
        match series.iter_mut().find(|(_, s)| s.label == label) {
            Some((_, s)) => s.points.push(point),
            None => series.push((columns.numbers(&setting.setting), XySeries { label, points: vec![point] })),
        }
    }
    series.iter_mut().for_each(|(_, s)| s.points.sort_by(|a, b| a.x.total_cmp(&b.x)));
    series.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    series.into_iter().map(|(_, s)| s).collect()
}

/// `best`, `best (tied)` or `best mean` when `setting` is the best of its group (as its verdict says).
fn best_label(analysis: &SweepAnalysis, setting: usize) -> Option<&'static str> {
    let group = analysis.verdicts.groups.iter().find(|group| group.best == setting)?;
    Some(match group.outcome {
        GroupOutcome::Resolved => "best",
        GroupOutcome::Tied => "best (tied)",
        GroupOutcome::CannotTell => "best mean",
    })
}

/// One series of an x-y figure, the settings that share every label but the x axis's: a labelled line of
/// points, sorted by x.
#[derive(Debug, Clone, PartialEq)]
struct XySeries {
    label: String,
    points: Vec<XyPoint>,
}

/// One point of an x-y figure, a setting's mean at its swept value: the mean with its interval
/// half-width; `best` labels a group's best setting (drawn filled, labelled).
#[derive(Debug, Clone, PartialEq)]
struct XyPoint {
    x: f64,
    y: f64,
    half_width: f64,
    best: Option<&'static str>,
}

/// A line and marker per series, then what a filled marker, a bar (its `level`) and the fitted line mean.
fn draw_legend(svg: &mut Svg, series: &[XySeries], fitted: bool, level: f64) {
    let x = WIDTH - LEGEND + 16.0;
    let mut y = TOP + 12.0;
    // Writes one entry's text and returns the height of its row, for the entry's glyph.
    let mut next = |svg: &mut Svg, text: &str| {
        let row = y;
        svg.text((x + 34.0, row + 4.5), text, "start", SMALL, "legend");
        y += 24.0;
        row
    };
    for (index, series) in series.iter().enumerate() {
        let style = SeriesStyle::nth(index);
        let label = if series.label.is_empty() { "mean" } else { series.label.as_str() };
        let row = next(svg, label);
        svg.line((x, row), (x + 26.0, row), style.colour, 2.0, None);
        svg.marker(style.shape, (x + 13.0, row), 5.0, style.colour, false, "legend-marker");
    }
    if series.iter().flat_map(|s| &s.points).any(|p| p.best.is_some()) {
        let row = next(svg, "filled: best of its group");
        svg.marker(SeriesStyle::nth(0).shape, (x + 13.0, row), 7.0, "#444", true, "legend-marker");
    }
    let row = next(svg, &format!("bars: {} CI of the mean", confidence(level)));
    svg.vertical_interval(x + 13.0, (row - 9.0, row + 9.0), "#444", 8.0);
    if fitted {
        let row = next(svg, "least-squares fit");
        svg.line((x, row), (x + 26.0, row), "black", 1.5, None);
    }
}

/// The plot area between the margins, and its two axes.
struct Frame {
    x: Axis,
    y: Axis,
}

impl Frame {
    const RIGHT: f64 = WIDTH - LEGEND;
    const FLOOR: f64 = HEIGHT - BOTTOM;

    /// Pixel position of `(x, y)`, moved `dodge` pixels sideways.
    fn at(&self, x: f64, y: f64, dodge: f64) -> (f64, f64) {
        (self.px(x) + dodge, self.py(y))
    }

    fn px(&self, x: f64) -> f64 {
        LEFT + self.x.fraction(x) * (Self::RIGHT - LEFT)
    }

    fn py(&self, y: f64) -> f64 {
        Self::FLOOR - self.y.fraction(y) * (Self::FLOOR - TOP)
    }

    /// Grid lines and labelled ticks of both axes, the frame, and the axis titles.
    fn draw_axes(&self, svg: &mut Svg, x_name: &str, y_name: &str) {
        for (value, label) in self.y.ticks() {
            let py = self.py(*value);
            svg.line((LEFT, py), (Self::RIGHT, py), "#e4e4e4", 1.0, None);
            svg.text((LEFT - 8.0, py + 4.5), label, "end", SMALL, "y-tick");
        }
        for (value, label) in self.x.ticks() {
            let px = self.px(*value);
            svg.line((px, TOP), (px, Self::FLOOR), "#e4e4e4", 1.0, None);
            svg.text((px, Self::FLOOR + 20.0), label, "middle", SMALL, "x-tick");
        }
        svg.line((LEFT, Self::FLOOR), (Self::RIGHT, Self::FLOOR), "black", 1.0, None);
        svg.line((LEFT, TOP), (LEFT, Self::FLOOR), "black", 1.0, None);
        svg.text(((LEFT + Self::RIGHT) / 2.0, HEIGHT - 20.0), &self.x.title(x_name), "middle", 15.0, "axis-title");
        svg.vertical_text((24.0, (TOP + Self::FLOOR) / 2.0), y_name);
    }

    /// A series' points with their bars (joined by a line when `joined`), moved `dodge` pixels sideways.
    fn draw_series(&self, svg: &mut Svg, series: &XySeries, style: SeriesStyle, dodge: f64, joined: bool) {
        let at = |point: &XyPoint| self.at(point.x, point.y, dodge);
        if joined {
            let line: Vec<(f64, f64)> = series.points.iter().map(at).collect();
            svg.polyline(&line, style.colour, 2.0);
        }
        for point in &series.points {
            let (x, y) = at(point);
            let (top, bottom) = (self.py(point.y + point.half_width), self.py(point.y - point.half_width));
            svg.vertical_interval(x, (top, bottom), style.colour, 8.0);
            match &point.best {
                Some(label) => {
                    svg.marker(style.shape, (x, y), 7.0, style.colour, true, "best");
                    svg.text((x, top - 8.0), label, "middle", SMALL, "best-label");
                }
                None => svg.marker(style.shape, (x, y), 5.0, style.colour, false, "point"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_config, fixture_slice_sweep};
    use crate::analyse::{analyse_sweep, AnalysisConfig, Observation};
    use crate::report::ReportContext;

    fn plot(observations: &[Observation], config: &AnalysisConfig) -> Option<String> {
        let analysis = analyse_sweep(observations, config, true, &[]);
        let context = ReportContext::default();
        let svg = sweep_plot_svg(&SweepReport { analysis: &analysis, config, context: &context, title: "t" });
        if let (Some(svg), Some(dir)) = (&svg, std::env::var_os("SWEEP_KEEP_PLOTS")) {
            // With `SWEEP_KEEP_PLOTS=<dir>`, the plot is kept there to look at after the test.
            std::fs::write(std::path::Path::new(&dir).join(format!("{}.svg", config.primary)), svg).unwrap();
        }
        svg
    }

    fn texts<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
        let marker = format!("class=\"{class}\">");
        svg.split(marker.as_str()).skip(1).map(|text| text.split('<').next().unwrap()).collect()
    }

    #[test]
    fn the_slice_sweep_plots_one_series_per_slice_count_with_each_groups_best_marked() {
        let config = fixture_slice_config();
        let svg = plot(&fixture_slice_sweep(), &config).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert_eq!(texts(&svg, "legend")[..4], ["slices=1", "slices=2", "slices=4", "slices=8"], "value order");
        assert!(svg.contains("prefill_tokens_per_s vs rows") && svg.contains(">prefill_tokens_per_s (tok/s)</text>"));
        assert_eq!(texts(&svg, "x-tick"), ["512", "1024", "2048"], "ticks at the swept rows");
        assert!(svg.contains(">rows (log2 scale)</text>"));
        assert_eq!(svg.matches("class=\"best\"").count(), 3, "one best per group");
        assert!(svg.contains(">bars: 99% CI of the mean</text>") && svg.contains(">filled: best of its group</text>"));
        assert!(
            svg.contains("stroke=\"#0072B2\"") && svg.contains("<polygon"),
            "Okabe-Ito colours, several marker shapes"
        );
        assert_eq!(
            texts(&svg, "best-label"),
            ["best (tied)", "best", "best (tied)"],
            "slices=2 at 1024 and 2048, slices=8 at 512"
        );
    }

    #[test]
    fn without_group_by_the_first_swept_number_is_the_x_axis() {
        let config = AnalysisConfig { group_by: vec![], ..fixture_slice_config() };
        let svg = plot(&fixture_slice_sweep(), &config).unwrap();
        assert!(svg.contains("prefill_tokens_per_s vs rows"), "rows is the first swept column");
        assert_eq!(svg.matches("class=\"best\"").count(), 1, "one group: one best");
    }

    #[test]
    fn a_filter_run_with_one_value_of_the_grouping_column_plots_the_next() {
        let config = fixture_slice_config();
        let kept: Vec<_> = fixture_slice_sweep()
            .into_iter()
            .filter(|o| o.setting.value("rows") == Some(&crate::declare::ParamValue::Int(512)))
            .collect();
        let svg = plot(&kept, &config).unwrap();
        assert!(svg.contains("prefill_tokens_per_s vs slices"), "{}", &svg[..400]);
    }

    #[test]
    fn no_plot_when_only_one_x_has_usable_runs() {
        let config = AnalysisConfig { group_by: vec![], ..fixture_slice_config() };
        let observations = [
            fixture_observation(&[("rows", "512")], 1, &[("prefill_tokens_per_s", 900.0)]),
            fixture_observation(&[("rows", "1024")], 1, &[]),
        ];
        assert!(plot(&observations, &config).is_none());
    }

    /// The all-reduce fit had no figure: its points with the fitted line over them.
    #[test]
    fn a_fit_of_the_primary_metric_is_drawn_over_its_points() {
        let observations: Vec<_> = [(4096, 40.0), (65536, 90.0), (262144, 250.0), (1048576, 900.0), (4194304, 3500.0)]
            .iter()
            .flat_map(|&(bytes, us)| {
                (1..=3).map(move |rep| {
                    let jitter = 1.0 + 0.01 * rep as f64;
                    fixture_observation(&[("bytes", &bytes.to_string())], rep, &[("us_per_call", us * jitter)])
                })
            })
            .collect();
        let config = AnalysisConfig {
            primary: "us_per_call".into(),
            direction: crate::analyse::Direction::Lower,
            group_by: vec![],
            control: None,
            equivalence_key: None,
            rows_per_slice: None,
            fit: Some(crate::declare::FitConfig { x: "bytes".into(), y: "us_per_call".into(), by: Vec::new() }),
            ..fixture_slice_config()
        };
        let svg = plot(&observations, &config).unwrap();
        assert!(svg.contains(">least-squares fit</text>") && svg.contains(">bytes (log2 scale)</text>"));
        assert_eq!(texts(&svg, "x-tick"), ["4096", "65536", "262144", "1048576", "4194304"]);
        assert!(svg.contains(">us_per_call (µs)</text>"), "the unit on the axis");
    }
}
