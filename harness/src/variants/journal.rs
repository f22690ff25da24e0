//! `Journal`: the durable record of which targets an in-place ablation touched and where their originals are.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::VariantError;
use super::journal_confinement::{directory_refusal, is_sha256_hex, saved_refusal, target_refusal, STATE_DIR};
use super::kept_edit::KeptEdit;
use crate::atomic_file::{has_stale_temp, remove_stale_temp, sync_dir, write_atomic};
use crate::ground::sha256_hex;
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

/// One target: its path relative to the tree, its saved copy under `originals/`, that copy's sha256, and
/// the sha256 of every rendering sweep wrote over it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    pub target: PathBuf,
    pub saved: String,
    pub sha256: String,
    /// Recorded before each rendering is written; absent from a journal of an older sweep, whose
    /// renderings are then unknown (any bytes but the original are kept as a user's edit, to be safe).
    #[serde(default)]
    pub rendered: Vec<String>,
}

impl JournalEntry {
    /// Whether `bytes` are ones sweep put in the target: its original or one of its renderings. Anything
    /// else is a user's edit.
    fn is_sweeps(&self, bytes: &[u8]) -> bool {
        let digest = sha256_hex(bytes);
        digest == self.sha256 || self.rendered.contains(&digest)
    }
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
        journal.write(tree)?;
        Ok(journal)
    }

    fn write(&self, tree: &Path) -> Result<(), VariantError> {
        let text = serde_json::to_vec_pretty(self)
            .map_err(|error| VariantError::Journal { path: journal_path(tree), reason: error.to_string() })?;
        write_atomic(&journal_path(tree), &text, None).map_err(VariantError::io("write", journal_path(tree)))
    }

    /// Records the sha256 of each rendering (target relative to the tree, bytes) durably, before any is
    /// written over its target: a target found holding one later (after a crash) is sweep's to restore,
    /// not a user's edit.
    pub fn record_renderings<'a>(
        &mut self,
        tree: &Path,
        renderings: impl IntoIterator<Item = (&'a Path, &'a [u8])>,
    ) -> Result<(), VariantError> {
        for (target, bytes) in renderings {
            let digest = sha256_hex(bytes);
            let entry = self.entries.iter_mut().find(|entry| entry.target == target);
            if let Some(entry) = entry.filter(|entry| !entry.rendered.contains(&digest)) {
                entry.rendered.push(digest);
            }
        }
        self.write(tree)
    }

    /// Keeps a copy of each of `targets` (relative to the tree) that holds a user's edit, before sweep
    /// writes over it.
    pub fn keep_user_edits(&self, tree: &Path, targets: &[PathBuf]) -> Result<Vec<KeptEdit>, VariantError> {
        let entries = self.entries.iter().filter(|entry| targets.contains(&entry.target));
        let on_disk = |entry: &JournalEntry| fs::read(tree.join(&entry.target)).ok();
        entries.filter_map(|entry| keep_user_edit(tree, entry, on_disk(entry).as_deref()).transpose()).collect()
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
            let mut digests = std::iter::once(&entry.sha256).chain(&entry.rendered);
            let mut not_a_digest = || digests.find(|digest| !is_sha256_hex(digest));
            target_refusal(tree, &entry.target, STATE_DIR)
                .or_else(|| saved_refusal(&originals, &entry.saved))
                .or_else(|| not_a_digest().map(|digest| format!("digest `{digest}` is not a sha256")))
        })
    }

    /// Puts every original back (each verified against its sha256 before any is written: one that does not
    /// match leaves the tree as it is) and then forgets the journal and the copies. A target holding
    /// neither its original nor a rendering sweep wrote (a user's edit) is kept beside it first; the
    /// copies kept are returned, so the user is told where.
    /// Idempotent: a crash part-way leaves the journal in place and the next call finishes the job.
    pub fn restore(&self, tree: &Path) -> Result<Vec<KeptEdit>, VariantError> {
        let originals = self.entries.iter().map(|entry| saved_original(tree, entry)).collect::<Result<Vec<_>, _>>()?;
        let mut kept = Vec::new();
        for (entry, bytes) in self.entries.iter().zip(originals) {
            kept.extend(restore_entry(tree, entry, &bytes)?);
        }
        let journal = journal_path(tree);
        fs::remove_file(&journal).map_err(VariantError::io("remove", &journal))?;
        sync_dir(&tree.join(STATE_DIR)).map_err(VariantError::io("fsync", tree.join(STATE_DIR)))?;
        Journal::discard_leftovers(tree)?;
        Ok(kept)
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
    Ok(JournalEntry { target: target.to_path_buf(), saved, sha256: sha256_hex(&bytes), rendered: Vec::new() })
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

/// Puts one original back, keeping a user's edit of the target first (returned).
fn restore_entry(tree: &Path, entry: &JournalEntry, bytes: &[u8]) -> Result<Option<KeptEdit>, VariantError> {
    let saved = originals_dir(tree).join(&entry.saved);
    let target = tree.join(&entry.target);
    // A write killed before its rename leaves a temporary sibling; the target itself is still whole.
    remove_stale_temp(&target).map_err(VariantError::io("remove a half-written copy of", &target))?;
    let on_disk = fs::read(&target).ok();
    if on_disk.as_deref() == Some(bytes) {
        return Ok(None);
    }
    let kept = keep_user_edit(tree, entry, on_disk.as_deref())?;
    let permissions = fs::metadata(&saved).map_err(VariantError::io("stat", &saved))?.permissions();
    write_atomic(&target, bytes, Some(permissions)).map_err(VariantError::io("restore", &target))?;
    Ok(kept)
}

/// Keeps the target's bytes as they are `on_disk` beside it when they are not sweep's (see
/// `JournalEntry::is_sweeps`): a user's edit, which sweep is about to write over.
fn keep_user_edit(tree: &Path, entry: &JournalEntry, on_disk: Option<&[u8]>) -> Result<Option<KeptEdit>, VariantError> {
    match on_disk {
        Some(bytes) if !entry.is_sweeps(bytes) => KeptEdit::keep(&tree.join(&entry.target), bytes).map(Some),
        _ => Ok(None),
    }
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

    /// A journal saved for `gd.cpp` (holding `original`), with `rendering` recorded and written over it.
    fn rendered_tree(rendering: &str) -> (tempfile::TempDir, Journal) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(STATE_DIR)).unwrap();
        fs::write(dir.path().join("gd.cpp"), "original\n").unwrap();
        let mut journal = Journal::save(dir.path(), &[PathBuf::from("gd.cpp")]).unwrap();
        journal.record_renderings(dir.path(), [(Path::new("gd.cpp"), rendering.as_bytes())]).unwrap();
        fs::write(dir.path().join("gd.cpp"), rendering).unwrap();
        (dir, journal)
    }

    #[test]
    fn restore_keeps_a_user_edit_of_a_rendered_file_beside_it() {
        let (dir, journal) = rendered_tree("ablated\n");
        assert_eq!(Journal::load(dir.path()).unwrap().as_ref(), Some(&journal), "renderings are journaled");
        fs::write(dir.path().join("gd.cpp"), "ablated\nmy line\n").unwrap();
        let kept = journal.restore(dir.path()).unwrap();
        let copy = dir.path().join("gd.cpp.sweep-user-edit");
        assert_eq!(kept, [KeptEdit { target: dir.path().join("gd.cpp"), copy: copy.clone() }]);
        assert_eq!(fs::read_to_string(copy).unwrap(), "ablated\nmy line\n");
        assert_eq!(fs::read_to_string(dir.path().join("gd.cpp")).unwrap(), "original\n");
    }

    #[test]
    fn restore_of_a_file_holding_sweeps_rendering_keeps_no_copy() {
        let (dir, journal) = rendered_tree("ablated\n");
        assert_eq!(journal.restore(dir.path()).unwrap(), []);
        assert_eq!(fs::read_to_string(dir.path().join("gd.cpp")).unwrap(), "original\n");
        assert!(!dir.path().join("gd.cpp.sweep-user-edit").exists(), "a copy kept of sweep's own rendering");
    }

    /// A journal written before renderings were recorded: what sweep rendered is unknown, so anything but
    /// the original is kept before the original is put back.
    #[test]
    fn a_journal_without_rendered_digests_still_restores_and_keeps_what_differs_from_the_original() {
        let (dir, _) = rendered_tree("ablated\n");
        let path = journal_path(dir.path());
        let mut old: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        old["entries"][0].as_object_mut().unwrap().remove("rendered");
        fs::write(&path, old.to_string()).unwrap();
        let journal = Journal::load(dir.path()).unwrap().unwrap();
        assert!(journal.entries[0].rendered.is_empty());
        assert_eq!(journal.restore(dir.path()).unwrap().len(), 1);
        assert_eq!(fs::read_to_string(dir.path().join("gd.cpp.sweep-user-edit")).unwrap(), "ablated\n");
        assert_eq!(fs::read_to_string(dir.path().join("gd.cpp")).unwrap(), "original\n");
    }

    #[test]
    fn a_rendered_digest_that_is_not_a_sha256_is_refused() {
        let (dir, _) = rendered_tree("ablated\n");
        let path = journal_path(dir.path());
        let text = fs::read_to_string(&path).unwrap().replace(&sha256_hex(b"ablated\n"), "../../x");
        fs::write(&path, text).unwrap();
        let error = Journal::load(dir.path()).unwrap_err().to_string();
        assert!(error.contains("digest `../../x` is not a sha256"), "{error}");
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
