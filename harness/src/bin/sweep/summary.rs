//! Reads a finished result CSV, analyses it and writes `<stem>.summary.md` (and its HTML page) beside it.

use std::path::Path;

use crate::exit_status::CommandError;
use crate::result_files::ResultFiles;
use sweep::analyse::{self, AnalysisConfig};
use sweep::declare::KernelAblation;
use sweep::record::{RecordError, RecordedRun, ResultPaths, RunTable, Sidecar, TableRun};
use sweep::report::{self, ReportContext, SweepReport};

/// Analyses `table` (the CSV at `paths.csv`), writes the summary, `analysis.json`, plot and page (replacing
/// only files of this sweep unless `force`), and returns the summary as the terminal shows it, the analysis
/// and whether a check failed (`SweepReport::checks_failed`).
pub fn write_run_summary(
    table: &mut RunTable,
    paths: &ResultPaths,
    config: &AnalysisConfig,
    rounds_are_blocks: bool,
    title: &str,
    force: bool,
) -> Result<(String, analyse::SweepAnalysis, bool), CommandError> {
    let files = ResultFiles::open(paths, force)?;
    let sidecar = files.sidecar.as_ref();
    let declared = sidecar.map(|s| s.params.clone()).unwrap_or_default();
    let config = &config.racing(sidecar.and_then(|s| s.race));
    let search = sidecar.and_then(|sidecar| searched(table, sidecar, config));
    let analysis = match search.as_ref().filter(|search| !search.final_runs.is_empty()) {
        // A search's verdicts rest on its final race alone: the runs that chose the finalists are biased.
        Some(search) => {
            let in_final = |run: &TableRun| search.final_runs.contains(&(run.setting_id().index(), run.rep()));
            let runs: Vec<TableRun> = table.runs().into_iter().filter(in_final).collect();
            analyse::analyse_sweep(&runs, config, rounds_are_blocks, &declared)
        }
        None => {
            // Summarised first, so that only the columns the rest reads run by run stay in memory.
            let settings = analyse::SettingSummary::summarise_table(table);
            table.retain_metrics(&analyse::metrics_read_per_run(config));
            analyse::analyse_summarised(&table.runs(), settings, config, rounds_are_blocks, &declared)
        }
    };
    let context = ReportContext { search, ..ReportContext::recorded(sidecar, &paths.csv, table.retried()) };
    let report = SweepReport { analysis: &analysis, config, context: &context, title };
    let document = report.document();
    files.save(&paths.summary, &report::markdown(&document))?;
    files.save(&paths.html, &report::html_page(&document, sidecar))?;
    let json = serde_json::to_string_pretty(&report::analysis_json(&report)).expect("JSON values serialize");
    files.save(&paths.analysis, &json)?;
    if let Some(svg) = report::sweep_plot_svg(&report) {
        files.save(&paths.plot, &svg)?;
    }
    let checks_failed = report.checks_failed();
    Ok((report::terminal_text(&document), analysis, checks_failed))
}

/// What a searched sweep's CSV (its sidecar records `[search]`) spent and found: its searches replayed.
fn searched(table: &RunTable, sidecar: &Sidecar, config: &AnalysisConfig) -> Option<analyse::SearchSummary> {
    let search = sidecar.search?;
    let settings = sweep::record::planned_settings(sidecar);
    let builds = sweep::record::SearchBuild::charges(&sidecar.search_builds, &sidecar.settings);
    let groups = analyse::GroupSearch::replayed(&table.runs(), &settings, config, &search, &builds);
    Some(analyse::SearchSummary::of(&groups, &settings, search.budget))
}

/// Analyses an ablation's CSV (`table`, primary metric first), pooled and per `group_by` setting, writes the
/// summary, page and plot, and returns the report as the terminal shows it and whether a group is not additive. `rounds_are_blocks` when
/// variants ran interleaved (copy isolation, interleaved order).
pub fn write_ablation_summary(
    table: &RunTable,
    paths: &ResultPaths,
    config: &AnalysisConfig,
    ablation: &KernelAblation,
    rounds_are_blocks: bool,
    title: &str,
    force: bool,
) -> Result<(String, bool), CommandError> {
    let files = ResultFiles::open(paths, force)?;
    let sidecar = files.sidecar.as_ref();
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
    let context = ReportContext::recorded(sidecar, &paths.csv, table.retried());
    let failures = analyse::FailureSummary::of(&runs);
    let document = report::ablation_document(&analysis, &per_group, &failures, &context, title);
    files.save(&paths.summary, &report::markdown(&document))?;
    if let Some(svg) = report::ablation_plot_svg(&analysis, &context.units) {
        files.save(&paths.plot, &svg)?;
    }
    files.save(&paths.html, &report::html_page(&document, sidecar))?;
    // Whether the groups are not additive, pooled or at any `group_by` setting (exit 1).
    let not_additive = std::iter::once(&analysis).chain(per_group.iter().map(|(_, group)| group)).any(|analysis| {
        matches!(&analysis.effects, analyse::AblationEffects::Measured(a)
            if matches!(a.verdict, analyse::AdditivityVerdict::NotAdditive { .. }))
    });
    Ok((report::terminal_text(&document), not_additive))
}

/// A finished result CSV for `report` and `compare`: a missing, torn or empty one is bad input (exit 2)
/// named by the CSV itself, not by the sidecar beside it.
pub fn read_finished(csv: &Path) -> Result<RunTable, CommandError> {
    if !csv.is_file() {
        return Err(CommandError::BadInput(format!("{}: no such result CSV", csv.display())));
    }
    RunTable::read_runs(csv).map_err(|error| match error {
        // A run cut off mid-row: the message names `--resume`; the sidecar knows the whole command.
        RecordError::TornRow { .. } => match Sidecar::read(&ResultPaths::for_csv(csv).sidecar) {
            Ok(sidecar) if sidecar.command_line.get(1).is_some_and(|command| command == "run") => {
                let resume = report::ResumeCommand::of(&sidecar.command_line, csv);
                CommandError::BadInput(format!("{error}: {}", resume.line))
            }
            _ => error.into(),
        },
        error => error.into(),
    })
}
