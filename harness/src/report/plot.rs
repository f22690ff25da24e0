//! SVG plots beside the markdown: the primary metric against the grouping column, one line per
//! other setting (where the slice counts cross), and an ablation's scope time per variant. Each
//! point is a mean with its 95% CI as an error bar.

use plotters::prelude::*;

use super::setting_columns::SettingColumns;
use crate::analyse::{AblationAnalysis, AnalysisConfig, SweepAnalysis};

const SIZE: (u32, u32) = (900, 560);

/// (x, mean, 95% CI half-width)
type Point = (f64, f64, f64);

/// `primary` against the single numeric `group_by` column, one series per value of the other
/// varying columns. None when there is no such column or fewer than two x values.
pub fn sweep_plot_svg(analysis: &SweepAnalysis, config: &AnalysisConfig) -> Option<String> {
    let [x_name] = config.group_by.as_slice() else { return None };
    let columns =
        SettingColumns::of(analysis.settings.iter().map(|s| &s.setting)).without(std::slice::from_ref(x_name));
    // (label, the label's values as numbers for ordering the legend, points)
    let mut series: Vec<(String, Vec<f64>, Vec<Point>)> = Vec::new();
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
    // Legend in value order (slices=1, 2, 4, 8), not in the shuffled order the runs happened in.
    series.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
    let points: Vec<Point> = series.iter().flat_map(|(_, _, p)| p.iter().copied()).collect();
    let (x_range, y_range) =
        (span(points.iter().map(|p| p.0))?, span(points.iter().flat_map(|p| [p.1 - p.2, p.1 + p.2]))?);
    if x_range.0 == x_range.1 {
        return None;
    }
    let title = format!("{} vs {x_name} (mean ± 95% CI)", config.primary);
    render(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x_range.0..x_range.1, padded(y_range))?;
        chart.configure_mesh().x_desc(x_name.as_str()).y_desc(config.primary.as_str()).draw()?;
        for (index, (label, _, points)) in series.iter().enumerate() {
            let color = Palette99::pick(index).to_rgba();
            chart
                .draw_series(LineSeries::new(points.iter().map(|p| (p.0, p.1)), color.stroke_width(2)))?
                .label(if label.is_empty() { "all".to_string() } else { label.clone() })
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
            chart.draw_series(
                points.iter().map(|p| ErrorBar::new_vertical(p.0, p.1 - p.2, p.1, p.1 + p.2, color.filled(), 8)),
            )?;
        }
        chart.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.8)).draw()?;
        Ok(())
    })
}

/// The ablation's scope metric per variant as bars with 95% CI whiskers. None without data.
pub fn ablation_plot_svg(analysis: &AblationAnalysis) -> Option<String> {
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
    render(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(format!("{metric} per variant (mean ± 95% CI)"), ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(70)
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
            .y_desc(metric.as_str())
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
            ErrorBar::new_vertical(SegmentValue::CenterOf(i as i32), b.1 - b.2, b.1, b.1 + b.2, BLACK.filled(), 12)
        }))?;
        Ok(())
    })
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws onto an in-memory SVG; a drawing error (none is expected for finite data) means no plot.
fn render(draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> DrawResult) -> Option<String> {
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
    use crate::analyse::fixtures::{fixture_ablation, fixture_slice_config, fixture_slice_sweep};
    use crate::analyse::{analyse_ablation, analyse_sweep};

    #[test]
    fn the_slice_sweep_plots_one_line_per_slice_count() {
        let config = fixture_slice_config();
        let svg = sweep_plot_svg(&analyse_sweep(&fixture_slice_sweep(), &config, true, &[]), &config).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        let positions: Vec<usize> =
            ["slices=1", "slices=2", "slices=4"].iter().map(|label| svg.find(label).expect("in the legend")).collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]), "legend not in value order");
        assert!(svg.contains("prefill_tokens_per_s vs rows"));
    }

    #[test]
    fn no_plot_without_a_single_grouping_column() {
        let config = AnalysisConfig { group_by: vec![], ..fixture_slice_config() };
        assert!(sweep_plot_svg(&analyse_sweep(&fixture_slice_sweep(), &config, true, &[]), &config).is_none());
    }

    #[test]
    fn the_ablation_plot_has_a_bar_per_variant() {
        let groups = ["broadcast_rows".to_string(), "rank1_update".to_string()];
        let analysis = analyse_ablation(&fixture_ablation(), &groups, &["gated_delta".to_string()], 0.05, false);
        let svg = ablation_plot_svg(&analysis).unwrap();
        for variant in ["baseline", "broadcast_rows", "rank1_update", "broadcast_rows+rank1_update"] {
            assert!(svg.contains(&format!("\n{variant}\n</text>")), "no label {variant}");
        }
    }
}
