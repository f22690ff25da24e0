//! Pulls metrics out of engine logs: `key=value` result lines, regexes, derived expressions, checks,
//! and phase-profile blocks.

mod extract_error;
mod metric_set;
mod profile_block;

pub use extract_error::ExtractError;
pub use metric_set::{apply_checks, extract_metrics, EngineOutput, RunLogs};
