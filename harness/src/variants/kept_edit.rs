//! `KeptEdit`: a user's edit of a file an in-place ablation rendered, kept beside it before sweep writes
//! over it (with its original, or the next rendering), so that restoring a tree never loses a user's work.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::error::VariantError;
use crate::atomic_file::sync_dir;

/// What a kept copy's name adds to its file's: `gd.cpp.sweep-user-edit` (then `.2`, `.3`, ...).
const SUFFIX: &str = "sweep-user-edit";

/// A target whose bytes were neither its original nor a rendering sweep wrote, and where they are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptEdit {
    pub target: PathBuf,
    pub copy: PathBuf,
}

impl KeptEdit {
    /// Writes `bytes` (the edited `target`) to the first free `<target>.sweep-user-edit[.N]` beside it,
    /// durably, never over an existing file or through a link. A copy already holding the same bytes (kept
    /// by a restore that was killed before it finished) is taken as it is.
    pub fn keep(target: &Path, bytes: &[u8]) -> Result<KeptEdit, VariantError> {
        let mut number = 1;
        loop {
            let copy = copy_path(target, number);
            match OpenOptions::new().write(true).create_new(true).open(&copy) {
                Ok(file) => {
                    write_whole(file, &copy, bytes)?;
                    return Ok(KeptEdit { target: target.to_path_buf(), copy });
                }
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                    if holds(&copy, bytes) {
                        return Ok(KeptEdit { target: target.to_path_buf(), copy });
                    }
                }
                Err(error) => return Err(VariantError::Io { action: "keep your edit in", path: copy, error }),
            }
            number += 1;
        }
    }
}

impl std::fmt::Display for KeptEdit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} was changed after sweep rendered it: your version is kept in {}",
            self.target.display(),
            self.copy.display()
        )
    }
}

/// `<target>.sweep-user-edit` for the first copy, `<target>.sweep-user-edit.<number>` after it.
fn copy_path(target: &Path, number: u32) -> PathBuf {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let name = if number == 1 { format!("{name}.{SUFFIX}") } else { format!("{name}.{SUFFIX}.{number}") };
    target.with_file_name(name)
}

/// Writes and fsyncs the new copy; a copy that could not be written whole is removed again (the edit is
/// still in its target, which is not written over when keeping it failed).
fn write_whole(mut file: fs::File, copy: &Path, bytes: &[u8]) -> Result<(), VariantError> {
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    let written = written.and_then(|()| sync_dir(copy.parent().unwrap_or(Path::new("."))));
    written.map_err(|error| {
        let _ = fs::remove_file(copy);
        VariantError::Io { action: "keep your edit in", path: copy.to_path_buf(), error }
    })
}

/// Whether `copy` is a regular file (not a link) holding exactly `bytes`.
fn holds(copy: &Path, bytes: &[u8]) -> bool {
    fs::symlink_metadata(copy).is_ok_and(|meta| meta.is_file() && meta.len() == bytes.len() as u64)
        && fs::read(copy).is_ok_and(|held| held == bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_is_kept_beside_its_file_and_never_over_another_copy() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("gd.cpp");
        fs::write(dir.path().join("gd.cpp.sweep-user-edit"), "an older edit\n").unwrap();
        let kept = KeptEdit::keep(&target, b"mine\n").unwrap();
        assert_eq!(kept.copy, dir.path().join("gd.cpp.sweep-user-edit.2"));
        assert_eq!(fs::read_to_string(&kept.copy).unwrap(), "mine\n");
        assert_eq!(fs::read_to_string(dir.path().join("gd.cpp.sweep-user-edit")).unwrap(), "an older edit\n");
        assert_eq!(KeptEdit::keep(&target, b"mine\n").unwrap(), kept, "the same edit kept twice");
        assert!(kept.to_string().ends_with(&format!("your version is kept in {}", kept.copy.display())), "{kept}");
    }

    #[test]
    fn a_link_where_the_copy_would_go_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("elsewhere"), "precious\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), dir.path().join("gd.cpp.sweep-user-edit")).unwrap();
        let kept = KeptEdit::keep(&dir.path().join("gd.cpp"), b"mine\n").unwrap();
        assert_eq!(kept.copy, dir.path().join("gd.cpp.sweep-user-edit.2"));
        assert_eq!(fs::read_to_string(dir.path().join("elsewhere")).unwrap(), "precious\n");
    }
}
