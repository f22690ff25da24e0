//! `[report]`: tables a sweep's summary adds to its verdicts.

use serde::{Deserialize, Serialize};

use super::pivot_config::PivotConfig;

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
