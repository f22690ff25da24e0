//! `EntryClaim`: one sweep's exclusive hold on a build cache entry while it prepares and builds it.

use std::fs::OpenOptions;
use std::time::Duration;

use super::build_key::BuildKey;
use super::error::BuildError;
use crate::file_lock::{FileLock, LockMode};

/// How long a sweep sleeps between looks at an entry another sweep is building.
const POLL: Duration = Duration::from_millis(250);

/// Held from preparing an entry's copy until its build is stamped complete (or has failed), so sweeps
/// sharing a cache (concurrent shards of a build-time sweep, ablations started together) never copy,
/// build or discard one entry at once. The flock goes with the process, so a killed sweep's claim ends
/// with it and its partial entry is discarded by the next claimant.
#[derive(Debug)]
pub struct EntryClaim {
    _lock: FileLock,
}

impl EntryClaim {
    /// Claims the entry for `key` under `root` (its lock file `<key>.lock` sits beside the entry, which
    /// is removed and made again). While another sweep holds it, waits, telling `waiting` once who
    /// holds it; a signal reported by `stop()` ends the wait as an interrupted build.
    pub fn acquire(
        root: &std::path::Path,
        key: &BuildKey,
        waiting: &dyn Fn(&str),
        stop: &dyn Fn() -> Option<i32>,
    ) -> Result<EntryClaim, BuildError> {
        std::fs::create_dir_all(root).map_err(BuildError::io("create", root))?;
        let path = root.join(format!("{key}.lock"));
        let mut told = false;
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(BuildError::io("open", &path))?;
            let holder = match FileLock::try_lock(file, LockMode::Exclusive).map_err(BuildError::io("lock", &path))? {
                Ok(lock) => return Ok(EntryClaim { _lock: lock }),
                Err(holder) => holder,
            };
            if let Some(signal) = stop() {
                return Err(BuildError::Interrupted { variant: key.to_string(), signal });
            }
            if !told {
                waiting(&format!("waiting for {holder}, which is building {}", root.join(key.to_string()).display()));
                told = true;
            }
            std::thread::sleep(POLL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    #[test]
    fn a_second_claim_waits_for_the_first_to_end() {
        let root = tempfile::tempdir().unwrap();
        let key = BuildKey::new(&[], &[], "tc", "src");
        let first = EntryClaim::acquire(root.path(), &key, &|_| panic!("nobody holds it"), &|| None).unwrap();
        let (claimed, got) = mpsc::channel();
        let notes = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let second =
                    EntryClaim::acquire(root.path(), &key, &|_| _ = notes.fetch_add(1, Ordering::SeqCst), &|| None);
                claimed.send(second.is_ok()).unwrap();
            });
            std::thread::sleep(3 * POLL);
            assert!(got.try_recv().is_err(), "the second claim did not wait");
            drop(first);
            assert_eq!(got.recv_timeout(Duration::from_secs(10)), Ok(true));
        });
        assert_eq!(notes.load(Ordering::SeqCst), 1, "told once who holds it");
    }

    #[test]
    fn a_signal_ends_the_wait_as_an_interrupted_build() {
        let root = tempfile::tempdir().unwrap();
        let key = BuildKey::new(&[], &[], "tc", "src");
        let _held = EntryClaim::acquire(root.path(), &key, &|_| {}, &|| None).unwrap();
        let waited = EntryClaim::acquire(root.path(), &key, &|_| {}, &|| Some(15));
        assert!(matches!(waited, Err(BuildError::Interrupted { signal: 15, .. })), "{waited:?}");
    }
}
