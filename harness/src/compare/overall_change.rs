//! The grid-wide answer of a comparison: one B/A over every setting, and whether one number describes them.

use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::compare_config::CompareConfig;
use super::setting_comparison::{judge, Verdict};
use crate::analyse::{RandomEffects, RatioInterval, RivalComparison, SettingModel};

/// B/A over all joined settings by a random-effects meta-analysis of their per-setting effects.
#[derive(Debug, Clone, PartialEq)]
pub struct OverallChange {
    pub effects: RandomEffects,
    /// B/A with its simultaneous interval (the overall test is one more member of the Holm family).
    pub ratio: RatioInterval,
    pub p_adjusted: f64,
    /// Cochran's Q test of homogeneity: p ≥ 0.05 reads "consistent across settings".
    pub heterogeneity_p: f64,
    pub verdict: Verdict,
}

/// Below this Q-test p-value the settings' changes differ more than their noise explains.
pub const HETEROGENEITY_P: f64 = 0.05;

impl OverallChange {
    /// The meta-analysis on the model's scale as a ratio, judged like a setting (Holm-adjusted p below
    /// alpha and beyond the threshold; the grid's control change makes it "cannot tell").
    pub fn of(
        effects: RandomEffects,
        p_adjusted: f64,
        model: &SettingModel,
        level: f64,
        config: &CompareConfig,
    ) -> OverallChange {
        let as_comparison = RivalComparison {
            estimate: effects.estimate,
            std_error: effects.std_error,
            df: effects.df,
            runs: effects.settings,
            method: crate::analyse::ComparisonMethod::Independent,
        };
        let ratio = model.ratio(&as_comparison, 1.0, level);
        let heterogeneity_p = ChiSquared::new(effects.df).map_or(1.0, |chi| chi.sf(effects.q));
        let verdict = judge(Some(ratio), Some(p_adjusted), None, config);
        OverallChange { effects, ratio, p_adjusted, heterogeneity_p, verdict }
    }

    /// The settings' changes are consistent with one common change.
    pub fn is_consistent(&self) -> bool {
        self.heterogeneity_p >= HETEROGENEITY_P
    }
}
