//! One recorded run as plain data, the unit every analysis works on.

use std::collections::BTreeMap;

/// A run as the analysis sees it: which setting it measured and what it measured.
///
/// Built from a result CSV row (`record`), so analysis never touches files or processes.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Parameter name -> value as written in the CSV, in declaration order, followed by `("variant", name)`.
    pub setting: Vec<(String, String)>,
    /// Repetition number, 1-based.
    pub rep: u32,
    /// Warmup runs are recorded but never analysed.
    pub warmup: bool,
    /// `ok`, `failed`, `timeout` or `interrupted`.
    pub status: String,
    /// Why the run failed; empty when it did not.
    pub error: String,
    /// Metric name -> value; only metrics that were extracted as numbers are present.
    pub metrics: BTreeMap<String, f64>,
}

impl Observation {
    /// Whether this run counts in statistics: finished ok and not a warmup.
    pub fn is_usable(&self) -> bool {
        self.status == "ok" && !self.warmup
    }

    /// The value of a setting column (parameter or `variant`).
    pub fn setting_value(&self, name: &str) -> Option<&str> {
        self.setting.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}
