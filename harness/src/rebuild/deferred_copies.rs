//! `DeferredCopies`: the copies of the engine tree a search's builds need, each made when its build is
//! first needed rather than all before the first run: a search visits few of its tuples.

use std::collections::HashMap;
use std::path::PathBuf;

use super::build_cache::{BuildCache, BuildKey};
use super::error::BuildError;
use crate::variants::RenderedFile;

/// Per build key not copied yet, the files rendered into its copy of `tree` (top-level `exclude` left out).
#[derive(Debug, Default)]
pub struct DeferredCopies {
    tree: PathBuf,
    exclude: Vec<String>,
    files: HashMap<BuildKey, Vec<RenderedFile>>,
}

impl DeferredCopies {
    /// Copies of `tree`, less its top-level `exclude`, none made yet.
    pub fn of(tree: PathBuf, exclude: Vec<String>) -> DeferredCopies {
        DeferredCopies { tree, exclude, files: HashMap::new() }
    }

    /// Keeps `files` to render into `key`'s copy when it is made.
    pub fn defer(&mut self, key: BuildKey, files: Vec<RenderedFile>) {
        self.files.insert(key, files);
    }

    /// Makes `key`'s copy in `cache` unless it was made (or never deferred); a completed entry is kept.
    pub fn make(&mut self, cache: &BuildCache, key: &BuildKey) -> Result<(), BuildError> {
        let Some(files) = self.files.remove(key) else { return Ok(()) };
        cache.prepare(key, &self.tree, &files, &self.exclude).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_made_when_asked_for_once_and_not_before() {
        let tree = tempfile::tempdir().unwrap();
        std::fs::write(tree.path().join("kernel.txt"), "shipped\n").unwrap();
        std::fs::create_dir(tree.path().join("build")).unwrap();
        let root = tempfile::tempdir().unwrap();
        let cache = BuildCache::new(root.path().join("cache"));
        let key = BuildKey::new(&[], &["make".to_string()], "cc 1", "tree-1");
        let mut copies = DeferredCopies::of(tree.path().to_path_buf(), vec!["build".to_string()]);
        copies.defer(key, Vec::new());
        let entry = cache.entry(&key);
        assert!(!entry.tree.exists(), "deferred: nothing copied yet");
        copies.make(&cache, &key).unwrap();
        assert_eq!(std::fs::read_to_string(entry.tree.join("kernel.txt")).unwrap(), "shipped\n");
        assert!(!entry.tree.join("build").exists(), "the build dir is left out");
        std::fs::write(entry.tree.join("kernel.txt"), "built from\n").unwrap();
        copies.make(&cache, &key).unwrap();
        assert_eq!(std::fs::read_to_string(entry.tree.join("kernel.txt")).unwrap(), "built from\n", "made once");
    }
}
