//! What the analysis of a sweep is asked: primary metric, direction, grouping, control, equivalence.

use serde::Deserialize;

/// Which way is better for a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Higher,
    Lower,
}

/// The questions a sweep's declaration asks of its results.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisConfig {
    pub primary: String,
    pub direction: Direction,
    pub group_by: Vec<String>,
    pub control: Option<String>,
    pub equivalence_key: Option<String>,
}
