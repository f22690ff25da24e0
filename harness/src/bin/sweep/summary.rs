//! Reads a finished result CSV, analyses it and writes `<stem>.summary.md` (and its HTML page) beside it.

use std::path::Path;

use crate::exit_status::CommandError;
use crate::result_files::ResultFiles;
use sweep::analyse::{self, AnalysisConfig};
use sweep::record::{ResultPaths, RunTable, Sidecar};
use sweep::report::{self, PlannedRuns};
use sweep::spec::AblationDecl;

/// The analysis questions recorded in a result's sidecar.
pub fn recorded_analysis(paths: &ResultPaths) -> Result<AnalysisConfig, CommandError> {
    Ok(Sidecar::read(&paths.sidecar)?.sweep.analysis)
}

/// The runs the recorded plan held, from the sidecar (settings x rounds, warmups included).
pub fn recorded_plan(paths: &ResultPaths) -> Option<PlannedRuns> {
    let sidecar = Sidecar::read(&paths.sidecar).ok()?;
    let rounds = sidecar.reps + sidecar.sweep.reps.warmup;
    Some(PlannedRuns { runs: sidecar.settings.len() * rounds as usize, race: sidecar.race.is_some() })
}

/// Analyses `table` (the CSV at `paths.csv`), writes the summary, `analysis.json`, plot and page (replacing
/// only files of this sweep unless `force`), and returns the summary's text with the analysis.
pub fn write_run_summary(
    table: &RunTable,
    paths: &ResultPaths,
    config: &AnalysisConfig,
    rounds_are_blocks: bool,
    title: &str,
    force: bool,
) -> Result<(String, analyse::SweepAnalysis), CommandError> {
    let sidecar = Sidecar::read(&paths.sidecar).ok();
    let files = ResultFiles::new(sidecar.as_ref(), force);
    files.check(paths)?;
    let declared = sidecar.as_ref().map(|s| s.params.clone()).unwrap_or_default();
    let tables = sidecar.as_ref().map(|s| s.sweep.report.clone()).unwrap_or_default();
    let config = &config.racing(sidecar.as_ref().and_then(|s| s.race));
    let analysis = analyse::analyse_sweep_runs(&table.runs(), config, rounds_are_blocks, &declared);
    let text = report::run_summary_markdown(&analysis, config, &tables, recorded_plan(paths), title);
    let text = text + &retried_note(table);
    files.save(&paths.summary, &text)?;
    files.save(&paths.html, &report::HtmlPage::sweep(&analysis, config, &text, sidecar.as_ref(), title))?;
    let json = serde_json::to_string_pretty(&report::analysis_json(&analysis, config)).expect("JSON values serialize");
    files.save(&paths.analysis, &json)?;
    if let Some(svg) = report::sweep_plot_svg(&analysis, config) {
        files.save(&paths.plot, &svg)?;
    }
    Ok((text, analysis))
}

/// What a sweep's checks say, as `run` and `report` both exit: a failed run, settings that should
/// agree (equivalence) but are shown not to, or an engine rule shown to miss the forced optimum.
pub fn sweep_checks_failed(analysis: &analyse::SweepAnalysis) -> bool {
    let disagreement = analysis
        .equivalence
        .as_ref()
        .is_some_and(|check| !check.inconsistent.is_empty() || check.classes.iter().any(|c| c.disagrees()));
    let rule_missed = analysis.rule.as_ref().is_some_and(|rule| rule.mismatches().next().is_some());
    analysis.failures.failed > 0 || disagreement || rule_missed
}

/// Whether an ablation's groups are not additive, pooled or at any `group_by` setting (exit 1).
fn any_not_additive(analyses: &[&analyse::AblationAnalysis]) -> bool {
    analyses.iter().any(|analysis| {
        matches!(&analysis.effects, analyse::AblationEffects::Measured(a)
            if matches!(a.verdict, analyse::AdditivityVerdict::NotAdditive { .. }))
    })
}

/// Analyses an ablation's CSV (`table`, primary metric first), pooled and per `group_by` setting, writes the
/// summary file and returns the report and whether a group is not additive. `rounds_are_blocks` when
/// variants ran interleaved (copy isolation, interleaved order).
pub fn write_ablation_summary(
    table: &RunTable,
    paths: &ResultPaths,
    config: &AnalysisConfig,
    ablation: &AblationDecl,
    rounds_are_blocks: bool,
    title: &str,
    force: bool,
) -> Result<(String, bool), CommandError> {
    let sidecar = Sidecar::read(&paths.sidecar).ok();
    let files = ResultFiles::new(sidecar.as_ref(), force);
    files.check(paths)?;
    let mut metrics = vec![config.primary.clone()];
    metrics.extend(table.columns.metrics.iter().filter(|name| **name != config.primary).cloned());
    let question = analyse::AblationQuestion {
        tolerance: ablation.tolerance,
        alpha: config.alpha,
        scale: config.additivity_scale,
        rounds_are_blocks,
        slow: Some(analyse::slow_side(config.direction)),
    };
    let runs = table.runs();
    let analysis = analyse::analyse_ablation_runs(&runs, &ablation.groups, &metrics, &question);
    let per_group = analyse::analyse_ablation_by_group(&runs, &config.group_by, &ablation.groups, &metrics, &question);
    let text = report::ablation_markdown(&analysis, title) + &report::ablation_groups_markdown(&per_group);
    let text = text + &retried_note(table);
    files.save(&paths.summary, &text)?;
    let unit = recorded_unit(paths, &config.primary).or_else(|| report::unit_from_name(&config.primary));
    if let Some(svg) = report::ablation_plot_svg(&analysis, unit) {
        files.save(&paths.plot, &svg)?;
    }
    files.save(&paths.html, &report::HtmlPage::ablation(&analysis, &text, unit, sidecar.as_ref(), title))?;
    let analyses: Vec<&analyse::AblationAnalysis> =
        std::iter::once(&analysis).chain(per_group.iter().map(|(_, group)| group)).collect();
    Ok((text, any_not_additive(&analyses)))
}

/// Seconds for a metric the sweep reads from the engine's phase profile (`[metrics.profile] phases`).
fn recorded_unit(paths: &ResultPaths, metric: &str) -> Option<&'static str> {
    let sidecar = Sidecar::read(&paths.sidecar).ok()?;
    let phases = sidecar.sweep.rest.get("metrics")?.get("profile")?.get("phases")?;
    phases.get(metric).map(|_| "s")
}

/// How many runs the CSV records more than once (failed runs run again by `--resume`), said after the
/// summary's own sections: each (setting, rep) is analysed once, from its last successful attempt.
fn retried_note(table: &RunTable) -> String {
    match table.retried() {
        0 => String::new(),
        retried => format!(
            "\n## Retried runs\n\n{retried} runs were run again after failing (`--resume`); each is analysed once, \
             from its last successful attempt (the CSV's `attempt` column).\n"
        ),
    }
}

/// Writes a report atomically so a reader never sees half of it.
pub fn save(path: &Path, text: &str) -> Result<(), CommandError> {
    sweep::atomic_file::write_atomic(path, text.as_bytes(), None)
        .map_err(|error| CommandError::Write { path: path.to_path_buf(), error })
}

/// A finished result CSV for `report` and `compare`: a missing, torn or empty one is bad input (exit 2)
/// named by the CSV itself, not by the sidecar beside it.
pub fn read_finished(csv: &Path) -> Result<RunTable, CommandError> {
    if !csv.is_file() {
        return Err(CommandError::BadInput(format!("{}: no such result CSV", csv.display())));
    }
    Ok(RunTable::read_runs(csv)?)
}
