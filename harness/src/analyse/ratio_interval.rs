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
    /// The interval, cut at 1 on the side the test decided when it `rejected` "no difference": a Holm
    /// rejection says the sign; the Bonferroni bound says how far (Strassburger & Bretz 2008).
    pub fn cut_at_one(self, rejected: bool) -> RatioInterval {
        match (rejected, self.ratio < 1.0) {
            (false, _) => self,
            (true, true) => RatioInterval { high: self.high.min(1.0), ..self },
            (true, false) => RatioInterval { low: self.low.max(1.0), ..self },
        }
    }
}
