//! `Finding`: one check or estimate of a sweep's analysis as the report shows it: its sections, its notes,
//! its key of `analysis.json`, whether it fails the sweep and the method it rests on. The registry
//! (`findings.rs`) lists every finding in report order.

use serde_json::Value;

use super::document::{Note, Section};
use super::sweep_report::SweepReport;

/// A finding, read from the analysed sweep (`SweepReport`: the settings' summaries, the verdicts, the
/// config and what `analyse` computed from the runs). A finding that needs only the settings' summaries
/// computes itself here (`setting_cv.rs`); one that reads runs has its computation in `analyse` and its
/// result in `SweepAnalysis`.
pub trait Finding: Sync {
    /// Its key in `analysis.json` and, when `opt_in`, its name in `[analysis] findings`.
    fn name(&self) -> &'static str;

    /// Reported only when `[analysis] findings` names it (the others by their own `[analysis]` keys).
    fn opt_in(&self) -> bool {
        false
    }

    /// The statistical method it rests on, with its citation.
    fn method(&self) -> &'static str;

    /// Its sections, each where it goes in the report; empty sections are left out.
    fn sections(&self, _report: &SweepReport) -> Vec<(Place, Section)> {
        Vec::new()
    }

    /// Its notes, opening "What to trust" (warnings are moved first there).
    fn notes(&self, _report: &SweepReport) -> Vec<Note> {
        Vec::new()
    }

    /// Its value under `name` in `analysis.json`; None adds no key.
    fn json(&self, _report: &SweepReport) -> Option<Value> {
        None
    }

    /// Whether it fails the sweep (exit 1 from `run` and `report`).
    fn fails(&self, _report: &SweepReport) -> bool {
        false
    }
}

/// Where a finding's section goes in a sweep's report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// After the verdicts, before the figures: what the reader asked the sweep.
    Results,
    /// Among the tables, after `## Best per group` and before `## Failed runs`.
    Tables,
}
