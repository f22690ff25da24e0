//! Crash-safe file writes: a reader (or a recovery after SIGKILL) sees the old bytes or the new, never half.
//! Used for rendered sources, the in-place journal, build stamps, sidecars and summaries.

use std::fs::{self, File, Permissions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::confined_dir::ConfinedDir;

/// Writes `bytes` to `path` via a temporary file in the same directory, fsync and rename, then fsyncs the
/// directory so the rename itself survives a power cut. `permissions` defaults to the existing file's.
/// The folder is opened once and both files reached from it: a link at `path` is replaced, never written
/// through, and one planted at the temporary name is refused.
pub fn write_atomic(path: &Path, bytes: &[u8], permissions: Option<Permissions>) -> std::io::Result<()> {
    let name = path.file_name().map_or(path, Path::new);
    write_atomic_in(&ConfinedDir::holding(path)?, name, bytes, permissions)
}

/// `write_atomic` of `path` below `dir`, a folder already opened (no link on the way followed).
pub fn write_atomic_in(
    dir: &ConfinedDir,
    path: &Path,
    bytes: &[u8],
    permissions: Option<Permissions>,
) -> std::io::Result<()> {
    let tmp = temp_path(path);
    let permissions = permissions.or_else(|| dir.file_permissions(path));
    let staged = stage(dir, &tmp, bytes, permissions).and_then(|()| dir.rename(&tmp, path));
    if staged.is_err() {
        // Temporary names are unique, so a failed write must not leave its own behind.
        let _ = dir.remove_file(&tmp);
    }
    staged.and_then(|()| dir.sync())
}

/// Writes the whole staged file durably.
fn stage(dir: &ConfinedDir, tmp: &Path, bytes: &[u8], permissions: Option<Permissions>) -> std::io::Result<()> {
    let mut file = dir.create_new(tmp)?;
    file.write_all(bytes)?;
    if let Some(permissions) = permissions {
        file.set_permissions(permissions)?;
    }
    file.sync_all()
}

/// The temporary sibling `write_atomic` stages `path` in: `.<name>.sweep-tmp.<pid>.<n>`, unique, so
/// two writers of one path (two sweeps writing one summary) never rename each other's half.
pub fn temp_path(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let unique = format!("{}.{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    path.with_file_name(format!("{}.{unique}", temp_prefix(path)))
}

/// Temporary siblings of `path` left by writes that were killed before their rename (any writer's).
fn stale_temps(path: &Path) -> Vec<PathBuf> {
    let prefix = temp_prefix(path);
    let Ok(entries) = fs::read_dir(parent_of(path)) else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|sibling| {
            let name = sibling.file_name().unwrap_or_default().to_string_lossy();
            name.strip_prefix(&prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
        .collect()
}

/// Whether a killed write of `path` left a temporary sibling.
pub fn has_stale_temp(path: &Path) -> bool {
    !stale_temps(path).is_empty()
}

/// Removes the temporary siblings left by writes of `path` that were killed before their rename.
/// Only for a caller that owns `path` (holds its lock): another writer's live temp would go too.
pub fn remove_stale_temp(path: &Path) -> std::io::Result<()> {
    stale_temps(path).iter().try_for_each(|temp| match fs::remove_file(temp) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    })
}

fn temp_prefix(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!(".{name}.sweep-tmp")
}

/// Fsyncs a directory so entries created, renamed or removed in it are durable.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir).and_then(|d| d.sync_all())
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_content_and_keeps_the_executable_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o755)).unwrap();
        write_atomic(&path, b"new", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o755);
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "temporary file left behind");
    }

    #[test]
    fn unique_writes_stage_under_distinct_names_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let other = temp_path(&path);
        fs::write(&other, "another writer's").unwrap();
        write_atomic(&path, b"first", None).unwrap();
        write_atomic(&path, b"second", None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert_eq!(fs::read(&other).unwrap(), b"another writer's", "shared staging name used");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn stale_temporary_file_is_removed_and_absence_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gd.cpp");
        fs::write(temp_path(&path), "half a rend").unwrap();
        fs::write(dir.path().join(".gd.cpp.sweep-tmp"), "an older sweep's").unwrap();
        fs::write(dir.path().join(".gd.cpp.sweep-tmpx"), "not ours").unwrap();
        assert!(has_stale_temp(&path));
        remove_stale_temp(&path).unwrap();
        assert!(!has_stale_temp(&path));
        assert!(dir.path().join(".gd.cpp.sweep-tmpx").exists());
        remove_stale_temp(&path).unwrap();
    }

    #[test]
    fn two_writers_of_one_path_stage_in_different_files() {
        let path = Path::new("/results/x/summary.md");
        assert_ne!(temp_path(path), temp_path(path));
    }
}
