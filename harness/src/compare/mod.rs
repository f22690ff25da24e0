//! compare stage: two sides of one grid (two recorded sweeps, or two values of a parameter inside one
//! interleaved sweep), joined on settings, judged for regressions family-wise.

mod compare_config;
mod comparison;
mod overall_change;
#[cfg(test)]
mod scenario_tests;
mod setting_comparison;

pub use compare_config::{CompareConfig, DEFAULT_CONTROL_THRESHOLD};
pub use comparison::{compare, compare_within, Comparison, Design};
pub use overall_change::OverallChange;
pub use setting_comparison::{SettingComparison, Verdict};
