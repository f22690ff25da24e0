//! Checks of `[report]` at load: a pivot's rows and columns are params, its value a declared metric.

use super::param_value::Param;
use super::report_config::ReportConfig;
use super::source_file::SourceFile;
use super::spec_error::SpecError;
use super::sweep_decl::MetricsDecl;
use super::validate::is_metric;

pub fn report(
    source: &SourceFile,
    report: &ReportConfig,
    metrics: &MetricsDecl,
    params: &[Param],
) -> Result<(), SpecError> {
    let Some(pivot) = &report.pivot else { return Ok(()) };
    for (field, name) in [("rows", &pivot.rows), ("columns", &pivot.columns)] {
        if !params.iter().any(|param| param.name == *name) {
            return Err(source.error_at(&format!("report.pivot.{field}"), format!("unknown parameter `{name}`")));
        }
    }
    if pivot.rows == pivot.columns {
        return Err(source.error_at("report.pivot.columns", format!("`{}` is already the rows", pivot.columns)));
    }
    if !is_metric(metrics, &pivot.value) {
        return Err(source.error_at("report.pivot.value", format!("unknown metric `{}`", pivot.value)));
    }
    Ok(())
}
