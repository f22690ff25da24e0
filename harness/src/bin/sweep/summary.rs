//! Reads a finished result CSV, analyses it and writes `<stem>.summary.md` beside it.

use std::path::Path;

use anyhow::Context;
use sweep::analyse::{self, AnalysisConfig};
use sweep::record::{read_sidecar, ResultTable};
use sweep::report;
use sweep::runner::ResultPaths;

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
    Ok(text)
}

/// Writes a report atomically so a reader never sees half of it.
pub fn save(path: &Path, text: &str) -> anyhow::Result<()> {
    sweep::atomic_file::write_atomic(path, text.as_bytes(), None).with_context(|| format!("cannot write {}", path.display()))
}
