//! `Recovery`: finishing an in-place ablation that was killed before it could restore the engine tree.

use std::path::{Path, PathBuf};

use super::error::VariantError;
use super::journal::Journal;
use super::journal_confinement::STATE_DIR;
use super::kept_edit::KeptEdit;
use super::tree_lock::TreeLock;

/// What a recovery put back, so the CLI can say "restored N file(s) from an interrupted in-place
/// ablation (pid P)", and where it kept the user's edits of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// The pid of the sweep that was interrupted.
    pub pid: u32,
    /// The restored targets, relative to the tree.
    pub restored: Vec<PathBuf>,
    /// Targets a user edited after they were rendered, and where their edits are now.
    pub kept: Vec<KeptEdit>,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files: Vec<String> = self.restored.iter().map(|path| path.display().to_string()).collect();
        write!(
            f,
            "restored {} file(s) from an interrupted in-place ablation (pid {}): {}",
            files.len(),
            self.pid,
            files.join(", ")
        )?;
        self.kept.iter().try_for_each(|kept| write!(f, "\nsweep: {kept}"))
    }
}

/// Restores the tree from a journal left by a dead sweep; `None` when there is nothing to recover and
/// `Locked` when a live sweep holds the tree (its journal is its own business).
pub fn recover_in_place(tree: &Path) -> Result<Option<Recovery>, VariantError> {
    if !left_by_an_ablation(tree) {
        // Nothing to restore. A lock file left by a killed sweep is tidied away when nobody holds it;
        // a live holder (a sweep running in the tree) is no error here.
        if tree.join(STATE_DIR).exists() {
            drop(TreeLock::acquire(tree));
        }
        return Ok(None);
    }
    let tree = tree.canonicalize().map_err(VariantError::io("resolve", tree))?;
    let _lock = TreeLock::acquire(&tree)?;
    restore_under_lock(&tree)
}

/// Whether an in-place ablation (live or killed) has state in `tree`: a journal, saved originals or
/// a build group record, whole or half-written.
pub fn left_by_an_ablation(tree: &Path) -> bool {
    super::build_guard::build_group_recorded(tree) || Journal::any_trace(tree)
}

/// With the tree's lock held: restores from the journal if one exists. The journal is checked before
/// anything is done: one that is refused leaves the tree (and any build it names) as it is.
pub(super) fn restore_under_lock(tree: &Path) -> Result<Option<Recovery>, VariantError> {
    let journal = Journal::load(tree)?;
    super::build_guard::stop_orphaned_build(tree)?;
    let Some(journal) = journal else {
        Journal::discard_leftovers(tree)?;
        return Ok(None);
    };
    let kept = journal.restore(tree)?;
    let restored = journal.entries.into_iter().map(|entry| entry.target).collect();
    Ok(Some(Recovery { pid: journal.pid, restored, kept }))
}
