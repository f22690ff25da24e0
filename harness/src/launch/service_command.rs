//! `ServiceCommand`: a rendered service process, how to tell it is ready, and how long it may take.

use std::time::Duration;

use super::rank_command::RankCommand;
use super::readiness::Readiness;

/// Started before a run's main process and stopped after it; its exit while the run goes on fails the run.
#[derive(Debug, Clone)]
pub struct ServiceCommand {
    pub name: String,
    pub command: RankCommand,
    pub readiness: Readiness,
    pub within: Duration,
}
