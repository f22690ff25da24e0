//! A pivot table of per-setting means: one param down, one across, a metric in the cells.

use serde::{Deserialize, Serialize};

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
