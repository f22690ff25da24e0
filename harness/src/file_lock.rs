//! `FileLock`: a flock taken without waiting, shared or exclusive. A refusal names the holder from
//! /proc/locks, the kernel's own record of live locks, so it never shows a stale pid or `pid 0`.

use std::fmt;
use std::fs::File;
use std::os::unix::fs::MetadataExt;

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

/// Many readers, or one writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    Shared,
    Exclusive,
}

/// Who holds a lock we could not take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holder {
    /// `None` when the holder let go between our attempt and the look at /proc/locks.
    pub pid: Option<u32>,
    pub mode: LockMode,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "sweep pid {pid}"),
            None => write!(f, "another sweep (it has just let go; try again)"),
        }
    }
}

/// A held flock; released when dropped.
#[derive(Debug)]
pub struct FileLock {
    file: Flock<File>,
}

impl FileLock {
    /// Locks `file` without waiting: `Ok(Err(holder))` when someone else holds a conflicting lock.
    pub fn try_lock(file: File, mode: LockMode) -> std::io::Result<Result<FileLock, Holder>> {
        let arg = match mode {
            LockMode::Shared => FlockArg::LockSharedNonblock,
            LockMode::Exclusive => FlockArg::LockExclusiveNonblock,
        };
        match Flock::lock(file, arg) {
            Ok(file) => Ok(Ok(FileLock { file })),
            Err((file, Errno::EWOULDBLOCK)) => Ok(Err(holder_of(&file, mode))),
            Err((_, errno)) => Err(errno.into()),
        }
    }

    /// Turns the lock exclusive if nobody else holds it; `false` (and possibly no lock at all any
    /// more: flock converts by unlocking first) otherwise. For a holder about to let go.
    pub fn try_make_exclusive(&self) -> bool {
        self.file.relock(FlockArg::LockExclusiveNonblock).is_ok()
    }

    pub fn file(&self) -> &File {
        &self.file
    }
}

/// The holder of a flock on `file`'s inode conflicting with `wanted`, from /proc/locks lines such as
/// `1: FLOCK  ADVISORY  WRITE 2263 00:16:1234 0 EOF`.
fn holder_of(file: &File, wanted: LockMode) -> Holder {
    let unknown = Holder { pid: None, mode: LockMode::Exclusive };
    let Ok(meta) = file.metadata() else { return unknown };
    let device = format!("{:02x}:{:02x}", nix::sys::stat::major(meta.dev()), nix::sys::stat::minor(meta.dev()));
    let inode = format!("{device}:{}", meta.ino());
    let locks = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    locks
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let at = fields.iter().position(|field| *field == "FLOCK")?;
            let (access, pid, id) = (fields.get(at + 2)?, fields.get(at + 3)?, fields.get(at + 4)?);
            let mode = if *access == "READ" { LockMode::Shared } else { LockMode::Exclusive };
            (*id == inode && !fields.contains(&"->")).then(|| Holder { pid: pid.parse().ok(), mode })
        })
        // A shared request conflicts only with the writer; an exclusive one with anybody.
        .find(|holder| wanted == LockMode::Exclusive || holder.mode == LockMode::Exclusive)
        .unwrap_or(unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &std::path::Path) -> File {
        std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).unwrap()
    }

    #[test]
    fn shared_locks_coexist_and_keep_out_an_exclusive_one_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = FileLock::try_lock(open(&path), LockMode::Shared).unwrap().unwrap();
        let second = FileLock::try_lock(open(&path), LockMode::Shared).unwrap().unwrap();
        let refused = FileLock::try_lock(open(&path), LockMode::Exclusive).unwrap().unwrap_err();
        assert_eq!(refused, Holder { pid: Some(std::process::id()), mode: LockMode::Shared });
        assert!(!first.try_make_exclusive(), "upgraded while another shared holder is there");
        drop(second);
        drop(first);
        let writer = FileLock::try_lock(open(&path), LockMode::Exclusive).unwrap().unwrap();
        let refused = FileLock::try_lock(open(&path), LockMode::Shared).unwrap().unwrap_err();
        assert_eq!(refused.mode, LockMode::Exclusive);
        assert_eq!(refused.to_string(), format!("sweep pid {}", std::process::id()));
        drop(writer);
    }
}
