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
}
