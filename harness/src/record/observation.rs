//! One recorded run as plain data, as read back from a result CSV: the unit every analysis works on.

use std::collections::BTreeMap;

use crate::launch::RunStatus;
use crate::spec::ParamValue;

/// What separates a failed run's reason from where its logs are, in the `error` column.
pub const LOGS_IN: &str = "; logs in ";

/// A run as the analysis sees it: which setting it measured and what it measured.
///
/// Built from a result CSV row, so analysis never touches files or processes.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Parameter name -> value, typed as declared, in declaration order, followed by `("variant", name)`.
    pub setting: Vec<(String, ParamValue)>,
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

impl Observation {
    /// Whether this run counts in statistics: finished ok and not a warmup.
    pub fn is_usable(&self) -> bool {
        self.status == RunStatus::Ok && !self.warmup
    }

    /// The value of a setting column (parameter or `variant`).
    pub fn setting_value(&self, name: &str) -> Option<&ParamValue> {
        self.setting.iter().find(|(key, _)| key == name).map(|(_, value)| value)
    }

    /// Why the run failed without where its logs are (which differs per run), so identical failures
    /// compare equal; the status when no error was recorded.
    pub fn failure_reason(&self) -> &str {
        match self.error.split(LOGS_IN).next() {
            Some(reason) if !reason.is_empty() => reason,
            _ => self.status.as_str(),
        }
    }

    /// The variant this run measured (`default` in a plain sweep).
    pub fn variant(&self) -> Option<&str> {
        self.setting_value("variant").and_then(ParamValue::as_text)
    }
}
