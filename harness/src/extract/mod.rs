//! Pulls metrics out of engine logs: `key=value` result lines, regexes, derived expressions, checks.

mod extract_error;
mod key_value;
mod metric_set;

pub use extract_error::ExtractError;
pub use key_value::{find_result_line, finite, number, parse_pairs};
pub use metric_set::{apply_checks, extract_metrics, RunLogs};
