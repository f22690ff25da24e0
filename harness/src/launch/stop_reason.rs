//! Why a run stopped: the one answer the executor gives (with the run's times, an `Execution`),
//! recorded as the run's status and error.

use std::fmt;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::ground::RunStatus;

/// How a run ended. Anything but `Succeeded` makes the run `failed`, `timeout` or `interrupted`.
#[derive(Debug, Clone, PartialEq)]
pub enum StopReason {
    /// Every process exited with status 0.
    Succeeded,
    /// A process exited non-zero; `rank` is known for the per-rank launcher.
    Failed { rank: Option<u32>, code: i32 },
    /// A process was killed by a signal it did not get from us.
    Signalled { rank: Option<u32>, signal: i32 },
    /// The run outlived its timeout; every process group was terminated.
    TimedOut { after_seconds: f64 },
    /// Ctrl-C or SIGTERM reached `sweep`; every process group was terminated.
    Interrupted { signal: i32 },
    /// A process could not be started at all.
    SpawnFailed { program: String, error: String },
    /// A service exited before it was ready or while the run went on; `what` says which, `tail` quotes its
    /// log's last lines.
    ServiceFailed { name: String, what: String, tail: String },
    /// A service was not ready within its limit: what was probed, what the last probe found, its log.
    NotReady(Box<ServiceNotReady>),
}

impl StopReason {
    /// The CSV `status` column.
    pub fn status(&self) -> RunStatus {
        match self {
            StopReason::Succeeded => RunStatus::Ok,
            StopReason::TimedOut { .. } => RunStatus::Timeout,
            StopReason::Interrupted { .. } => RunStatus::Interrupted,
            StopReason::Failed { .. }
            | StopReason::Signalled { .. }
            | StopReason::SpawnFailed { .. }
            | StopReason::ServiceFailed { .. }
            | StopReason::NotReady(_) => RunStatus::Failed,
        }
    }
}

fn who(rank: &Option<u32>) -> String {
    rank.map_or_else(|| "the launcher".to_string(), |rank| format!("rank {rank}"))
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Succeeded => write!(f, "succeeded"),
            StopReason::Failed { rank, code } => write!(f, "{} exited with code {code}", who(rank)),
            StopReason::Signalled { rank, signal } => write!(f, "{} was killed by signal {signal}", who(rank)),
            StopReason::TimedOut { after_seconds } => {
                write!(f, "timed out after {after_seconds:.1}s; every rank was killed")
            }
            StopReason::Interrupted { signal } => write!(f, "interrupted by signal {signal}"),
            StopReason::SpawnFailed { program, error } => write!(f, "could not start `{program}`: {error}"),
            StopReason::ServiceFailed { name, what, tail } => {
                write!(f, "service `{name}` {what}; its log ends: {tail}")
            }
            StopReason::NotReady(not_ready) => not_ready.fmt(f),
        }
    }
}

/// How a run went, as the recorder needs it.
#[derive(Debug, Clone)]
pub struct Execution {
    pub reason: StopReason,
    pub started: SystemTime,
    pub duration: Duration,
}

/// A service that was not ready within its limit, told so that the cause can be found without opening
/// anything: which probe, what it last found, and where the service's log is.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceNotReady {
    pub name: String,
    pub within: Duration,
    /// What was probed: `GET http://127.0.0.1:8000/health`, a TCP address, a log regex.
    pub probe: String,
    /// What the last probe found: `connection refused`, `it answered HTTP/1.0 503`, ...
    pub last: String,
    pub log: PathBuf,
    /// The log's last lines.
    pub tail: String,
}

impl fmt::Display for ServiceNotReady {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "service `{}` was not ready within {}: the last probe, {}, found: {}; its log {} ends: {}",
            self.name,
            humantime::format_duration(self.within),
            self.probe,
            self.last,
            self.log.display(),
            self.tail
        )
    }
}
