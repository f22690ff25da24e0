//! `SearchDriver`: a budgeted search (`[search]`) round by round: each group's `SearchTrace` replays the
//! runs already recorded (a resumed search carries on where it stopped) and hands over its next round;
//! the groups' rounds run together, shuffled, so a drift they share cancels in the pairs. The builds a
//! round causes are charged to the group whose setting caused them.

use std::path::Path;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::driver::Driver;
use super::progress::Progress;
use super::runner_error::RunnerError;
use crate::analyse::{recorded_values, GroupSearch, SearchStep};
use crate::declare::{AnalysisConfig, SearchBudget, SearchConfig};
use crate::plan::{PlannedRun, Setting, SettingId};
use crate::record::{RunTable, SearchBuild, Sidecar};

pub struct SearchDriver {
    groups: Vec<GroupSearch>,
    budget: SearchBudget,
    primary: String,
    seed: u64,
    /// The runs last handed over: handed over again, they were never recorded (the session skipped
    /// them), and the search ends rather than loop.
    last: Vec<(usize, u32)>,
    order: usize,
}

impl SearchDriver {
    /// The search of `settings` (the plan's) under `search` (its seed resolved), `builds` (plan setting,
    /// seconds) the builds it already caused (a resumed search's).
    pub fn new(
        settings: &[Setting],
        config: &AnalysisConfig,
        search: &SearchConfig,
        builds: &[(usize, f64)],
    ) -> SearchDriver {
        SearchDriver {
            groups: GroupSearch::per_group(settings, config, search, builds),
            budget: search.budget,
            primary: config.primary.clone(),
            seed: search.seed.unwrap_or_default(),
            last: Vec::new(),
            order: 0,
        }
    }

    /// The builds the sidecar at `sidecar` records the search caused (none before it ran), as (plan
    /// setting, seconds) of `settings`.
    pub fn recorded_builds(sidecar: &Path, settings: &[Setting]) -> Result<Vec<(usize, f64)>, RunnerError> {
        let labels: Vec<String> = settings.iter().map(Setting::label).collect();
        Ok(SearchBuild::charges(&Sidecar::read(sidecar)?.search_builds, &labels))
    }

    /// One line of where the search stands: runs used of the budget, settings evaluated of the space.
    fn standing(&self) -> String {
        let sum = |of: &dyn Fn(&GroupSearch) -> usize| self.groups.iter().map(of).sum::<usize>();
        let build_seconds: f64 = self.groups.iter().map(|group| group.trace.build_seconds()).sum();
        format!(
            "search: {} runs and {build_seconds:.1}s of builds used of a budget of {}, {} of {} settings evaluated",
            sum(&|group| group.trace.used()),
            self.budget,
            sum(&|group| group.trace.evaluated()),
            sum(&|group| group.space)
        )
    }
}

impl Driver for SearchDriver {
    fn reads_results(&self) -> bool {
        true
    }

    fn next_batch(&mut self, results: Option<&RunTable>, progress: &Progress) -> Option<Vec<PlannedRun>> {
        let results = results.expect("a search reads its results");
        // A resumed search numbers its runs on from the rows recorded, as the uninterrupted one did.
        self.order = self.order.max(results.len());
        let recorded = recorded_values(&results.runs(), &self.primary);
        let mut round = Vec::new();
        for group in &mut self.groups {
            if let SearchStep::Run(runs) = group.trace.advance(&recorded) {
                round.extend(runs);
            }
        }
        if round.is_empty() || round == self.last {
            progress.note(&format!("{}: the search is over", self.standing()));
            return None;
        }
        progress.note(&self.standing());
        self.last.clone_from(&round);
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ self.order as u64);
        round.shuffle(&mut rng);
        let planned = round.into_iter().map(|(setting, rep)| {
            self.order += 1;
            PlannedRun { order: self.order, setting: SettingId::new(setting), rep, warmup: false }
        });
        Some(planned.collect())
    }

    fn built(&mut self, builds: &[(usize, f64)]) {
        for group in &mut self.groups {
            builds.iter().for_each(|&(setting, seconds)| group.trace.record_build(setting, seconds));
        }
    }
}
