//! How many runs a sweep planned, so a summary of fewer never reads as a finished sweep.

/// The runs a sweep's plan held (warmups included), and whether it was a race that may stop early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedRuns {
    pub runs: usize,
    pub race: bool,
}

impl PlannedRuns {
    /// A sentence when fewer than planned runs are recorded; None when the plan is complete.
    pub fn shortfall(&self, recorded: usize) -> Option<String> {
        if recorded >= self.runs {
            return None;
        }
        Some(if self.race {
            format!(
                "The race recorded {recorded} of at most {} runs: it stops running settings once decided.",
                self.runs
            )
        } else {
            format!(
                "Only {recorded} of {} planned runs are recorded: the sweep was interrupted (or is still running); \
                 `sweep run --resume <csv>` completes it.",
                self.runs
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_incomplete_plan_says_so_and_a_race_says_why() {
        let plain = PlannedRuns { runs: 12, race: false };
        assert_eq!(plain.shortfall(12), None);
        assert!(plain.shortfall(7).unwrap().starts_with("Only 7 of 12 planned runs are recorded"));
        let race = PlannedRuns { runs: 40, race: true };
        assert!(race.shortfall(25).unwrap().contains("25 of at most 40 runs"));
    }
}
