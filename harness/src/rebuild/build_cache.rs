//! `BuildCache`: one directory per build key holding the variant's tree copy, build dir, log and stamp,
//! each claimed by one sweep at a time (`EntryClaim`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::error::BuildError;
use crate::atomic_file::write_atomic_in;
use crate::confined_dir::ConfinedDir;
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

    /// The cache's folder, made when missing; its entries are reached from it without following a link.
    pub fn folder(&self) -> Result<ConfinedDir, BuildError> {
        ConfinedDir::create(&self.root).map_err(BuildError::io("create", &self.root))
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
        self.prepare_with(key, &|copy| Ok(materialize_copy(tree, copy, files, exclude)?))
    }

    /// Returns the completed entry, or makes it anew (discarding any partial entry first) with an empty
    /// build dir and its tree made by `fill(tree)`: a copy of the engine tree, or a commit's export.
    pub fn prepare_with(
        &self,
        key: &BuildKey,
        fill: &dyn Fn(&Path) -> Result<(), BuildError>,
    ) -> Result<CachedBuild, BuildError> {
        if let Some(done) = self.lookup(key) {
            return Ok(done);
        }
        let entry = self.entry(key);
        if entry.dir.symlink_metadata().is_ok_and(|meta| meta.is_dir()) {
            // A build of this entry killed with sweep may still have compilers writing into it.
            stop_orphaned_build(&entry.dir)?;
        }
        // Made anew: a partial entry goes, and so does a link planted at its name (never followed).
        let root = self.folder()?;
        root.fresh_dir(&entry.dir).map_err(BuildError::io("replace the partial cache entry", &entry.dir))?;
        fill(&entry.tree)?;
        root.create_dir_all(&entry.build).map_err(BuildError::io("create", &entry.build))?;
        Ok(entry)
    }

    /// Stamps the entry complete (fsynced) after its build succeeded; only then does `lookup` find it.
    pub fn mark_complete(&self, key: &BuildKey) -> Result<(), BuildError> {
        let stamp = self.entry(key).dir.join(STAMP);
        write_atomic_in(&self.folder()?, &stamp, format!("{key}\n").as_bytes(), None)
            .map_err(BuildError::io("write", &stamp))
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
        let folder = ConfinedDir::create(root).map_err(BuildError::io("create", root))?;
        let path = root.join(format!("{key}.lock"));
        let mut told = false;
        loop {
            let file = folder.open_read_write(&path, true).map_err(BuildError::io("open", &path))?;
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

/// sha256 over the rendered sources, the build argv, the toolchain id and the engine source id; equal keys
/// mean an identical build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BuildKey([u8; 32]);

/// Hex characters shown and used as the cache directory name: 64 bits, ample for a handful of variants.
const SHOWN_HEX: usize = 16;

impl BuildKey {
    /// `source_id` identifies the rest of the engine tree (e.g. `variants::tree_fingerprint`), so editing an
    /// untemplated source also rebuilds. Files are hashed in target order, so their order does not matter.
    pub fn new(files: &[RenderedFile], argv: &[String], toolchain_id: &str, source_id: &str) -> Self {
        let mut sorted: Vec<&RenderedFile> = files.iter().collect();
        sorted.sort_by(|a, b| a.target.cmp(&b.target));
        let mut hasher = Sha256::new();
        // Every field is length-prefixed so ("ab", "c") and ("a", "bc") hash differently.
        let mut field = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        field(&(sorted.len() as u64).to_le_bytes());
        for file in sorted {
            field(file.target.as_os_str().as_encoded_bytes());
            field(file.text.as_bytes());
        }
        field(&(argv.len() as u64).to_le_bytes());
        for arg in argv {
            field(arg.as_bytes());
        }
        field(toolchain_id.as_bytes());
        field(source_id.as_bytes());
        BuildKey(hasher.finalize().into())
    }
}

impl fmt::Display for BuildKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex: String = self.0.iter().map(|byte| format!("{byte:02x}")).collect();
        f.write_str(&hex[..SHOWN_HEX])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::PathBuf;
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

    fn file(target: &str, text: &str) -> RenderedFile {
        RenderedFile { target: PathBuf::from(target), text: text.to_string() }
    }

    fn argv() -> Vec<String> {
        vec!["make".to_string(), "BUILD_DIR=b".to_string()]
    }

    #[test]
    fn key_changes_with_text_argv_toolchain_and_source() {
        let base = BuildKey::new(&[file("a.cpp", "x")], &argv(), "gcc 13", "tree1");
        assert_eq!(base, BuildKey::new(&[file("a.cpp", "x")], &argv(), "gcc 13", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("a.cpp", "y")], &argv(), "gcc 13", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("b.cpp", "x")], &argv(), "gcc 13", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("a.cpp", "x")], &argv()[..1], "gcc 13", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("a.cpp", "x")], &argv(), "gcc 14", "tree1"));
        assert_ne!(base, BuildKey::new(&[file("a.cpp", "x")], &argv(), "gcc 13", "tree2"));
    }

    #[test]
    fn field_boundaries_matter_and_file_order_does_not() {
        let split = |a: &str, b: &str| BuildKey::new(&[], &[a.to_string(), b.to_string()], "", "");
        assert_ne!(split("ab", "c"), split("a", "bc"));
        let ab = BuildKey::new(&[file("a", "1"), file("b", "2")], &[], "", "");
        let ba = BuildKey::new(&[file("b", "2"), file("a", "1")], &[], "", "");
        assert_eq!(ab, ba);
    }

    #[test]
    fn display_is_sixteen_hex_chars() {
        let shown = BuildKey::new(&[], &[], "", "").to_string();
        assert_eq!(shown.len(), 16);
        assert!(shown.chars().all(|c| c.is_ascii_hexdigit()), "{shown}");
    }
}
