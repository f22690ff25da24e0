//! The drift bound: how far a control metric that no setting should move wandered across a sweep.

use super::summary_stats::SummaryStats;
use crate::record::Observation;

/// The range of a control metric over every usable run of a sweep.
///
/// A control such as decode throughput takes the same code path at every setting, so its range is
/// run-to-run drift of the machine; an effect on the primary metric larger than this is not drift.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftBound {
    pub metric: String,
    pub n: usize,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// (max − min) / mean.
    pub rel_range: f64,
}

impl DriftBound {
    /// Relative range (max − min) / mean of `metric` pooled over all usable runs, whatever their
    /// setting (an empirical range bound, not a model-based interval). None when no usable run has it.
    pub fn of(observations: &[Observation], metric: &str) -> Option<DriftBound> {
        let values: Vec<f64> =
            observations.iter().filter(|o| o.is_usable()).filter_map(|o| o.metrics.get(metric).copied()).collect();
        let stats = SummaryStats::of(&values)?;
        Some(DriftBound {
            metric: metric.to_string(),
            n: stats.n,
            min: stats.min,
            max: stats.max,
            mean: stats.mean,
            rel_range: stats.rel_spread,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::fixture_slice_sweep;

    #[test]
    fn decode_range_over_usable_runs_only() {
        // The warmup reports decode 1.0; it must not widen the range.
        let drift = DriftBound::of(&fixture_slice_sweep(), "decode_tokens_per_s").unwrap();
        assert_eq!(drift.n, 21);
        assert_eq!((drift.min, drift.max), (8.72, 8.99));
        assert!((drift.rel_range - 0.27 / drift.mean).abs() < 1e-12);
        assert!(drift.rel_range > 0.030 && drift.rel_range < 0.031);
    }

    #[test]
    fn absent_control_has_no_bound() {
        assert!(DriftBound::of(&fixture_slice_sweep(), "nope").is_none());
    }
}
