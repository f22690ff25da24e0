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
    /// Significance level of the Welch test, e.g. 0.05.
    pub alpha: f64,
}
