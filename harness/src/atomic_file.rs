//! Crash-safe file writes: a reader (or a recovery after SIGKILL) sees the old bytes or the new, never half.
//! Used for rendered sources, the in-place journal, build stamps, sidecars and summaries.

use std::fs::{self, File, Permissions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` via a temporary file in the same directory, fsync and rename, then fsyncs the
/// directory so the rename itself survives a power cut. `permissions` defaults to the existing file's.
pub fn write_atomic(path: &Path, bytes: &[u8], permissions: Option<Permissions>) -> std::io::Result<()> {
    write_via(&temp_path(path), path, bytes, permissions)
}

/// `write_atomic` for a file that writers not serialised by a lock may write at once (the sidecar of a
/// shared results directory): each stages in its own temporary file, named after the process and a counter.
pub fn write_atomic_unique(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let unique = format!(".{name}.{}.{}.sweep-tmp", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
    write_via(&parent_of(path).join(unique), path, bytes, None)
}

fn write_via(tmp: &Path, path: &Path, bytes: &[u8], permissions: Option<Permissions>) -> std::io::Result<()> {
    let dir = parent_of(path);
    let permissions = match permissions {
        Some(p) => Some(p),
        None => fs::metadata(path).ok().map(|m| m.permissions()),
    };
    let mut file = File::create(tmp)?;
    file.write_all(bytes)?;
    if let Some(permissions) = permissions {
        file.set_permissions(permissions)?;
    }
    file.sync_all()?;
    fs::rename(tmp, path)?;
    sync_dir(dir)
}

/// The temporary sibling `write_atomic` stages `path` in. The name is fixed (writers of one path are
/// serialised by the tree lock or by owning the directory) so a recovery can remove one left by a SIGKILL.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    parent_of(path).join(format!(".{name}.sweep-tmp"))
}

/// Removes a temporary sibling left by a write that was killed before its rename.
pub fn remove_stale_temp(path: &Path) -> std::io::Result<()> {
    match fs::remove_file(temp_path(path)) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
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
        fs::write(temp_path(&path), "another writer's").unwrap();
        write_atomic_unique(&path, b"first").unwrap();
        write_atomic_unique(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        assert_eq!(fs::read(temp_path(&path)).unwrap(), b"another writer's", "shared staging name used");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn stale_temporary_file_is_removed_and_absence_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gd.cpp");
        fs::write(temp_path(&path), "half a rend").unwrap();
        remove_stale_temp(&path).unwrap();
        assert!(!temp_path(&path).exists());
        remove_stale_temp(&path).unwrap();
    }
}
