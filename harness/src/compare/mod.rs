//! compare stage: two recorded sweeps of the same grid, joined on settings, judged for regressions.

mod compare_config;
mod comparison;
mod setting_comparison;

pub use compare_config::CompareConfig;
pub use comparison::{compare, Comparison};
pub use setting_comparison::{RatioInterval, SettingComparison, Verdict};
