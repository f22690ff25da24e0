//! One rival against its group's best: the difference, its standard error and degrees of freedom.
use super::comparison_method::ComparisonMethod;
use super::student_t::{one_sided_critical, two_sided_critical, two_sided_p};

/// mean(rival) − mean(best) on the analysis scale, from the model (`SettingModel::compare`): never with
/// a zero standard error or fewer than one degree of freedom (those are "cannot tell").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RivalComparison {
    pub estimate: f64,
    pub std_error: f64,
    pub df: f64,
    /// The smaller of the two settings' runs in the fit.
    pub runs: usize,
    pub method: ComparisonMethod,
}

impl RivalComparison {
    /// Two-sided p-value of "no difference": the moderated t = estimate / std_error on df (Smyth 2004).
    pub fn p_value(&self) -> f64 {
        two_sided_p(self.estimate / self.std_error, self.df)
    }

    /// Half-width of the two-sided interval at `confidence`.
    pub fn half_width(&self, confidence: f64) -> f64 {
        two_sided_critical(confidence, self.df).map_or(f64::INFINITY, |t| t * self.std_error)
    }

    /// Two one-sided tests (Schuirmann 1987) at `alpha`: the difference lies within ±`margin`, shown by
    /// the 1 − 2·alpha interval lying inside it.
    pub fn is_within(&self, margin: f64, alpha: f64) -> bool {
        self.estimate.abs() + self.half_width(1.0 - 2.0 * alpha) < margin
    }

    /// The smallest true difference a two-sided test at `alpha` would detect with probability `power`
    /// on this comparison's standard error and df: (t₁₋α/₂ + t_power) · SE, the usual power statement
    /// of a t test (noncentrality approximated by the shift of the central t).
    pub fn detectable(&self, alpha: f64, power: f64) -> f64 {
        let critical = two_sided_critical(1.0 - alpha, self.df).unwrap_or(f64::INFINITY);
        (critical + one_sided_critical(power, self.df).unwrap_or(f64::INFINITY)) * self.std_error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison(estimate: f64, std_error: f64, df: f64) -> RivalComparison {
        RivalComparison { estimate, std_error, df, runs: 3, method: ComparisonMethod::Blocked }
    }

    #[test]
    fn t_test_by_hand() {
        // t = 2 / (1/√3) = 3.4641 on 2 df: two-sided p = 0.07418 (R: 2 * pt(-2 * sqrt(3), 2) = 0.0741799).
        let test = comparison(2.0, 1.0 / 3f64.sqrt(), 2.0);
        assert!((test.p_value() - 0.074_179_9).abs() < 1e-7, "{}", test.p_value());
        // 95% half-width t(0.975, 2)·se = 4.302653 / √3 = 2.48414
        assert!((test.half_width(0.95) - 2.484_138).abs() < 1e-5);
    }

    #[test]
    fn equivalence_needs_the_whole_interval_inside_the_margin() {
        let test = comparison(0.001, 0.002, 40.0);
        // 90% half-width: t(0.95, 40) = 1.683851 → 0.0033677; |0.001| + 0.0033677 < 0.01.
        assert!(test.is_within(0.01, 0.05));
        assert!(!test.is_within(0.004, 0.05));
    }

    #[test]
    fn the_detectable_difference_is_the_power_statement() {
        // df 20, alpha 0.05, power 0.8: t(0.975, 20) = 2.085963, t(0.8, 20) = 0.859964; se 0.01 → 0.029459.
        let test = comparison(0.0, 0.01, 20.0);
        assert!((test.detectable(0.05, 0.8) - 0.029_459_3).abs() < 1e-6, "{}", test.detectable(0.05, 0.8));
    }
}
