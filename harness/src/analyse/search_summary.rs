//! `SearchSummary`: what a budgeted search spent and found, for the report: its budget and runs, the
//! settings it evaluated out of its space, its progress, which of its rounds were the final race, and
//! which parameters mattered among the settings it evaluated.

use std::collections::BTreeSet;

use super::group_search::GroupSearch;
use super::group_verdict::GroupOutcome;
use super::search_trace::Progress;
use super::setting_summary::first_seen_groups;
use crate::declare::SearchBudget;
use crate::plan::{Labels, Setting};

#[derive(Debug, Clone, PartialEq)]
pub struct SearchSummary {
    /// The budget as given (runs or time).
    pub budget: SearchBudget,
    /// Runs handed out by the searches (the CSV's rows, warmups aside).
    pub used: usize,
    /// The settings `where` allows, and those run at least once.
    pub space: usize,
    /// The parameters searched (each group's axes).
    pub axes: Vec<String>,
    pub evaluated: usize,
    /// The seconds of the builds the searches caused and were charged (cache hits cost nothing), and
    /// the runs they cost a budget of runs.
    pub build_seconds: f64,
    pub build_runs: usize,
    /// Whether every group's search spent its budget (else the CSV stops short: resume it).
    pub complete: bool,
    /// The final races' runs, as (plan setting, rep): the verdicts are taken on these alone.
    pub final_runs: BTreeSet<(usize, u32)>,
    /// Per group: its labels, and its runs used and best mean so far after each round.
    pub progress: Vec<(Labels, Progress)>,
    /// The most a setting never run could beat the best evaluated one by, as a ratio above 1 (over the
    /// groups; `None` when nothing bounds it): the search's "resolved" needs it within the margin.
    pub headroom: Option<f64>,
    /// Per parameter, the share of the variance of the evaluated settings' mean log values its levels
    /// explain on their own, largest first.
    pub importance: Vec<(String, f64)>,
}

impl SearchSummary {
    /// The summary of `groups` replayed over a CSV under `budget`; `settings` are the plan's.
    pub fn of(groups: &[GroupSearch], settings: &[Setting], budget: SearchBudget) -> SearchSummary {
        let sum = |of: &dyn Fn(&GroupSearch) -> usize| groups.iter().map(of).sum::<usize>();
        let means: Vec<(&Setting, f64)> = (groups.iter())
            .flat_map(|group| group.trace.means())
            .filter(|(_, mean)| *mean > 0.0)
            .map(|(setting, mean)| (&settings[setting], mean.ln()))
            .collect();
        SearchSummary {
            budget,
            used: sum(&|group| group.trace.used()),
            space: sum(&|group| group.space),
            axes: groups.first().map_or_else(Vec::new, |group| group.axes.clone()),
            evaluated: sum(&|group| group.trace.evaluated()),
            build_seconds: groups.iter().map(|group| group.trace.build_seconds()).sum(),
            build_runs: sum(&|group| group.trace.build_runs()),
            complete: groups.iter().all(|group| group.trace.is_done()),
            final_runs: groups.iter().flat_map(|group| group.trace.final_runs().iter().copied()).collect(),
            progress: groups.iter().map(|group| (group.group.clone(), group.trace.progress().to_vec())).collect(),
            headroom: (groups.iter().map(|group| group.trace.unexplored_headroom()))
                .try_fold(0.0, |most: f64, headroom| Some(most.max(headroom?)))
                .map(f64::exp),
            importance: main_effect_shares(&means, groups.first().map_or(&[][..], |group| &group.axes)),
        }
    }

    /// The search's verdict over its whole space: the least decided of its groups' final races
    /// (`outcomes`), and "resolved" only when no setting never run could beat the best by more than
    /// `margin` (a share; the declared negligible difference, else 1%), else it cannot tell. Without a
    /// final race it cannot tell either: the runs that chose the finalists favour them.
    pub fn verdict(&self, outcomes: impl IntoIterator<Item = GroupOutcome>, margin: Option<f64>) -> GroupOutcome {
        let worst = SearchSummary::least_decided(outcomes);
        let covered = self.headroom.is_some_and(|headroom| headroom <= 1.0 + margin.unwrap_or(DEFAULT_MARGIN));
        match worst {
            _ if self.final_runs.is_empty() => GroupOutcome::CannotTell,
            GroupOutcome::Resolved if !covered => GroupOutcome::CannotTell,
            outcome => outcome,
        }
    }

    /// The least decided of `outcomes` (cannot tell without any).
    pub fn least_decided(outcomes: impl IntoIterator<Item = GroupOutcome>) -> GroupOutcome {
        outcomes.into_iter().max().unwrap_or(GroupOutcome::CannotTell)
    }
}

/// The margin a search's best must be within over settings never run, without a declared negligible one.
const DEFAULT_MARGIN: f64 = 0.01;

/// Per parameter, the variance its levels' mean explain of `points` (a setting and a value), as a share
/// of the whole: the first-order terms of a functional ANOVA (Hutter, Hoos & Leyton-Brown 2014, fANOVA),
/// taken on the evaluated settings themselves rather than on a model's predictions over the space (so it
/// describes where the search looked, which leans towards the best).
fn main_effect_shares(points: &[(&Setting, f64)], axes: &[String]) -> Vec<(String, f64)> {
    let mean = points.iter().map(|(_, value)| value).sum::<f64>() / points.len() as f64;
    let total: f64 = points.iter().map(|(_, value)| (value - mean).powi(2)).sum();
    let mut shares: Vec<(String, f64)> = (axes.iter())
        .map(|name| {
            let levels = first_seen_groups(points.iter().map(|(setting, value)| (setting.value(name), *value)));
            let explained: f64 = (levels.iter())
                .map(|(_, values)| {
                    let level_mean = values.iter().sum::<f64>() / values.len() as f64;
                    values.len() as f64 * (level_mean - mean).powi(2)
                })
                .sum();
            (name.clone(), if total > 0.0 { explained / total } else { 0.0 })
        })
        .filter(|(_, share)| *share > 0.0)
        .collect();
    shares.sort_by(|a, b| b.1.total_cmp(&a.1));
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare::ParamValue;

    #[test]
    fn a_parameter_that_sets_the_value_explains_it_all_and_one_that_does_not_nothing() {
        let settings: Vec<Setting> = (0..8)
            .map(|i| Setting {
                values: vec![("tile".into(), ParamValue::Int(i % 2)), ("noise".into(), ParamValue::Int(i / 2 % 2))],
                variant: "default".into(),
            })
            .collect();
        let points: Vec<(&Setting, f64)> =
            settings.iter().map(|s| (s, if s.values[0].1 == ParamValue::Int(0) { 1.0 } else { 2.0 })).collect();
        let shares = main_effect_shares(&points, &["tile".to_string(), "noise".to_string()]);
        assert_eq!(shares.len(), 1, "{shares:?}");
        assert_eq!(shares[0].0, "tile");
        assert!((shares[0].1 - 1.0).abs() < 1e-12);
    }
}
