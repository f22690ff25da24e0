//! The two thresholds of `compare` as each claim names the one it used: the regression threshold and
//! the control's own limit.

use super::number_format::percent;
use crate::compare::CompareConfig;

/// The regression threshold as each claim that uses it names it: `the 2.0% --threshold`.
pub fn threshold_named(config: &CompareConfig) -> String {
    format!("the {} --threshold", percent(config.threshold))
}

/// The control's own limit, beyond which the machine changed, as a claim names it.
pub fn control_limit_named(config: &CompareConfig) -> String {
    format!("its {} limit (--control-threshold)", percent(config.control_threshold))
}
