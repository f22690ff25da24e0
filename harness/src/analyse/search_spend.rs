//! `SearchSpend`: what one search spent of its budget, read from its records alone (the runs'
//! `duration_s` and the builds its sidecar says it caused), and what that leaves its race: a build charged
//! against a budget of runs, a budget of time converted into runs round by round.

use std::collections::HashMap;

use crate::declare::SearchBudget;
use crate::search::IteratedRace;

#[derive(Debug, Clone)]
pub struct SearchSpend {
    budget: SearchBudget,
    /// Runs observed and the seconds they took (`duration_s`).
    runs: usize,
    run_seconds: f64,
    /// Builds charged so far: their seconds, and for a budget of runs the runs they cost.
    pub build_seconds: f64,
    pub build_runs: usize,
    /// Builds recorded and not charged yet: by the plan setting whose first run caused them, their seconds.
    pending_builds: HashMap<usize, f64>,
}

impl SearchSpend {
    pub fn new(budget: SearchBudget) -> SearchSpend {
        SearchSpend {
            budget,
            runs: 0,
            run_seconds: 0.0,
            build_seconds: 0.0,
            build_runs: 0,
            pending_builds: HashMap::new(),
        }
    }

    /// The budget in runs the race starts with: a budget of runs as given; a budget of time has none
    /// before a run says how long runs take.
    pub fn initial_runs(&self) -> Option<usize> {
        self.budget.runs().map(|runs| runs as usize)
    }

    /// A build the search caused by handing out `setting`, which took `seconds`: charged when the round
    /// that ran `setting` is observed.
    pub fn record_build(&mut self, setting: usize, seconds: f64) {
        self.pending_builds.insert(setting, seconds);
    }

    /// A round observed: its runs (plan setting, seconds). The builds its settings caused are charged;
    /// the race, if it has begun, is told what that leaves.
    pub fn observe(&mut self, round: &[(usize, f64)], race: Option<&mut IteratedRace>) {
        self.runs += round.len();
        self.run_seconds += round.iter().map(|(_, seconds)| seconds).sum::<f64>();
        let built: f64 = round.iter().filter_map(|(setting, _)| self.pending_builds.remove(setting)).sum();
        self.build_seconds += built;
        let Some(race) = race else { return };
        match self.budget {
            SearchBudget::Runs(_) if built > 0.0 => {
                let runs = self.run_equivalents(built);
                self.build_runs += runs;
                race.charge(runs);
            }
            SearchBudget::Runs(_) => {}
            SearchBudget::Duration(_) => race.rebudget(race.used() + self.runs_left()),
        }
    }

    /// Runs of the mean length so far that `seconds` pay for, rounded up.
    fn run_equivalents(&self, seconds: f64) -> usize {
        (seconds / self.mean_run_seconds()).ceil() as usize
    }

    /// Runs of the mean length so far that the time left pays for, rounded down (none once it is spent).
    pub fn runs_left(&self) -> usize {
        let SearchBudget::Duration(budget) = self.budget else { return 0 };
        let left = budget.as_secs_f64() - self.run_seconds - self.build_seconds;
        (left.max(0.0) / self.mean_run_seconds()).floor() as usize
    }

    /// The mean seconds of a run observed so far; a run recorded as taking no time counts a microsecond,
    /// so a conversion never divides by zero.
    fn mean_run_seconds(&self) -> f64 {
        (self.run_seconds / self.runs.max(1) as f64).max(1e-6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Axis, Space};
    use std::time::Duration;

    fn race(budget: usize) -> IteratedRace {
        let axis = Axis { levels: 10, ordered: true };
        IteratedRace::new(Space::full_grid(vec![axis, axis]), budget, 1)
    }

    #[test]
    fn a_build_is_charged_once_in_runs_of_the_mean_length_rounded_up() {
        let mut spend = SearchSpend::new(SearchBudget::Runs(100));
        let mut race = race(100);
        let round = race.next_round().unwrap();
        let runs: Vec<(usize, f64)> = round.iter().map(|&setting| (setting, 2.0)).collect();
        spend.record_build(round[0], 5.0);
        let before = race.used();
        spend.observe(&runs, Some(&mut race));
        assert_eq!(race.used() - before, 3, "5 s of build at 2 s a run: 2.5 runs, rounded up");
        assert_eq!((spend.build_seconds, spend.build_runs), (5.0, 3));
        spend.observe(&runs, Some(&mut race));
        assert_eq!(race.used() - before, 3, "charged once");
    }

    #[test]
    fn a_duration_is_converted_by_the_mean_run_so_far_and_a_build_costs_its_seconds() {
        let mut spend = SearchSpend::new(SearchBudget::Duration(Duration::from_secs(100)));
        assert_eq!(spend.initial_runs(), None);
        spend.record_build(3, 20.0);
        spend.observe(&[(3, 4.0)], None);
        assert_eq!(spend.runs_left(), 19, "100 s less 4 s of run and 20 s of build, at 4 s a run");
        let mut race = race(spend.runs_left());
        let round = race.next_round().unwrap();
        let slow: Vec<(usize, f64)> = round.iter().map(|&setting| (setting, 8.0)).collect();
        spend.observe(&slow, Some(&mut race));
        let spent = 4.0 + 20.0 + 8.0 * slow.len() as f64;
        let mean = (4.0 + 8.0 * slow.len() as f64) / (1 + slow.len()) as f64;
        assert_eq!(spend.runs_left(), ((100.0 - spent).max(0.0) / mean).floor() as usize);
        assert!(race.next_round().is_none_or(|next| next.len() <= spend.runs_left()), "no round beyond the time left");
    }
}
