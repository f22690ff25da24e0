//! `Journal`: the durable record of which targets an in-place ablation touched and where their originals are.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::VariantError;
use super::journal_confinement::{directory_refusal, is_sha256_hex, saved_refusal, target_refusal, STATE_DIR};
use crate::atomic_file::{has_stale_temp, remove_stale_temp, sync_dir, write_atomic};
use crate::read_limit::ReadLimit;

const JOURNAL_FILE: &str = "journal.json";
const ORIGINALS_DIR: &str = "originals";

/// Written (atomically) after every original is saved and before any target is touched; its presence
/// means "these targets may hold a rendering and must be restored".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    pub pid: u32,
    pub entries: Vec<JournalEntry>,
}

/// One target: its path relative to the tree, its saved copy under `originals/`, and that copy's sha256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    pub target: PathBuf,
    pub saved: String,
    pub sha256: String,
}

impl Journal {
    /// Saves the original bytes of each target (fsynced), then writes the journal; targets are untouched.
    /// All or nothing: on failure the journal and saved copies are removed again (no target was touched).
    pub fn save(tree: &Path, targets: &[PathBuf]) -> Result<Journal, VariantError> {
        let saved = Journal::save_all(tree, targets);
        if saved.is_err() {
            // Best effort: the save error is the one worth reporting, and a leftover is cleaned next time.
            let _ = fs::remove_file(journal_path(tree));
            let _ = Journal::discard_leftovers(tree);
        }
        saved
    }

    fn save_all(tree: &Path, targets: &[PathBuf]) -> Result<Journal, VariantError> {
        // No journal exists (the caller recovered first), so leftovers are from a crash before the journal.
        Journal::discard_leftovers(tree)?;
        let originals = originals_dir(tree);
        fs::create_dir_all(&originals).map_err(VariantError::io("create", &originals))?;
        let entries = targets
            .iter()
            .enumerate()
            .map(|(index, target)| save_original(tree, target, &originals, index))
            .collect::<Result<Vec<_>, _>>()?;
        sync_dir(&originals).map_err(VariantError::io("fsync", &originals))?;
        let journal = Journal { pid: std::process::id(), entries };
        let text = serde_json::to_vec_pretty(&journal)
            .map_err(|error| VariantError::Journal { path: journal_path(tree), reason: error.to_string() })?;
        write_atomic(&journal_path(tree), &text, None).map_err(VariantError::io("write", journal_path(tree)))?;
        Ok(journal)
    }

    /// Reads the journal of an interrupted or running ablation in `tree` (canonical), if there is one.
    /// A journal naming anything but files inside the tree and its own saved copies is refused.
    pub fn load(tree: &Path) -> Result<Option<Journal>, VariantError> {
        let path = journal_path(tree);
        let unsafe_state = |reason: String| VariantError::UnsafeState { path: path.clone(), reason };
        if let Some(reason) = directory_refusal(&tree.join(STATE_DIR)) {
            return Err(unsafe_state(reason));
        }
        let text = match fs::symlink_metadata(&path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Ok(meta) if !meta.is_file() => return Err(unsafe_state("the journal is not a regular file".into())),
            _ => ReadLimit::JOURNAL.read(&path).map_err(VariantError::io("read", &path))?,
        };
        let journal: Journal = serde_json::from_slice(&text)
            .map_err(|error| unsafe_state(format!("not a journal sweep wrote: {error}")))?;
        journal.confinement_refusal(tree).map_or(Ok(Some(journal)), |reason| Err(unsafe_state(reason)))
    }

    /// Why this journal may not be acted on in `tree`, if it may not (see `journal_confinement`).
    fn confinement_refusal(&self, tree: &Path) -> Option<String> {
        let originals = originals_dir(tree);
        if let Some(reason) = directory_refusal(&originals) {
            return Some(reason);
        }
        self.entries.iter().find_map(|entry| {
            target_refusal(tree, &entry.target, STATE_DIR).or_else(|| saved_refusal(&originals, &entry.saved)).or_else(
                || (!is_sha256_hex(&entry.sha256)).then(|| format!("digest `{}` is not a sha256", entry.sha256)),
            )
        })
    }

    /// Puts every original back (each verified against its sha256 before any is written: one that does not
    /// match leaves the tree as it is) and then forgets the journal and the copies.
    /// Idempotent: a crash part-way leaves the journal in place and the next call finishes the job.
    pub fn restore(&self, tree: &Path) -> Result<(), VariantError> {
        let originals = self.entries.iter().map(|entry| saved_original(tree, entry)).collect::<Result<Vec<_>, _>>()?;
        for (entry, bytes) in self.entries.iter().zip(originals) {
            restore_entry(tree, entry, &bytes)?;
        }
        let journal = journal_path(tree);
        fs::remove_file(&journal).map_err(VariantError::io("remove", &journal))?;
        sync_dir(&tree.join(STATE_DIR)).map_err(VariantError::io("fsync", tree.join(STATE_DIR)))?;
        Journal::discard_leftovers(tree)
    }

    /// Whether a journal, a half-written one or saved originals are in the tree's state dir.
    pub fn any_trace(tree: &Path) -> bool {
        let journal = journal_path(tree);
        journal.exists() || has_stale_temp(&journal) || originals_dir(tree).exists()
    }

    /// With no journal on disk: removes saved originals and a half-written journal left by a sweep killed
    /// before its journal existed (its targets were never touched).
    pub fn discard_leftovers(tree: &Path) -> Result<(), VariantError> {
        let originals = originals_dir(tree);
        match fs::remove_dir_all(&originals) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                return Err(VariantError::Io { action: "remove", path: originals, error })
            }
            _ => {}
        }
        let journal = journal_path(tree);
        remove_stale_temp(&journal).map_err(VariantError::io("remove a half-written copy of", journal))
    }
}

fn save_original(tree: &Path, target: &Path, originals: &Path, index: usize) -> Result<JournalEntry, VariantError> {
    let source = tree.join(target);
    let saved = format!("{index}.orig");
    let saved_path = originals.join(&saved);
    // fs::copy keeps the mode; the restore copies it back with the bytes.
    fs::copy(&source, &saved_path).map_err(VariantError::io("save the original of", &source))?;
    let bytes = fs::read(&saved_path).map_err(VariantError::io("read", &saved_path))?;
    fs::File::open(&saved_path).and_then(|file| file.sync_all()).map_err(VariantError::io("fsync", &saved_path))?;
    Ok(JournalEntry { target: target.to_path_buf(), saved, sha256: sha256_hex(&bytes) })
}

/// The bytes of an entry's saved copy, which must be the ones the journal recorded.
fn saved_original(tree: &Path, entry: &JournalEntry) -> Result<Vec<u8>, VariantError> {
    let saved = originals_dir(tree).join(&entry.saved);
    let bytes = fs::read(&saved).map_err(VariantError::io("read the saved original", &saved))?;
    let actual = sha256_hex(&bytes);
    if actual != entry.sha256 {
        let target = tree.join(&entry.target);
        return Err(VariantError::CorruptOriginal { saved, target, expected: entry.sha256.clone(), actual });
    }
    Ok(bytes)
}

fn restore_entry(tree: &Path, entry: &JournalEntry, bytes: &[u8]) -> Result<(), VariantError> {
    let saved = originals_dir(tree).join(&entry.saved);
    let target = tree.join(&entry.target);
    // A write killed before its rename leaves a temporary sibling; the target itself is still whole.
    remove_stale_temp(&target).map_err(VariantError::io("remove a half-written copy of", &target))?;
    if fs::read(&target).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    let permissions = fs::metadata(&saved).map_err(VariantError::io("stat", &saved))?.permissions();
    write_atomic(&target, bytes, Some(permissions)).map_err(VariantError::io("restore", &target))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

fn journal_path(tree: &Path) -> PathBuf {
    tree.join(STATE_DIR).join(JOURNAL_FILE)
}

fn originals_dir(tree: &Path) -> PathBuf {
    tree.join(STATE_DIR).join(ORIGINALS_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_saved_original_is_refused_and_the_target_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
        fs::write(dir.path().join("gd.cpp"), "original").unwrap();
        let journal = Journal::save(dir.path(), &[PathBuf::from("gd.cpp")]).unwrap();
        fs::write(dir.path().join("gd.cpp"), "ablated").unwrap();
        fs::write(originals_dir(dir.path()).join(&journal.entries[0].saved), "garbage").unwrap();
        let error = journal.restore(dir.path()).unwrap_err();
        assert!(matches!(error, VariantError::CorruptOriginal { .. }), "{error}");
        assert_eq!(fs::read_to_string(dir.path().join("gd.cpp")).unwrap(), "ablated");
        assert!(Journal::load(dir.path()).unwrap().is_some(), "journal must survive a refused restore");
    }

    #[test]
    fn journal_round_trips_and_restore_removes_it() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
        fs::write(dir.path().join("gd.cpp"), "original").unwrap();
        let journal = Journal::save(dir.path(), &[PathBuf::from("gd.cpp")]).unwrap();
        assert_eq!(Journal::load(dir.path()).unwrap(), Some(journal.clone()));
        fs::write(dir.path().join("gd.cpp"), "ablated").unwrap();
        journal.restore(dir.path()).unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("gd.cpp")).unwrap(), "original");
        assert_eq!(Journal::load(dir.path()).unwrap(), None);
        assert!(!originals_dir(dir.path()).exists());
    }
}
