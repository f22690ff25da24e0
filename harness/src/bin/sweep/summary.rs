//! Reads a finished result CSV, analyses it and writes `<stem>.summary.md` beside it.

use std::path::Path;

use anyhow::Context;
use sweep::analyse::{self, AnalysisConfig};
use sweep::record::{read_sidecar, ResultTable};
use sweep::report;
use sweep::runner::ResultPaths;
use sweep::spec::AblationDecl;

/// The analysis questions recorded in a result's sidecar.
pub fn recorded_analysis(paths: &ResultPaths) -> anyhow::Result<AnalysisConfig> {
    let sidecar = read_sidecar(&paths.sidecar)?;
    serde_json::from_value(sidecar["sweep"]["analysis"].clone())
        .with_context(|| format!("{}: no `sweep.analysis` in the sidecar", paths.sidecar.display()))
}

/// Analyses the CSV at `paths.csv`, writes the summary file and returns its text.
pub fn write_run_summary(paths: &ResultPaths, config: &AnalysisConfig, title: &str) -> anyhow::Result<String> {
    let table = ResultTable::read(&paths.csv)?;
    let analysis = analyse::analyse_sweep(&table.observations, config);
    let text = report::run_summary_markdown(&analysis, config, title);
    save(&paths.summary, &text)?;
    if let Some(svg) = report::sweep_plot_svg(&analysis, config) {
        save(&paths.plot, &svg)?;
    }
    Ok(text)
}

/// Analyses an ablation's CSV (primary metric first), writes the summary file and returns the report
/// with its verdict.
pub fn write_ablation_summary(
    paths: &ResultPaths,
    config: &AnalysisConfig,
    ablation: &AblationDecl,
    title: &str,
) -> anyhow::Result<(String, analyse::AblationAnalysis)> {
    let table = ResultTable::read(&paths.csv)?;
    let mut metrics = vec![config.primary.clone()];
    metrics.extend(table.columns.metrics.iter().filter(|name| **name != config.primary).cloned());
    let analysis = analyse::analyse_ablation(&table.observations, &ablation.groups, &metrics, ablation.tolerance);
    let text = report::ablation_markdown(&analysis, title);
    save(&paths.summary, &text)?;
    if let Some(svg) = report::ablation_plot_svg(&analysis) {
        save(&paths.plot, &svg)?;
    }
    Ok((text, analysis))
}

/// The `[ablation]` section recorded in a result's sidecar, if the result is an ablation.
pub fn recorded_ablation(paths: &ResultPaths) -> anyhow::Result<Option<AblationDecl>> {
    let sidecar = read_sidecar(&paths.sidecar)?;
    let ablation = &sidecar["sweep"]["ablation"];
    if ablation.is_null() {
        return Ok(None);
    }
    let decl = serde_json::from_value(ablation.clone())
        .with_context(|| format!("{}: `sweep.ablation` is not an ablation section", paths.sidecar.display()))?;
    Ok(Some(decl))
}

/// Writes a report atomically so a reader never sees half of it.
pub fn save(path: &Path, text: &str) -> anyhow::Result<()> {
    sweep::atomic_file::write_atomic(path, text.as_bytes(), None)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// A finished result CSV for `report` and `compare`: a missing, torn or empty one is bad input (exit 2)
/// named by the CSV itself, not by the sidecar beside it.
pub fn read_finished(csv: &Path) -> anyhow::Result<ResultTable> {
    if !csv.is_file() {
        return Err(crate::exit_status::BadInput(format!("{}: no such result CSV", csv.display())).into());
    }
    Ok(ResultTable::read_runs(csv)?)
}
