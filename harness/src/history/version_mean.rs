//! `VersionMean`: one setting's runs at one version on the log scale, as `history show` states them.

use crate::student_t::two_sided_critical;

/// The geometric mean of a version's runs with the 95% Student t interval of their mean log (Student
/// 1908), back-transformed (df = runs - 1; no interval from one run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VersionMean {
    pub mean: f64,
    pub interval: Option<(f64, f64)>,
    pub runs: usize,
}

impl VersionMean {
    /// Of `runs` (positive values; None without one).
    pub fn of(runs: &[f64]) -> Option<VersionMean> {
        let logs: Vec<f64> = runs.iter().map(|run| run.ln()).collect();
        let n = logs.len() as f64;
        let mean = logs.iter().sum::<f64>() / n;
        if logs.is_empty() || !mean.is_finite() {
            return None;
        }
        let interval = (logs.len() >= 2).then(|| {
            let variance = logs.iter().map(|log| (log - mean).powi(2)).sum::<f64>() / (n - 1.0);
            let t = two_sided_critical(0.95, n - 1.0).expect("df above 0");
            let half = t * (variance / n).sqrt();
            ((mean - half).exp(), (mean + half).exp())
        });
        Some(VersionMean { mean: mean.exp(), interval, runs: logs.len() })
    }

    /// The degrees of freedom of the interval.
    pub fn df(&self) -> usize {
        self.runs.saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_geometric_mean_and_a_t_interval_around_it() {
        let mean = VersionMean::of(&[1.0, 4.0]).unwrap();
        assert!((mean.mean - 2.0).abs() < 1e-12);
        let (low, high) = mean.interval.unwrap();
        // ln 4 / 2 = 0.693 either side of ln 2 with sd 0.980, t(0.975, 1) = 12.706: e^(ln 2 ± 8.81).
        assert!((low * high - 4.0).abs() < 1e-9 && high > 1000.0, "{low} {high}");
        assert_eq!(mean.df(), 1);
        assert_eq!(VersionMean::of(&[3.0]).unwrap().interval, None, "no interval from one run");
        assert_eq!(VersionMean::of(&[]), None);
        assert_eq!(VersionMean::of(&[0.0, 1.0]), None, "a non-positive value has no log");
    }
}
