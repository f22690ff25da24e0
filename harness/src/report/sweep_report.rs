//! `SweepReport`: one sweep's analysis with what its report needs to say about it (the report context,
//! the title); every section of the report reads it (`sweep_document.rs` assembles them).

use super::report_context::ReportContext;
use super::setting_columns::SettingColumns;
use crate::analyse::{AnalysisConfig, SweepAnalysis};

/// A sweep's analysis with what its report needs to say about it.
#[derive(Debug, Clone, Copy)]
pub struct SweepReport<'a> {
    pub analysis: &'a SweepAnalysis,
    pub config: &'a AnalysisConfig,
    pub context: &'a ReportContext,
    pub title: &'a str,
}

impl SweepReport<'_> {
    /// The setting columns: those that vary, and those fixed throughout (stated once).
    pub fn columns(&self) -> SettingColumns {
        SettingColumns::of(self.analysis.settings.iter().map(|s| &s.setting))
    }
}
