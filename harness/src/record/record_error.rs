//! Errors of the `record` stage: result files that cannot be written, read or resumed.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: std::io::Error },
    #[error("{}: not a sweep result CSV: {reason}", path.display())]
    NotAResultCsv { path: PathBuf, reason: String },
    #[error("{}:{line}: {reason}", path.display())]
    BadRow { path: PathBuf, line: u64, reason: String },
    #[error("{}: {holder} is writing this CSV; two sweeps appending to it would record runs twice", path.display())]
    Locked { path: PathBuf, holder: crate::file_lock::Holder },
    #[error("{}: its columns differ from this sweep's ({reason}); resume a CSV of the same sweep", path.display())]
    ResumeMismatch { path: PathBuf, reason: String },
}

impl RecordError {
    /// Whether the file given to us is at fault (exit 2) rather than the machine (exit 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            RecordError::NotAResultCsv { .. } | RecordError::BadRow { .. } | RecordError::ResumeMismatch { .. }
        )
    }

    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> RecordError + '_ {
        move |error| RecordError::Io { path: path.to_path_buf(), error }
    }
}
