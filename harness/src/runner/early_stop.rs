//! `EarlyStop`: why a session stopped scheduling runs before its plan was done.

use std::path::PathBuf;

/// Why a session stopped scheduling before its plan was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EarlyStop {
    /// Ctrl-C, SIGTERM or SIGHUP; the run in flight was killed and not recorded.
    Interrupted { signal: i32 },
    /// `--fail-fast` and a run failed.
    FailFast,
    /// The disk filled up (writing `path`, or too little space left after a failed run): every run left
    /// would fail. The rows recorded so far are whole.
    DiskFull { path: PathBuf, reason: String },
    /// `runs` runs in a row failed the same way (without `--keep-going`).
    RepeatedFailure { runs: u32, reason: String },
}
