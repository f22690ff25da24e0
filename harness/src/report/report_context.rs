//! What a sweep's report needs beyond its analysis: the declared tables and units, the profile's phases,
//! how many runs were planned and how to complete them, how many were retried. Read from the sidecar.

use std::path::{Path, PathBuf};

use super::document::Note;
use super::metric_units::MetricUnits;
use super::resume_command::ResumeCommand;
use super::text::Text;
use crate::analyse::SearchSummary;
use crate::declare::ReportConfig;
use crate::record::{EngineChange, Sidecar};

/// The recorded facts a report states besides the verdicts; `Default` for a CSV without a sidecar.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReportContext {
    /// Extra tables (`[report]`).
    pub tables: ReportConfig,
    pub units: MetricUnits,
    /// The metrics read from the engine's phase profile (`[metrics.profile] phases`).
    pub phases: Vec<String>,
    pub planned: Option<PlannedRuns>,
    /// Runs recorded more than once (failed, then run again by `--resume`).
    pub retried: usize,
    /// The engine changes resumes accepted (`--accept-engine-change`): the rows come from more than one engine.
    pub engine_changes: Vec<EngineChange>,
    /// What a budgeted search spent and found, when the sweep searched (`[search]`).
    pub search: Option<SearchSummary>,
}

impl ReportContext {
    /// The context of the CSV at `csv`, whose sidecar is `sidecar`.
    pub fn recorded(sidecar: Option<&Sidecar>, csv: &Path, retried: usize) -> ReportContext {
        let Some(sidecar) = sidecar else { return ReportContext { retried, ..ReportContext::default() } };
        let profile = sidecar.sweep.rest.get("metrics").and_then(|m| m.get("profile")?.get("phases")?.as_object());
        let rounds = sidecar.reps + sidecar.sweep.reps.warmup;
        let planned = PlannedRuns {
            // A search plans its budget (none for a budget of time), not every setting's rounds.
            runs: (sidecar.search)
                .map_or(sidecar.settings.len() * rounds as usize, |search| search.budget.runs().unwrap_or(0) as usize),
            race: sidecar.race.is_some(),
            resume: (!sidecar.command_line.is_empty()).then(|| ResumeCommand::of(&sidecar.command_line, csv)),
            command_line: sidecar.command_line.clone(),
            csv: csv.to_path_buf(),
        };
        ReportContext {
            tables: sidecar.sweep.report.clone(),
            units: MetricUnits::recorded(sidecar),
            phases: profile.map(|phases| phases.keys().cloned().collect()).unwrap_or_default(),
            planned: Some(planned),
            retried,
            engine_changes: sidecar.engine_changes.clone(),
            search: None,
        }
    }
}

/// How many runs a sweep planned, so a summary of fewer never reads as a finished sweep: the runs its plan
/// held (warmups included), whether it was a race that may stop early, and the command that completes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRuns {
    pub runs: usize,
    pub race: bool,
    pub resume: Option<ResumeCommand>,
    /// The command that ran the sweep, and the CSV it wrote: what a resume with more reps is made of.
    pub command_line: Vec<String>,
    pub csv: PathBuf,
}

impl PlannedRuns {
    /// The command that takes a `sweep run` to `reps` rounds, keeping its runs (None for an ablation or
    /// without the recorded command line).
    pub fn with_reps(&self, reps: usize) -> Option<ResumeCommand> {
        self.resume.as_ref()?;
        ResumeCommand::with_reps(&self.command_line, &self.csv, reps)
    }

    /// A note when fewer than planned runs are recorded (a warning unless a race stopped them); None when
    /// the plan is complete.
    pub fn shortfall(&self, recorded: usize) -> Option<Note> {
        if recorded >= self.runs {
            return None;
        }
        if self.race {
            return Some(Note::info(format!(
                "The race recorded {recorded} of at most {} runs: it stops running settings once decided.",
                self.runs
            )));
        }
        let text = Text::plain(format!(
            "Only {recorded} of {} planned runs are recorded: the sweep was interrupted (or is still running)",
            self.runs
        ));
        Some(Note::warning(match &self.resume {
            Some(command) if command.resumes => text.and("; this completes it: ").code(&command.line).and("."),
            Some(command) => text.and("; run it again to complete it: ").code(&command.line).and("."),
            None => text.and("."),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_incomplete_plan_says_so_with_the_command_that_completes_it() {
        let resume = ResumeCommand::of(&["sweep".into(), "run".into(), "s.toml".into()], std::path::Path::new("r.csv"));
        let plain =
            PlannedRuns { runs: 12, race: false, resume: Some(resume), command_line: vec![], csv: PathBuf::new() };
        assert_eq!(plain.shortfall(12), None);
        let note = plain.shortfall(7).unwrap();
        assert!(note.warning);
        assert_eq!(
            note.text.with_backticks(),
            "Only 7 of 12 planned runs are recorded: the sweep was interrupted (or is still running); this completes \
             it: `sweep run s.toml --resume r.csv`."
        );
        let race = PlannedRuns { runs: 40, race: true, resume: None, command_line: vec![], csv: PathBuf::new() };
        assert!(race.shortfall(25).unwrap().text.with_backticks().contains("25 of at most 40 runs"));
    }
}
