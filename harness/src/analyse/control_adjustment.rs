//! Removing machine drift with the control metric as a per-run covariate (CUPED / ANCOVA).

use super::round_model::additive_residuals;
use super::run_sample::RunSample;
use super::sample_layout::SampleLayout;

/// How much of the primary metric's run-to-run variation the control metric explained and removed.
///
/// The control (decode throughput in the slice study) runs a path no setting changes, so within one
/// setting its variation is the machine's speed at that moment. The slope is fitted *within* settings
/// (setting as a factor), so a control whose level legitimately differs between settings (decode
/// throughput moves with the prompt length) does not bias it.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlAdjustment {
    pub metric: String,
    /// θ = Σ (y − ȳₛ)(c − c̄ₛ) / Σ (c − c̄ₛ)², pooled over settings s.
    pub slope: f64,
    /// 1 − SS_within(adjusted) / SS_within(raw): the share of within-setting variance removed.
    pub variance_removed: f64,
    /// Runs the slope was fitted on.
    pub runs: usize,
    /// Var(θ̂) = σ̂² / Σ e_c²: an adjusted difference whose two sides ran at control levels Δc apart
    /// carries Δc² · Var(θ̂) more variance (the ANCOVA adjusted-mean contrast).
    pub slope_variance: f64,
}

impl ControlAdjustment {
    /// Fits the regression of the primary on the control with the setting as a factor, and with
    /// `by_round` the round too (ANCOVA; by Frisch–Waugh–Lovell the slope is that of the two residual
    /// series, θ = Σ e_y e_c / Σ e_c²): the regression adjustment of Deng, Xu, Kohavi & Walker 2013,
    /// "CUPED". Every sample is adjusted to `y − θ (c − c̄_ref)`, where `c̄_ref` is the mean control
    /// of the sample's comparison group (`group_of[setting]`), so groups keep their level and only
    /// drift is removed. Also returns the adjusted values' residuals, e_y − θ e_c (the setting means, and
    /// with `by_round` the round effects, of the adjusted values are those of the raw values less θ
    /// times the control's, the group mean being constant within a setting), from which the round model
    /// needs no fit of its own. None, leaving the samples as they are, when some sample lacks the
    /// control or the control never varies within a setting. `layout` is the samples'.
    pub fn fit_and_apply(
        metric: &str,
        samples: &mut [RunSample],
        layout: &SampleLayout,
        group_of: &[usize],
        by_round: bool,
    ) -> Option<(ControlAdjustment, Vec<f64>)> {
        let controls: Vec<f64> = samples.iter().map(|s| s.control).collect::<Option<_>>()?;
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        let (mut value_residuals, control_residuals) = rayon::join(
            || additive_residuals(layout, &values, by_round),
            || additive_residuals(layout, &controls, by_round),
        );
        let cross: f64 = value_residuals.iter().zip(&control_residuals).map(|(y, c)| y * c).sum();
        let control_ss: f64 = control_residuals.iter().map(|c| c * c).sum();
        let value_ss: f64 = value_residuals.iter().map(|y| y * y).sum();
        if control_ss <= 1e-300 || value_ss <= 1e-300 {
            return None;
        }
        let slope = cross / control_ss;
        let group_control = group_means(samples, &controls, group_of);
        for (sample, control) in samples.iter_mut().zip(controls) {
            sample.value -= slope * (control - group_control[group_of[sample.setting]]);
        }
        // Rounding can leave a perfectly explained series a hair below zero.
        let residual_ss = (value_ss - cross * cross / control_ss).max(0.0);
        let rounds = if by_round { layout.rounds - 1 } else { 0 };
        let residual_df = samples.len() as f64 - layout.settings as f64 - rounds as f64 - 1.0;
        let adjustment = ControlAdjustment {
            metric: metric.to_string(),
            slope,
            variance_removed: 1.0 - residual_ss / value_ss,
            runs: samples.len(),
            slope_variance: if residual_df > 0.0 { residual_ss / residual_df / control_ss } else { 0.0 },
        };
        for (value, control) in value_residuals.iter_mut().zip(&control_residuals) {
            *value -= slope * control;
        }
        Some((adjustment, value_residuals))
    }
}

/// The mean control of each comparison group, indexed by group (NaN for a group without samples).
fn group_means(samples: &[RunSample], controls: &[f64], group_of: &[usize]) -> Vec<f64> {
    let groups = samples.iter().map(|s| group_of[s.setting] + 1).max().unwrap_or(0);
    let mut sums = vec![(0.0, 0.0); groups];
    for (sample, control) in samples.iter().zip(controls) {
        let entry: &mut (f64, f64) = &mut sums[group_of[sample.setting]];
        entry.0 += control;
        entry.1 += 1.0;
    }
    sums.into_iter().map(|(sum, n)| sum / n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(setting: usize, round: u32, value: f64, control: f64) -> RunSample {
        RunSample { setting, round, value, control: Some(control) }
    }

    fn fit(samples: &mut [RunSample], group_of: &[usize], by_round: bool) -> Option<ControlAdjustment> {
        let layout = SampleLayout::of(samples);
        ControlAdjustment::fit_and_apply("c", samples, &layout, group_of, by_round).map(|(fit, _)| fit)
    }

    #[test]
    fn slope_is_the_pooled_within_setting_regression() {
        // Setting 0: y = 10 + 2c exactly; setting 1: y = 20 + 2c exactly, with a higher control level.
        // Pooled within-setting slope: 2; everything within settings is explained.
        let mut samples = vec![
            sample(0, 1, 12.0, 1.0),
            sample(0, 2, 14.0, 2.0),
            sample(0, 3, 16.0, 3.0),
            sample(1, 1, 40.0, 10.0),
            sample(1, 2, 44.0, 12.0),
        ];
        let fit = fit(&mut samples, &[0, 1], false).unwrap();
        assert!((fit.slope - 2.0).abs() < 1e-12);
        assert!((fit.variance_removed - 1.0).abs() < 1e-12);
        // Adjusted to each group's mean control (2 and 11): every run lands on its setting's line there.
        assert!(samples[..3].iter().all(|s| (s.value - 14.0).abs() < 1e-12));
        assert!(samples[3..].iter().all(|s| (s.value - 42.0).abs() < 1e-12));
    }

    #[test]
    fn between_setting_differences_in_the_control_do_not_make_a_slope() {
        // The control differs between settings (5 vs 50) but is unrelated to y within each setting.
        let mut samples = vec![
            sample(0, 1, 1.0, 5.0),
            sample(0, 2, 3.0, 6.0),
            sample(0, 3, 2.0, 4.0),
            sample(1, 1, 9.0, 50.0),
            sample(1, 2, 11.0, 51.0),
            sample(1, 3, 10.0, 49.0),
        ];
        // Within settings: dy = (-1, 1, 0), dc = (0, 1, -1) in both: Σdy·dc = 1 + 1 = 2, Σdc² = 4.
        let fit = fit(&mut samples, &[0, 0], false).unwrap();
        assert!((fit.slope - 0.5).abs() < 1e-12);
        // Σdy² = 4; residual 4 - 2²/4 = 3: a quarter removed.
        assert!((fit.variance_removed - 0.25).abs() < 1e-12);
    }

    #[test]
    fn a_missing_or_constant_control_adjusts_nothing() {
        let mut missing = vec![sample(0, 1, 1.0, 1.0), RunSample { control: None, ..sample(0, 2, 2.0, 0.0) }];
        assert!(fit(&mut missing, &[0], false).is_none());
        let mut constant = vec![sample(0, 1, 1.0, 3.0), sample(0, 2, 2.0, 3.0)];
        assert!(fit(&mut constant, &[0], false).is_none());
        assert_eq!(constant[1].value, 2.0);
    }

    /// The round model reuses the adjustment's residuals instead of fitting the adjusted values again.
    #[test]
    fn the_adjusted_residuals_are_those_of_the_adjusted_values() {
        let mut samples: Vec<RunSample> = (0..24)
            .map(|i| {
                let (setting, round) = (i % 3, i as u32 / 3 + 1);
                let control = 10.0 + (f64::from(round) * 1.7).sin() + 0.1 * (i as f64 * 2.3).cos();
                sample(setting, round, 2.0 * setting as f64 + 0.8 * control + 0.05 * (i as f64).sin(), control)
            })
            .collect();
        let layout = SampleLayout::of(&samples);
        let (_, residuals) = ControlAdjustment::fit_and_apply("c", &mut samples, &layout, &[0, 0, 1], true).unwrap();
        let adjusted: Vec<f64> = samples.iter().map(|s| s.value).collect();
        let refitted = additive_residuals(&layout, &adjusted, true);
        assert!(residuals.iter().zip(&refitted).all(|(a, b)| (a - b).abs() < 1e-9), "{residuals:?} vs {refitted:?}");
        assert!(residuals.iter().any(|r| r.abs() > 1e-4), "the residuals are not all zero");
    }
}
