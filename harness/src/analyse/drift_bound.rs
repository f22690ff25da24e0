//! Machine drift as the control metric shows it: how much a metric no setting changes moved between rounds.

use super::setting_index::SettingIndex;
use crate::record::RecordedRun;

/// The control metric's spread *within* settings: run-to-run movement of the machine, with the control's
/// legitimate differences between settings (decode throughput moves with the prompt length) left out.
/// A diagnostic: verdicts use the control as a covariate (`ControlAdjustment`), not as a noise floor.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftBound {
    pub metric: String,
    /// Usable runs that reported the control.
    pub n: usize,
    /// Pooled within-setting relative standard deviation √(Σₛ Σᵢ ((cᵢ − c̄ₛ)/c̄ₛ)² / Σₛ (nₛ − 1)).
    pub rel_sd: f64,
    /// The widest single setting's range over its runs, relative to its mean.
    pub max_rel_range: f64,
}

/// Above this pooled relative spread the summary warns that the machine drifted.
pub const LARGE_DRIFT: f64 = 0.05;

impl DriftBound {
    /// The pooled relative standard deviation and widest relative range of `metric` within each setting,
    /// over usable runs. None when no setting has two usable runs with the metric.
    pub fn of<R: RecordedRun>(observations: &[R], metric: &str) -> Option<DriftBound> {
        // Settings in first-seen order, so the pooled sums (and their last digits) do not vary by run.
        let mut index = SettingIndex::default();
        let mut by_setting: Vec<Vec<f64>> = Vec::new();
        for observation in observations.iter().filter(|o| o.is_usable()) {
            if let Some(value) = observation.metric(metric) {
                let slot = index.get_or_insert_with(observation.setting_id(), || {
                    by_setting.push(Vec::new());
                    by_setting.len() - 1
                });
                by_setting[slot].push(value);
            }
        }
        let (mut squares, mut df, mut max_rel_range, mut n) = (0.0, 0usize, 0.0f64, 0);
        for values in &by_setting {
            n += values.len();
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            squares += values.iter().map(|v| ((v - mean) / mean).powi(2)).sum::<f64>();
            df += values.len() - 1;
            let (min, max) =
                values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
            max_rel_range = max_rel_range.max((max - min) / mean.abs());
        }
        (df > 0).then(|| DriftBound {
            metric: metric.to_string(),
            n,
            rel_sd: (squares / df as f64).sqrt(),
            max_rel_range,
        })
    }

    /// 2√2 × the relative sd: the 95% range of the difference of two single runs of one setting, the
    /// machine alone moving them.
    pub fn two_runs_range(&self) -> f64 {
        2.0 * std::f64::consts::SQRT_2 * self.rel_sd
    }

    pub fn is_large(&self) -> bool {
        self.rel_sd > LARGE_DRIFT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::{fixture_observation, fixture_slice_sweep};
    use crate::record::Observation;

    #[test]
    fn decode_spread_within_settings_over_usable_runs_only() {
        // The warmup reports decode 1.0; it must not widen the spread.
        let drift = DriftBound::of(&fixture_slice_sweep(), "decode_tokens_per_s").unwrap();
        assert_eq!(drift.n, 21);
        // 512/4 decodes 8.99, 8.75, 8.84: the widest range, 0.24 around a mean of 8.86.
        assert!((drift.max_rel_range - 0.24 / 8.86).abs() < 1e-4, "{drift:?}");
        assert!(drift.rel_sd > 0.005 && drift.rel_sd < 0.012, "{drift:?}");
    }

    #[test]
    fn differences_between_settings_are_not_drift() {
        // Decode legitimately 10x faster at one setting; no movement within either.
        let runs: Vec<Observation> = (1..=3)
            .flat_map(|rep| {
                [
                    fixture_observation(&[("rows", "512")], rep, &[("decode", 100.0)]),
                    fixture_observation(&[("rows", "4096")], rep, &[("decode", 10.0)]),
                ]
            })
            .collect();
        let drift = DriftBound::of(&runs, "decode").unwrap();
        assert_eq!((drift.rel_sd, drift.max_rel_range), (0.0, 0.0));
    }

    #[test]
    fn absent_control_has_no_bound() {
        assert!(DriftBound::of(&fixture_slice_sweep(), "nope").is_none());
    }
}
