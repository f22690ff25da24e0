//! A weighted sum of independent sample means with its standard error, Welch–Satterthwaite df and 95% interval.

use super::student_t::{two_sided_critical, two_sided_p_value};
use super::summary_stats::SummaryStats;

/// The estimate Σ cᵢ·meanᵢ of independent samples, with the uncertainty carried by their rep spread.
///
/// Every difference, interaction and factorial effect in the analysis is one of these, so they all
/// share one variance formula instead of each re-deriving it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearContrast {
    pub estimate: f64,
    /// √(Σ cᵢ² sᵢ² / nᵢ); None when a sample that carries weight has fewer than two values.
    pub std_error: Option<f64>,
    /// Welch–Satterthwaite effective degrees of freedom; infinite when every sample is noiseless.
    pub df: Option<f64>,
    /// Half-width of the two-sided 95% t interval, t(0.975, df) · std_error.
    pub ci95: Option<f64>,
}

impl LinearContrast {
    /// Σ cᵢ·meanᵢ with variance Σ cᵢ² sᵢ²/nᵢ (independent samples, unequal variances) and the
    /// Welch–Satterthwaite df (Σ vᵢ)² / Σ vᵢ²/(nᵢ−1), vᵢ = cᵢ² sᵢ²/nᵢ (Satterthwaite 1946);
    /// the interval is the two-sided 95% Student's t interval on that df.
    /// Zero-weight terms are ignored.
    pub fn of(terms: &[(f64, &SummaryStats)]) -> Self {
        let weighted: Vec<_> = terms.iter().filter(|(c, _)| *c != 0.0).collect();
        let estimate = weighted.iter().map(|(c, s)| c * s.mean).sum();
        if weighted.iter().any(|(_, s)| s.n < 2) {
            return LinearContrast { estimate, std_error: None, df: None, ci95: None };
        }
        let variances: Vec<(f64, usize)> =
            weighted.iter().map(|(c, s)| (c * c * s.stdev * s.stdev / s.n as f64, s.n)).collect();
        let variance: f64 = variances.iter().map(|(v, _)| v).sum();
        let df = welch_satterthwaite_df(&variances, variance);
        let std_error = variance.sqrt();
        // A noiseless contrast has a zero-width interval whatever the df (the t quantile at infinite df is not computed).
        let ci95 = if std_error == 0.0 { Some(0.0) } else { two_sided_critical(0.95, df).map(|t| t * std_error) };
        LinearContrast { estimate, std_error: Some(std_error), df: Some(df), ci95 }
    }

    /// A contrast evaluated within each round of an interleaved sweep (rounds are blocks): the mean of
    /// the per-round values, with the paired t statistic's standard error s/√m on m − 1 df (Student
    /// 1908). Needs two rounds for an interval.
    pub fn of_rounds(values: &[f64]) -> Self {
        let Some(stats) = SummaryStats::of(values) else {
            return LinearContrast { estimate: f64::NAN, std_error: None, df: None, ci95: None };
        };
        if stats.n < 2 {
            return LinearContrast { estimate: stats.mean, std_error: None, df: None, ci95: None };
        }
        let std_error = stats.stdev / (stats.n as f64).sqrt();
        LinearContrast {
            estimate: stats.mean,
            std_error: Some(std_error),
            df: Some((stats.n - 1) as f64),
            ci95: stats.ci95,
        }
    }

    /// mean(b) − mean(a): Welch's unequal-variance two-sample difference.
    pub fn difference(b: &SummaryStats, a: &SummaryStats) -> Self {
        Self::of(&[(1.0, b), (-1.0, a)])
    }

    /// Two-sided p-value of the t test of "the contrast is zero" (for a difference of two means this
    /// is Welch's unequal-variance t-test with Welch–Satterthwaite df).
    pub fn p_value(&self) -> Option<f64> {
        let (se, df) = (self.std_error?, self.df?);
        if se == 0.0 {
            // No sampling noise at all: any nonzero estimate is certain.
            return Some(if self.estimate == 0.0 { 1.0 } else { 0.0 });
        }
        two_sided_p_value(self.estimate / se, df)
    }

    /// Whether the 95% interval contains zero; None when there is no interval.
    pub fn ci_contains_zero(&self) -> Option<bool> {
        self.ci95.map(|half| self.estimate.abs() <= half)
    }
}

/// (Σ vᵢ)² / Σ vᵢ²/(nᵢ − 1); infinite when every variance is zero, because then nothing is estimated.
fn welch_satterthwaite_df(variances: &[(f64, usize)], total: f64) -> f64 {
    let denominator: f64 = variances.iter().map(|(v, n)| v * v / (*n - 1) as f64).sum();
    if denominator == 0.0 {
        f64::INFINITY
    } else {
        total * total / denominator
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(values: &[f64]) -> SummaryStats {
        SummaryStats::of(values).unwrap()
    }

    #[test]
    fn welch_test_matches_hand_computation() {
        // a: mean 2, s² = 1, n 3; b: mean 5, s² = 4, n 3.
        // se = √(1/3 + 4/3) = 1.2910; t = 3/1.2910 = 2.3238;
        // df = (5/3)² / ((1/3)²/2 + (4/3)²/2) = 2.7778 / 0.9444 = 2.9412;
        // two-sided p for t = 2.3238 at df 2.9412 = 0.10448 (numerical integration of the t density).
        let a = stats(&[1.0, 2.0, 3.0]);
        let b = stats(&[3.0, 5.0, 7.0]);
        let d = LinearContrast::difference(&b, &a);
        assert!((d.estimate - 3.0).abs() < 1e-12);
        assert!((d.std_error.unwrap() - 1.290_994).abs() < 1e-5);
        assert!((d.df.unwrap() - 2.941_176).abs() < 1e-5);
        assert!((d.p_value().unwrap() - 0.10448).abs() < 1e-4, "p = {:?}", d.p_value());
        assert_eq!(d.ci_contains_zero(), Some(true));
    }

    #[test]
    fn equal_variances_give_pooled_df() {
        // Equal n and variance: Welch–Satterthwaite df = 2(n − 1).
        let d = LinearContrast::difference(&stats(&[1.0, 2.0, 3.0]), &stats(&[4.0, 5.0, 6.0]));
        assert!((d.df.unwrap() - 4.0).abs() < 1e-12);
        // se = √(2/3); t(0.975, 4) = 2.776
        assert!((d.ci95.unwrap() - 2.776_445 * (2.0f64 / 3.0).sqrt()).abs() < 1e-4);
    }

    #[test]
    fn single_rep_has_no_interval() {
        let d = LinearContrast::difference(&stats(&[1.0]), &stats(&[4.0, 5.0]));
        assert_eq!(d.estimate, -3.5);
        assert_eq!((d.std_error, d.ci95, d.p_value()), (None, None, None));
    }

    #[test]
    fn noiseless_samples_are_certain() {
        let d = LinearContrast::difference(&stats(&[2.0, 2.0]), &stats(&[1.0, 1.0]));
        assert_eq!(d.ci95, Some(0.0));
        assert_eq!(d.p_value(), Some(0.0));
    }

    #[test]
    fn zero_weight_terms_do_not_need_data() {
        let single = stats(&[1.0]);
        let c = LinearContrast::of(&[(1.0, &stats(&[3.0, 5.0])), (0.0, &single)]);
        assert_eq!(c.estimate, 4.0);
        assert!(c.ci95.is_some());
    }
}
