//! The registry of findings: every `Finding` a sweep's report can show, one line each, in report order.
//! Adding a finding is its own file under `findings/` (the `Finding` impl) and its line in `FINDINGS` (with
//! the file's `mod` line above it).

use serde_json::{Map, Value};

use super::document::{Note, Section};
use super::finding::{Finding, Place};
use super::sweep_report::SweepReport;
use crate::declare::{did_you_mean, SpecError, Sweep};

pub(super) mod cpu_share_lines;
pub(super) mod equivalence_lines;
pub(super) mod fit_lines;
pub(super) mod quantity_lines;
pub(super) mod relative_effects;
pub(super) mod rule_lines;
pub(super) mod setting_cv;

/// Every finding; sections of one `Place` and notes appear in this order.
const FINDINGS: &[&dyn Finding] = &[
    &cpu_share_lines::CpuShareLines,
    &rule_lines::RuleLines,
    &quantity_lines::QuantityLines,
    &relative_effects::RelativeEffects,
    &fit_lines::FitLines,
    &equivalence_lines::EquivalenceLines,
    &setting_cv::SettingCv,
];

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finding_has_a_name_of_its_own_and_states_its_method() {
        let names: std::collections::BTreeSet<&str> = FINDINGS.iter().map(|finding| finding.name()).collect();
        assert_eq!(names.len(), FINDINGS.len(), "a name is an analysis.json key: {names:?}");
        assert!(FINDINGS.iter().all(|finding| !finding.method().is_empty()));
    }
}
