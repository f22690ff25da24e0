//! `TreeLock`: the flock on `<tree>/.sweep-inplace/lock` that stops two sweeps editing one engine tree.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use super::error::VariantError;

/// Sweep's own directory inside an engine tree during an in-place ablation.
pub const STATE_DIR: &str = ".sweep-inplace";
const LOCK_FILE: &str = "lock";

/// An exclusive flock on the tree's lock file, which holds the holder's pid; released on drop.
#[derive(Debug)]
pub struct TreeLock {
    tree: PathBuf,
    file: Flock<File>,
}

impl TreeLock {
    /// Takes the lock without waiting; a live holder (this process included) gives `Locked` with its pid.
    pub fn acquire(tree: &Path) -> Result<Self, VariantError> {
        let state = tree.join(STATE_DIR);
        fs::create_dir_all(&state).map_err(VariantError::io("create", &state))?;
        let path = state.join(LOCK_FILE);
        // The file may be unlinked by a releasing holder between our open and our flock; then the lock we got
        // is on a dead inode and another process could lock a fresh one, so retry until the inodes agree.
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(VariantError::io("open", &path))?;
            let mut locked = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(locked) => locked,
                Err((mut file, Errno::EWOULDBLOCK)) => {
                    return Err(VariantError::Locked { tree: tree.to_path_buf(), pid: holder_pid(&mut file) })
                }
                Err((_, errno)) => return Err(VariantError::Io { action: "lock", path, source: errno.into() }),
            };
            if same_inode(&locked, &path) {
                write_pid(&mut locked, &path)?;
                return Ok(TreeLock { tree: tree.to_path_buf(), file: locked });
            }
        }
    }

    /// Releases the lock and removes sweep's state directory when nothing else is left in it.
    pub fn release(self) {
        let state = self.tree.join(STATE_DIR);
        // Unlink while still holding the lock; a waiter that opened the old inode detects it and retries.
        let _ = fs::remove_file(state.join(LOCK_FILE));
        let _ = fs::remove_dir(&state);
        drop(self.file);
    }
}

fn same_inode(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

fn write_pid(file: &mut File, path: &Path) -> Result<(), VariantError> {
    file.set_len(0)
        .and_then(|_| file.seek(SeekFrom::Start(0)))
        .and_then(|_| writeln!(file, "{}", std::process::id()))
        .and_then(|_| file.sync_all())
        .map_err(VariantError::io("write the pid into", path))
}

/// The pid the holder wrote; 0 when it has not written it yet (it takes the lock first).
fn holder_pid(file: &mut File) -> u32 {
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    text.trim().parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_acquire_in_the_same_process_is_refused_with_our_pid() {
        let dir = tempfile::tempdir().unwrap();
        let first = TreeLock::acquire(dir.path()).unwrap();
        match TreeLock::acquire(dir.path()).unwrap_err() {
            VariantError::Locked { pid, .. } => assert_eq!(pid, std::process::id()),
            other => panic!("expected Locked, got {other}"),
        }
        first.release();
        TreeLock::acquire(dir.path()).unwrap().release();
        assert!(!dir.path().join(STATE_DIR).exists(), "state directory left behind");
    }

    #[test]
    fn dropping_the_lock_releases_it() {
        let dir = tempfile::tempdir().unwrap();
        drop(TreeLock::acquire(dir.path()).unwrap());
        TreeLock::acquire(dir.path()).unwrap();
    }
}
