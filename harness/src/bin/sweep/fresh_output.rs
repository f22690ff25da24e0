//! An output file named on the command line (`template -o`, `compare --html`, `merge --out`) is written only
//! where nothing is yet, unless `--force`: sweep never overwrites a file by surprise.

use std::path::Path;

use crate::exit_status::CommandError;

/// Refuses (exit 2) when something exists at `path`, which `flag` named, unless `force`.
pub fn refuse_overwrite(path: &Path, flag: &str, force: bool) -> Result<(), CommandError> {
    if force || path.symlink_metadata().is_err() {
        return Ok(());
    }
    Err(CommandError::BadInput(format!(
        "{flag} {}: it already exists; sweep does not overwrite it (--force replaces it)",
        path.display()
    )))
}
