//! `VariantBuildMark`: the note an in-place ablation leaves in the engine's build dir, which holds a
//! variant's objects and binary once the sources are restored. The next `sweep run` rebuilds and
//! checks the binary against the baseline recorded before the ablation; `--no-build` is refused.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::copy_isolation::tree_fingerprint;
use super::error::VariantError;
use super::journal_confinement::STATE_DIR;
use crate::atomic_file::write_atomic;
use crate::ground::sha256_hex;

const MARK_FILE: &str = ".sweep-variant-build";

/// What the build dir held before the first in-place rendering.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantBuildMark {
    /// sha256 of the engine binary built from the shipped sources; empty when none was built.
    pub baseline_program: String,
    /// `tree_fingerprint` of the shipped sources (build dir and sweep state left out).
    pub sources: String,
}

impl VariantBuildMark {
    /// Marks `build_dir` before an in-place ablation renders `tree`. A mark already there is kept:
    /// its baseline predates the binary now in the build dir, which may be a variant's.
    pub fn record(tree: &Path, build_dir: &Path, program: &Path) -> Result<(), VariantError> {
        let path = mark_path(build_dir);
        if path.exists() {
            return Ok(());
        }
        let mark = VariantBuildMark {
            baseline_program: fs::read(program).map(|bytes| sha256_hex(&bytes)).unwrap_or_default(),
            sources: sources_fingerprint(tree, build_dir)?,
        };
        fs::create_dir_all(build_dir).map_err(VariantError::io("create", build_dir))?;
        let text = serde_json::to_vec_pretty(&mark).expect("plain strings serialise");
        write_atomic(&path, &text, None).map_err(VariantError::io("write", &path))
    }

    /// The mark in `build_dir`, if an in-place ablation left one.
    pub fn load(build_dir: &Path) -> Result<Option<VariantBuildMark>, VariantError> {
        let path = mark_path(build_dir);
        match fs::read(&path) {
            Ok(text) => serde_json::from_slice(&text)
                .map(Some)
                .map_err(|error| VariantError::Journal { path, reason: error.to_string() }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(VariantError::Io { action: "read", path, error }),
        }
    }

    /// `sweep run --no-build` on a marked build dir would measure a variant as the engine: refused.
    pub fn refuse_unbuilt(build_dir: &Path) -> Result<(), VariantError> {
        match VariantBuildMark::load(build_dir)? {
            Some(_) => Err(VariantError::VariantBuildLeft { build_dir: build_dir.to_path_buf() }),
            None => Ok(()),
        }
    }

    /// After a rebuild of the restored tree: the binary must be the recorded baseline's when the
    /// sources are still the shipped ones (else an ablated object survived); then the mark goes.
    pub fn verify_rebuilt(tree: &Path, build_dir: &Path, program: &Path) -> Result<(), VariantError> {
        let Some(mark) = VariantBuildMark::load(build_dir)? else { return Ok(()) };
        let comparable = !mark.baseline_program.is_empty() && mark.sources == sources_fingerprint(tree, build_dir)?;
        if comparable {
            let actual =
                fs::read(program).map(|bytes| sha256_hex(&bytes)).map_err(VariantError::io("read", program))?;
            if actual != mark.baseline_program {
                return Err(VariantError::NotBaseline {
                    program: program.to_path_buf(),
                    build_dir: build_dir.to_path_buf(),
                    expected: mark.baseline_program,
                    actual,
                });
            }
        }
        let path = mark_path(build_dir);
        fs::remove_file(&path).map_err(VariantError::io("remove", &path))
    }
}

fn mark_path(build_dir: &Path) -> PathBuf {
    build_dir.join(MARK_FILE)
}

/// The sources' fingerprint, leaving out a build dir that lives inside the tree.
fn sources_fingerprint(tree: &Path, build_dir: &Path) -> Result<String, VariantError> {
    let mut exclude = vec![STATE_DIR.to_string()];
    let tree = tree.canonicalize().map_err(VariantError::io("resolve", tree))?;
    let build = std::path::absolute(build_dir).unwrap_or_else(|_| build_dir.to_path_buf());
    let build = build.canonicalize().unwrap_or(build);
    if let Ok(inside) = build.strip_prefix(&tree) {
        exclude.extend(inside.components().next().map(|first| first.as_os_str().to_string_lossy().into_owned()));
    }
    tree_fingerprint(&tree, &exclude)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree_with_build(binary: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("gd.cpp"), "shipped").unwrap();
        fs::create_dir_all(dir.path().join("build")).unwrap();
        fs::write(dir.path().join("build/engine"), binary).unwrap();
        dir
    }

    #[test]
    fn a_marked_build_dir_is_refused_unbuilt_and_accepted_once_rebuilt_to_the_baseline() {
        let tree = tree_with_build("baseline binary");
        let (build, program) = (tree.path().join("build"), tree.path().join("build/engine"));
        VariantBuildMark::record(tree.path(), &build, &program).unwrap();
        fs::write(&program, "variant binary").unwrap();
        VariantBuildMark::record(tree.path(), &build, &program).unwrap();
        assert!(VariantBuildMark::refuse_unbuilt(&build).unwrap_err().to_string().contains("--no-build"));
        let error = VariantBuildMark::verify_rebuilt(tree.path(), &build, &program).unwrap_err();
        assert!(matches!(error, VariantError::NotBaseline { .. }), "{error}");
        fs::write(&program, "baseline binary").unwrap();
        VariantBuildMark::verify_rebuilt(tree.path(), &build, &program).unwrap();
        VariantBuildMark::refuse_unbuilt(&build).unwrap();
    }

    #[test]
    fn edited_sources_make_a_different_binary_legitimately() {
        let tree = tree_with_build("baseline binary");
        let (build, program) = (tree.path().join("build"), tree.path().join("build/engine"));
        VariantBuildMark::record(tree.path(), &build, &program).unwrap();
        fs::write(tree.path().join("gd.cpp"), "edited by the user").unwrap();
        fs::write(&program, "new binary").unwrap();
        VariantBuildMark::verify_rebuilt(tree.path(), &build, &program).unwrap();
        assert_eq!(VariantBuildMark::load(&build).unwrap(), None);
    }
}
