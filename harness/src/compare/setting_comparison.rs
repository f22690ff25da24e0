//! One setting measured in both sweeps: means, ratio with its interval, Welch test and verdict.

use super::compare_config::CompareConfig;
use crate::analyse::{Direction, Labels, LinearContrast, SummaryStats};

/// The verdict on one setting, B against A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Significant at alpha and better than A by more than the threshold.
    Improved,
    /// Significant at alpha and worse than A by more than the threshold.
    Regressed,
    /// Not significant, or significant but within the threshold.
    NoSignificantChange,
    /// Fewer than two usable runs on a side: no test is possible.
    Insufficient,
}

/// B / A with its two-sided 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioInterval {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
}

/// One joined setting.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingComparison {
    pub setting: Labels,
    pub n_a: usize,
    pub n_b: usize,
    pub mean_a: Option<f64>,
    pub mean_b: Option<f64>,
    /// None without both means, or when a mean is not positive (a log ratio needs positive means).
    pub ratio: Option<RatioInterval>,
    /// Welch's t-test of equal means, two-sided.
    pub p_value: Option<f64>,
    pub verdict: Verdict,
}

impl SettingComparison {
    /// Compare B against A: Welch's unequal-variance t-test (Welch–Satterthwaite df) for the p-value;
    /// the ratio B/A with a 95% interval by the delta method on the log ratio,
    /// exp(ln(m_b/m_a) ± t(0.975, df)·√(s_b²/(n_b m_b²) + s_a²/(n_a m_a²))), df by Welch–Satterthwaite
    /// on those two terms. Regressed/Improved need p < alpha and a relative change (m_b − m_a)/|m_a|
    /// beyond the threshold in the bad/good direction.
    pub fn of(
        setting: Labels,
        a: Option<&SummaryStats>,
        b: Option<&SummaryStats>,
        config: &CompareConfig,
    ) -> SettingComparison {
        let test = a.zip(b).map(|(a, b)| LinearContrast::difference(b, a));
        let p_value = test.and_then(|t| t.p_value());
        let verdict = match (a, b, p_value) {
            (Some(a), Some(b), Some(p)) => judge(a.mean, b.mean, p, config),
            _ => Verdict::Insufficient,
        };
        SettingComparison {
            setting,
            n_a: a.map_or(0, |s| s.n),
            n_b: b.map_or(0, |s| s.n),
            mean_a: a.map(|s| s.mean),
            mean_b: b.map(|s| s.mean),
            ratio: a.zip(b).and_then(|(a, b)| log_ratio_interval(a, b)),
            p_value,
            verdict,
        }
    }

    /// (m_b − m_a) / |m_a|.
    pub fn relative_change(&self) -> Option<f64> {
        Some((self.mean_b? - self.mean_a?) / self.mean_a?.abs())
    }
}

fn judge(mean_a: f64, mean_b: f64, p_value: f64, config: &CompareConfig) -> Verdict {
    let change = (mean_b - mean_a) / mean_a.abs();
    let gain = match config.direction {
        Direction::Higher => change,
        Direction::Lower => -change,
    };
    if p_value >= config.alpha {
        Verdict::NoSignificantChange
    } else if gain < -config.threshold {
        Verdict::Regressed
    } else if gain > config.threshold {
        Verdict::Improved
    } else {
        Verdict::NoSignificantChange
    }
}

/// Delta method: Var(ln m_b − ln m_a) ≈ s_b²/(n_b m_b²) + s_a²/(n_a m_a²), which is the variance of
/// the contrast m_b/m_b − m_a/m_a, so `LinearContrast` with weights 1/m_b and −1/m_a supplies both
/// the standard error and the Welch–Satterthwaite df.
fn log_ratio_interval(a: &SummaryStats, b: &SummaryStats) -> Option<RatioInterval> {
    if a.mean <= 0.0 || b.mean <= 0.0 {
        return None;
    }
    let ratio = b.mean / a.mean;
    let half = LinearContrast::of(&[(1.0 / b.mean, b), (-1.0 / a.mean, a)]).ci95?;
    Some(RatioInterval { ratio, low: ratio * (-half).exp(), high: ratio * half.exp() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(direction: Direction) -> CompareConfig {
        CompareConfig { metric: "m".into(), direction, threshold: 0.02, alpha: 0.05 }
    }

    fn compare(a: &[f64], b: &[f64], direction: Direction) -> SettingComparison {
        let (a, b) = (SummaryStats::of(a), SummaryStats::of(b));
        SettingComparison::of(vec![], a.as_ref(), b.as_ref(), &config(direction))
    }

    #[test]
    fn ratio_interval_by_hand() {
        // a: mean 100, s² = 4, n 3; b: mean 90, s² = 1, n 3.
        // se(log ratio) = √(1/(3·8100) + 4/(3·10000)) = √(4.115e-5 + 1.3333e-4) = 0.013210;
        // df = (1.7449e-4)² / ((4.115e-5)²/2 + (1.3333e-4)²/2) = 3.1272;
        // t(0.975, 3.1272) = 3.1105 -> half = 0.04109, interval 0.9 · e^±0.04109 = [0.86377, 0.93775].
        let c = compare(&[98.0, 100.0, 102.0], &[89.0, 90.0, 91.0], Direction::Higher);
        let r = c.ratio.unwrap();
        assert!((r.ratio - 0.9).abs() < 1e-12);
        assert!((r.low - 0.86377).abs() < 1e-4 && (r.high - 0.93775).abs() < 1e-4, "{r:?}");
        assert!((r.low * r.high - 0.81).abs() < 1e-12, "symmetric on the log scale");
    }

    #[test]
    fn significant_drop_in_throughput_is_a_regression() {
        let c = compare(&[98.0, 100.0, 102.0], &[89.0, 90.0, 91.0], Direction::Higher);
        // Welch: t = −10/√(4/3 + 1/3) = −7.746, df = (5/3)²/((4/3)²/2 + (1/3)²/2) = 2.9412, p = 0.004798.
        assert!((c.p_value.unwrap() - 0.004798).abs() < 1e-5, "{:?}", c.p_value);
        assert_eq!(c.verdict, Verdict::Regressed);
        assert!((c.relative_change().unwrap() + 0.1).abs() < 1e-12);
        // The same numbers as times: lower is better, so it improved.
        assert_eq!(compare(&[98.0, 100.0, 102.0], &[89.0, 90.0, 91.0], Direction::Lower).verdict, Verdict::Improved);
    }

    #[test]
    fn significant_but_small_is_no_change() {
        // 1% slower with almost no noise: significant, below the 2% threshold.
        let c = compare(&[100.0, 100.01, 99.99], &[99.0, 99.01, 98.99], Direction::Higher);
        assert!(c.p_value.unwrap() < 0.001);
        assert_eq!(c.verdict, Verdict::NoSignificantChange);
    }

    #[test]
    fn large_but_noisy_is_no_change() {
        let c = compare(&[50.0, 100.0, 150.0], &[40.0, 80.0, 120.0], Direction::Higher);
        assert_eq!(c.verdict, Verdict::NoSignificantChange);
    }

    #[test]
    fn one_run_or_one_side_is_insufficient() {
        assert_eq!(compare(&[1.0], &[2.0, 3.0], Direction::Higher).verdict, Verdict::Insufficient);
        let missing = compare(&[], &[2.0, 3.0], Direction::Higher);
        assert_eq!((missing.verdict, missing.n_a, missing.ratio), (Verdict::Insufficient, 0, None));
    }
}
