//! How much machine drift the control metric removed as a per-run covariate (CUPED / ANCOVA).

/// The control's slope in the model's weighted fit, and what it explained.
///
/// The control (decode throughput in the slice study) runs a path no setting changes, so within one
/// setting its variation is the machine's speed at that moment. The slope is fitted *within* settings
/// and rounds (both factors in the model, Frisch–Waugh–Lovell), so a control whose level legitimately
/// differs between groups (decode throughput moves with the prompt length) does not bias it; a control
/// the settings of one group move is not used at all (`ControlMove`).
#[derive(Debug, Clone, PartialEq)]
pub struct ControlAdjustment {
    pub metric: String,
    /// θ = Σ w e_y e_c / Σ w e_c² over the residuals of the setting + round model.
    pub slope: f64,
    /// The share of the residual variance (after settings and rounds) the control explained.
    pub variance_removed: f64,
    /// Runs the slope was fitted on.
    pub runs: usize,
    /// Var(θ̂) = 1 / Σ w e_c² (weights are inverse variances): an adjusted difference whose two sides ran
    /// at control levels Δc apart carries Δc² · Var(θ̂) more variance (the ANCOVA adjusted-mean contrast).
    pub slope_variance: f64,
    /// The control's own measurement noise (its variance on the analysis scale): half the mean squared
    /// difference of its residuals between runs adjacent in time (von Neumann 1941), where drift, smooth
    /// in time, cancels and run-to-run noise does not.
    pub noise_variance: f64,
    /// λ = 1 − noise / within-setting variance of the control: the share of its movement that is the
    /// machine's. A slope fitted on a noisy control is attenuated by λ (regression dilution, Fuller 1987);
    /// a level difference measured by many runs' mean control needs the de-attenuated slope θ / λ.
    pub reliability: f64,
    /// The covariate was the control's drift track (`drift_track`: its runs with each setting's effect on
    /// it taken out), not the control itself.
    pub track: bool,
}

impl ControlAdjustment {
    /// (noise variance, reliability) of a control from its residuals after the setting (and round) effects,
    /// in the order the runs ran, on `residual_df` degrees of freedom.
    pub fn reliability_of(residuals: &[f64], residual_df: f64) -> (f64, f64) {
        if residuals.len() < 3 || residual_df < 1.0 {
            return (0.0, 1.0);
        }
        // Each residual carries the share residual_df / n of its run's noise variance (the fitted effects
        // take the rest), so the differences' half mean square is scaled back by n / residual_df.
        let n = residuals.len() as f64;
        let squares: f64 = residuals.windows(2).map(|pair| (pair[1] - pair[0]).powi(2)).sum();
        let noise = squares / (2.0 * (n - 1.0)) * n / residual_df;
        let total = residuals.iter().map(|r| r * r).sum::<f64>() / residual_df;
        let reliability = if total > 0.0 { (1.0 - noise / total).clamp(MIN_RELIABILITY, 1.0) } else { 1.0 };
        (noise, reliability)
    }
}

/// A control whose movement is nearly all noise is de-attenuated at most 10x.
const MIN_RELIABILITY: f64 = 0.1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn successive_differences_separate_smooth_drift_from_noise() {
        // A slow ramp (drift) plus alternating ±0.01 noise: adjacent differences are noise (0.02) plus a
        // tiny ramp step; the residuals' spread is mostly the ramp.
        let residuals: Vec<f64> =
            (0..100).map(|i| 0.002 * (f64::from(i) - 49.5) + if i % 2 == 0 { 0.01 } else { -0.01 }).collect();
        let (noise, reliability) = ControlAdjustment::reliability_of(&residuals, 99.0);
        assert!((noise - 0.0002 * 100.0 / 99.0).abs() < 2e-5, "{noise}");
        assert!((0.8..0.95).contains(&reliability), "{reliability}");
        // Pure noise: nothing of it is the machine's.
        let noise_only: Vec<f64> = (0..100).map(|i| if i % 2 == 0 { 0.01 } else { -0.01 }).collect();
        assert_eq!(ControlAdjustment::reliability_of(&noise_only, 99.0).1, MIN_RELIABILITY);
    }
}
