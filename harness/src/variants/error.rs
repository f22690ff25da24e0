//! `VariantError`: every way rendering, isolating or restoring a variant can fail.

use std::path::PathBuf;

use crate::declare::SelectorError;
use crate::file_lock::{Holder, LockMode};
use crate::template::TemplateError;

/// Why a variant could not be rendered, materialised, applied or restored; each names the file involved.
#[derive(Debug, thiserror::Error)]
pub enum VariantError {
    // Not a `source`: the message already says it, and `{:#}` would print it twice.
    #[error("{}: could not {action}", crate::os_error::describe(error, path))]
    Io { action: &'static str, path: PathBuf, error: std::io::Error },

    #[error("{template}: the template did not render: {source}")]
    Template { template: PathBuf, source: TemplateError },

    #[error("{template}:{line}: `ablate.{group}` names no declared ablation group (declared: {declared})")]
    UnknownGroup { template: PathBuf, line: usize, group: String, declared: String },

    #[error("{target}: a target path outside the engine tree {tree} (or in its .git, or sweep's state) is refused")]
    OutsideTree { target: PathBuf, tree: PathBuf },

    #[error(
        "{template}: the template is out of date: rendered with nothing ablated it differs from {target} \
         at line {line} (template says {template_says:?}, source says {source_says:?})"
    )]
    Stale { template: PathBuf, target: PathBuf, line: usize, template_says: String, source_says: String },

    #[error("{file}: {reason}")]
    Selector { file: PathBuf, reason: Box<SelectorError> },

    #[error("{tree}: the engine tree is locked by {holder}{}", doing(holder))]
    Locked { tree: PathBuf, holder: Holder },

    #[error("{path}: the in-place journal is unreadable: {reason}")]
    Journal { path: PathBuf, reason: String },

    /// Sweep's state in a tree (its journal, saved copies, lock) that it did not write as it writes it.
    #[error(
        "{path}: refused, the tree is left as it is: {reason} (sweep keeps its state in real files inside \
         the tree and restores only files inside it, from its own saved copies)"
    )]
    UnsafeState { path: PathBuf, reason: String },

    #[error(
        "{build_dir}: an in-place ablation left a variant's build here; run without --no-build so the \
         restored engine is rebuilt before it is measured"
    )]
    VariantBuildLeft { build_dir: PathBuf },

    #[error(
        "{program}: rebuilt after an in-place ablation, it is not the baseline binary recorded before it \
         (sha256 {actual}, was {expected}) though the sources are the same: an ablated object survived; \
         remove {build_dir} and build again"
    )]
    NotBaseline { program: PathBuf, build_dir: PathBuf, expected: String, actual: String },

    #[error("{saved}: the saved original of {target} is corrupt (sha256 {actual}, journal says {expected}); nothing was restored from it")]
    CorruptOriginal { saved: PathBuf, target: PathBuf, expected: String, actual: String },
}

impl VariantError {
    /// Builds a closure for `map_err` that tags an io error with what was being done to which file.
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |error| VariantError::Io { action, path, error }
    }

    /// Whether the templates or declaration are at fault, or the operating system refused a file (exit 2),
    /// rather than a build or a run (exit 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            VariantError::Io { .. }
                | VariantError::Template { .. }
                | VariantError::UnknownGroup { .. }
                | VariantError::OutsideTree { .. }
                | VariantError::UnsafeState { .. }
                | VariantError::CorruptOriginal { .. }
                | VariantError::Stale { .. }
                | VariantError::Selector { .. }
        )
    }
}

/// What the holder of a tree lock is doing there.
fn doing(holder: &Holder) -> &'static str {
    match holder.mode {
        LockMode::Exclusive => ", which is ablating it in place",
        LockMode::Shared => ", which is running or building in it",
    }
}
