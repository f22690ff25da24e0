//! `IteratedRace`: irace's elitist iterated racing under a budget of runs (López-Ibáñez et al. 2016):
//! each iteration draws new candidates around the elites, races them with the elites round by round
//! (every candidate alive runs once a round; after `FIRST_TEST` rounds the beaten are dropped), and keeps
//! the best survivors as the next elites. Pure: the caller runs the settings it hands out and reports.

use std::collections::HashMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::candidate_sampler::{random_untaken, CandidateSampler};
use super::paired_elimination::{beaten, mean};
use super::space::Space;

/// Rounds every candidate of a race runs before the first elimination test (irace's `firstTest` is 5
/// instances; a round here is one run of every candidate, the drift it shares cancelling in the pairs).
const FIRST_TEST: usize = 3;
/// One-sided level of each elimination test (irace's confidence 0.95).
const ALPHA: f64 = 0.05;
/// The share of the budget kept for the final race of the elites, as a fraction (1 in 5).
const FINAL_SHARE: (usize, usize) = (1, 5);
/// Of every `EXPLORE` new candidates, one is drawn uniformly, one around the scout (the best setting far
/// from the best elite) and the rest around the elites.
const EXPLORE: usize = 3;
/// The nearest settings run a scout must beat to count as a basin's bottom (2, 3, 4 and 6 were tried on
/// the benchmark's spaces: 4 found the true best as often as any and never drew on a single bowl's slope).
const SCOUT_NEIGHBOURS: usize = 4;

pub struct IteratedRace {
    space: Space,
    budget: usize,
    /// Runs handed out so far, and runs charged (`charge`).
    used: usize,
    rng: ChaCha8Rng,
    sampler: CandidateSampler,
    /// Planned iterations (irace's `2 + log2(axes)`); the budget left is split over those to come.
    iterations: usize,
    iteration: usize,
    /// Survivors of the last race, best first (at most `survivors`).
    elites: Vec<usize>,
    survivors: usize,
    race: Option<Race>,
    /// Whether a final race of the elites was run, and whether since the last iteration.
    final_raced: bool,
    finalists_raced: bool,
    resolved: bool,
    /// Per setting ever run: the sum and count of its values (for the best so far).
    seen: HashMap<usize, (f64, usize)>,
}

/// One iteration's race: who is alive, their values in its rounds, what it may spend.
struct Race {
    alive: Vec<usize>,
    /// Per alive candidate, one value a round (`None` where its run failed).
    values: Vec<Vec<Option<f64>>>,
    budget: usize,
    used: usize,
    /// Survivors that end it.
    keep: usize,
}

impl IteratedRace {
    /// A search of `space` spending at most `budget` runs, its draws seeded by `seed`.
    pub fn new(space: Space, budget: usize, seed: u64) -> IteratedRace {
        let axes = space.axes().len().max(1);
        let log_axes = usize::BITS as usize - 1 - axes.leading_zeros() as usize;
        IteratedRace {
            sampler: CandidateSampler::new(&space),
            space,
            budget,
            used: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            iterations: 2 + log_axes,
            iteration: 0,
            elites: Vec::new(),
            survivors: 2 + log_axes,
            race: None,
            final_raced: false,
            finalists_raced: false,
            resolved: false,
            seen: HashMap::new(),
        }
    }

    /// The settings to run once each, as one round, or `None` when the budget is spent. Every setting
    /// handed out is then `observe`d before the next call.
    pub fn next_round(&mut self) -> Option<Vec<usize>> {
        if !self.race_goes_on() {
            self.end_race();
            self.start_race()?;
        }
        let race = self.race.as_mut().expect("a race is on");
        race.used += race.alive.len();
        self.used += race.alive.len();
        Some(race.alive.clone())
    }

    /// The value of a run of `setting` handed out by the last `next_round` (`None`: the run failed).
    pub fn observe(&mut self, setting: usize, value: Option<f64>) {
        let race = self.race.as_mut().expect("a race is on");
        let at = race.alive.iter().position(|&alive| alive == setting).expect("a setting of the round");
        race.values[at].push(value);
        if let Some(value) = value {
            let (sum, count) = self.seen.entry(setting).or_default();
            (*sum, *count) = (*sum + value, *count + 1);
        }
    }

    /// Runs handed out so far, and runs charged.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Spends `runs` of the budget on something other than a run (a build), at most what is left.
    pub fn charge(&mut self, runs: usize) {
        self.used = self.used.saturating_add(runs).min(self.budget);
    }

    /// Sets the budget to `runs` (a duration converted anew), never below what was used.
    pub fn rebudget(&mut self, runs: usize) {
        self.budget = runs.max(self.used);
    }

    /// Whether the round last handed out belongs to a final race of the elites (its rounds are fresh runs
    /// of settings already chosen: the verdict is taken on them, free of the selection's bias).
    pub fn racing_finalists(&self) -> bool {
        self.race.as_ref().is_some_and(|race| race.keep == 1)
    }

    /// Whether the last race was a final race that left one finalist, every other beaten.
    pub fn resolved(&self) -> bool {
        self.resolved
    }

    /// The search's finalists, best first: the elites of the last race.
    pub fn finalists(&mut self) -> Vec<usize> {
        self.end_race();
        self.elites.clone()
    }

    /// Whether the race on runs another round: candidates beyond the survivors kept, and budget for one
    /// more round of them (its own and the search's).
    fn race_goes_on(&mut self) -> bool {
        let Some(race) = self.race.as_mut() else { return false };
        race.drop_beaten();
        let round = race.alive.len();
        race.alive.len() > race.keep && race.used + round <= race.budget && self.used + round <= self.budget
    }

    /// The race's survivors by their mean over its rounds become the elites (at most `survivors`).
    fn end_race(&mut self) {
        let Some(mut race) = self.race.take() else { return };
        race.drop_beaten();
        self.resolved = race.keep == 1 && race.alive.len() == 1;
        // Survivors ranked by every run they had, not only this race's: an elite raced in several
        // iterations is known better than its last rounds alone say (fewer near-ties lost to noise).
        let mut ranked: Vec<(f64, usize)> = (race.values.iter().zip(race.alive))
            .filter(|(row, _)| mean(row).is_some())
            .map(|(_, setting)| (self.seen_mean(setting), setting))
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.elites = ranked.into_iter().map(|(_, setting)| setting).take(self.survivors).collect();
    }

    /// The next iteration's race: the elites and new candidates, as many as the iteration's share of the
    /// budget left allows (irace: that share over `FIRST_TEST + min(5, iteration)` rounds each); `None`
    /// when not even one new candidate can run its first rounds beside the elites.
    fn start_race(&mut self) -> Option<()> {
        self.iteration += 1;
        // The final race's share is kept until it has run once; what it leaves funds more iterations.
        let kept = if self.final_raced { 0 } else { self.budget * FINAL_SHARE.0 / FINAL_SHARE.1 };
        let left = (self.budget - kept).saturating_sub(self.used);
        let budget = left / (self.iterations + 1).saturating_sub(self.iteration).max(1);
        let candidates = budget / (FIRST_TEST + self.iteration.min(5));
        // The first race needs more candidates than it keeps, or it ends before its first round.
        let candidates = if self.elites.is_empty() { candidates.max(self.survivors + 1) } else { candidates };
        let new = candidates.saturating_sub(self.elites.len()).min(self.space.len() - self.seen.len());
        // The runs the elites and the new candidates need for the first test.
        let first_test = (self.elites.len() + new) * FIRST_TEST;
        let alive = match new == 0 || first_test > left {
            true => Vec::new(),
            false => self.draw(new),
        };
        if alive.len() <= self.elites.len() {
            return self.start_final_race();
        }
        self.sampler.shrink(new);
        self.finalists_raced = false;
        let values = vec![Vec::new(); alive.len()];
        let budget = budget.max(first_test);
        self.race = Some(Race { alive, values, budget, used: 0, keep: self.survivors });
        Some(())
    }

    /// The elites raced on with all the budget left until one is left or it is spent, unless they were
    /// since the last iteration.
    fn start_final_race(&mut self) -> Option<()> {
        let left = self.budget - self.used;
        if self.elites.len() < 2 {
            // The last race beat all but one: its closest rivals by mean rejoin it, so the verdict still
            // rests on fresh rounds rather than on those that chose it.
            let mut seen: Vec<(f64, usize)> = (self.seen.iter())
                .filter(|(setting, _)| !self.elites.contains(setting))
                .map(|(&setting, &(sum, count))| (sum / count as f64, setting))
                .collect();
            seen.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let rivals = self.survivors.saturating_sub(self.elites.len());
            self.elites.extend(seen.into_iter().take(rivals).map(|(_, setting)| setting));
        }
        if self.finalists_raced || self.elites.len() < 2 || left < self.elites.len() {
            return None;
        }
        (self.final_raced, self.finalists_raced) = (true, true);
        let values = vec![Vec::new(); self.elites.len()];
        self.race = Some(Race { alive: self.elites.clone(), values, budget: left, used: 0, keep: 1 });
        Some(())
    }

    /// The elites and `new` settings never run: uniformly at first, then around the elites, but for one
    /// in `EXPLORE` still drawn uniformly, so a basin the first draws missed can still be found, and one
    /// around the scout, so a second basin the draws touched is followed down before the elites' basin
    /// takes every draw (niching, as in crowding: the elites alone converge on the first basin found).
    fn draw(&mut self, new: usize) -> Vec<usize> {
        let mut alive = self.elites.clone();
        let keep = (self.iteration as f64 / (self.iterations + 1) as f64).min(0.9);
        let scout = self.scout();
        for index in 0..new {
            let taken = |setting: usize| self.seen.contains_key(&setting) || alive.contains(&setting);
            let parents = match (index % EXPLORE, &scout) {
                (0, Some(scout)) => std::slice::from_ref(scout),
                _ => &self.elites,
            };
            let drawn = if self.elites.is_empty() || index % EXPLORE == EXPLORE - 1 {
                random_untaken(self.space.len(), taken, &mut self.rng)
            } else {
                self.sampler.draw(&self.space, parents, keep, taken, &mut self.rng)
            };
            match drawn {
                Some(setting) => alive.push(setting),
                None => break,
            }
        }
        alive
    }
}

impl IteratedRace {
    /// The mean of every run of `setting` so far.
    fn seen_mean(&self, setting: usize) -> f64 {
        let (sum, count) = self.seen[&setting];
        sum / count as f64
    }

    /// The best setting (by mean, run at least `FIRST_TEST` times) among those farther from the best
    /// elite than half of the settings run (a scale-free "elsewhere" that needs no radius) that is also
    /// the bottom of a basin of its own: better than its `SCOUT_NEIGHBOURS` nearest settings run. On a
    /// single bowl the far half's best lies on its slope toward the elites, so no draw is spent there.
    /// `None` before there are elites, or when no such setting was run.
    fn scout(&self) -> Option<usize> {
        let best = *self.elites.first()?;
        let mut distances: Vec<f64> = self.seen.keys().map(|&setting| self.space.distance(setting, best)).collect();
        distances.sort_by(f64::total_cmp);
        let median = distances[distances.len() / 2];
        let far = |setting: usize| self.space.distance(setting, best) > median;
        (self.seen.iter())
            .filter(|&(&setting, &(_, count))| count >= FIRST_TEST && far(setting) && self.bottom_of_basin(setting))
            .map(|(&setting, _)| (self.seen_mean(setting), setting))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, setting)| setting)
    }

    /// Whether `setting`'s mean is below those of its `SCOUT_NEIGHBOURS` nearest settings run.
    fn bottom_of_basin(&self, setting: usize) -> bool {
        let mut nearest: Vec<(f64, usize)> = (self.seen.keys())
            .filter(|&&other| other != setting)
            .map(|&other| (self.space.distance(other, setting), other))
            .collect();
        // The nearest few in linear time: a search of thousands of settings asks this of hundreds.
        if nearest.len() > SCOUT_NEIGHBOURS {
            nearest.select_nth_unstable_by(SCOUT_NEIGHBOURS - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        }
        let mean = self.seen_mean(setting);
        nearest.iter().take(SCOUT_NEIGHBOURS).all(|&(_, other)| self.seen_mean(other) > mean)
    }
}

impl Race {
    /// Drops the candidates beaten once every one ran `FIRST_TEST` rounds.
    fn drop_beaten(&mut self) {
        if self.values.first().is_none_or(|row| row.len() < FIRST_TEST) {
            return;
        }
        let beaten = beaten(&self.values, ALPHA);
        let (mut alive, mut values) = (beaten.iter(), beaten.iter());
        self.alive.retain(|_| !alive.next().expect("one verdict per candidate"));
        self.values.retain(|_| !values.next().expect("one verdict per candidate"));
    }
}
