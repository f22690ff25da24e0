//! `VariantSite`: where one setting's build of the engine lives, and where a sweep caches its builds.

use std::path::{Path, PathBuf};

use crate::declare::Sweep;

/// One variant's build of the engine: where its tree and binary are, and its content hash.
#[derive(Debug, Clone)]
pub struct VariantSite {
    pub name: String,
    pub tree: PathBuf,
    pub build_dir: PathBuf,
    pub hash: String,
}

impl VariantSite {
    /// Where the build of variant `name` lives before anything is built: the engine's own tree and build
    /// dir, or (`copied`) a cache entry under `results_dir` named by its key, known once copied.
    pub fn planned(sweep: &Sweep, results_dir: &Path, name: &str, copied: bool) -> VariantSite {
        let (tree, build_dir) = match copied {
            true => {
                (cache_root(results_dir, sweep).join("<key>/tree"), cache_root(results_dir, sweep).join("<key>/build"))
            }
            false => (sweep.engine.tree.clone(), sweep.engine.build_dir.clone()),
        };
        VariantSite { name: name.to_string(), tree, build_dir, hash: String::new() }
    }
}

/// Where a sweep's variant builds are cached (kept across invocations, so a rerun rebuilds nothing).
///
/// Absolute: builds run with the variant's copy as their working directory.
pub fn cache_root(results_dir: &Path, sweep: &Sweep) -> PathBuf {
    let root = results_dir.join(&sweep.name).join("build-cache");
    std::path::absolute(&root).unwrap_or(root)
}
