//! The figures of each report, on the one SVG layer: the sweep's plot (its own x-y chart, `sweep_plot_svg`),
//! baseline-relative effects and a comparison as forest plots, a fit's residuals, the phase stacks, and an
//! ablation's waterfall and per-variant bars, each a `RowChart` built from analysis results.

use super::compare_thresholds::threshold_named;
use super::document::Section;
use super::findings::relative_effects::baseline_label;
use super::metric_units::MetricUnits;
use super::number_format::confidence;
use super::row_chart::{RowChart, RowMark};
use super::setting_columns::SettingColumns;
use super::sweep_plot::sweep_plot_svg;
use super::sweep_report::SweepReport;
use crate::analyse::{AblationAnalysis, AblationEffects, RatioInterval, RelativeKind, SettingSummary};
use crate::compare::Comparison;

/// The sweep's figures, each captioned: the primary metric against the swept param, the forest plots
/// against the baseline, the phase stacks and the fit's residuals (those the data allow).
pub fn sweep_figures(report: &SweepReport) -> Section {
    let primary = &report.config.primary;
    let level = confidence(report.analysis.verdicts.level);
    let mut section = Section::new("Figures").figure(
        sweep_plot_svg(report),
        format!(
            "{primary} against the swept parameter: mean with its {level} CI per setting, the level of the verdicts' \
             simultaneous intervals; filled and labelled: the best setting of each group."
        ),
    );
    for svg in relative_forest_svgs(report) {
        section = section.figure(
            Some(svg),
            "Each setting against its baseline partner, with its simultaneous interval (compatible with the \
             Holm-corrected tests); dashed: no change.",
        );
    }
    section
        .figure(phase_stack_svg(report), "Where each setting's time goes: the mean seconds of each profile phase.")
        .figure(
            fit_residuals_svg(report),
            "How far each setting lies from the fitted line, as a share of its measured value.",
        )
}

/// One forest plot per `relative` metric: each setting's ratio (or difference) against its baseline
/// partner with its simultaneous interval, and a dashed line at no change (1, or 0).
fn relative_forest_svgs(report: &SweepReport) -> Vec<String> {
    let (analysis, config) = (report.analysis, report.config);
    let columns = report.columns();
    let baseline = baseline_label(config);
    config
        .relative
        .iter()
        .filter_map(|(metric, kind)| {
            let mut effects: Vec<_> = analysis.relative.iter().filter(|e| e.metric == *metric).collect();
            effects.sort_by_key(|e| e.setting);
            let rows = effects.iter().map(|e| {
                let mark = RowMark::interval(e.interval.map(|i| (i.effect, i.low, i.high)));
                (columns.label(&analysis.settings[e.setting].setting), mark)
            });
            let (axis, reference) = match kind {
                RelativeKind::Ratio => (format!("{metric}: setting / {baseline}"), 1.0),
                RelativeKind::Difference => {
                    (report.context.units.header(&format!("{metric}: setting - {baseline}"), metric), 0.0)
                }
            };
            let level = confidence(effects.first().map_or(0.95, |e| e.level));
            RowChart {
                title: format!("{metric} vs {baseline} ({level} simultaneous CI)"),
                axis,
                rows: rows.collect(),
                reference: Some(reference),
                interval: Some(format!("{level} simultaneous CI")),
                ..RowChart::default()
            }
            .svg()
        })
        .collect()
}

/// Where each setting's time goes: the mean seconds of each profile phase (`[metrics.profile] phases`)
/// laid end to end, one bar per setting in grid order. None when no setting has a phase metric.
fn phase_stack_svg(report: &SweepReport) -> Option<String> {
    let settings = &report.analysis.settings;
    let phases = report.context.phases.iter();
    let present: Vec<&String> = phases.filter(|phase| settings.iter().any(|s| s.metric(phase).is_some())).collect();
    if present.is_empty() {
        return None;
    }
    let columns = report.columns();
    let rows = settings.iter().map(|s| {
        let parts = present.iter().map(|phase| s.metric(phase).map_or(0.0, |stats| stats.mean)).collect();
        (columns.label(&s.setting), RowMark::Stack(parts))
    });
    RowChart {
        title: "Phase attribution per setting (mean seconds per phase)".to_string(),
        axis: "seconds (s)".to_string(),
        rows: rows.collect(),
        legend: present.into_iter().cloned().collect(),
        ..RowChart::default()
    }
    .svg()
}

/// A declared fit's residuals: per setting, (measured - fitted) as a share of measured, so a line
/// that misses one end shows as bars growing towards it.
fn fit_residuals_svg(report: &SweepReport) -> Option<String> {
    let (analysis, config) = (report.analysis, report.config);
    let (fit, names) = (analysis.fit.as_ref()?, config.fit.as_ref()?);
    let columns = report.columns();
    let point = |s: &SettingSummary| Some((s.value_of(&names.x)?, s.value_of(&names.y)?, columns.label(&s.setting)));
    let mut points: Vec<(f64, f64, String)> = analysis.settings.iter().filter_map(point).collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let residual = |x: f64, y: f64| (y - fit.predict(x)) / y * 100.0;
    let rows = points.into_iter().map(|(x, y, label)| (label, RowMark::bar(0.0, residual(x, y), None))).collect();
    RowChart {
        title: format!("Residuals of the fit {} = fixed + per-unit x {}", names.y, names.x),
        axis: format!("(measured - fitted) / measured, % of {}", names.y),
        rows,
        reference: Some(0.0),
        ..RowChart::default()
    }
    .svg()
}

/// An ablation's figures: the waterfall, then the scope metric per variant.
pub fn ablation_figures(analysis: &AblationAnalysis, units: &MetricUnits) -> Section {
    Section::new("Figures")
        .figure(
            ablation_waterfall_svg(analysis, units),
            "From the baseline, each group ablated alone, then what the groups do together (the interaction), \
             ending at all groups ablated; whiskers are 95% intervals.",
        )
        .figure(ablation_plot_svg(analysis, units), "The scope metric per variant: mean with its 95% CI.")
}

/// `gated_delta (s)`, or `gated_delta (in the engine's unit)` when its unit is not known.
fn scope_axis(metric: &str, units: &MetricUnits) -> String {
    let unit = units.of(metric).unwrap_or_else(|| "in the engine's unit".to_string());
    format!("{metric} ({unit})")
}

/// The ablation as a waterfall in the scope metric's unit: the baseline, each group's single delta
/// stacked on the last, the interaction that is left, and the all-groups variant, each step with its
/// 95% interval. None unless every effect could be measured.
fn ablation_waterfall_svg(analysis: &AblationAnalysis, units: &MetricUnits) -> Option<String> {
    let AblationEffects::Measured(effects) = &analysis.effects else { return None };
    let baseline_ci = analysis.variants.iter().find(|v| v.variant.ablated().is_empty())?.metrics[0]?.ci95;
    let mut rows = vec![("baseline".to_string(), RowMark::bar(0.0, effects.baseline_mean, baseline_ci))];
    let mut level = effects.baseline_mean;
    let singles = effects.singles.iter().map(|(group, delta)| (format!("ablate {group}"), delta));
    for (label, delta) in singles.chain([("interaction".to_string(), &effects.interaction)]) {
        let to = level + delta.estimate;
        rows.push((label, RowMark::bar(level, to, delta.ci95)));
        level = to;
    }
    let all = RowMark::bar(0.0, effects.baseline_mean + effects.all.estimate, effects.all.ci95);
    rows.push(("all groups ablated".to_string(), all));
    RowChart {
        title: format!("{}: single deltas and their interaction (95% CI)", effects.metric),
        axis: scope_axis(&effects.metric, units),
        rows,
        interval: Some("95% CI".to_string()),
        ..RowChart::default()
    }
    .svg()
}

/// The ablation's scope metric per variant as bars from 0 with 95% CI whiskers, the unit on the axis
/// (also written as `<stamp>.svg`). None without data.
pub fn ablation_plot_svg(analysis: &AblationAnalysis, units: &MetricUnits) -> Option<String> {
    let metric = analysis.metrics.first()?;
    let rows = analysis.variants.iter().filter_map(|v| {
        let stats = v.metrics.first()?.as_ref()?;
        Some((v.variant.to_string(), RowMark::bar(0.0, stats.mean, stats.ci95)))
    });
    RowChart {
        title: format!("{metric} per variant (mean ± 95% CI)"),
        axis: scope_axis(metric, units),
        rows: rows.collect(),
        interval: Some("95% CI of the mean".to_string()),
        ..RowChart::default()
    }
    .svg()
}

/// B/A per setting with its simultaneous interval, a line at 1 and the band of changes within the threshold.
pub fn compare_forest_svg(comparison: &Comparison, label_a: &str, label_b: &str) -> Option<String> {
    let config = &comparison.config;
    let columns = SettingColumns::of(comparison.settings.iter().map(|s| &s.setting));
    // In the comparison's order, the text's (declared grid order, `Comparison::sort_by_declaration`).
    let rows = comparison.settings.iter().map(|s| {
        let mark = RowMark::interval(s.ratio.map(|r| (r.ratio, r.low, r.high)));
        let label = columns.label(&s.setting);
        (if label.is_empty() { "all runs".to_string() } else { label }, mark)
    });
    // The grid-wide B/A last, as a meta-analysis's forest plot ends on its pooled diamond.
    let overall = comparison.overall.as_ref().map(|o| {
        let RatioInterval { ratio: estimate, low, high } = o.ratio;
        ("overall (random effects)".to_string(), RowMark::Pooled { estimate, low, high })
    });
    let (threshold, level) = (config.threshold, confidence(comparison.level));
    let within = format!("within {} of A", threshold_named(config));
    RowChart {
        title: format!(
            "{}: B/A per setting{} ({level} simultaneous CI)",
            config.metric,
            if overall.is_some() { " and overall" } else { "" }
        ),
        axis: format!("B/A ({label_b} / {label_a}); {} is better; shaded: {within}", config.direction),
        rows: rows.chain(overall).collect(),
        reference: Some(1.0),
        band: Some((1.0 - threshold, 1.0 + threshold, within)),
        interval: Some(format!("{level} simultaneous CI")),
        ..RowChart::default()
    }
    .svg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::analyse_ablation;
    use crate::analyse::fixtures::{fixture_ablation, fixture_names, fixture_observation, fixture_slice_config};
    use crate::analyse::AnalysisConfig;
    use crate::report::ReportContext;

    /// The page's bars showed 95% intervals beside verdicts made at 99% (their simultaneous level): the bars
    /// are at the verdicts' level, and the caption and the legend say which.
    #[test]
    fn the_page_states_the_verdicts_level_for_its_bars() {
        let config = fixture_slice_config();
        let analysis =
            crate::analyse::analyse_sweep(&crate::analyse::fixtures::fixture_slice_sweep(), &config, true, &[]);
        assert_eq!(confidence(analysis.verdicts.level), "99%", "alpha 0.05 over the fixture's pairs");
        let context = ReportContext::default();
        let report = SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" };
        let page = crate::report::html_page(&report.document(), None);
        assert!(page.contains("mean with its 99% CI per setting, the level of the verdicts"), "the caption");
        assert!(page.contains(">bars: 99% CI of the mean</text>"), "the legend");
        assert!(!page.contains("bars: 95%"), "no 95% bar beside 99% verdicts");
        let wide = analysis.settings[0].metric(&config.primary).unwrap();
        assert!(wide.half_width(analysis.verdicts.level).unwrap() > wide.ci95.unwrap(), "a 99% bar is the wider");
    }

    #[test]
    fn phases_stack_per_setting_in_grid_order() {
        let observations: Vec<_> = [("1", 0.2, 0.5), ("2", 0.3, 0.4)]
            .iter()
            .map(|&(slices, attention, mlp)| {
                fixture_observation(&[("slices", slices)], 1, &[("attention", attention), ("mlp", mlp)])
            })
            .collect();
        let config = AnalysisConfig { group_by: vec![], ..fixture_slice_config() };
        let analysis = crate::analyse::analyse_sweep(&observations, &config, true, &[]);
        let context =
            ReportContext { phases: fixture_names(&["attention", "mlp", "absent"]), ..ReportContext::default() };
        let report = SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" };
        let svg = phase_stack_svg(&report).unwrap();
        assert!(svg.find(">slices=1<").unwrap() < svg.find(">slices=2<").unwrap());
        assert!(svg.contains(">attention</text>") && svg.contains(">mlp</text>") && !svg.contains(">absent<"));
        assert_eq!(svg.matches("fill=\"#0072B2\"").count(), 3, "one attention part per setting and its swatch");
        let absent = ReportContext { phases: fixture_names(&["absent"]), ..ReportContext::default() };
        assert!(phase_stack_svg(&SweepReport { context: &absent, ..report }).is_none());
    }

    /// The forest plot of `compare` showed every setting's B/A but not the grid-wide one the headline states.
    #[test]
    fn the_compare_forest_plot_ends_on_the_overall_ratio_as_a_diamond() {
        use crate::analyse::fixtures::{fixture_slice_sweep, fixture_slice_sweep_b};
        let comparison = crate::compare::compare(
            &fixture_slice_sweep(),
            &fixture_slice_sweep_b(),
            &crate::compare::fixture_compare_config(),
        );
        let svg = compare_forest_svg(&comparison, "CANN 8", "CANN 9").unwrap();
        let rows: Vec<&str> = svg.lines().filter(|line| line.contains("class=\"row-label\"")).collect();
        assert_eq!(rows.len(), comparison.settings.len() + 1, "{svg}");
        assert!(rows.last().unwrap().ends_with(">overall (random effects)</text>"), "{svg}");
        assert_eq!(svg.matches("class=\"pooled\"").count(), 1, "one diamond: {svg}");
        assert_eq!(svg.matches("class=\"point\"").count(), comparison.settings.len(), "{svg}");
        let without = crate::compare::Comparison { overall: None, ..comparison };
        assert!(!compare_forest_svg(&without, "CANN 8", "CANN 9").unwrap().contains("pooled"));
    }

    #[test]
    fn the_waterfall_steps_from_the_baseline_to_all_groups_ablated() {
        let analysis = analyse_ablation(
            &fixture_ablation(),
            &fixture_names(&["broadcast_rows", "rank1_update"]),
            &fixture_names(&["gated_delta"]),
            0.05,
            false,
        );
        let units = MetricUnits::new([("gated_delta".to_string(), "s".to_string())].into());
        let svg = ablation_waterfall_svg(&analysis, &units).unwrap();
        let order: Vec<usize> =
            [">baseline<", ">ablate broadcast_rows<", ">ablate rank1_update<", ">interaction<", ">all groups ablated<"]
                .iter()
                .map(|label| svg.find(label).unwrap_or_else(|| panic!("no {label}")))
                .collect();
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(svg.contains(">gated_delta (s)<"), "the unit is on the axis");
        let bars = ablation_plot_svg(&analysis, &MetricUnits::default()).unwrap();
        for variant in ["baseline", "broadcast_rows", "rank1_update", "broadcast_rows+rank1_update"] {
            assert!(bars.contains(&format!(">{variant}</text>")), "no bar for {variant}");
        }
        assert!(bars.contains("gated_delta (in the engine&#39;s unit)"), "the unknown unit is said to be the engine's");
        assert!(bars.contains(">whiskers: 95% CI of the mean</text>"));
    }
}
