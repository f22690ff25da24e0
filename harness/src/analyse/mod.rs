//! Statistics over recorded runs: pure functions over plain data, each citing its method.

mod observation;

pub use observation::Observation;
