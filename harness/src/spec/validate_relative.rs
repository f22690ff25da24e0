//! Checks of `[analysis] baseline` and `relative` at load: the baseline names params and values of the
//! grid, and every relative metric is a declared metric.

use super::analysis_config::AnalysisConfig;
use super::param_value::Param;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::MetricsDecl;
use super::validate::{is_metric, written};

/// A baseline without relative metrics (or the reverse) asks for nothing, so it is refused as a slip.
pub fn baseline(
    source: &SourceFile,
    analysis: &AnalysisConfig,
    metrics: &MetricsDecl,
    params: &[Param],
) -> Result<(), SpecError> {
    for (name, value) in &analysis.baseline {
        let key = format!("analysis.baseline.{name}");
        let param = params
            .iter()
            .find(|param| param.name == *name)
            .ok_or_else(|| source.error_at(&key, format!("unknown parameter `{name}` (not in [params])")))?;
        if !param.values.contains(value) {
            // As TOML writes them: `1` is not `1.0`, and a partner is found by typed value.
            let values: Vec<String> = param.values.iter().map(|v| format!("`{}`", written(v))).collect();
            let value = written(value);
            return Err(source
                .error_at(&key, format!("`{value}` is not a value of `{name}` in the grid ({})", values.join(", "))));
        }
    }
    if let Some(name) = analysis.relative.keys().find(|name| !is_metric(metrics, name)) {
        return Err(source.error_at(&format!("analysis.relative.{name}"), format!("unknown metric `{name}`")));
    }
    match (analysis.baseline.is_empty(), analysis.relative.is_empty()) {
        (false, true) => Err(source.error_at(
            "analysis.baseline",
            "no `relative` metrics to compare with it: add `relative = { <metric> = \"ratio\" }`",
        )),
        (true, false) => Err(source
            .error_at("analysis.relative", "no `baseline` to compare with: add `baseline = { <param> = <value> }`")),
        _ => Ok(()),
    }
}
