//! compare stage: two sides of one grid (two recorded sweeps, or two values of a parameter inside one
//! interleaved sweep), joined on settings, judged for regressions family-wise.

mod comparison;
#[cfg(test)]
mod scenario_tests;
mod setting_comparison;

pub use comparison::{compare, compare_within, Comparison, MachineChange, MachineChangeReason, OverallChange};
pub use setting_comparison::{CompareConfig, SettingComparison, Verdict, DEFAULT_CONTROL_THRESHOLD};

/// The comparison questions the compare and report tests share: prefill throughput, higher is better,
/// a 2% threshold, no control.
#[cfg(test)]
pub(crate) fn fixture_compare_config() -> CompareConfig {
    CompareConfig {
        metric: "prefill_tokens_per_s".into(),
        direction: crate::analyse::Direction::Higher,
        threshold: 0.02,
        alpha: 0.05,
        control: None,
        control_threshold: DEFAULT_CONTROL_THRESHOLD,
        control_scaling: crate::declare::ControlScaling::Estimated,
    }
}
