//! What a comparison of two sweeps judges: one metric, which way is better, and how much counts.

use serde::Deserialize;

use crate::analyse::Direction;

/// The question `compare` answers about each joined setting.
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
}

/// The default `control_threshold`: drift between two days moves a control by a few percent, which the
/// covariate removes; a 25% move is another machine (or a version that moved the control itself).
pub const DEFAULT_CONTROL_THRESHOLD: f64 = 0.25;

fn default_control_threshold() -> f64 {
    DEFAULT_CONTROL_THRESHOLD
}
