//! `GroupSearch`: the search of one `group_by` group's settings, its share of the budget, and the
//! searches of a sweep's groups replayed over the runs its CSV records.

use super::search_space::search_space;
use super::search_trace::{recorded_values, SearchTrace};
use super::setting_summary::first_seen_groups;
use crate::declare::{AnalysisConfig, SearchBudget, SearchConfig};
use crate::plan::{Labels, Setting};
use crate::record::RecordedRun;

pub struct GroupSearch {
    /// The `group_by` labels its settings share (empty without grouping).
    pub group: Labels,
    /// The settings `where` allows in the group.
    pub space: usize,
    /// The parameters the search varies (zipped and derived ones follow them).
    pub axes: Vec<String>,
    /// Its share of the budget.
    pub budget: SearchBudget,
    pub trace: SearchTrace,
}

impl GroupSearch {
    /// One search per group of `settings` (the plan's, in order), in first-seen order: the budget split
    /// evenly (of runs, the first groups take one run more while the division leaves some), each seeded
    /// apart; `builds` are the builds the search caused (plan setting, seconds), each charged to its group.
    pub fn per_group(
        settings: &[Setting],
        config: &AnalysisConfig,
        search: &SearchConfig,
        builds: &[(usize, f64)],
    ) -> Vec<GroupSearch> {
        let groups = first_seen_groups(settings.iter().enumerate().map(|(i, s)| (s.labels_of(&config.group_by), i)));
        let count = groups.len();
        let seed = search.seed.unwrap_or_default();
        (groups.into_iter().enumerate())
            .map(|(index, (group, members))| {
                let (space, axes) = search_space(&members.iter().map(|&member| &settings[member]).collect::<Vec<_>>());
                let budget = share(search.budget, index, count);
                let seed = seed.wrapping_add(index as u64);
                let mut trace = SearchTrace::new(space, members.clone(), budget, seed, config.direction);
                builds.iter().for_each(|&(setting, seconds)| trace.record_build(setting, seconds));
                GroupSearch { group, space: members.len(), axes, budget, trace }
            })
            .collect()
    }

    /// The searches of `settings` replayed over `runs` (a finished or stopped search's CSV) and the
    /// `builds` its sidecar records.
    pub fn replayed<R: RecordedRun>(
        runs: &[R],
        settings: &[Setting],
        config: &AnalysisConfig,
        search: &SearchConfig,
        builds: &[(usize, f64)],
    ) -> Vec<GroupSearch> {
        let recorded = recorded_values(runs, &config.primary);
        let mut groups = GroupSearch::per_group(settings, config, search, builds);
        for group in &mut groups {
            group.trace.advance(&recorded);
        }
        groups
    }
}

/// Group `index`'s share of `budget` split over `count` groups: runs evenly, the first groups one more
/// while the division leaves some; time evenly.
fn share(budget: SearchBudget, index: usize, count: usize) -> SearchBudget {
    match budget {
        SearchBudget::Runs(runs) => {
            let (share, extra) = (runs / count as u64, runs % count as u64);
            SearchBudget::Runs(share + u64::from((index as u64) < extra))
        }
        SearchBudget::Duration(duration) => SearchBudget::Duration(duration / count as u32),
    }
}
