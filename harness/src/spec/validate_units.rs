//! Checks of `[metrics] units` at load: each names a declared metric and a unit that prints on one line.

use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::MetricsDecl;
use super::validate::is_metric;

/// Longer than this is a sentence, not a unit symbol (`tok/s`, `GB/s`, `requests/s`).
const LONGEST_UNIT: usize = 24;

pub fn units(source: &SourceFile, metrics: &MetricsDecl) -> Result<(), SpecError> {
    for (metric, unit) in &metrics.units {
        let key = format!("metrics.units.{metric}");
        if !is_metric(metrics, metric) {
            return Err(source.error_at(&key, format!("unknown metric `{metric}`: a unit is declared for a metric")));
        }
        let printable = !unit.trim().is_empty() && unit.trim() == unit && !unit.chars().any(char::is_control);
        if !printable || unit.chars().count() > LONGEST_UNIT {
            let message = format!(
                "unit `{unit}`: give a symbol of 1 to {LONGEST_UNIT} characters without leading or trailing space"
            );
            return Err(source.error_at(&key, message));
        }
    }
    Ok(())
}
