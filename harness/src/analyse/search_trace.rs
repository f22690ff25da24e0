//! `SearchTrace`: one budgeted search (`search::IteratedRace`) followed over the runs a CSV records. Its
//! draws are seeded, so the same recorded runs give the same rounds: the driver replays a resumed search
//! and runs the first round not recorded, and the report replays a finished one to find its final race.

use std::collections::{BTreeSet, HashMap};

use super::unexplored_headroom::unexplored_headroom;
use crate::declare::Direction;
use crate::ground::RunStatus;
use crate::record::RecordedRun;
use crate::search::{IteratedRace, Space};

/// Per recorded (plan setting, rep): its primary value, `None` where the run failed or reported none.
pub type RecordedValues = HashMap<(usize, u32), Option<f64>>;

/// The primary values of `runs` (warmups aside) by plan setting and rep.
pub fn recorded_values<R: RecordedRun>(runs: &[R], primary: &str) -> RecordedValues {
    let ok = |run: &R| (run.status() == RunStatus::Ok).then(|| run.metric(primary)).flatten();
    runs.iter().filter(|run| !run.warmup()).map(|run| ((run.setting_id().index(), run.rep()), ok(run))).collect()
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
    race: IteratedRace,
    space: Space,
    /// The plan setting of each of the space's settings.
    settings: Vec<usize>,
    direction: Direction,
    /// The round handed out and not yet observed (its number and space settings).
    pending: Option<(u32, Vec<usize>)>,
    rounds: u32,
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
    /// A search of `space` (its settings are the plan settings `settings`) spending `budget` runs, seeded.
    pub fn new(space: Space, settings: Vec<usize>, budget: usize, seed: u64, direction: Direction) -> SearchTrace {
        SearchTrace {
            race: IteratedRace::new(space.clone(), budget, seed),
            space,
            settings,
            direction,
            pending: None,
            rounds: 0,
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
            let Some(settings) = self.race.next_round() else {
                self.done = true;
                return SearchStep::Done;
            };
            self.rounds += 1;
            if self.race.racing_finalists() {
                self.final_runs.extend(settings.iter().map(|&setting| (self.settings[setting], self.rounds)));
            }
            self.pending = Some((self.rounds, settings));
        }
    }

    fn observe(&mut self, round: u32, settings: &[usize], recorded: &RecordedValues) {
        for &setting in settings {
            let value = recorded[&(self.settings[setting], round)];
            // The race ranks lower as better, on the log scale: a throughput's reciprocal ranks alike.
            let ranked = value.map(|value| if self.direction == Direction::Higher { 1.0 / value } else { value });
            self.race.observe(setting, ranked);
            let (sum, count) = self.sums.entry(setting).or_default();
            if let Some(value) = value {
                (*sum, *count) = (*sum + value, *count + 1);
            }
        }
        let settled = self.sums.values().filter(|(_, count)| *count >= SETTLED).map(|(sum, count)| sum / *count as f64);
        let best = match self.direction {
            Direction::Higher => settled.max_by(f64::total_cmp),
            Direction::Lower => settled.min_by(f64::total_cmp),
        };
        self.progress.push((self.race.used(), best));
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
        self.race.used()
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
