//! `verify_rule`: does the engine's own rule (its variable left unset) pick what forcing finds best?
//! Per group, the rule's setting against the best forced setting, by two one-sided tests (Schuirmann
//! 1987) within the equivalence margin (`negligible`, or the control's drift when larger).

use super::drift_bound::DriftBound;
use super::equivalence::{Agreement, Margin, Tests};
use super::setting_summary::{Labels, SettingSummary};
use super::verdicts::{is_rule, Verdicts};
use crate::declare::{AnalysisConfig, VerifyRule};

/// The rule against the forced optimum in every group that has both.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleCheck {
    pub param: String,
    pub rule: String,
    /// The relative margin of equality, and why it is that wide.
    pub margin: Margin,
    pub groups: Vec<RuleMatch>,
}

/// One group's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleMatch {
    pub group: Labels,
    /// Indices into `SweepAnalysis::settings`.
    pub rule_setting: usize,
    pub best_forced: usize,
    /// (rule − best forced) / best forced with its 1 − 2·alpha interval.
    pub difference: Option<(f64, f64, f64)>,
    pub agreement: Agreement,
}

impl RuleCheck {
    /// One match per verdict group holding the rule's setting and a forced setting the model measured.
    pub fn of(
        verify: &VerifyRule,
        settings: &[SettingSummary],
        verdicts: &Verdicts,
        config: &AnalysisConfig,
        drift: Option<&DriftBound>,
    ) -> RuleCheck {
        let model = &verdicts.model;
        let candidates: Vec<(Labels, usize, usize)> = verdicts
            .groups
            .iter()
            .filter_map(|group| {
                let rule = (0..settings.len()).find(|&s| {
                    is_rule(&settings[s], config)
                        && model.has(s)
                        && settings[s].setting.labels_of(&config.group_by) == group.group
                })?;
                // The verdict's best is the best forced setting: the rule takes no part in it.
                Some((group.group.clone(), rule, group.best))
            })
            .collect();
        let margin = Margin::of(config, drift);
        let tests = Tests { model, bound: margin.bound, alpha: config.alpha, classes: candidates.len().max(1) };
        let groups = candidates
            .into_iter()
            .map(|(group, rule_setting, best_forced)| {
                let (difference, agreement) = tests.agreement(rule_setting, best_forced);
                RuleMatch { group, rule_setting, best_forced, difference, agreement }
            })
            .collect();
        RuleCheck { param: verify.param.clone(), rule: verify.rule.clone(), margin, groups }
    }

    /// Groups where the rule is shown to differ from the forced optimum: the check fails (exit 1).
    pub fn mismatches(&self) -> impl Iterator<Item = &RuleMatch> {
        self.groups.iter().filter(|group| group.agreement == Agreement::Disagree)
    }

    pub fn matches(&self) -> usize {
        self.groups.iter().filter(|group| group.agreement == Agreement::Agree).count()
    }

    /// Groups where the data show neither a match nor a difference.
    pub fn cannot_tell(&self) -> usize {
        self.groups.iter().filter(|group| matches!(group.agreement, Agreement::CannotTell(_))).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_config};
    use crate::analyse::{analyse_sweep, AnalysisConfig};

    /// Rows 512 and 4096; forced slices 1 and 2 and the engine's rule. At 512 the rule picks 1 slice
    /// (the forced best), at 4096 it also picks 1 slice, 10% slower than the forced best (2 slices).
    fn rule_sweep() -> Vec<crate::analyse::Observation> {
        let mut observations = Vec::new();
        let noise = [1.0, 1.004, 0.996, 1.002, 0.998, 1.001];
        for (rows, slices, tps) in [
            ("512", "1", 100.0),
            ("512", "2", 80.0),
            ("512", "rule", 100.0),
            ("4096", "1", 90.0),
            ("4096", "2", 100.0),
            ("4096", "rule", 90.0),
        ] {
            for (round, wobble) in noise.iter().enumerate() {
                let metrics = [("prefill_tokens_per_s", tps * wobble), ("decode_tokens_per_s", 50.0)];
                observations.push(fixture_observation(
                    &[("rows", rows), ("slices", slices)],
                    round as u32 + 1,
                    &metrics,
                ));
            }
        }
        observations
    }

    #[test]
    fn the_rule_matches_where_it_picks_the_forced_best_and_is_named_where_it_does_not() {
        let config = AnalysisConfig {
            control: None,
            equivalence_key: None,
            negligible: Some(0.03),
            verify_rule: Some(VerifyRule { param: "slices".into(), rule: "rule".into() }),
            ..fixture_slice_config()
        };
        let analysis = analyse_sweep(&rule_sweep(), &config, true, &[]);
        let check =
            RuleCheck::of(config.verify_rule.as_ref().unwrap(), &analysis.settings, &analysis.verdicts, &config, None);
        assert_eq!(check.groups.len(), 2);
        assert_eq!(check.groups[0].agreement, Agreement::Agree, "{:?}", check.groups[0]);
        assert_eq!(check.matches(), 1);
        let mismatched: Vec<_> = check.mismatches().collect();
        assert_eq!(mismatched.len(), 1);
        assert_eq!(mismatched[0].group[0].1.to_string(), "4096");
        let (difference, _, _) = mismatched[0].difference.unwrap();
        assert!((difference + 0.1).abs() < 0.01, "{difference}");
    }
}
