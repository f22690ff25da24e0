//! Statistics over recorded runs: pure functions over plain data, each citing its method.

mod ablation;
mod cost_model;
mod drift_bound;
mod equivalence;
mod failure_summary;
#[cfg(test)]
pub(crate) mod fixtures;
mod group_best;
mod linear_contrast;
mod setting_summary;
mod student_t;
mod summary_stats;
mod sweep_analysis;

pub use ablation::{
    analyse_ablation, AblationAnalysis, AblationEffects, Additivity, AdditivityVerdict, PairInteraction, VariantSummary,
};
// Declared in `spec` (a sweep's `[analysis]` table); re-exported beside the analysis that answers it.
pub use crate::spec::{AnalysisConfig, Direction, FitConfig, RowsPerSliceConfig};
// Read from a result CSV by `record`; re-exported as the unit every analysis works on.
pub use crate::record::Observation;
pub use cost_model::{fit_fixed_plus_per_unit, rows_per_slice_rule, CostFit};
pub use drift_bound::DriftBound;
pub use equivalence::{EquivalenceCheck, EquivalenceClass};
pub use failure_summary::FailureSummary;
pub use group_best::{GroupBest, Rival};
pub use linear_contrast::LinearContrast;
pub use setting_summary::{Labels, SettingSummary};
pub use summary_stats::SummaryStats;
pub use sweep_analysis::{analyse_sweep, SweepAnalysis};
