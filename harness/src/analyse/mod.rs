//! Statistics over recorded runs: pure functions over plain data, each citing its method.

mod linear_contrast;
mod observation;
mod student_t;
mod summary_stats;

pub use linear_contrast::LinearContrast;
pub use observation::Observation;
pub use summary_stats::SummaryStats;
