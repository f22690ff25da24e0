//! Errors of the `store` stage: a store that cannot be opened or read, and result files it refuses.

use std::path::PathBuf;

use crate::record::RecordError;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {error}", path.display())]
    Sqlite { path: PathBuf, error: rusqlite::Error },
    #[error("{}", crate::os_error::describe(error, path))]
    Io { path: PathBuf, error: std::io::Error },
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(
        "{}: store schema version {found} is newer than this sweep reads (up to {known}); use the sweep version \
         that wrote it",
        path.display()
    )]
    NewerSchema { path: PathBuf, found: i64, known: i64 },
    #[error("{}: not a sweep history store (it has no store schema version)", path.display())]
    NotAStore { path: PathBuf },
    #[error("{}: no such result CSV", csv.display())]
    NoCsv { csv: PathBuf },
    #[error("{}: no sidecar beside it ({}): a result file is added with the sidecar that says which sweep it records", csv.display(), sidecar.display())]
    NoSidecar { csv: PathBuf, sidecar: PathBuf },
    #[error("{}: not added: the store holds sweep `{sweep}` with another grid ({reason}); nothing was written", csv.display())]
    OtherGrid { csv: PathBuf, sweep: String, reason: String },
    #[error("{}: not added: version `{label}` of sweep `{sweep}` is already {} in the store; choose another --label", csv.display(), other.display())]
    LabelTaken { csv: PathBuf, sweep: String, label: String, other: PathBuf },
    #[error("{}: the store holds no sweep yet (add result files with `sweep history add`)", path.display())]
    Empty { path: PathBuf },
    #[error("{}: the store holds {} sweeps: pass --sweep NAME (one of: {})", path.display(), names.len(), names.join(", "))]
    ManySweeps { path: PathBuf, names: Vec<String> },
    #[error("{}: no sweep `{name}` in the store (it holds: {})", path.display(), names.join(", "))]
    UnknownSweep { path: PathBuf, name: String, names: Vec<String> },
    #[error("{}: sweep `{sweep}` records no metric `{metric}` (it has: {})", path.display(), names.join(", "))]
    UnknownMetric { path: PathBuf, sweep: String, metric: String, names: Vec<String> },
}

impl StoreError {
    pub fn sqlite(path: &std::path::Path) -> impl FnOnce(rusqlite::Error) -> StoreError + '_ {
        move |error| StoreError::Sqlite { path: path.to_path_buf(), error }
    }

    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
        move |error| StoreError::Io { path: path.to_path_buf(), error }
    }
}
