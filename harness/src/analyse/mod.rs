//! Statistics over recorded runs: pure functions over plain data, each citing its method.

mod ablation;
mod alpha_spending;
mod baseline_effect;
mod block_covariance;
mod comparison_method;
mod control_adjustment;
mod control_move;
mod cost_model;
mod cpu_share;
mod drift_bound;
mod drift_track;
mod equivalence;
mod failure_summary;
#[cfg(test)]
pub(crate) mod fixtures;
mod group_fit;
mod group_search;
mod group_verdict;
mod grouped;
mod holm;
mod huber;
mod no_test;
mod polygamma;
mod quantity_estimate;
mod random_effects;
mod ratio_interval;
mod rival_comparison;
mod round_blocks;
mod rule_check;
mod run_sample;
mod runs_to_decide;
mod sample_layout;
mod scale;
#[cfg(test)]
pub(crate) mod scenario_tests;
#[cfg(test)]
mod search_scenario_tests;
mod search_space;
mod search_spend;
mod search_summary;
mod search_trace;
mod setting_index;
mod setting_model;
mod setting_summary;
mod side_shift;
mod step_split;
mod straggler;
mod summary_stats;
mod sweep_analysis;
mod time_unit;
mod unexplored_headroom;
mod variance_prior;
mod verdicts;
mod weighted_backfit;

pub use ablation::{
    analyse_ablation_by_group, analyse_ablation_runs, AblationAnalysis, AblationEffects, AblationQuestion, Additivity,
    AdditivityVerdict, Interaction, LinearContrast, PairInteraction, VariantDelta, VariantSummary,
};
pub use alpha_spending::AlphaSpending;
pub use baseline_effect::{BaselineEffect, EffectInterval};
pub use comparison_method::ComparisonMethod;
pub use cpu_share::{CpuShare, STARVED_RUN};
pub use runs_to_decide::AFFORDABLE_FACTOR;
// Declared in `declare` (a sweep's `[analysis]` table); re-exported beside the analysis that answers it.
pub use crate::declare::{AnalysisConfig, Direction, FitConfig, RelativeKind, RowsPerSliceConfig};
// Test-only: the owned run the analysis tests build sweeps from (production reads `record::TableRun` in place).
#[cfg(test)]
pub use crate::record::Observation;
pub use crate::student_t::two_sided_p;
pub use cost_model::{fit_fixed_plus_per_unit, rows_per_slice_rule, CostFit, FitErrors};
pub use drift_bound::DriftBound;
pub use equivalence::{Agreement, EquivalenceCheck, EquivalenceClass, Margin};
pub use failure_summary::FailureSummary;
pub use group_fit::GroupFit;
pub use group_search::GroupSearch;
pub use group_verdict::{GroupOutcome, GroupVerdict, Rival};
pub use holm::{holm_adjust, simultaneous_level};
pub use no_test::NoTest;
pub use quantity_estimate::QuantityEstimate;
pub use random_effects::RandomEffects;
pub use ratio_interval::RatioInterval;
pub use rival_comparison::RivalComparison;
pub use round_blocks::RoundBlocks;
pub use rule_check::{RuleCheck, RuleMatch};
pub use run_sample::RunSample;
pub use scale::Scale;
pub use search_summary::SearchSummary;
pub use search_trace::{recorded_values, RecordedValues, SearchStep, SearchTrace};
pub use setting_index::SettingIndex;
pub use setting_model::{ControlPolicy, ModelDesign, Moved, SettingModel};
pub use setting_summary::{Labels, SettingSummary};
pub use side_shift::SideShift;
pub use straggler::{SlowSide, Straggler, StragglerSide};
pub use summary_stats::SummaryStats;
pub use sweep_analysis::{analyse_summarised, analyse_sweep, metrics_read_per_run, ImpliedRule, SweepAnalysis};
pub use time_unit::TimeUnit;
pub use variance_prior::VariancePrior;
pub use verdicts::{slow_side, Verdicts, DETECTION_POWER};
