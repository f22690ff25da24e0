//! `StoredRun`: one row of a result CSV as the store keeps it: which setting, which rep and attempt, how
//! it ended and every metric it reported.

use serde_json::{Map, Value};

use crate::plan::{labels_object, Setting, DEFAULT_VARIANT};
use crate::record::{RecordedRun, TableRun};

#[derive(Debug, Clone, PartialEq)]
pub struct StoredRun {
    /// The setting as a JSON object, param -> typed value (and `variant` unless default), keys sorted: the
    /// same text for the same setting in every file.
    pub setting: String,
    /// The setting as the CSV and summaries print it (`slices=2 rows=512`).
    pub setting_label: String,
    pub rep: u32,
    pub attempt: u32,
    pub warmup: bool,
    pub status: String,
    pub error: String,
    /// Whether the analysis reads this run (of several attempts at one (setting, rep), the last that
    /// succeeded: `RunTable::current_runs`).
    pub current: bool,
    /// Every metric the run reported, as a JSON object name -> value.
    pub metrics: String,
}

impl StoredRun {
    /// The run `run` of a table; `current` when the analysis reads it.
    pub fn of(run: &TableRun<'_>, current: bool) -> StoredRun {
        let metrics: Map<String, Value> =
            run.metrics().map(|(name, value)| (name.to_string(), Value::from(value))).collect();
        StoredRun {
            setting: setting_json(run.setting()),
            setting_label: run.setting().label(),
            rep: run.rep(),
            attempt: run.attempt(),
            warmup: run.warmup(),
            status: run.status().as_str().to_string(),
            error: run.error().to_string(),
            current,
            metrics: Value::Object(metrics).to_string(),
        }
    }
}

/// `{"rows":512,"slices":2}`: the typed values with sorted keys, the variant among them unless default.
fn setting_json(setting: &Setting) -> String {
    let mut object: std::collections::BTreeMap<String, Value> = labels_object(&setting.values).into_iter().collect();
    if setting.variant != DEFAULT_VARIANT {
        object.insert("variant".to_string(), Value::from(setting.variant.clone()));
    }
    serde_json::to_string(&object).expect("JSON values serialize")
}
