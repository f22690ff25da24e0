//! `sweep compare --json`: the comparison as data, settings typed, the metric's unit beside raw numbers.

use serde_json::{json, Value};

use super::analysis_json::{setting_object, ANALYSIS_SCHEMA_VERSION};
use super::metric_units::MetricUnits;
use crate::compare::Comparison;

/// The comparison as JSON: per joined setting its typed labels, ratio B/A with its 95% interval, the
/// Holm-adjusted p-value and the verdict (`improved`, `regressed`, `no change`, `insufficient`).
/// `unit` is the metric's unit (null when unknown).
pub fn compare_json(comparison: &Comparison, label_a: &str, label_b: &str, units: &MetricUnits) -> Value {
    let settings = comparison.settings.iter().map(|s| {
        json!({
            "setting": setting_object(&s.setting),
            "n_a": s.n_a, "n_b": s.n_b, "mean_a": s.mean_a, "mean_b": s.mean_b,
            "ratio": s.ratio.map(|r| r.ratio), "low": s.ratio.map(|r| r.low), "high": s.ratio.map(|r| r.high),
            "marginal_low": s.marginal.map(|r| r.low), "marginal_high": s.marginal.map(|r| r.high),
            "p": s.p_value, "p_adjusted": s.p_adjusted, "df": s.df, "reason": s.reason,
            "control_ratio": s.control_ratio,
            "verdict": s.verdict,
        })
    });
    let config = &comparison.config;
    json!({
        "schema_version": ANALYSIS_SCHEMA_VERSION,
        "a": label_a, "b": label_b,
        "metric": config.metric, "direction": config.direction, "alpha": config.alpha,
        "threshold": config.threshold, "control": config.control,
        "method": comparison.design,
        "tests": comparison.tests(),
        "settings": settings.collect::<Vec<_>>(),
        "only_a": comparison.only_a.iter().map(setting_object).collect::<Vec<_>>(),
        "only_b": comparison.only_b.iter().map(setting_object).collect::<Vec<_>>(),
        "regression": comparison.has_significant_regression(),
        "level": comparison.level,
        "overall": comparison.overall.as_ref().map(|o| json!({
            "ratio": o.ratio.ratio, "low": o.ratio.low, "high": o.ratio.high,
            "p_adjusted": o.p_adjusted, "verdict": o.verdict,
            "tau": o.effects.tau2.sqrt(), "i2": o.effects.i2, "q": o.effects.q,
            "heterogeneity_p": o.heterogeneity_p, "consistent": o.is_consistent(),
            "settings": o.effects.settings, "df": o.effects.df,
        })),
        "control_change": comparison.control_change,
        "machine_changed": comparison.machine_changed().is_some(),
        "residual_df": comparison.model.residual_df,
        "stragglers": comparison.model.stragglers.len(),
        "unit": units.of(&config.metric),
    })
}
