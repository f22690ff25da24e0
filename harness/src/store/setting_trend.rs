//! `SettingTrend`: one setting's runs of a metric at each version of a history.

use serde_json::Value;

use crate::history::{VersionMean, VersionSeries};

#[derive(Debug, Clone, PartialEq)]
pub struct SettingTrend {
    /// The setting as stored (its JSON text): the same at every version.
    pub key: String,
    /// The setting as a JSON object, param -> typed value.
    pub setting: Value,
    /// As the summaries print it (`slices=2 rows=512`).
    pub label: String,
    /// Per version, in order, the values of its runs (empty where it has none).
    pub runs: Vec<Vec<f64>>,
}

impl SettingTrend {
    /// A setting without runs yet at any of `versions` versions.
    pub fn new(key: &str, label: &str, versions: usize) -> SettingTrend {
        SettingTrend {
            key: key.to_string(),
            setting: serde_json::from_str(key).unwrap_or(Value::Null),
            label: label.to_string(),
            runs: vec![Vec::new(); versions],
        }
    }

    /// Each version's geometric mean with its interval (None where it has no run).
    pub fn means(&self) -> Vec<Option<VersionMean>> {
        self.runs.iter().map(|runs| VersionMean::of(runs)).collect()
    }

    /// Whether it has a run at every version (a change-point series needs one).
    pub fn is_complete(&self) -> bool {
        self.runs.iter().all(|runs| !runs.is_empty())
    }

    /// The indices of the versions where it has no run.
    pub fn missing(&self) -> Vec<usize> {
        (self.runs.iter().enumerate()).filter(|(_, runs)| runs.is_empty()).map(|(version, _)| version).collect()
    }

    pub fn series(&self) -> VersionSeries {
        VersionSeries::of_runs(&self.runs)
    }
}
