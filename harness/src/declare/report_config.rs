//! `[report]`: tables a sweep's summary adds to its verdicts.

use serde::{Deserialize, Serialize};

/// Extra summary tables a sweep declares.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReportConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pivot: Option<PivotConfig>,
}

impl ReportConfig {
    /// Nothing declared (then nothing is recorded either, so older sidecars read back the same).
    pub fn is_empty(&self) -> bool {
        self.pivot.is_none()
    }
}

/// A pivot table of per-setting means, one param down, one across, a metric in the cells:
/// `pivot = { rows = "bytes", columns = "topology", value = "latency_ns" }`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PivotConfig {
    /// The param whose values are the table's rows.
    pub rows: String,
    /// The param whose values are the table's columns.
    pub columns: String,
    /// The metric whose per-setting mean fills the cells.
    pub value: String,
}
