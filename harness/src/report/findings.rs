//! The registry of findings: every `Finding` a sweep's report can show, one line each, in report order.
//! Adding a finding is its own file (the `Finding` impl) and its line in `FINDINGS`.

use serde_json::{Map, Value};

use super::cpu_share_lines::CpuShareLines;
use super::document::{Note, Section};
use super::equivalence_lines::EquivalenceLines;
use super::finding::{Finding, Place};
use super::fit_lines::FitLines;
use super::quantity_lines::QuantityLines;
use super::relative_effects::RelativeEffects;
use super::rule_lines::RuleLines;
use super::setting_cv::SettingCv;
use super::sweep_report::SweepReport;
use crate::declare::{did_you_mean, SpecError, Sweep};

/// Every finding; sections of one `Place` and notes appear in this order.
const FINDINGS: &[&dyn Finding] =
    &[&CpuShareLines, &RuleLines, &QuantityLines, &RelativeEffects, &FitLines, &EquivalenceLines, &SettingCv];

impl SweepReport<'_> {
    /// The findings this report shows: every default one, and each opt-in one its config names.
    fn findings(&self) -> impl Iterator<Item = &'static dyn Finding> + '_ {
        let named = |finding: &&dyn Finding| self.config.findings.iter().any(|name| name == finding.name());
        FINDINGS.iter().copied().filter(move |finding| !finding.opt_in() || named(finding))
    }

    /// The findings' sections that go at `place`.
    pub fn finding_sections(&self, place: Place) -> Vec<Section> {
        let placed = self.findings().flat_map(|finding| finding.sections(self));
        placed.filter(|(at, _)| *at == place).map(|(_, section)| section).collect()
    }

    /// The findings' notes, which open "What to trust".
    pub fn finding_notes(&self) -> Vec<Note> {
        self.findings().flat_map(|finding| finding.notes(self)).collect()
    }

    /// Each finding's key of `analysis.json`, added to `object`.
    pub fn add_finding_json(&self, object: &mut Map<String, Value>) {
        object.extend(self.findings().filter_map(|finding| Some((finding.name().to_string(), finding.json(self)?))));
    }

    /// What the sweep's checks say, as `run` and `report` both exit: a failed run, or a finding that fails
    /// (settings that should agree shown not to, an engine rule shown to miss the forced optimum).
    pub fn checks_failed(&self) -> bool {
        self.analysis.failures.failed > 0 || self.findings().any(|finding| finding.fails(self))
    }
}

/// Each name of `[analysis] findings` is an opt-in finding of the registry: an unknown one is refused at
/// its key, with the nearest name.
pub fn check_findings(sweep: &Sweep) -> Result<(), SpecError> {
    let names = || FINDINGS.iter().filter(|finding| finding.opt_in()).map(|finding| finding.name());
    let unknown = sweep.analysis.findings.iter().enumerate().find(|(_, name)| !names().any(|known| known == *name));
    match unknown {
        None => Ok(()),
        Some((index, name)) => Err(sweep.source.error_at(
            &format!("analysis.findings[{index}]"),
            format!("unknown finding `{name}`{}", did_you_mean(name, names())),
        )),
    }
}
