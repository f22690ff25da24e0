//! Errors of the `record` stage: result files that cannot be written, read or resumed.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a sweep result CSV: {reason}", path.display())]
    NotAResultCsv { path: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    BadSidecar { path: PathBuf, reason: String },
    #[error("{}:{line}: {reason}", path.display())]
    BadRow { path: PathBuf, line: u64, reason: String },
    #[error("{}:{line}:{column}: {reason}", path.display())]
    BadValue { path: PathBuf, line: u64, column: usize, reason: String },
    #[error(
        "{}:{line}: the last row has no line end: a run was cut off while being recorded; `sweep run --resume` \
         drops it and runs it again",
        path.display()
    )]
    TornRow { path: PathBuf, line: usize },
    #[error("{}: no runs recorded (the CSV holds only its header)", path.display())]
    NoRuns { path: PathBuf },
    #[error("{}: {holder} is writing this CSV; two sweeps appending to it would record runs twice", path.display())]
    Locked { path: PathBuf, holder: crate::file_lock::Holder },
    #[error("{}: its columns differ from this sweep's ({reason}); resume a CSV of the same sweep", path.display())]
    ResumeMismatch { path: PathBuf, reason: String },
    #[error("{}: not a shard of the same sweep: {reason}", path.display())]
    ShardMismatch { path: PathBuf, reason: String },
}

impl RecordError {
    /// Whether the file given to us is at fault (exit 2) rather than the machine (exit 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            RecordError::NotAResultCsv { .. }
                | RecordError::BadSidecar { .. }
                | RecordError::BadRow { .. }
                | RecordError::BadValue { .. }
                | RecordError::TornRow { .. }
                | RecordError::NoRuns { .. }
                | RecordError::ResumeMismatch { .. }
                | RecordError::ShardMismatch { .. }
        )
    }

    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> RecordError + '_ {
        move |source| RecordError::Io { path: path.to_path_buf(), source }
    }
}
