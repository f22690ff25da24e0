//! One setting measured on both sides: means, ratio with its interval, corrected test and verdict.

use serde::{Deserialize, Serialize};

use crate::analyse::{ComparisonMethod, Direction, NoTest, RatioInterval};
use crate::declare::ControlScaling;
use crate::plan::Setting;

/// The question `compare` answers about each joined setting, what a comparison of two sweeps judges: one
/// metric, which way is better, and how much counts.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CompareConfig {
    pub metric: String,
    pub direction: Direction,
    /// Smallest relative change that matters, e.g. 0.02 for 2%.
    pub threshold: f64,
    /// Family-wise error rate over all joined settings (Holm), e.g. 0.05.
    pub alpha: f64,
    /// A metric no version should change (the sweep's control): its B/A ratio is reported per setting,
    /// and it is used as a covariate that removes machine drift.
    #[serde(default)]
    pub control: Option<String>,
    /// A control that moved by more than this share between the sides (either way) means the machine
    /// changed: no verdict about the compared thing is drawn from it.
    #[serde(default = "default_control_threshold")]
    pub control_threshold: f64,
    /// How the control's change between two separate sweeps is translated into the metric's: the slope
    /// estimated inside the sweeps, or declared proportional (slope 1).
    #[serde(default)]
    pub control_scaling: ControlScaling,
}

impl CompareConfig {
    /// Whether a control's B/A moved beyond `control_threshold`, either way alike on the log scale (x1.25
    /// and x0.8 at 25%): the machine changed.
    pub fn control_beyond_limit(&self, control_ratio: f64) -> bool {
        control_ratio.ln().abs() > self.control_threshold.ln_1p()
    }
}

/// The default `control_threshold`: drift between two days moves a control by a few percent, which the
/// covariate removes; a 25% move is another machine (or a version that moved the control itself).
pub const DEFAULT_CONTROL_THRESHOLD: f64 = 0.25;

fn default_control_threshold() -> f64 {
    DEFAULT_CONTROL_THRESHOLD
}

/// The verdict on one setting, B against A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Significant (Holm-corrected) and better than A by more than the threshold.
    Improved,
    /// Significant (Holm-corrected) and worse than A by more than the threshold.
    Regressed,
    /// Not significant, or significant but within the threshold.
    #[serde(rename = "no change")]
    NoSignificantChange,
    /// No test is possible (one run on a side, no residual degrees of freedom, a zero standard error).
    Insufficient,
    /// The machine changed between the sides (`MachineChange`): the control moved beyond
    /// `control_threshold`, or moved and nothing in the sweeps tells how the metric follows it, so no
    /// change of the metric can be attributed.
    #[serde(rename = "cannot tell")]
    MachineChanged,
}

/// One joined setting.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingComparison {
    pub setting: Setting,
    pub n_a: usize,
    pub n_b: usize,
    pub mean_a: Option<f64>,
    pub mean_b: Option<f64>,
    /// B / A of the (control-adjusted) metric with its simultaneous interval (`Comparison::level`).
    pub ratio: Option<RatioInterval>,
    /// The same with its marginal 95% interval.
    pub marginal: Option<RatioInterval>,
    /// Two-sided p-value of "no change" (moderated t), and the same after Holm's correction.
    pub p_value: Option<f64>,
    pub p_adjusted: Option<f64>,
    /// Degrees of freedom of the test.
    pub df: Option<f64>,
    pub method: Option<ComparisonMethod>,
    /// Why no test was possible.
    pub reason: Option<NoTest>,
    /// B / A of the control metric's means, when both sides report it.
    pub control_ratio: Option<f64>,
    pub verdict: Verdict,
}

/// Regressed / Improved need the Holm-adjusted p-value below alpha and a relative change B/A − 1
/// beyond the threshold in the bad / good direction; a control that moved beyond `control_threshold`
/// (B/A of the control) makes any such verdict "cannot tell".
pub fn judge(
    ratio: Option<RatioInterval>,
    p_adjusted: Option<f64>,
    control_ratio: Option<f64>,
    config: &CompareConfig,
) -> Verdict {
    let (Some(ratio), Some(p)) = (ratio, p_adjusted) else {
        return Verdict::Insufficient;
    };
    if control_ratio.is_some_and(|r| config.control_beyond_limit(r)) {
        return Verdict::MachineChanged;
    }
    let change = ratio.ratio - 1.0;
    let gain = match config.direction {
        Direction::Higher => change,
        Direction::Lower => -change,
    };
    if p >= config.alpha {
        Verdict::NoSignificantChange
    } else if gain < -config.threshold {
        Verdict::Regressed
    } else if gain > config.threshold {
        Verdict::Improved
    } else {
        Verdict::NoSignificantChange
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(direction: Direction) -> CompareConfig {
        CompareConfig {
            metric: "m".into(),
            direction,
            threshold: 0.02,
            alpha: 0.05,
            control: None,
            control_threshold: DEFAULT_CONTROL_THRESHOLD,
            control_scaling: ControlScaling::Estimated,
        }
    }

    fn ratio(value: f64) -> Option<RatioInterval> {
        Some(RatioInterval { ratio: value, low: value * 0.99, high: value * 1.01 })
    }

    #[test]
    fn significant_drop_in_throughput_is_a_regression_and_in_time_an_improvement() {
        assert_eq!(judge(ratio(0.9), Some(0.001), None, &config(Direction::Higher)), Verdict::Regressed);
        assert_eq!(judge(ratio(0.9), Some(0.001), Some(1.01), &config(Direction::Lower)), Verdict::Improved);
    }

    #[test]
    fn significant_but_small_or_large_but_not_significant_is_no_change() {
        assert_eq!(judge(ratio(0.99), Some(0.001), None, &config(Direction::Higher)), Verdict::NoSignificantChange);
        assert_eq!(judge(ratio(0.5), Some(0.2), None, &config(Direction::Higher)), Verdict::NoSignificantChange);
    }

    #[test]
    fn no_test_is_insufficient() {
        assert_eq!(judge(None, None, None, &config(Direction::Higher)), Verdict::Insufficient);
    }

    /// A control 4.8x faster on B made "improved" of a machine change.
    #[test]
    fn a_control_that_moved_beyond_its_threshold_cannot_tell() {
        assert_eq!(judge(ratio(1.5), Some(0.001), Some(4.8), &config(Direction::Higher)), Verdict::MachineChanged);
        assert_eq!(
            judge(ratio(1.5), Some(0.001), Some(1.0 / 4.8), &config(Direction::Higher)),
            Verdict::MachineChanged
        );
    }
}
