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
}
