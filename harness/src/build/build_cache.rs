//! `BuildCache`: one directory per build key holding the variant's tree copy, build dir, log and stamp,
//! each claimed by one sweep at a time (`EntryClaim`).

use std::fs;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::build_key::BuildKey;
use super::error::BuildError;
use crate::atomic_file::write_atomic;
use crate::file_lock::{FileLock, LockMode};
use crate::variants::{materialize_copy, stop_orphaned_build, RenderedFile};

const STAMP: &str = "complete";

/// Cached builds under `root`, keyed by `BuildKey`.
#[derive(Debug, Clone)]
pub struct BuildCache {
    pub root: PathBuf,
}

/// The paths of one cache entry `<root>/<key>/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedBuild {
    pub dir: PathBuf,
    /// The variant's copy of the engine tree: the build runs here.
    pub tree: PathBuf,
    /// The variant's build directory.
    pub build: PathBuf,
    pub log: PathBuf,
}

impl BuildCache {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        BuildCache { root: root.into() }
    }

    /// Where the entry for `key` lives, whether or not it has been built.
    pub fn entry(&self, key: &BuildKey) -> CachedBuild {
        let dir = self.root.join(key.to_string());
        CachedBuild { tree: dir.join("tree"), build: dir.join("build"), log: dir.join("build.log"), dir }
    }

    /// The entry for `key` if its build completed; an entry without the stamp is a failed or interrupted build.
    pub fn lookup(&self, key: &BuildKey) -> Option<CachedBuild> {
        let entry = self.entry(key);
        entry.dir.join(STAMP).is_file().then_some(entry)
    }

    /// Returns the completed entry, or materialises a fresh copy of `tree` with `files` rendered into it
    /// (discarding any partial entry first) and an empty build dir.
    pub fn prepare(
        &self,
        key: &BuildKey,
        tree: &Path,
        files: &[RenderedFile],
        exclude: &[String],
    ) -> Result<CachedBuild, BuildError> {
        if let Some(done) = self.lookup(key) {
            return Ok(done);
        }
        let entry = self.entry(key);
        if entry.dir.exists() {
            // A build of this entry killed with sweep may still have compilers writing into it.
            stop_orphaned_build(&entry.dir)?;
            fs::remove_dir_all(&entry.dir).map_err(BuildError::io("remove the partial cache entry", &entry.dir))?;
        }
        materialize_copy(tree, &entry.tree, files, exclude)?;
        fs::create_dir_all(&entry.build).map_err(BuildError::io("create", &entry.build))?;
        Ok(entry)
    }

    /// Stamps the entry complete (fsynced) after its build succeeded; only then does `lookup` find it.
    pub fn mark_complete(&self, key: &BuildKey) -> Result<(), BuildError> {
        let stamp = self.entry(key).dir.join(STAMP);
        write_atomic(&stamp, format!("{key}\n").as_bytes(), None).map_err(BuildError::io("write", &stamp))
    }
}

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
    fn prepare_copies_and_lookup_needs_the_stamp() {
        let engine = tempfile::tempdir().unwrap();
        fs::write(engine.path().join("gd.cpp"), "original").unwrap();
        let root = tempfile::tempdir().unwrap();
        let cache = BuildCache::new(root.path());
        let files = [RenderedFile { target: PathBuf::from("gd.cpp"), text: "ablated".to_string() }];
        let key = BuildKey::new(&files, &[], "tc", "src");
        let entry = cache.prepare(&key, engine.path(), &files, &[]).unwrap();
        assert_eq!(fs::read_to_string(entry.tree.join("gd.cpp")).unwrap(), "ablated");
        assert!(entry.build.is_dir());
        assert_eq!(cache.lookup(&key), None);
        cache.mark_complete(&key).unwrap();
        assert_eq!(cache.lookup(&key), Some(entry));
    }

    #[test]
    fn partial_entry_is_discarded_before_copying_again() {
        let engine = tempfile::tempdir().unwrap();
        fs::write(engine.path().join("gd.cpp"), "original").unwrap();
        let root = tempfile::tempdir().unwrap();
        let cache = BuildCache::new(root.path());
        let key = BuildKey::new(&[], &[], "tc", "src");
        let entry = cache.prepare(&key, engine.path(), &[], &[]).unwrap();
        fs::write(entry.build.join("half.o"), "junk").unwrap();
        let again = cache.prepare(&key, engine.path(), &[], &[]).unwrap();
        assert!(!again.build.join("half.o").exists());
    }

    #[test]
    fn preparing_a_partial_entry_again_first_stops_the_build_left_running_in_it() {
        let engine = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let cache = BuildCache::new(root.path());
        let key = BuildKey::new(&[], &[], "tc", "src");
        let entry = cache.prepare(&key, engine.path(), &[], &[]).unwrap();
        let build = crate::variants::left_running_build(&entry.dir);
        cache.prepare(&key, engine.path(), &[], &[]).unwrap();
        assert!(!build.join().unwrap().success(), "the orphaned build was not stopped");
    }

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
