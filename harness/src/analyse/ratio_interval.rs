//! A ratio with its two-sided 95% interval, the form every relative effect is reported in.

use serde::Serialize;

/// `ratio` (e.g. rival / best, or B / A) with its 95% interval `low..high`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RatioInterval {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
}

impl RatioInterval {
    /// The largest relative distance of the interval's ends from 1: the smallest effect these data
    /// could have told from none.
    pub fn resolution(&self) -> f64 {
        (self.high - 1.0).abs().max((1.0 - self.low).abs())
    }
}
