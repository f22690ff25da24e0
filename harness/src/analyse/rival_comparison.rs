//! One rival against its group's best: the difference, its standard error and degrees of freedom.
use super::comparison_method::ComparisonMethod;
use super::linear_contrast::LinearContrast;
use super::round_model::RoundModel;
use super::student_t::{two_sided_critical, two_sided_p_value};
use super::summary_stats::SummaryStats;

/// mean(rival) − mean(best) on the analysis scale, with the uncertainty of the chosen design.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RivalComparison {
    pub estimate: f64,
    pub std_error: f64,
    pub df: f64,
    /// Rounds both settings ran in (paired), or the smaller sample (Welch).
    pub runs: usize,
    pub method: ComparisonMethod,
}

impl RivalComparison {
    /// Within rounds: the mean of the per-round differences d = rival − best over the rounds both ran
    /// in (a setting run twice in a round counts as its mean). Its standard error is σ̂·√(2/m) with the
    /// additive round model's residual variance and df when `pooled` is given (a linear model with
    /// round blocks), else the paired t statistic's s_d/√m on m − 1 df (Student 1908). None when the
    /// design leaves no degrees of freedom.
    pub fn of_differences(differences: &[f64], pooled: Option<&RoundModel>) -> Option<RivalComparison> {
        let m = differences.len();
        let stats = SummaryStats::of(differences)?;
        let (std_error, df, method) = match pooled {
            Some(model) => ((model.variance * 2.0 / m as f64).sqrt(), model.df, ComparisonMethod::Pooled),
            None if m >= 2 => (stats.stdev / (m as f64).sqrt(), (m - 1) as f64, ComparisonMethod::Paired),
            None => return None,
        };
        Some(RivalComparison { estimate: stats.mean, std_error, df, runs: m, method })
    }

    /// Independent samples: Welch's unequal-variance difference with Welch–Satterthwaite df.
    pub fn welch(rival: &[f64], best: &[f64]) -> Option<RivalComparison> {
        let (rival, best) = (SummaryStats::of(rival)?, SummaryStats::of(best)?);
        let contrast = LinearContrast::difference(&rival, &best);
        Some(RivalComparison {
            estimate: contrast.estimate,
            std_error: contrast.std_error?,
            df: contrast.df?,
            runs: rival.n.min(best.n),
            method: ComparisonMethod::Welch,
        })
    }

    /// The same comparison with `variance` more uncertainty (e.g. from an estimated covariate slope).
    pub fn widened(self, variance: f64) -> RivalComparison {
        RivalComparison { std_error: (self.std_error * self.std_error + variance).sqrt(), ..self }
    }

    /// Two-sided p-value of "no difference" (t = estimate / std_error on df).
    pub fn p_value(&self) -> f64 {
        if self.std_error == 0.0 {
            return if self.estimate == 0.0 { 1.0 } else { 0.0 };
        }
        two_sided_p_value(self.estimate / self.std_error, self.df).unwrap_or(1.0)
    }

    /// Half-width of the two-sided interval at `confidence` (0 for a noiseless difference).
    pub fn half_width(&self, confidence: f64) -> f64 {
        if self.std_error == 0.0 || self.df.is_infinite() {
            return self.std_error * normal_critical(confidence);
        }
        two_sided_critical(confidence, self.df).map_or(f64::INFINITY, |t| t * self.std_error)
    }

    /// Two one-sided tests (Schuirmann 1987) at `alpha`: the difference lies within ±`margin`, shown by
    /// the 1 − 2·alpha interval lying inside it.
    pub fn is_within(&self, margin: f64, alpha: f64) -> bool {
        self.estimate.abs() + self.half_width(1.0 - 2.0 * alpha) < margin
    }
}

/// The standard normal two-sided critical value, the t quantile's infinite-df limit.
fn normal_critical(confidence: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::standard().inverse_cdf((1.0 + confidence) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_t_by_hand() {
        // d = (1, 2, 3): mean 2, s_d = 1, se = 1/√3, t = 3.4641 on 2 df: two-sided p = 0.07418
        // (R: t.test(c(11,12,13), c(10,10,10), paired = TRUE)$p.value = 0.07417990).
        let test = RivalComparison::of_differences(&[1.0, 2.0, 3.0], None).unwrap();
        assert_eq!((test.estimate, test.df, test.method), (2.0, 2.0, ComparisonMethod::Paired));
        assert!((test.p_value() - 0.074_179_90).abs() < 1e-7, "{}", test.p_value());
        // 95% half-width t(0.975, 2)·se = 4.302653 / √3 = 2.48414
        assert!((test.half_width(0.95) - 2.484_138).abs() < 1e-5);
    }

    #[test]
    fn pooled_variance_gives_the_model_df() {
        let model = RoundModel { variance: 0.5, df: 30.0, homogeneity_p: Some(0.5) };
        let test = RivalComparison::of_differences(&[1.0, 2.0], Some(&model)).unwrap();
        // se = √(0.5 · 2 / 2) = 0.7071 on 30 df.
        assert_eq!(test.method, ComparisonMethod::Pooled);
        assert!((test.std_error - 0.5f64.sqrt()).abs() < 1e-12 && test.df == 30.0);
        // One shared round is enough with a pooled variance, none without.
        assert!(RivalComparison::of_differences(&[1.0], Some(&model)).is_some());
        assert!(RivalComparison::of_differences(&[1.0], None).is_none());
    }

    #[test]
    fn welch_matches_the_linear_contrast() {
        let test = RivalComparison::welch(&[3.0, 5.0, 7.0], &[1.0, 2.0, 3.0]).unwrap();
        // See linear_contrast: se 1.290994, df 2.941176, p 0.10448.
        assert!((test.std_error - 1.290_994).abs() < 1e-5 && (test.df - 2.941_176).abs() < 1e-5);
        assert!((test.p_value() - 0.10448).abs() < 1e-4);
    }

    #[test]
    fn equivalence_needs_the_whole_interval_inside_the_margin() {
        let test =
            RivalComparison { estimate: 0.001, std_error: 0.002, df: 40.0, runs: 5, method: ComparisonMethod::Pooled };
        // 90% half-width: t(0.95, 40) = 1.683851 → 0.0033677; |0.001| + 0.0033677 < 0.01.
        assert!(test.is_within(0.01, 0.05));
        assert!(!test.is_within(0.004, 0.05));
    }

    #[test]
    fn noiseless_differences_are_certain() {
        let test = RivalComparison::of_differences(&[1.0, 1.0], None).unwrap();
        assert_eq!((test.p_value(), test.half_width(0.95)), (0.0, 0.0));
    }
}
