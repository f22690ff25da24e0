//! `RecordedDeclaration`: a sweep's declaration as written, as the sidecar records it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::analysis_config::AnalysisConfig;
use super::kernel_ablation::KernelAblation;
use super::search_config::SearchConfig;
use super::sweep_decl::{AblationDecl, ReportConfig, RepsDecl, SweepDecl};

/// The declaration as written: the tables `report` and `compare` read back, typed; the rest as JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordedDeclaration {
    pub analysis: AnalysisConfig,
    /// Repetitions and their order: whether rounds are blocks of the analysis, and a race's limits.
    #[serde(default)]
    pub reps: RepsDecl,
    #[serde(default)]
    pub(super) ablation: Option<AblationDecl>,
    /// Extra summary tables (`[report]`).
    #[serde(default, skip_serializing_if = "ReportConfig::is_empty")]
    pub report: ReportConfig,
    /// `[search]`, when the sweep searched its space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchConfig>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl RecordedDeclaration {
    pub(super) fn of(decl: &SweepDecl) -> RecordedDeclaration {
        let mut rest = match serde_json::to_value(decl) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        for typed in ["analysis", "ablation", "reps", "report", "search"] {
            rest.remove(typed);
        }
        RecordedDeclaration {
            analysis: decl.analysis.clone(),
            reps: decl.reps.clone(),
            ablation: decl.ablation.clone(),
            report: decl.report.clone(),
            search: decl.search,
            rest,
        }
    }

    /// The recorded `[ablation]`, as it was checked before it was recorded.
    pub fn ablation(&self) -> Option<KernelAblation> {
        self.ablation.as_ref().map(KernelAblation::recorded)
    }
}
