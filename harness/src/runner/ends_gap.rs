//! `EndsGap`: whether a bisection's good and bad ends measured apart at all. If they did not, every
//! probe's position between them is noise and the commit named means nothing.

use crate::analyse::two_sided_p;

/// A paired t of the rounds' `log bad - log good` (each round runs both ends): Student's t on
/// df = rounds - 1, two-sided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EndsGap {
    pub rounds: usize,
    /// bad / good: the geometric mean of the rounds' ratios.
    pub ratio: f64,
    pub t: f64,
    pub df: f64,
    /// Two-sided, never 0.
    pub p: f64,
}

impl EndsGap {
    /// The test of `gaps` (one a round); `None` under two rounds (no spread to test against).
    pub fn of(gaps: &[f64]) -> Option<EndsGap> {
        let rounds = gaps.len();
        if rounds < 2 {
            return None;
        }
        let mean = gaps.iter().sum::<f64>() / rounds as f64;
        let variance = gaps.iter().map(|gap| (gap - mean).powi(2)).sum::<f64>() / (rounds - 1) as f64;
        let t = mean / (variance / rounds as f64).sqrt().max(1e-12);
        let df = (rounds - 1) as f64;
        Some(EndsGap { rounds, ratio: mean.exp(), t, df, p: two_sided_p(t, df) })
    }

    /// Whether the ends differ at `level`.
    pub fn differ(&self, level: f64) -> bool {
        self.p < level
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_3_percent_gap_differs_and_noise_around_nothing_does_not() {
        let step = 1.03f64.ln();
        let apart = EndsGap::of(&[step + 0.01, step - 0.01, step + 0.005, step - 0.004]).unwrap();
        assert!(apart.differ(0.05) && (apart.ratio - 1.03).abs() < 0.01, "{apart:?}");
        assert_eq!(apart.df, 3.0);
        let alike = EndsGap::of(&[0.01, -0.012, 0.004, -0.003]).unwrap();
        assert!(!alike.differ(0.05), "{alike:?}");
        assert!(alike.p > 0.0);
        assert_eq!(EndsGap::of(&[0.1]), None);
    }
}
