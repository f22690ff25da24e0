//! How a rival was compared with its group's best: within rounds (paired) or as independent samples.

use serde::Serialize;

/// The test behind a rival's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ComparisonMethod {
    /// Per-round differences (rounds are blocks of an interleaved schedule), with the residual variance
    /// of the additive setting + round model pooled over the sweep.
    Pooled,
    /// Per-round differences with the pair's own variance (settings' variances differ too much to pool).
    Paired,
    /// Welch's unequal-variance test of independent samples: the order was not interleaved, or the two
    /// settings share fewer than two rounds.
    Welch,
}

impl ComparisonMethod {
    /// `paired` or `welch`, as `analysis.json` names the design.
    pub fn design(self) -> &'static str {
        match self {
            ComparisonMethod::Pooled | ComparisonMethod::Paired => "paired",
            ComparisonMethod::Welch => "welch",
        }
    }
}
