//! `BuildCache`: one directory per build key holding the variant's tree copy, build dir, log and stamp.

use std::fs;
use std::path::{Path, PathBuf};

use super::build_key::BuildKey;
use super::error::BuildError;
use crate::atomic_file::write_atomic;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
