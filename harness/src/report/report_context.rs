//! What a sweep's report needs beyond its analysis: the declared tables and units, the profile's phases,
//! how many runs were planned and how to complete them, how many were retried. Read from the sidecar.

use std::path::Path;

use super::metric_units::MetricUnits;
use super::planned_runs::PlannedRuns;
use super::resume_command::ResumeCommand;
use crate::record::Sidecar;
use crate::spec::ReportConfig;

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
}

impl ReportContext {
    /// The context of the CSV at `csv`, whose sidecar is `sidecar`.
    pub fn recorded(sidecar: Option<&Sidecar>, csv: &Path, retried: usize) -> ReportContext {
        let Some(sidecar) = sidecar else { return ReportContext { retried, ..ReportContext::default() } };
        let profile = sidecar.sweep.rest.get("metrics").and_then(|m| m.get("profile")?.get("phases")?.as_object());
        let rounds = sidecar.reps + sidecar.sweep.reps.warmup;
        let planned = PlannedRuns {
            runs: sidecar.settings.len() * rounds as usize,
            race: sidecar.race.is_some(),
            resume: (!sidecar.command_line.is_empty()).then(|| ResumeCommand::of(&sidecar.command_line, csv)),
        };
        ReportContext {
            tables: sidecar.sweep.report.clone(),
            units: MetricUnits::recorded(sidecar),
            phases: profile.map(|phases| phases.keys().cloned().collect()).unwrap_or_default(),
            planned: Some(planned),
            retried,
        }
    }
}
