//! Statistics over recorded runs: pure functions over plain data, each citing its method.

mod analysis_config;
mod observation;

pub use analysis_config::{AnalysisConfig, Direction};
pub use observation::Observation;
