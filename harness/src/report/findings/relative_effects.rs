//! Baseline-relative effects in the summary: a "vs tbo=off" table (`analysis.json` has them as `relative`).

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::analyse::{AnalysisConfig, BaselineEffect, ComparisonMethod, EffectInterval, RelativeKind};
use crate::report::analysis_json::setting_object;
use crate::report::document::Section;
use crate::report::finding::{Finding, Place};
use crate::report::number_format::{confidence, number, p_stated, signed};
use crate::report::sweep_report::SweepReport;

/// The finding: each setting against its baseline partner, per `relative` metric.
pub struct RelativeEffects;

impl Finding for RelativeEffects {
    fn name(&self) -> &'static str {
        "relative"
    }

    fn method(&self) -> &'static str {
        "the sweep's robust model, simultaneous intervals, Holm 1979"
    }

    fn sections(&self, report: &SweepReport) -> Vec<(Place, Section)> {
        vec![(Place::Tables, relative_table(report))]
    }

    /// Each setting against its baseline partner: the effect with its interval, the Holm-adjusted p-value
    /// and the design (`paired` or `welch`).
    fn json(&self, report: &SweepReport) -> Option<Value> {
        let analysis = report.analysis;
        let setting = |index: usize| setting_object(&analysis.settings[index].setting);
        let json = |effect: &BaselineEffect| {
            json!({ "setting": setting(effect.setting), "baseline": setting(effect.baseline), "metric": effect.metric,
                    "kind": effect.kind, "effect": effect.interval.map(|i| i.effect),
                    "low": effect.interval.map(|i| i.low), "high": effect.interval.map(|i| i.high),
                    "p_adjusted": effect.p_adjusted, "method": effect.comparison.map(|c| c.method.design()) })
        };
        Some(analysis.relative.iter().map(json).collect())
    }
}

/// `## vs tbo=off`: one row per setting that has a baseline partner (declared grid order), one column
/// per relative metric with the effect (a difference in the metric's unit), its interval and the
/// Holm-adjusted p-value.
fn relative_table(report: &SweepReport) -> Section {
    let (analysis, config, columns) = (report.analysis, report.config, report.columns());
    let baseline = baseline_label(config);
    let section = Section::new(format!("vs {baseline}"));
    let effects = &analysis.relative;
    if effects.is_empty() {
        return section;
    }
    let rows: BTreeSet<usize> = effects.iter().map(|e| e.setting).collect();
    let header: Vec<String> = config
        .relative
        .iter()
        .map(|(metric, kind)| match (kind, report.context.units.of(metric)) {
            (RelativeKind::Difference, Some(unit)) => format!("{metric} ({kind}, {unit})"),
            _ => format!("{metric} ({kind})"),
        })
        .collect();
    let mut table = columns.table(&header);
    for setting in rows {
        let cells = config.relative.keys().map(|metric| {
            effects.iter().find(|e| e.setting == setting && e.metric == *metric).map_or_else(String::new, effect_cell)
        });
        table.push(columns.cells(&analysis.settings[setting].setting).into_iter().chain(cells).collect());
    }
    let independent = effects.iter().any(|e| e.comparison.is_some_and(|c| c.method == ComparisonMethod::Independent));
    let design = if independent { "independent samples (not interleaved)" } else { "rounds as blocks" };
    let level = effects.first().map_or(0.95, |e| e.level);
    section
        .paragraph(format!(
            "Each setting against the one with {baseline} and otherwise the same params: ratio (setting / baseline) \
             or difference (setting − baseline) with its {} simultaneous interval (compatible with Holm's decisions), \
             from the sweep's robust model ({design}, moderated variances); p Holm-adjusted over {} effects.",
            confidence(level),
            effects.iter().filter(|e| e.p_adjusted.is_some()).count(),
        ))
        .table(table)
}

/// `tbo=off` (several baseline params joined by spaces).
pub fn baseline_label(config: &AnalysisConfig) -> String {
    config.baseline.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join(" ")
}

/// `1.101 [1.056, 1.148], p = 0.016` or `−1.833 [−2.550, −1.116], p < 0.001`; `untested` without a test.
fn effect_cell(effect: &BaselineEffect) -> String {
    let Some(interval) = effect.interval else { return "untested".to_string() };
    let show = |value: f64| match effect.kind {
        RelativeKind::Ratio => number(value),
        RelativeKind::Difference => signed(value),
    };
    let EffectInterval { effect: estimate, low, high } = interval;
    let p = effect.p_adjusted.map_or_else(String::new, |p| format!(", {}", p_stated(p)));
    format!("{} [{}, {}]{p}", show(estimate), show(low), show(high))
}

#[cfg(test)]
mod tests {
    use crate::analyse::analyse_sweep;
    use crate::analyse::fixtures::{fixture_tbo_config, fixture_tbo_sweep};
    use crate::report::{analysis_json, markdown, ReportContext, SweepReport};

    #[test]
    fn the_summary_has_a_vs_baseline_table() {
        let config = fixture_tbo_config();
        let analysis = analyse_sweep(&fixture_tbo_sweep(), &config, true, &[]);
        let context = ReportContext::default();
        let report =
            markdown(&SweepReport { analysis: &analysis, config: &config, context: &context, title: "tbo" }.document());
        assert!(report.contains("## vs tbo=off\n"), "{report}");
        assert!(
            report.contains("| tbo | output_tps (ratio)") && report.contains("t_gate_ms (difference, ms)"),
            "{report}"
        );
        // See baseline_effect's hand computation (97.5% simultaneous intervals: both effects rejected).
        assert!(report.contains("| on  | 1.101 [1.036, 1.171], p = 0.0"), "{report}");
        assert!(report.contains("97.5% simultaneous interval"), "{report}");
    }

    #[test]
    fn analysis_json_lists_typed_settings_against_their_baseline() {
        let config = fixture_tbo_config();
        let analysis = analyse_sweep(&fixture_tbo_sweep(), &config, true, &[]);
        let context = ReportContext::default();
        let json = analysis_json(&SweepReport { analysis: &analysis, config: &config, context: &context, title: "t" });
        assert_eq!(json["baseline"]["tbo"], "off");
        let relative = json["relative"].as_array().unwrap();
        assert_eq!(relative.len(), 2);
        let difference = &relative[1];
        assert_eq!(difference["setting"]["concurrency"], 1, "numbers stay numbers");
        assert_eq!(
            (difference["setting"]["tbo"].as_str(), difference["baseline"]["tbo"].as_str()),
            (Some("on"), Some("off"))
        );
        assert_eq!(
            (difference["metric"].as_str(), difference["kind"].as_str()),
            (Some("t_gate_ms"), Some("difference"))
        );
        let (low, effect, high) = (
            difference["low"].as_f64().unwrap(),
            difference["effect"].as_f64().unwrap(),
            difference["high"].as_f64().unwrap(),
        );
        assert!(low < effect && effect < high && high < 0.0, "{difference}");
        assert_eq!(difference["method"], "paired");
        assert!(difference["p_adjusted"].as_f64().unwrap() < 0.05);
    }
}
