//! Results across versions: where each setting's series changed, told apart from a change of the machine
//! that every series (or the control metric) shows, with false alarms controlled across the series; and
//! the commit that made a slowdown, bisected by repeated rounds. Pure over plain data: `sweep bisect`
//! (`runner::BisectSession`) feeds the bisection; a store and the `history` commands will feed the rest.

mod benjamini_hochberg;
mod bisection;
mod change_point;
mod history_changes;
mod step_search;
#[cfg(test)]
mod test_fixture_history;
#[cfg(test)]
mod test_fixture_repository;
mod version_mean;
mod version_series;

pub use bisection::{bisect, most_runs, Bisection, Probe};
pub use change_point::{ChangeKind, ChangePoint};
pub use history_changes::history_changes;
pub use version_mean::VersionMean;
pub use version_series::VersionSeries;
