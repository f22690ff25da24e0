//! The process group of an in-place build, recorded in the tree's state dir (before anything runs in
//! the group: see `launch::GroupGate`) so that a recovery after a SIGKILL of `sweep` can stop that
//! build before restoring: an orphaned compiler writing its object after the restore would leave an
//! ablated binary that `make` then calls current.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::unistd::Pid;

use super::error::VariantError;
use super::journal_confinement::STATE_DIR;
use crate::atomic_file::{has_stale_temp, remove_stale_temp, write_atomic};

const BUILD_GROUP_FILE: &str = "build.pgid";
/// How long a killed build group may take to disappear before recovery gives up on it.
const REAP_WAIT: Duration = Duration::from_secs(10);

fn group_file(tree: &Path) -> PathBuf {
    tree.join(STATE_DIR).join(BUILD_GROUP_FILE)
}

/// Whether a build group record (or a half-written one) is in the tree's state dir.
pub(super) fn build_group_recorded(tree: &Path) -> bool {
    let path = group_file(tree);
    path.exists() || has_stale_temp(&path)
}

/// Records that the build running in process group `pgid` is writing into `tree`.
pub fn record_build_group(tree: &Path, pgid: i32) -> Result<(), VariantError> {
    let path = group_file(tree);
    let state = tree.join(STATE_DIR);
    std::fs::create_dir_all(&state).map_err(VariantError::io("create", &state))?;
    write_atomic(&path, pgid.to_string().as_bytes(), None).map_err(VariantError::io("write", &path))
}

/// The build finished (or was stopped and reaped): nothing to stop any more.
pub fn clear_build_group(tree: &Path) -> Result<(), VariantError> {
    let path = group_file(tree);
    match std::fs::remove_file(&path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(VariantError::io("remove", &path)(error)),
        _ => Ok(()),
    }
}

/// Kills a recorded build group left by a dead sweep (only processes sweep started: the group id may
/// have been reused since) and waits until none of them remain.
/// A record half-written by a sweep killed while recording is removed: its build never started.
pub fn stop_orphaned_build(tree: &Path) -> Result<(), VariantError> {
    let path = group_file(tree);
    remove_stale_temp(&path).map_err(VariantError::io("remove a half-written copy of", &path))?;
    let Ok(text) = crate::read_limit::ReadLimit::JOURNAL.read_to_string(&path) else { return Ok(()) };
    if let Ok(pgid) = text.trim().parse::<i32>() {
        let deadline = Instant::now() + REAP_WAIT;
        // Recovery runs before any measurement, so a short sleep loop here perturbs nothing.
        while crate::launch::kill_sweep_group(Pid::from_raw(pgid)) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    clear_build_group(tree)
}

/// For tests: a stand-in for a build a killed sweep left running (a `sleep` leading its own group,
/// marked as sweep's), recorded for `tree`; the handle's join says how it ended.
#[cfg(test)]
pub(crate) fn left_running_build(tree: &Path) -> std::thread::JoinHandle<std::process::ExitStatus> {
    use std::os::unix::process::CommandExt;
    let mut child = std::process::Command::new("sleep")
        .arg("30")
        .env(crate::launch::OWNER_VAR, "1-0")
        .process_group(0)
        .spawn()
        .unwrap();
    record_build_group(tree, child.id() as i32).unwrap();
    std::thread::spawn(move || child.wait().unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_orphaned_build_group_is_killed_before_recovery_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let build = left_running_build(dir.path());
        stop_orphaned_build(dir.path()).unwrap();
        assert!(!build.join().unwrap().success());
        assert!(!group_file(dir.path()).exists());
        stop_orphaned_build(dir.path()).unwrap();
    }

    #[test]
    fn a_half_written_record_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
        std::fs::write(crate::atomic_file::temp_path(&group_file(dir.path())), "123").unwrap();
        assert!(build_group_recorded(dir.path()));
        stop_orphaned_build(dir.path()).unwrap();
        assert!(!build_group_recorded(dir.path()));
    }
}
