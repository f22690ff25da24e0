//! An effect with its two-sided 95% interval: a ratio, or a difference in the metric's own unit.

use serde::Serialize;

/// `effect` with its 95% interval `low..high`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EffectInterval {
    pub effect: f64,
    pub low: f64,
    pub high: f64,
}
