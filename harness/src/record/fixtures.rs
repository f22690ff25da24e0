//! Test-only: one recorded run as owned plain data, the fixture the analysis tests build sweeps from (production reads
//! runs in place through `TableRun`).

use std::collections::BTreeMap;

use super::recorded_run::RecordedRun;
use crate::ground::RunStatus;
use crate::plan::{Setting, SettingId};

/// A run as the analysis sees it: which setting it measured and what it measured.
///
/// Built from a result CSV row, so analysis never touches files or processes.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Parameter values, typed as declared, and the variant.
    pub setting: Setting,
    /// Which setting: runs with equal `setting` labels, and only they, share it.
    pub setting_id: SettingId,
    /// Repetition number, 1-based.
    pub rep: u32,
    /// Warmup runs are recorded but never analysed.
    pub warmup: bool,
    pub status: RunStatus,
    /// Why the run failed; empty when it did not.
    pub error: String,
    /// Metric name -> value; only metrics that were extracted as numbers are present.
    pub metrics: BTreeMap<String, f64>,
}

impl RecordedRun for Observation {
    fn setting(&self) -> &Setting {
        &self.setting
    }
    fn setting_id(&self) -> SettingId {
        self.setting_id
    }
    fn rep(&self) -> u32 {
        self.rep
    }
    fn warmup(&self) -> bool {
        self.warmup
    }
    fn status(&self) -> RunStatus {
        self.status
    }
    fn error(&self) -> &str {
        &self.error
    }
    fn metric(&self, name: &str) -> Option<f64> {
        self.metrics.get(name).copied()
    }
    fn metrics(&self) -> impl Iterator<Item = (&str, f64)> {
        self.metrics.iter().map(|(name, value)| (name.as_str(), *value))
    }
    /// Every fixture run took a second, as the tests write them (`duration_s = 1.0`).
    fn duration_s(&self) -> f64 {
        1.0
    }
}
