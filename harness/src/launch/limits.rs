//! `Limits`: the time a run may take, and the grace between SIGTERM and SIGKILL.

use std::time::Duration;

/// Time limits of one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `NO_TIMEOUT` (or anything too long to add to the clock) means none.
    pub timeout: Duration,
    /// Between SIGTERM and SIGKILL.
    pub grace: Duration,
}

impl Limits {
    pub const NO_TIMEOUT: Duration = Duration::MAX;
}
