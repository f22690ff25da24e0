//! How much of the CPU the engine's ranks asked for they got (`[analysis] cpu_share`): the plain reason a
//! sweep on a busy machine is slow and noisy.

use super::summary_stats::median_in_place;
use crate::record::RecordedRun;

/// Below this median share the summary opens by saying another job took the CPU from the runs.
pub const BUSY_MACHINE: f64 = 0.9;
/// A run below this share is counted as starved even when the median is fine.
pub const STARVED_RUN: f64 = 0.8;

/// The declared share metric over the usable runs: 1 on an idle machine, 0.5 when another job took half
/// the CPU time the ranks were ready to use.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuShare {
    pub metric: String,
    /// Usable runs that reported the metric.
    pub runs: usize,
    pub median: f64,
    pub lowest: f64,
    pub highest: f64,
    /// Runs below `STARVED_RUN`.
    pub starved: usize,
}

impl CpuShare {
    /// The share's median, range and starved runs over usable runs; None when no usable run reported it.
    pub fn of<R: RecordedRun>(observations: &[R], metric: &str) -> Option<CpuShare> {
        let mut shares: Vec<f64> =
            observations.iter().filter(|o| o.is_usable()).filter_map(|o| o.metric(metric)).collect();
        if shares.is_empty() {
            return None;
        }
        let (lowest, highest) =
            shares.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &share| (lo.min(share), hi.max(share)));
        let starved = shares.iter().filter(|&&share| share < STARVED_RUN).count();
        Some(CpuShare {
            metric: metric.to_string(),
            runs: shares.len(),
            median: median_in_place(&mut shares),
            lowest,
            highest,
            starved,
        })
    }

    /// Whether the typical run lost CPU to other work.
    pub fn machine_was_busy(&self) -> bool {
        self.median < BUSY_MACHINE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::fixtures::fixture_observation;
    use crate::record::Observation;

    fn runs(shares: &[f64]) -> Vec<Observation> {
        shares
            .iter()
            .enumerate()
            .map(|(rep, share)| fixture_observation(&[("rows", "512")], rep as u32 + 1, &[("cpu", *share)]))
            .collect()
    }

    #[test]
    fn a_busy_machine_is_told_by_the_median_share() {
        let share = CpuShare::of(&runs(&[0.62, 0.55, 0.58, 0.97, 0.41]), "cpu").unwrap();
        assert_eq!((share.runs, share.median, share.lowest, share.highest), (5, 0.58, 0.41, 0.97));
        assert_eq!(share.starved, 4);
        assert!(share.machine_was_busy());
    }

    #[test]
    fn an_idle_machine_with_one_starved_run_is_not_busy() {
        let share = CpuShare::of(&runs(&[0.99, 1.0, 0.98, 0.7]), "cpu").unwrap();
        assert!(!share.machine_was_busy());
        assert_eq!(share.starved, 1);
    }

    #[test]
    fn no_share_without_the_metric() {
        assert_eq!(CpuShare::of(&runs(&[0.9]), "other"), None);
    }
}
