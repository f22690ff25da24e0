//! `ResultFiles`: writes a result's summary, page, plot and analysis beside its CSV, each marked as this
//! sweep's, and never replaces such a file that is not (a user's file, another sweep's) unless `--force`.

use std::path::Path;

use sweep::record::{OutputMark, ResultPaths, Sidecar};

use crate::exit_status::CommandError;

/// The derived files of one result, and its sidecar (if it reads).
pub struct ResultFiles {
    pub sidecar: Option<Sidecar>,
    mark: Option<OutputMark>,
}

impl ResultFiles {
    /// The files of the result at `paths`, marked as its sidecar's sweep (unmarked without one). Refuses
    /// (exit 2) before anything is written when a summary, page, plot or analysis of `paths` exists and is
    /// not this sweep's.
    pub fn open(paths: &ResultPaths, force: bool) -> Result<ResultFiles, CommandError> {
        let sidecar = Sidecar::read(&paths.sidecar).ok();
        let files = ResultFiles { mark: sidecar.as_ref().map(|s| OutputMark::of(&s.fingerprint())), sidecar };
        let outputs = [&paths.summary, &paths.html, &paths.analysis, &paths.plot];
        let refusal = |path: &&std::path::PathBuf| match &files.mark {
            Some(mark) => mark.replace_refusal(path),
            None => path.symlink_metadata().is_ok().then(|| format!("{} exists", path.display())),
        };
        match outputs.iter().find_map(refusal).filter(|_| !force) {
            Some(reason) => {
                Err(CommandError::BadInput(format!("{reason}: sweep does not overwrite it (--force replaces it)")))
            }
            None => Ok(files),
        }
    }

    /// Writes one of the files atomically (a reader never sees half of it), with this sweep's mark.
    pub fn save(&self, path: &Path, text: &str) -> Result<(), CommandError> {
        match &self.mark {
            Some(mark) => save(path, &mark.marked(path, text)),
            None => save(path, text),
        }
    }
}
/// Writes a report atomically so a reader never sees half of it.
pub fn save(path: &Path, text: &str) -> Result<(), CommandError> {
    sweep::atomic_file::write_atomic(path, text.as_bytes(), None)
        .map_err(|error| CommandError::Write { path: path.to_path_buf(), error })
}

/// An output file named on the command line (`template -o`, `compare --html`, `merge --out`) is written
/// only where nothing is yet: refuses (exit 2) when something exists at `path`, which `flag` named,
/// unless `force`.
pub fn refuse_overwrite(path: &Path, flag: &str, force: bool) -> Result<(), CommandError> {
    if force || path.symlink_metadata().is_err() {
        return Ok(());
    }
    Err(CommandError::BadInput(format!(
        "{flag} {}: it already exists; sweep does not overwrite it (--force replaces it)",
        path.display()
    )))
}
