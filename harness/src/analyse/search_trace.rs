//! `SearchTrace`: one budgeted search (`search::IteratedRace`) followed over the runs a CSV records. Its
//! draws are seeded, so the same recorded runs give the same rounds: the driver replays a resumed search
//! and runs the first round not recorded, and the report replays a finished one to find its final race.
//! What it spends (`SearchSpend`) is read from the records too: runs' `duration_s` and the builds the
//! sidecar records.

use std::collections::{BTreeSet, HashMap};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::search_spend::SearchSpend;
use super::unexplored_headroom::unexplored_headroom;
use crate::declare::{Direction, SearchBudget};
use crate::ground::RunStatus;
use crate::record::RecordedRun;
use crate::search::{IteratedRace, Space};

/// Per recorded (plan setting, rep): its primary value (`None` where the run failed or reported none)
/// and the seconds it took.
pub type RecordedValues = HashMap<(usize, u32), (Option<f64>, f64)>;

/// The primary values and durations of `runs` (warmups aside) by plan setting and rep.
pub fn recorded_values<R: RecordedRun>(runs: &[R], primary: &str) -> RecordedValues {
    let ok = |run: &R| (run.status() == RunStatus::Ok).then(|| run.metric(primary)).flatten();
    let recorded = |run: &R| ((run.setting_id().index(), run.rep()), (ok(run), run.duration_s()));
    runs.iter().filter(|run| !run.warmup()).map(recorded).collect()
}

/// After each round of a search: the runs it used, and the best mean so far (none before a setting ran
/// `SETTLED` times).
pub type Progress = Vec<(usize, Option<f64>)>;

/// What to do next for a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchStep {
    /// Run these (plan setting, rep): the first round the records do not hold whole.
    Run(Vec<(usize, u32)>),
    /// The budget is spent: the search is over.
    Done,
}

pub struct SearchTrace {
    /// `None` until a budget of time's first run (its probe) says how many runs the time pays for.
    race: Option<IteratedRace>,
    spend: SearchSpend,
    seed: u64,
    space: Space,
    /// The plan setting of each of the space's settings.
    settings: Vec<usize>,
    direction: Direction,
    /// The round handed out and not yet observed (its number and space settings).
    pending: Option<(u32, Vec<usize>)>,
    rounds: u32,
    /// Runs handed out.
    handed: usize,
    done: bool,
    /// The (plan setting, rep) runs of the final race of the elites.
    final_runs: BTreeSet<(usize, u32)>,
    /// Per space setting run, the sum of its values and their count (0 while every run failed).
    sums: HashMap<usize, (f64, usize)>,
    /// After each round: runs used, and the best mean so far of a setting run at least `SETTLED` times.
    progress: Progress,
}

/// Runs a setting needs before its mean counts as a best so far (the race's first test).
const SETTLED: usize = 3;

impl SearchTrace {
    /// A search of `space` (its settings are the plan settings `settings`) spending `budget`, seeded.
    pub fn new(
        space: Space,
        settings: Vec<usize>,
        budget: SearchBudget,
        seed: u64,
        direction: Direction,
    ) -> SearchTrace {
        let spend = SearchSpend::new(budget);
        SearchTrace {
            race: spend.initial_runs().map(|runs| IteratedRace::new(space.clone(), runs, seed)),
            spend,
            seed,
            space,
            settings,
            direction,
            pending: None,
            rounds: 0,
            handed: 0,
            done: false,
            final_runs: BTreeSet::new(),
            sums: HashMap::new(),
            progress: Vec::new(),
        }
    }

    /// Replays every round `recorded` holds whole and returns the next to run, or `Done`.
    pub fn advance(&mut self, recorded: &RecordedValues) -> SearchStep {
        loop {
            if let Some((round, settings)) = self.pending.take() {
                let missing: Vec<(usize, u32)> = (settings.iter())
                    .map(|&setting| (self.settings[setting], round))
                    .filter(|key| !recorded.contains_key(key))
                    .collect();
                if !missing.is_empty() {
                    self.pending = Some((round, settings));
                    return SearchStep::Run(missing);
                }
                self.observe(round, &settings, recorded);
            }
            if self.done {
                return SearchStep::Done;
            }
            let Some(settings) = self.next_round() else {
                self.done = true;
                return SearchStep::Done;
            };
            self.rounds += 1;
            self.handed += settings.len();
            if self.race.as_ref().is_some_and(IteratedRace::racing_finalists) {
                self.final_runs.extend(settings.iter().map(|&setting| (self.settings[setting], self.rounds)));
            }
            self.pending = Some((self.rounds, settings));
        }
    }

    /// The race's next round. A budget of time's search first runs one setting drawn uniformly (its probe)
    /// and plans its race with the runs of that length the time left pays for (irace converts a time
    /// budget alike, from a first few runs: its `budgetEstimation`); `SearchSpend` converts it anew
    /// after every round.
    fn next_round(&mut self) -> Option<Vec<usize>> {
        if self.race.is_none() && self.rounds == 0 {
            let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
            return Some(vec![rng.random_range(0..self.space.len())]);
        }
        let space = &self.space;
        let (runs, seed) = (self.spend.runs_left(), self.seed);
        self.race.get_or_insert_with(|| IteratedRace::new(space.clone(), runs, seed)).next_round()
    }

    /// Round `round` of `settings` (space settings) as `recorded`: told to the race, and what it cost to the
    /// spend.
    fn observe(&mut self, round: u32, settings: &[usize], recorded: &RecordedValues) {
        let mut durations = Vec::with_capacity(settings.len());
        for &setting in settings {
            let (value, seconds) = recorded[&(self.settings[setting], round)];
            durations.push((self.settings[setting], seconds));
            // The race ranks lower as better, on the log scale: a throughput's reciprocal ranks alike.
            let ranked = value.map(|value| if self.direction == Direction::Higher { 1.0 / value } else { value });
            if let Some(race) = self.race.as_mut() {
                race.observe(setting, ranked);
            }
            let (sum, count) = self.sums.entry(setting).or_default();
            if let Some(value) = value {
                (*sum, *count) = (*sum + value, *count + 1);
            }
        }
        self.spend.observe(&durations, self.race.as_mut());
        let settled = self.sums.values().filter(|(_, count)| *count >= SETTLED).map(|(sum, count)| sum / *count as f64);
        let best = match self.direction {
            Direction::Higher => settled.max_by(f64::total_cmp),
            Direction::Lower => settled.min_by(f64::total_cmp),
        };
        self.progress.push((self.handed, best));
    }

    /// A build the search caused by handing out plan setting `setting` first, which took `seconds` (a
    /// setting of another search is not this one's to charge).
    pub fn record_build(&mut self, setting: usize, seconds: f64) {
        if self.settings.contains(&setting) {
            self.spend.record_build(setting, seconds);
        }
    }

    /// The seconds of the builds charged so far.
    pub fn build_seconds(&self) -> f64 {
        self.spend.build_seconds
    }

    /// The runs the builds charged so far cost a budget of runs.
    pub fn build_runs(&self) -> usize {
        self.spend.build_runs
    }

    /// Whether the search spent its budget (else the records end before it did).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The plan settings run at least once.
    pub fn evaluated(&self) -> usize {
        self.sums.len()
    }

    /// Runs handed out.
    pub fn used(&self) -> usize {
        self.handed
    }

    /// The final race's runs, as (plan setting, rep).
    pub fn final_runs(&self) -> &BTreeSet<(usize, u32)> {
        &self.final_runs
    }

    /// Runs used and the best mean so far, after each round.
    pub fn progress(&self) -> &[(usize, Option<f64>)] {
        &self.progress
    }

    /// How much better than the best evaluated mean a setting never run could be, as a log ratio
    /// (`unexplored_headroom`); `None` when nothing bounds it.
    pub fn unexplored_headroom(&self) -> Option<f64> {
        let lower_is_better = if self.direction == Direction::Lower { 1.0 } else { -1.0 };
        let measured = self.sums.iter().filter(|(_, (_, count))| *count > 0);
        let evaluated: Vec<(usize, f64)> =
            measured.map(|(&setting, &(sum, count))| (setting, lower_is_better * (sum / count as f64).ln())).collect();
        unexplored_headroom(&self.space, &evaluated)
    }

    /// Per plan setting run, its mean value (for the parameters' importance).
    pub fn means(&self) -> Vec<(usize, f64)> {
        let measured = self.sums.iter().filter(|(_, (_, count))| *count > 0);
        let mut means: Vec<(usize, f64)> =
            measured.map(|(&setting, &(sum, count))| (self.settings[setting], sum / count as f64)).collect();
        means.sort_by_key(|&(setting, _)| setting);
        means
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Axis;
    use std::time::Duration;

    /// The rounds a search of a 10 x 10 space under `budget` hands out, every run taking `seconds` and
    /// valued by its distance from the middle, until it is done.
    fn rounds(budget: SearchBudget, seconds: f64) -> Vec<Vec<(usize, u32)>> {
        let axis = Axis { levels: 10, ordered: true };
        let space = Space::full_grid(vec![axis, axis]);
        let value = |setting: usize| {
            1.0 + space.point(setting).iter().map(|&level| (f64::from(level) - 5.0).abs()).sum::<f64>()
        };
        let mut trace = SearchTrace::new(space.clone(), (0..100).collect(), budget, 3, Direction::Lower);
        let (mut recorded, mut rounds) = (RecordedValues::new(), Vec::new());
        while let SearchStep::Run(round) = trace.advance(&recorded) {
            recorded.extend(round.iter().map(|&(setting, rep)| ((setting, rep), (Some(value(setting)), seconds))));
            rounds.push(round);
        }
        rounds
    }

    #[test]
    fn a_budget_of_time_probes_one_run_then_spends_what_is_left_in_runs_of_that_length() {
        let budget = SearchBudget::Duration(Duration::from_secs(60));
        let (fast, slow) = (rounds(budget, 0.5), rounds(budget, 1.0));
        assert_eq!(fast[0].len(), 1, "the probe");
        assert_eq!(fast[0], slow[0], "the probe is drawn by the seed alone");
        let runs = |rounds: &[Vec<(usize, u32)>]| rounds.iter().map(Vec::len).sum::<usize>();
        assert!(runs(&slow) <= 60 && runs(&slow) > 30, "{} runs of 1 s in 60 s", runs(&slow));
        assert!(runs(&fast) <= 120 && runs(&fast) > runs(&slow), "{} runs of 0.5 s in 60 s", runs(&fast));
        assert_eq!(rounds(budget, 0.5), fast, "the same records replay the same rounds");
    }
}
