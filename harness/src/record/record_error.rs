//! Errors of the `record` stage: result files that cannot be written, read or resumed.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The operating system refused a file (permission, full disk): not a source, the message says it.
    #[error("{}", crate::os_error::describe(error, path))]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{}: not a sweep result CSV: {reason}", path.display())]
    NotAResultCsv { path: PathBuf, reason: String },
    #[error("{}: {reason}", path.display())]
    BadSidecar { path: PathBuf, reason: String },
    #[error("{}:{line}: {reason}", path.display())]
    BadRow { path: PathBuf, line: u64, reason: String },
    #[error("{}:{line}:{column}: {reason}", path.display())]
    BadValue { path: PathBuf, line: u64, column: usize, reason: String },
    #[error(
        "{}:{line}: the last row has no line end: a run was cut off while being recorded; resuming the sweep \
         (`--resume`) drops it and runs it again",
        path.display()
    )]
    TornRow { path: PathBuf, line: usize },
    #[error("{}: no runs recorded (the CSV holds only its header)", path.display())]
    NoRuns { path: PathBuf },
    #[error("{}: {holder} is writing this CSV; two sweeps appending to it would record runs twice", path.display())]
    Locked { path: PathBuf, holder: crate::file_lock::Holder },
    #[error("{}: cannot be resumed by this sweep: {reason}; nothing was written", path.display())]
    ResumeMismatch { path: PathBuf, reason: String },
    #[error("{}: not a shard of the same sweep: {reason}", path.display())]
    ShardMismatch { path: PathBuf, reason: String },
}

impl RecordError {
    /// Whether the file given to us is at fault, or the operating system refused it (exit 2), rather than
    /// the run (exit 1): every error but another sweep holding the CSV.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, RecordError::Locked { .. })
    }

    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> RecordError + '_ {
        move |error| RecordError::Io { path: path.to_path_buf(), error }
    }
}
