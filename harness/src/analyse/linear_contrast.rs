//! A linear contrast of the model's setting estimates, Σ cₛ μ̂ₛ, with the uncertainty the model gives it:
//! every ablation delta and interaction is one.

use super::no_test::NoTest;
use super::setting_model::SettingModel;
use super::student_t::one_sided_critical;

/// Σ cₛ μ̂ₛ on the model's scale, with its standard error and df when a test is possible.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearContrast {
    pub estimate: f64,
    /// None, with `reason`, when the model leaves no test (one rep, no residual df, zero spread).
    pub std_error: Option<f64>,
    pub df: Option<f64>,
    /// Half-width of the two-sided 95% t interval, t(0.975, df) · std_error.
    pub ci95: Option<f64>,
    pub reason: Option<NoTest>,
}

impl LinearContrast {
    /// The contrast of `weights` (setting, cₛ; they sum to zero) from `model`: the estimate from its
    /// setting estimates, the rest from `SettingModel::contrast` (moderated variances, residual df). With
    /// `in_unit`, a log-scale model's levels are contrasted in the metric's own unit
    /// (`SettingModel::level_contrast`, the delta method).
    pub fn of(model: &SettingModel, weights: &[(usize, f64)], in_unit: bool) -> LinearContrast {
        let level = |s: usize| if in_unit { model.mean(s).exp() } else { model.mean(s) };
        let estimate = weights.iter().filter(|(_, c)| *c != 0.0).map(|&(s, c)| c * level(s)).sum();
        let test = if in_unit { model.level_contrast(weights) } else { model.contrast(weights) };
        let tested = test.as_ref().ok();
        LinearContrast {
            estimate,
            std_error: tested.map(|test| test.std_error),
            df: tested.map(|test| test.df),
            ci95: tested.map(|test| test.half_width(0.95)),
            reason: test.err(),
        }
    }

    /// The one-sided bound distance t(1 − alpha, df) · SE: the estimate ± this is the 1 − 2·alpha
    /// interval whose inclusion in a margin is Schuirmann's (1987) two one-sided tests at alpha.
    pub fn one_sided_half_width(&self, alpha: f64) -> Option<f64> {
        Some(one_sided_critical(1.0 - alpha, self.df?)? * self.std_error?)
    }
}
