//! Two recorded sweeps joined on their settings and judged setting by setting.

use super::compare_config::CompareConfig;
use super::setting_comparison::{SettingComparison, Verdict};
use crate::analyse::{Labels, Observation, SettingSummary};
use crate::spec::ParamValue;

/// The comparison of sweep B against sweep A.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub config: CompareConfig,
    /// Settings present in both, in A's first-seen order.
    pub settings: Vec<SettingComparison>,
    /// Settings recorded only in A, then only in B.
    pub only_a: Vec<Labels>,
    pub only_b: Vec<Labels>,
}

impl Comparison {
    /// Whether any setting regressed significantly beyond the threshold: the CLI's exit code 1.
    pub fn has_significant_regression(&self) -> bool {
        self.settings.iter().any(|s| s.verdict == Verdict::Regressed)
    }
}

/// Join A and B on exact equality of setting vectors (all labels, `variant` included) and compare
/// `config.metric` per setting over usable runs (`SettingComparison::of`: Welch's t-test, delta-method
/// log-ratio interval).
pub fn compare(a: &[Observation], b: &[Observation], config: &CompareConfig) -> Comparison {
    let (summaries_a, summaries_b) = (SettingSummary::summarise(a), SettingSummary::summarise(b));
    let settings = summaries_a
        .iter()
        .filter_map(|in_a| {
            let in_b = setting_in(&summaries_b, &in_a.setting)?;
            Some(SettingComparison::of(
                in_a.setting.clone(),
                in_a.metric(&config.metric),
                in_b.metric(&config.metric),
                config,
            ))
        })
        .collect();
    let unmatched = |from: &[SettingSummary], other: &[SettingSummary]| {
        from.iter().filter(|s| setting_in(other, &s.setting).is_none()).map(|s| s.setting.clone()).collect()
    };
    Comparison {
        config: config.clone(),
        settings,
        only_a: unmatched(&summaries_a, &summaries_b),
        only_b: unmatched(&summaries_b, &summaries_a),
    }
}

fn setting_in<'a>(summaries: &'a [SettingSummary], setting: &[(String, ParamValue)]) -> Option<&'a SettingSummary> {
    summaries.iter().find(|s| s.setting == setting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_sweep, fixture_slice_sweep_b};
    use crate::analyse::Direction;

    fn config() -> CompareConfig {
        CompareConfig {
            metric: "prefill_tokens_per_s".into(),
            direction: Direction::Higher,
            threshold: 0.02,
            alpha: 0.05,
        }
    }

    #[test]
    fn join_on_settings_and_flag_the_regression() {
        let comparison = compare(&fixture_slice_sweep(), &fixture_slice_sweep_b(), &config());
        assert_eq!(comparison.settings.len(), 5);
        let verdicts: Vec<Verdict> = comparison.settings.iter().map(|s| s.verdict).collect();
        use Verdict::*;
        assert_eq!(
            verdicts,
            vec![NoSignificantChange, Regressed, NoSignificantChange, NoSignificantChange, NoSignificantChange]
        );
        assert_eq!(comparison.only_a.len(), 2);
        assert_eq!(comparison.only_b, vec![fixture_slice_sweep_b().last().unwrap().setting.clone()]);
        assert!(comparison.has_significant_regression());
    }

    #[test]
    fn identical_sweeps_do_not_regress() {
        let comparison = compare(&fixture_slice_sweep(), &fixture_slice_sweep(), &config());
        assert!(!comparison.has_significant_regression());
        assert!(comparison.settings.iter().all(|s| s.p_value == Some(1.0)));
        assert!(comparison.only_a.is_empty() && comparison.only_b.is_empty());
    }

    #[test]
    fn variant_is_part_of_the_join() {
        let a = [fixture_observation(&[("rows", "1"), ("variant", "baseline")], 1, &[])];
        let b = [fixture_observation(&[("rows", "1"), ("variant", "other")], 1, &[])];
        let comparison = compare(&a, &b, &config());
        assert!(comparison.settings.is_empty());
        assert_eq!((comparison.only_a.len(), comparison.only_b.len()), (1, 1));
    }
}
