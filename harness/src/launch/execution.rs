//! `Execution`: how a run went, as the recorder needs it.

use std::time::{Duration, SystemTime};

use super::stop_reason::StopReason;

/// How a run went, as the recorder needs it.
#[derive(Debug, Clone)]
pub struct Execution {
    pub reason: StopReason,
    pub started: SystemTime,
    pub duration: Duration,
}
