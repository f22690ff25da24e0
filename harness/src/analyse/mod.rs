//! Statistics over recorded runs: pure functions over plain data, each citing its method.

mod ablation;
mod adjusted_samples;
mod analysis_config;
mod comparison_method;
mod control_adjustment;
mod cost_model;
mod drift_bound;
mod equivalence;
mod failure_summary;
#[cfg(test)]
pub(crate) mod fixtures;
mod group_verdict;
mod holm;
mod linear_contrast;
mod observation;
mod ratio_interval;
mod rival_comparison;
mod round_model;
mod run_sample;
mod scale;
mod setting_summary;
mod student_t;
mod summary_stats;
mod sweep_analysis;
mod verdicts;

pub use ablation::{
    analyse_ablation, AblationAnalysis, AblationEffects, Additivity, AdditivityVerdict, PairInteraction, VariantSummary,
};
pub use adjusted_samples::AdjustedSamples;
pub use analysis_config::{AnalysisConfig, Direction, FitConfig, RowsPerSliceConfig, DEFAULT_ALPHA};
pub use comparison_method::ComparisonMethod;
pub use control_adjustment::ControlAdjustment;
pub use cost_model::{fit_fixed_plus_per_unit, rows_per_slice_rule, CostFit};
pub use drift_bound::DriftBound;
pub use equivalence::{EquivalenceCheck, EquivalenceClass};
pub use failure_summary::FailureSummary;
pub use group_verdict::{GroupOutcome, GroupVerdict, Rival};
pub use holm::holm_adjust;
pub use linear_contrast::LinearContrast;
pub use observation::Observation;
pub use ratio_interval::RatioInterval;
pub use rival_comparison::RivalComparison;
pub use round_model::RoundModel;
pub use run_sample::RunSample;
pub use scale::Scale;
pub use setting_summary::{Labels, SettingSummary};
pub use summary_stats::SummaryStats;
pub use sweep_analysis::{analyse_sweep, SweepAnalysis};
pub use verdicts::Verdicts;
