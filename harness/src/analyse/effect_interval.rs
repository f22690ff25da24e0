//! An effect with its two-sided 95% interval: a ratio, or a difference in the metric's own unit.

use serde::Serialize;

use super::ratio_interval::RatioInterval;
use super::rival_comparison::RivalComparison;

/// `effect` with its 95% interval `low..high`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EffectInterval {
    pub effect: f64,
    pub low: f64,
    pub high: f64,
}

impl EffectInterval {
    /// A difference as estimated, ± the half-width of its t interval at `confidence`.
    pub fn difference(comparison: &RivalComparison, confidence: f64) -> EffectInterval {
        let half = comparison.half_width(confidence);
        EffectInterval {
            effect: comparison.estimate,
            low: comparison.estimate - half,
            high: comparison.estimate + half,
        }
    }
}

impl From<RatioInterval> for EffectInterval {
    fn from(ratio: RatioInterval) -> EffectInterval {
        EffectInterval { effect: ratio.ratio, low: ratio.low, high: ratio.high }
    }
}
