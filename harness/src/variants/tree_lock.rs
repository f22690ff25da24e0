//! `TreeLock`: the flock on `<tree>/.sweep-inplace/lock` that stops two sweeps editing one engine tree.

use std::fs::{self, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::error::VariantError;
use super::journal_confinement::{directory_refusal, STATE_DIR};
use crate::file_lock::{FileLock, LockMode};

const LOCK_FILE: &str = "lock";
/// How long a shared taker waits out a momentary exclusive hold (see `acquire_shared`).
const SHARED_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// A flock on the tree's lock file: shared while sweep runs or builds in the tree (or copies it),
/// exclusive while an in-place ablation edits it. Released on drop; the last holder removes the file.
#[derive(Debug)]
pub struct TreeLock {
    tree: PathBuf,
    lock: FileLock,
}

impl TreeLock {
    /// The exclusive lock of an in-place ablation; any other holder (this process included) gives
    /// `Locked` naming its pid.
    pub fn acquire(tree: &Path) -> Result<Self, VariantError> {
        TreeLock::take(tree, LockMode::Exclusive)
    }

    /// The shared lock of a sweep that runs or builds in the tree: refused only by an in-place ablation.
    /// `None` for a tree sweep may not write to: no sweep of this user can ablate it in place either.
    /// Exclusive holds that are not ablations last milliseconds (a starting sweep tidying a stale lock
    /// file, a last shared holder unlinking it), so a busy lock is retried for `SHARED_PATIENCE`: two
    /// sweeps started together on one tree must not refuse each other; an ablation still refuses.
    pub fn acquire_shared(tree: &Path) -> Result<Option<Self>, VariantError> {
        let deadline = std::time::Instant::now() + SHARED_PATIENCE;
        loop {
            match TreeLock::take_shared(tree) {
                Err(VariantError::Locked { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                taken => return taken,
            }
        }
    }

    fn take_shared(tree: &Path) -> Result<Option<Self>, VariantError> {
        let taken = TreeLock::take(tree, LockMode::Shared);
        if taken.is_ok() {
            // Sweep's lock is in the tree while it runs there: keep it out of a checkout's `git status`.
            exclude_state_dir(tree);
        }
        match taken {
            Err(VariantError::Io { error, .. })
                if matches!(error.raw_os_error(), Some(nix::libc::EACCES | nix::libc::EROFS | nix::libc::EPERM)) =>
            {
                Ok(None)
            }
            taken => taken.map(Some),
        }
    }

    fn take(tree: &Path, mode: LockMode) -> Result<Self, VariantError> {
        let state = tree.join(STATE_DIR);
        let path = state.join(LOCK_FILE);
        // The file may be unlinked by a releasing holder between our open and our flock; then the lock we got
        // is on a dead inode and another process could lock a fresh one, so retry until the inodes agree.
        // The last holder also removes the state directory, so it is made again on every try.
        loop {
            fs::create_dir_all(&state).map_err(VariantError::io("create", &state))?;
            if let Some(reason) = directory_refusal(&state) {
                return Err(VariantError::UnsafeState { path: state, reason });
            }
            // Never through a symbolic link: the pid is written into the file, which must be sweep's own.
            let opened = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .custom_flags(nix::libc::O_NOFOLLOW)
                .open(&path);
            let file = match opened {
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) if error.raw_os_error() == Some(nix::libc::ELOOP) => {
                    let reason = "the lock file is a symbolic link".to_string();
                    return Err(VariantError::UnsafeState { path, reason });
                }
                opened => opened.map_err(VariantError::io("open", &path))?,
            };
            match FileLock::try_lock(file, mode).map_err(VariantError::io("lock", &path))? {
                Ok(lock) if same_inode(lock.file(), &path) => {
                    if mode == LockMode::Exclusive {
                        write_pid(lock.file(), &path)?;
                    }
                    return Ok(TreeLock { tree: tree.to_path_buf(), lock });
                }
                Ok(_) => {}
                Err(holder) => {
                    // A holder that let go and removed the file is no holder: try the new file.
                    if path.exists() {
                        return Err(VariantError::Locked { tree: tree.to_path_buf(), holder });
                    }
                }
            }
        }
    }
}

/// Released on drop; the last holder also removes sweep's state directory when nothing else is left in it.
impl Drop for TreeLock {
    fn drop(&mut self) {
        // Only a holder that is alone may unlink: a shared holder proves it by turning exclusive.
        // A waiter that opened the old inode detects the unlink and retries.
        if self.lock.try_make_exclusive() {
            let state = self.tree.join(STATE_DIR);
            let _ = fs::remove_file(state.join(LOCK_FILE));
            let _ = fs::remove_dir(&state);
        }
    }
}

fn same_inode(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

/// For people looking at the tree; refusals read the holder from the kernel instead.
fn write_pid(mut file: &File, path: &Path) -> Result<(), VariantError> {
    file.set_len(0)
        .and_then(|_| file.seek(SeekFrom::Start(0)))
        .and_then(|_| writeln!(file, "{}", std::process::id()))
        .and_then(|_| file.sync_all())
        .map_err(VariantError::io("write the pid into", path))
}

/// Keeps sweep's state directory out of `git status` of an engine tree that is a git checkout: adds
/// `/.sweep-inplace/` to `<tree>/.git/info/exclude` once (never the tracked `.gitignore`). Only a real `.git` directory inside the
/// tree is written to (a worktree's `.git` file points outside the tree, where sweep writes nothing);
/// best effort: a checkout whose exclude file cannot be written still runs.
pub(super) fn exclude_state_dir(tree: &Path) {
    let git = tree.join(".git");
    let info = git.join("info");
    if !fs::symlink_metadata(&git).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    if fs::symlink_metadata(&info).is_err() && fs::create_dir(&info).is_err() {
        return;
    }
    if directory_refusal(&info).is_some() {
        return;
    }
    let exclude = info.join("exclude");
    let pattern = format!("/{STATE_DIR}/");
    let listed = fs::read_to_string(&exclude).unwrap_or_default();
    if listed.lines().any(|line| line.trim() == pattern || line.trim() == format!("{STATE_DIR}/")) {
        return;
    }
    let opened = OpenOptions::new().append(true).create(true).custom_flags(nix::libc::O_NOFOLLOW).open(&exclude);
    if let Ok(mut file) = opened {
        let separator = if listed.is_empty() || listed.ends_with('\n') { "" } else { "\n" };
        let _ = write!(file, "{separator}# sweep's in-place ablation state\n{pattern}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two `sweep run`s started together on one tree refused each other: one held the lock exclusively
    /// for an instant (tidying a stale lock file) just as the other asked for its shared lock.
    #[test]
    fn a_momentary_exclusive_hold_does_not_refuse_a_shared_taker() {
        let dir = tempfile::tempdir().unwrap();
        let exclusive = TreeLock::acquire(dir.path()).unwrap();
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            drop(exclusive);
        });
        assert!(TreeLock::acquire_shared(dir.path()).unwrap().is_some());
        releaser.join().unwrap();
    }

    #[test]
    fn second_acquire_in_the_same_process_is_refused_with_our_pid() {
        let dir = tempfile::tempdir().unwrap();
        let first = TreeLock::acquire(dir.path()).unwrap();
        match TreeLock::acquire(dir.path()).unwrap_err() {
            VariantError::Locked { holder, .. } => assert_eq!(holder.pid, Some(std::process::id())),
            other => panic!("expected Locked, got {other}"),
        }
        drop(first);
        drop(TreeLock::acquire(dir.path()).unwrap());
        assert!(!dir.path().join(STATE_DIR).exists(), "state directory left behind");
    }

    #[test]
    fn shared_holders_keep_out_an_in_place_ablation_and_the_last_one_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let first = TreeLock::acquire_shared(dir.path()).unwrap().unwrap();
        let second = TreeLock::acquire_shared(dir.path()).unwrap().unwrap();
        let refused = TreeLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(refused.contains(&format!("locked by sweep pid {}", std::process::id())), "{refused}");
        drop(first);
        assert!(dir.path().join(STATE_DIR).join(LOCK_FILE).exists(), "a shared holder removed a lock in use");
        assert!(TreeLock::acquire(dir.path()).is_err());
        drop(second);
        assert!(!dir.path().join(STATE_DIR).exists(), "state directory left behind");
        let exclusive = TreeLock::acquire(dir.path()).unwrap();
        assert!(TreeLock::acquire_shared(dir.path()).is_err());
        drop(exclusive);
    }

    #[test]
    fn a_read_only_tree_is_run_in_without_a_lock() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o555)).unwrap();
        let writable = fs::create_dir(dir.path().join("probe")).is_ok(); // root writes anyway
        let lock = TreeLock::acquire_shared(dir.path()).unwrap();
        assert_eq!(lock.is_some(), writable);
        drop(lock);
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn dropping_the_lock_releases_it() {
        let dir = tempfile::tempdir().unwrap();
        drop(TreeLock::acquire(dir.path()).unwrap());
        TreeLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn the_state_dir_is_excluded_once_in_a_checkout_and_nothing_is_written_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        exclude_state_dir(dir.path());
        assert!(!dir.path().join(".git").exists(), "a tree that is no checkout got a .git");
        fs::create_dir_all(dir.path().join(".git/info")).unwrap();
        fs::write(dir.path().join(".git/info/exclude"), "*.o").unwrap();
        exclude_state_dir(dir.path());
        exclude_state_dir(dir.path());
        let text = fs::read_to_string(dir.path().join(".git/info/exclude")).unwrap();
        assert_eq!(text, "*.o\n# sweep's in-place ablation state\n/.sweep-inplace/\n");
    }

    #[test]
    fn a_git_file_pointing_elsewhere_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".git"), "gitdir: /elsewhere\n").unwrap();
        exclude_state_dir(dir.path());
        assert_eq!(fs::read_to_string(dir.path().join(".git")).unwrap(), "gitdir: /elsewhere\n");
    }
}
