//! `RunStatus`: how a recorded run ended, as the CSV's `status` column spells it.

use std::fmt;
use std::str::FromStr;

use super::unknown_run_status::UnknownRunStatus;

/// The status of a run; only `Ok` runs count in statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RunStatus {
    /// Exited cleanly, every metric extracted, every check passed.
    Ok,
    /// Exited non-zero, was killed, could not start, or a metric or check failed.
    Failed,
    /// Outlived its timeout.
    Timeout,
    /// Stopped by a signal to `sweep` (such a run is not recorded by `sweep` itself).
    Interrupted,
}

impl RunStatus {
    const ALL: [RunStatus; 4] = [RunStatus::Ok, RunStatus::Failed, RunStatus::Timeout, RunStatus::Interrupted];

    /// The CSV spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Failed => "failed",
            RunStatus::Timeout => "timeout",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RunStatus {
    type Err = UnknownRunStatus;

    fn from_str(text: &str) -> Result<RunStatus, UnknownRunStatus> {
        RunStatus::ALL.into_iter().find(|status| status.as_str() == text).ok_or_else(|| UnknownRunStatus(text.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_round_trips_through_its_csv_spelling() {
        for status in RunStatus::ALL {
            assert_eq!(status.to_string().parse::<RunStatus>(), Ok(status));
        }
        assert_eq!("timeout".parse::<RunStatus>(), Ok(RunStatus::Timeout));
        assert_eq!("OK".parse::<RunStatus>(), Err(UnknownRunStatus("OK".into())));
    }
}
