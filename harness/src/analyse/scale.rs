//! The scale verdicts are computed on: log ratios when every value is positive, else differences.

/// Throughputs and times are positive and drift multiplies them, so differences of logs (ratios)
/// are the natural effect; a metric that can be zero or negative is compared by plain differences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Log,
    Linear,
}

impl Scale {
    /// Log when every value is positive.
    pub fn for_values(mut values: impl Iterator<Item = f64>) -> Scale {
        if values.all(|v| v > 0.0) {
            Scale::Log
        } else {
            Scale::Linear
        }
    }

    pub fn transform(self, value: f64) -> f64 {
        match self {
            Scale::Log => value.ln(),
            Scale::Linear => value,
        }
    }

    /// A value on this scale back in the metric's own unit.
    pub fn inverse(self, value: f64) -> f64 {
        match self {
            Scale::Log => value.exp(),
            Scale::Linear => value,
        }
    }

    /// A difference on this scale as a ratio to `reference` (the best setting's mean).
    pub fn ratio(self, difference: f64, reference: f64) -> f64 {
        match self {
            Scale::Log => difference.exp(),
            Scale::Linear => (reference + difference) / reference,
        }
    }

    /// The margin `share` (e.g. 0.01 for 1%) as a difference on this scale around `reference`.
    pub fn margin(self, share: f64, reference: f64) -> f64 {
        match self {
            Scale::Log => (1.0 + share).ln(),
            Scale::Linear => share * reference.abs(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positive_values_compare_as_ratios() {
        let scale = Scale::for_values([2.0, 4.0].into_iter());
        assert_eq!(scale, Scale::Log);
        let difference = scale.transform(4.0) - scale.transform(2.0);
        assert!((scale.ratio(difference, 2.0) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn signed_values_compare_as_differences() {
        let scale = Scale::for_values([-1.0, 4.0].into_iter());
        assert_eq!(scale, Scale::Linear);
        assert_eq!(scale.ratio(1.0, 4.0), 1.25);
        assert_eq!(scale.margin(0.01, -200.0), 2.0);
    }
}
