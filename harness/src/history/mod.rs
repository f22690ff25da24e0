//! Results across versions: where each setting's series changed, told apart from a change of the machine
//! that every series (or the control metric) shows, with false alarms controlled across the series.
//! Pure over plain data; a store and the `history` commands will feed it.

mod benjamini_hochberg;
mod change_point;
mod history_changes;
mod step_search;
#[cfg(test)]
mod test_fixture_history;
mod version_series;

pub use change_point::{ChangeKind, ChangePoint};
pub use history_changes::history_changes;
pub use version_series::VersionSeries;
