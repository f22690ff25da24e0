//! SVG plots beside the markdown: the primary metric against a swept column, one line per other
//! setting (where the slice counts cross) with a fitted line when one was asked for, and an
//! ablation's scope time per variant. Each point is a mean with its 95% CI as an error bar.

use std::ops::Range;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::number_format::plain_number;
use super::setting_columns::SettingColumns;
use crate::analyse::{AblationAnalysis, AnalysisConfig, CostFit, SweepAnalysis};

const SIZE: (u32, u32) = (960, 560);

/// The legend's own column right of the plot, so it never covers a point.
const LEGEND_WIDTH: u32 = 210;

/// Values spanning this ratio or more get a log x axis (a decade: 512..2048 stays linear).
const LOG_AXIS_RATIO: f64 = 10.0;

/// How far apart series are drawn at one x, as a share of the axis width, so error bars do not overlap.
const DODGE_SHARE: f64 = 0.009;

/// (x, mean, 95% CI half-width)
type Point = (f64, f64, f64);

/// (legend label, the label's values as numbers for ordering the legend, points sorted by x)
type Series = (String, Vec<f64>, Vec<Point>);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// `primary` against one numeric setting column: the single `group_by` column, else the first swept
/// numeric column (a sweep without `group_by`, or a `--filter` run that kept one value of it); one
/// series per value of the other varying columns, and the fitted line when `[analysis] fit` is
/// `primary` over that column. None when no numeric column takes two values.
pub fn sweep_plot_svg(analysis: &SweepAnalysis, config: &AnalysisConfig) -> Option<String> {
    let x_name = plot_column(analysis, config)?;
    let series = series_of(analysis, config, &x_name);
    let fit = analysis
        .fit
        .as_ref()
        .filter(|_| config.fit.as_ref().is_some_and(|names| names.x == x_name && names.y == config.primary));
    let points: Vec<Point> = series.iter().flat_map(|(_, _, p)| p.iter().copied()).collect();
    // Settings without a usable run have no point: what is left may sit at one x.
    let x_range = span(points.iter().map(|p| p.0)).filter(|(low, high)| low < high)?;
    let mut y_values: Vec<f64> = points.iter().flat_map(|p| [p.1 - p.2, p.1 + p.2]).collect();
    if let Some(fit) = fit {
        y_values.extend([fit.predict(x_range.0), fit.predict(x_range.1)]);
    }
    let y_range = padded(span(y_values.into_iter())?);
    let axis = XAxis::of(x_range);
    let title = format!("{} vs {x_name} (mean ± 95% CI)", config.primary);
    let mut legend: Vec<(String, RGBAColor)> = series
        .iter()
        .enumerate()
        .map(|(index, (label, _, _))| (legend_label(label), Palette99::pick(index).to_rgba()))
        .collect();
    if fit.is_some() {
        legend.push(("least-squares fit".to_string(), BLACK.to_rgba()));
    }
    let chart = SweepChart { title, x_name: &x_name, y_name: &config.primary, series: &series, fit, axis };
    render(|root| {
        let (plot, side) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
        if axis.log {
            // Ticks at the swept values: plotters' own log ticks stop at the last power of ten and
            // shade the axis with minor lines.
            let mut ticks: Vec<f64> = points.iter().map(|p| p.0).collect();
            ticks.sort_by(f64::total_cmp);
            ticks.dedup();
            chart.draw(&plot, (axis.low..axis.high).log_scale().with_key_points(ticks), y_range)?;
        } else {
            chart.draw(&plot, axis.low..axis.high, y_range)?;
        }
        draw_legend(&side, &legend)
    })
}

/// The column on the x axis: the single `group_by` column, else the first varying setting column, as
/// long as it is numeric and takes two values or more.
fn plot_column(analysis: &SweepAnalysis, config: &AnalysisConfig) -> Option<String> {
    let columns = SettingColumns::of(analysis.settings.iter().map(|s| &s.setting));
    let grouping = match config.group_by.as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    };
    grouping.into_iter().chain(columns.varying).find(|name| {
        let values: Option<Vec<f64>> = analysis
            .settings
            .iter()
            .map(|s| s.setting.iter().find(|(key, _)| key == name).and_then(|(_, value)| value.as_f64()))
            .collect();
        values.and_then(|values| span(values.into_iter())).is_some_and(|(low, high)| low < high)
    })
}

/// One series per value of the varying columns other than `x_name`, in value order (slices=1, 2, 4,
/// 8), not in the shuffled order the runs happened in.
fn series_of(analysis: &SweepAnalysis, config: &AnalysisConfig, x_name: &str) -> Vec<Series> {
    let columns = SettingColumns::of(analysis.settings.iter().map(|s| &s.setting)).without(&[x_name.to_string()]);
    let mut series: Vec<Series> = Vec::new();
    for setting in &analysis.settings {
        let (Some(x), Some(stats)) = (setting.value_of(x_name), setting.metric(&config.primary)) else { continue };
        let label = columns.label(&setting.setting);
        let point = (x, stats.mean, stats.ci95.unwrap_or(0.0));
        match series.iter_mut().find(|(name, _, _)| *name == label) {
            Some((_, _, points)) => points.push(point),
            None => series.push((label, columns.numbers(&setting.setting), vec![point])),
        }
    }
    series.iter_mut().for_each(|(_, _, points)| points.sort_by(|a, b| a.0.total_cmp(&b.0)));
    series.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
    series
}

fn legend_label(label: &str) -> String {
    if label.is_empty() {
        "mean ± 95% CI".to_string()
    } else {
        label.to_string()
    }
}

/// The x axis: log when the values span a decade or more; padded so no point sits on the frame.
#[derive(Debug, Clone, Copy)]
struct XAxis {
    log: bool,
    low: f64,
    high: f64,
}

impl XAxis {
    fn of((low, high): (f64, f64)) -> XAxis {
        if low > 0.0 && high / low >= LOG_AXIS_RATIO {
            let pad = (high / low).powf(0.06);
            XAxis { log: true, low: low / pad, high: high * pad }
        } else {
            let pad = (high - low) * 0.06;
            XAxis { log: false, low: low - pad, high: high + pad }
        }
    }

    /// `x` moved sideways for series `index` of `count`, by a fixed share of the axis width.
    fn dodge(&self, x: f64, index: usize, count: usize) -> f64 {
        let share = (index as f64 - (count as f64 - 1.0) / 2.0) * DODGE_SHARE;
        if self.log {
            x * (self.high / self.low).powf(share)
        } else {
            x + (self.high - self.low) * share
        }
    }

    /// `count` x values spread evenly over the axis (evenly in log space on a log axis).
    fn samples(&self, from: f64, to: f64, count: usize) -> Vec<f64> {
        (0..count)
            .map(|i| {
                let t = i as f64 / (count - 1) as f64;
                if self.log {
                    from * (to / from).powf(t)
                } else {
                    from + (to - from) * t
                }
            })
            .collect()
    }
}

/// What one sweep plot shows.
struct SweepChart<'a> {
    title: String,
    x_name: &'a str,
    y_name: &'a str,
    series: &'a [Series],
    fit: Option<&'a CostFit>,
    axis: XAxis,
}

impl SweepChart<'_> {
    fn draw<X>(&self, area: &Area<'_>, x_spec: X, y_range: Range<f64>) -> DrawResult
    where
        X: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(x_spec, y_range)?;
        let axis_label = |value: &f64| plain_number(*value);
        chart
            .configure_mesh()
            .x_desc(if self.axis.log { format!("{} (log scale)", self.x_name) } else { self.x_name.to_string() })
            .y_desc(self.y_name)
            .x_label_formatter(&axis_label)
            .y_label_formatter(&axis_label)
            .draw()?;
        if let Some(fit) = self.fit {
            let (from, to) = span(self.series.iter().flat_map(|s| s.2.iter().map(|p| p.0))).unwrap_or((0.0, 0.0));
            let line = self.axis.samples(from, to, 64).into_iter().map(|x| (x, fit.predict(x)));
            chart.draw_series(LineSeries::new(line, BLACK.stroke_width(1)))?;
        }
        let count = self.series.len();
        for (index, (_, _, points)) in self.series.iter().enumerate() {
            let color = Palette99::pick(index).to_rgba();
            let dodged: Vec<Point> = points.iter().map(|p| (self.axis.dodge(p.0, index, count), p.1, p.2)).collect();
            // Over a fitted line the points stand alone: a line joining them would hide the fit.
            if self.fit.is_none() {
                chart.draw_series(LineSeries::new(dodged.iter().map(|p| (p.0, p.1)), color.stroke_width(2)))?;
            }
            chart.draw_series(
                dodged.iter().map(|p| ErrorBar::new_vertical(p.0, p.1 - p.2, p.1, p.1 + p.2, color.filled(), 8)),
            )?;
        }
        Ok(())
    }
}

/// The legend in its own column: a swatch and a label per entry.
fn draw_legend(area: &Area<'_>, entries: &[(String, RGBAColor)]) -> DrawResult {
    for (index, (label, color)) in entries.iter().enumerate() {
        let y = 60 + 24 * index as i32;
        area.draw(&PathElement::new(vec![(8, y), (32, y)], color.stroke_width(3)))?;
        area.draw(&Text::new(label.clone(), (40, y - 8), ("sans-serif", 15)))?;
    }
    Ok(())
}

/// The ablation's scope metric per variant as bars with 95% CI whiskers, the unit on the axis
/// (`unit` when known). A whisker that would reach below 0 is cut at the axis and a note says so.
/// None without data.
pub fn ablation_plot_svg(analysis: &AblationAnalysis, unit: Option<&str>) -> Option<String> {
    let metric = analysis.metrics.first()?;
    let bars: Vec<(String, f64, f64)> = analysis
        .variants
        .iter()
        .filter_map(|v| v.metrics.first()?.as_ref().map(|s| (v.variant.to_string(), s.mean, s.ci95.unwrap_or(0.0))))
        .collect();
    let top = bars.iter().map(|b| b.1 + b.2).fold(f64::NAN, f64::max);
    if bars.is_empty() || !top.is_finite() {
        return None;
    }
    let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    let clipped: Vec<&str> = bars.iter().filter(|b| b.1 - b.2 < 0.0).map(|b| b.0.as_str()).collect();
    let axis = format!("{metric} ({})", unit.unwrap_or("in the engine's unit"));
    render(|root| {
        let (plot, notes) = root.split_vertically(SIZE.1 - 28);
        let mut chart = ChartBuilder::on(&plot)
            .caption(format!("{metric} per variant (mean ± 95% CI)"), ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d((0..bars.len() as i32 - 1).into_segmented(), 0.0..top * 1.1)?;
        let label = |x: &SegmentValue<i32>| match x {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            SegmentValue::Last => String::new(),
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(bars.len())
            .x_label_formatter(&label)
            .y_desc(axis.as_str())
            .draw()?;
        chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
            let mut bar = Rectangle::new(
                [(SegmentValue::Exact(i as i32), 0.0), (SegmentValue::Exact(i as i32 + 1), b.1)],
                Palette99::pick(i).filled(),
            );
            bar.set_margin(0, 0, 30, 30);
            bar
        }))?;
        chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
            let low = (b.1 - b.2).max(0.0);
            ErrorBar::new_vertical(SegmentValue::CenterOf(i as i32), low, b.1, b.1 + b.2, BLACK.filled(), 12)
        }))?;
        if !clipped.is_empty() {
            let note = format!("The 95% CI of {} reaches below 0; its whisker is cut at 0.", clipped.join(", "));
            notes.draw(&Text::new(note, (16, 4), ("sans-serif", 15)))?;
        }
        Ok(())
    })
}

/// The unit a metric's name states: `_seconds`/`_s` seconds, `_ms`, `_us`, `_per_s` a rate per
/// second; None when the name does not say.
pub fn unit_from_name(name: &str) -> Option<&'static str> {
    [("_per_s", "per second"), ("_seconds", "s"), ("_ms", "ms"), ("_us", "µs"), ("_s", "s")]
        .iter()
        .find(|(suffix, _)| name.ends_with(suffix))
        .map(|(_, unit)| *unit)
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws onto an in-memory SVG; a drawing error (none is expected for finite data) means no plot.
fn render(draw: impl FnOnce(&Area<'_>) -> DrawResult) -> Option<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).ok()?;
        draw(&root).ok()?;
        root.present().ok()?;
    }
    Some(svg)
}

fn span(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| Some(acc.map_or((v, v), |(lo, hi): (f64, f64)| (lo.min(v), hi.max(v)))))
}

/// A little room above and below so error bars are not clipped.
fn padded((low, high): (f64, f64)) -> std::ops::Range<f64> {
    let pad = ((high - low) * 0.08).max(high.abs() * 0.01).max(1e-12);
    (low - pad)..(high + pad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_ablation, fixture_observation, fixture_slice_config, fixture_slice_sweep};
    use crate::analyse::{analyse_ablation, analyse_sweep};

    #[test]
    fn the_slice_sweep_plots_one_line_per_slice_count() {
        let config = fixture_slice_config();
        let svg = sweep_plot_svg(&analyse_sweep(&fixture_slice_sweep(), &config, true, &[]), &config).unwrap();
        keep("slices", &svg);
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        let positions: Vec<usize> =
            ["slices=1", "slices=2", "slices=4"].iter().map(|label| svg.find(label).expect("in the legend")).collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "legend not in value order");
        assert!(svg.contains("prefill_tokens_per_s vs rows"));
    }

    /// The ablation chart clipped a CI at 0 without notice and had no unit.
    #[test]
    fn an_interval_cut_at_zero_is_noted_and_the_unit_is_named() {
        let groups = ["broadcast_rows".to_string(), "rank1_update".to_string()];
        let mut observations = fixture_ablation();
        // Widely spread runs of one variant: its interval reaches below 0.
        for (index, observation) in observations.iter_mut().filter(|o| o.variant() == Some("rank1_update")).enumerate()
        {
            observation.metrics.insert("gated_delta".into(), [0.1, 3.0, 0.1][index % 3]);
        }
        let analysis = analyse_ablation(&observations, &groups, &["gated_delta".to_string()], 0.05, false);
        let svg = ablation_plot_svg(&analysis, None).unwrap();
        keep("ablation_clipped", &svg);
        assert!(svg.contains("The 95% CI of rank1_update reaches below 0; its whisker is cut at 0."));
        assert!(svg.contains("gated_delta (in the engine&apos;s unit)"), "the unknown unit is said to be the engine's");
        assert_eq!(unit_from_name("us_per_call"), None);
        assert_eq!(unit_from_name("prefill_tokens_per_s"), Some("per second"));
        assert_eq!(unit_from_name("prefill_seconds"), Some("s"));
    }

    /// With `SWEEP_KEEP_PLOTS` set, writes the SVG under `target/plots/` to look at (e.g. through
    /// `rsvg-convert`) after the test.
    fn keep(name: &str, svg: &str) {
        if std::env::var_os("SWEEP_KEEP_PLOTS").is_none() {
            return;
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/plots");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.svg")), svg).unwrap();
    }

    /// No plot at all for a sweep without `group_by` (nor for a `--filter` run that kept one value).
    #[test]
    fn without_group_by_the_first_swept_number_is_the_x_axis() {
        let config = AnalysisConfig { group_by: vec![], ..fixture_slice_config() };
        let svg = sweep_plot_svg(&analyse_sweep(&fixture_slice_sweep(), &config, true, &[]), &config).unwrap();
        keep("no_group_by", &svg);
        assert!(svg.contains("prefill_tokens_per_s vs rows"), "rows is the first swept column");
    }

    #[test]
    fn a_filter_run_with_one_value_of_the_grouping_column_plots_the_next() {
        let config = fixture_slice_config();
        let kept: Vec<_> = fixture_slice_sweep()
            .into_iter()
            .filter(|o| o.setting_value("rows") == Some(&crate::spec::ParamValue::Int(512)))
            .collect();
        let svg = sweep_plot_svg(&analyse_sweep(&kept, &config, true, &[]), &config).unwrap();
        assert!(svg.contains("prefill_tokens_per_s vs slices"), "{}", &svg[..400]);
    }

    #[test]
    fn no_plot_when_only_one_x_has_usable_runs() {
        let config = AnalysisConfig { group_by: vec![], ..fixture_slice_config() };
        let observations = [
            fixture_observation(&[("rows", "512")], 1, &[("prefill_tokens_per_s", 900.0)]),
            fixture_observation(&[("rows", "1024")], 1, &[]),
        ];
        assert!(sweep_plot_svg(&analyse_sweep(&observations, &config, true, &[]), &config).is_none());
    }

    #[test]
    fn values_spanning_a_decade_get_a_log_axis_and_points_stay_off_the_frame() {
        let narrow = XAxis::of((512.0, 2048.0));
        assert!(!narrow.log && narrow.low < 512.0 && narrow.high > 2048.0);
        let wide = XAxis::of((4096.0, 4194304.0));
        assert!(wide.log && wide.low < 4096.0 && wide.high > 4194304.0);
        // Dodged series sit either side of the true x, the middle one on it.
        assert!(wide.dodge(65536.0, 0, 3) < 65536.0 && wide.dodge(65536.0, 2, 3) > 65536.0);
        assert_eq!(wide.dodge(65536.0, 1, 3), 65536.0);
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
            fit: Some(crate::spec::FitConfig { x: "bytes".into(), y: "us_per_call".into(), by: Vec::new() }),
            ..fixture_slice_config()
        };
        let svg = sweep_plot_svg(&analyse_sweep(&observations, &config, true, &[]), &config).unwrap();
        keep("allreduce_fit", &svg);
        assert!(svg.contains("least-squares fit") && svg.contains("bytes (log scale)"));
    }

    #[test]
    fn the_ablation_plot_has_a_bar_per_variant() {
        let groups = ["broadcast_rows".to_string(), "rank1_update".to_string()];
        let analysis = analyse_ablation(&fixture_ablation(), &groups, &["gated_delta".to_string()], 0.05, false);
        let svg = ablation_plot_svg(&analysis, Some("s")).unwrap();
        keep("ablation", &svg);
        assert!(svg.contains("gated_delta (s)"), "the unit is on the axis");
        assert!(!svg.contains("cut at 0"), "no interval reaches below 0");
        for variant in ["baseline", "broadcast_rows", "rank1_update", "broadcast_rows+rank1_update"] {
            assert!(svg.contains(&format!("\n{variant}\n</text>")), "no label {variant}");
        }
    }
}
