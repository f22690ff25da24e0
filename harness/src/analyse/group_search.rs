//! `GroupSearch`: the search of one `group_by` group's settings, its share of the budget, and the
//! searches of a sweep's groups replayed over the runs its CSV records.

use super::search_space::search_space;
use super::search_trace::{recorded_values, SearchTrace};
use super::setting_summary::first_seen_groups;
use crate::declare::{AnalysisConfig, SearchConfig};
use crate::plan::{Labels, Setting};
use crate::record::RecordedRun;

pub struct GroupSearch {
    /// The `group_by` labels its settings share (empty without grouping).
    pub group: Labels,
    /// The settings `where` allows in the group.
    pub space: usize,
    /// The parameters the search varies (zipped and derived ones follow them).
    pub axes: Vec<String>,
    /// Its share of the runs.
    pub budget: usize,
    pub trace: SearchTrace,
}

impl GroupSearch {
    /// One search per group of `settings` (the plan's, in order), in first-seen order: the budget split
    /// evenly (the first groups take one run more while the division leaves some), each seeded apart.
    pub fn per_group(settings: &[Setting], config: &AnalysisConfig, search: &SearchConfig) -> Vec<GroupSearch> {
        let groups = first_seen_groups(settings.iter().enumerate().map(|(i, s)| (s.labels_of(&config.group_by), i)));
        let (share, extra) = (search.budget as usize / groups.len(), search.budget as usize % groups.len());
        let seed = search.seed.unwrap_or_default();
        (groups.into_iter().enumerate())
            .map(|(index, (group, members))| {
                let (space, axes) = search_space(&members.iter().map(|&member| &settings[member]).collect::<Vec<_>>());
                let budget = share + usize::from(index < extra);
                let seed = seed.wrapping_add(index as u64);
                let trace = SearchTrace::new(space, members.clone(), budget, seed, config.direction);
                GroupSearch { group, space: members.len(), axes, budget, trace }
            })
            .collect()
    }

    /// The searches of `settings` replayed over `runs` (a finished or stopped search's CSV).
    pub fn replayed<R: RecordedRun>(
        runs: &[R],
        settings: &[Setting],
        config: &AnalysisConfig,
        search: &SearchConfig,
    ) -> Vec<GroupSearch> {
        let recorded = recorded_values(runs, &config.primary);
        let mut groups = GroupSearch::per_group(settings, config, search);
        for group in &mut groups {
            group.trace.advance(&recorded);
        }
        groups
    }
}
