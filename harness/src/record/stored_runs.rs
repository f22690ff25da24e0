//! `StoredRuns`: the runs of a result CSV column by column, the compact form a million runs are analysed in.

use crate::launch::RunStatus;
use crate::plan::{Setting, SettingId};

/// Every run's cells as parallel columns: about 10 bytes per run plus 8 per metric, whatever the number
/// of settings. Runs keep their file order.
#[derive(Debug, Clone)]
pub struct StoredRuns {
    /// The metric columns' names, in CSV order.
    pub(super) metrics: Vec<String>,
    /// The settings by `SettingId`: the sidecar's order, else first-seen; runs whose cells type alike
    /// share one. A planned setting no row records is `Setting::default()`.
    pub(super) settings: Vec<Setting>,
    /// Per run: its setting.
    pub(super) setting: Vec<SettingId>,
    pub(super) rep: Vec<u32>,
    pub(super) warmup: Vec<bool>,
    pub(super) status: Vec<RunStatus>,
    /// The runs that recorded an error, ascending by run, with it.
    pub(super) errors: Vec<(usize, String)>,
    /// Per metric (in `metrics` order), per run; NaN where the run reported none (a recorded metric is
    /// always finite).
    pub(super) values: Vec<Vec<f64>>,
    /// Metric indices in ascending name order, one per name.
    pub(super) by_name: Vec<usize>,
}

/// Metric indices in ascending name order, one per name: its last column, as a header-keyed row reads it.
pub(super) fn by_name(metrics: &[String]) -> Vec<usize> {
    let mut by_name: Vec<usize> = (0..metrics.len()).collect();
    by_name.sort_by(|a, b| metrics[*a].cmp(&metrics[*b]).then(b.cmp(a)));
    by_name.dedup_by(|a, b| metrics[*a] == metrics[*b]);
    by_name
}
