//! `RecordedRun`: what analysis reads of one recorded run, whether it is an owned `Observation` or a row
//! of a compact `RunTable`.

use crate::ground::RunStatus;
use crate::plan::{Setting, SettingId};

/// What separates a failed run's reason from where its logs are, in the `error` column.
pub const LOGS_IN: &str = "; logs in ";

/// One recorded run as the analysis reads it: which setting it measured and what it measured. Shared
/// between threads: a large sweep is analysed on every core.
pub trait RecordedRun: Sync {
    /// Parameter values, typed as declared, and the variant.
    fn setting(&self) -> &Setting;
    /// Which setting: runs of one setting, and only they, share it (a position in the runs' table or plan).
    fn setting_id(&self) -> SettingId;
    /// Repetition number, 1-based.
    fn rep(&self) -> u32;
    /// Warmup runs are recorded but never analysed.
    fn warmup(&self) -> bool;
    fn status(&self) -> RunStatus;
    /// Why the run failed; empty when it did not.
    fn error(&self) -> &str;
    /// The value of a metric, if the run reported it as a number.
    fn metric(&self, name: &str) -> Option<f64>;
    /// Every metric the run reported as a number, by name in ascending order.
    fn metrics(&self) -> impl Iterator<Item = (&str, f64)>;
    /// The seconds the run took (`duration_s`).
    fn duration_s(&self) -> f64;

    /// Whether this run counts in statistics: finished ok and not a warmup.
    fn is_usable(&self) -> bool {
        self.status() == RunStatus::Ok && !self.warmup()
    }

    /// Why the run failed without where its logs are (which differs per run), so identical failures
    /// compare equal; the status when no error was recorded.
    fn failure_reason(&self) -> &str {
        match self.error().split(LOGS_IN).next() {
            Some(reason) if !reason.is_empty() => reason,
            _ => self.status().as_str(),
        }
    }

    /// The variant this run measured (`default` in a plain sweep).
    fn variant(&self) -> &str {
        &self.setting().variant
    }
}

/// A borrowed run reads as the run (analysis groups runs by reference).
impl<T: RecordedRun> RecordedRun for &T {
    fn setting(&self) -> &Setting {
        (**self).setting()
    }
    fn setting_id(&self) -> SettingId {
        (**self).setting_id()
    }
    fn rep(&self) -> u32 {
        (**self).rep()
    }
    fn warmup(&self) -> bool {
        (**self).warmup()
    }
    fn status(&self) -> RunStatus {
        (**self).status()
    }
    fn error(&self) -> &str {
        (**self).error()
    }
    fn metric(&self, name: &str) -> Option<f64> {
        (**self).metric(name)
    }
    fn metrics(&self) -> impl Iterator<Item = (&str, f64)> {
        (**self).metrics()
    }
    fn duration_s(&self) -> f64 {
        (**self).duration_s()
    }
}
