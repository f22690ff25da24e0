//! One rival against its group's best: the difference, its standard error and degrees of freedom.
use super::comparison_method::ComparisonMethod;
use crate::student_t::{one_sided_critical, two_sided_critical, two_sided_p, upper_p};

/// mean(rival) − mean(best) on the analysis scale, from the model (`SettingModel::compare`): never with
/// a zero standard error or fewer than one degree of freedom (those are "cannot tell"). Where the pooled
/// model gives the difference another standard error, every test and interval takes the more cautious of
/// the two: the larger of two p-values (the wider of two intervals) is valid when either model holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RivalComparison {
    pub estimate: f64,
    pub std_error: f64,
    pub df: f64,
    /// The smaller of the two settings' runs in the fit.
    pub runs: usize,
    pub method: ComparisonMethod,
    /// The pooled model's (standard error, df) of the same difference (`SettingModel::contrast`).
    pub pooled: Option<(f64, f64)>,
}

impl RivalComparison {
    /// (standard error, df) of each model: the settings' own variances, then the pooled one's.
    fn models(&self) -> impl Iterator<Item = (f64, f64)> {
        std::iter::once((self.std_error, self.df)).chain(self.pooled)
    }

    /// Two-sided p-value of "no difference": the moderated t = estimate / std_error on df (Smyth 2004),
    /// the larger of the models'.
    pub fn p_value(&self) -> f64 {
        self.models().map(|(se, df)| two_sided_p(self.estimate / se, df)).fold(0.0, f64::max)
    }

    /// One-sided p-value of "the difference is not above 0" for `toward` × the difference (`toward` = ±1),
    /// the larger of the models'.
    pub fn upper_p(&self, toward: f64) -> f64 {
        self.models().map(|(se, df)| upper_p(toward * self.estimate / se, df)).fold(0.0, f64::max)
    }

    /// Half-width of the two-sided interval at `confidence`, the wider of the models'.
    pub fn half_width(&self, confidence: f64) -> f64 {
        self.models()
            .map(|(se, df)| two_sided_critical(confidence, df).map_or(f64::INFINITY, |t| t * se))
            .fold(0.0, f64::max)
    }

    /// The one-sided bound's distance from the estimate at `confidence`, the farther of the models'.
    pub fn one_sided_width(&self, confidence: f64) -> f64 {
        self.models()
            .map(|(se, df)| one_sided_critical(confidence, df).unwrap_or(f64::INFINITY) * se)
            .fold(0.0, f64::max)
    }

    /// Two one-sided tests (Schuirmann 1987) at `alpha`: the difference lies within ±`margin`, shown by
    /// the 1 − 2·alpha interval lying inside it.
    pub fn is_within(&self, margin: f64, alpha: f64) -> bool {
        self.estimate.abs() + self.half_width(1.0 - 2.0 * alpha) < margin
    }

    /// The smallest true difference a two-sided test at `alpha` would detect with probability `power`
    /// on this comparison's standard error and df: (t₁₋α/₂ + t_power) · SE, the usual power statement
    /// of a t test (noncentrality approximated by the shift of the central t), the larger of the models'.
    pub fn detectable(&self, alpha: f64, power: f64) -> f64 {
        self.models()
            .map(|(se, df)| {
                let critical = two_sided_critical(1.0 - alpha, df).unwrap_or(f64::INFINITY);
                (critical + one_sided_critical(power, df).unwrap_or(f64::INFINITY)) * se
            })
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison(estimate: f64, std_error: f64, df: f64) -> RivalComparison {
        RivalComparison { estimate, std_error, df, runs: 3, method: ComparisonMethod::Blocked, pooled: None }
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

    #[test]
    fn the_more_cautious_model_decides_and_bounds() {
        // Own variances: se 0.01 on 20 df; pooled: se 0.02 on 40 df. t = 3 own, 1.5 pooled.
        let own = comparison(0.03, 0.01, 20.0);
        let both = RivalComparison { pooled: Some((0.02, 40.0)), ..own };
        assert!((both.p_value() - comparison(0.03, 0.02, 40.0).p_value()).abs() < 1e-12);
        assert!(both.p_value() > own.p_value());
        assert!((both.upper_p(1.0) - both.p_value() / 2.0).abs() < 1e-12);
        assert!((both.half_width(0.95) - comparison(0.03, 0.02, 40.0).half_width(0.95)).abs() < 1e-12);
        // A pooled model with the smaller error changes nothing.
        let tighter = RivalComparison { pooled: Some((0.005, 40.0)), ..own };
        assert_eq!((tighter.p_value(), tighter.half_width(0.99)), (own.p_value(), own.half_width(0.99)));
    }
}
