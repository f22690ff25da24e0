//! `RecordedDecl`: a sweep's declaration as the sidecar records it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::declare::{AblationDecl, AnalysisConfig, ReportConfig, RepsDecl, SweepDecl};

/// The declaration as written: the tables `report` and `compare` read back, typed; the rest as JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordedDecl {
    pub analysis: AnalysisConfig,
    /// Repetitions and their order: whether rounds are blocks of the analysis, and a race's limits.
    #[serde(default)]
    pub reps: RepsDecl,
    #[serde(default)]
    pub ablation: Option<AblationDecl>,
    /// Extra summary tables (`[report]`).
    #[serde(default, skip_serializing_if = "ReportConfig::is_empty")]
    pub report: ReportConfig,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl RecordedDecl {
    pub fn of(decl: &SweepDecl) -> RecordedDecl {
        let mut rest = match serde_json::to_value(decl) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        for typed in ["analysis", "ablation", "reps", "report"] {
            rest.remove(typed);
        }
        RecordedDecl {
            analysis: decl.analysis.clone(),
            reps: decl.reps.clone(),
            ablation: decl.ablation.clone(),
            report: decl.report.clone(),
            rest,
        }
    }
}
