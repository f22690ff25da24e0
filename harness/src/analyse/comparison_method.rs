//! How a rival was compared with its group's best: within rounds (blocks) or as independent samples.

use serde::Serialize;

/// The design behind a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ComparisonMethod {
    /// Rounds of an interleaved schedule are blocks of the model: drift shared by a round cancels.
    Blocked,
    /// No rounds to block on (the order was not interleaved, or two separate sweeps): independent samples,
    /// each setting with its own (moderated) variance.
    Independent,
}

impl ComparisonMethod {
    /// `paired` or `welch`, as `analysis.json` names the design.
    pub fn design(self) -> &'static str {
        match self {
            ComparisonMethod::Blocked => "paired",
            ComparisonMethod::Independent => "welch",
        }
    }
}
