//! The rules a journal read back from a tree must keep before sweep acts on it. A journal is data anyone
//! who can write the tree could have written (a cloned repository, a shared tree), so it may only name
//! files inside the tree and copies under its own `originals/`; anything else is refused, never followed.

use std::fs;
use std::path::{Component, Path};

/// Why a journal's target may not be restored, if it may not: the target must be a plain relative path
/// (no `..`, no `.`, not absolute), outside sweep's own state directory, and reach the same file through
/// the real tree (no symlink along the way: a journal records targets by their real paths).
pub(super) fn target_refusal(tree: &Path, target: &Path, state_dir: &str) -> Option<String> {
    let shown = target.display();
    if target.as_os_str().is_empty() || !target.components().all(|part| matches!(part, Component::Normal(_))) {
        return Some(format!("target `{shown}` is not a plain path relative to the tree"));
    }
    if let Some(reason) = reserved_refusal(target, state_dir) {
        return Some(format!("target `{shown}` is {reason}"));
    }
    let joined = tree.join(target);
    let parent = joined.parent().unwrap_or(tree);
    match parent.canonicalize() {
        Ok(real) if real == parent => {}
        Ok(_) => return Some(format!("target `{shown}` is reached through a symbolic link")),
        Err(error) => return Some(format!("target `{shown}`: its directory cannot be resolved: {error}")),
    }
    match fs::symlink_metadata(&joined) {
        Ok(meta) if !meta.is_file() => Some(format!("target `{shown}` is not a regular file")),
        _ => None,
    }
}

/// Why a path relative to a tree may not be written by sweep, if it may not: sweep's own state, and the
/// checkout's `.git` (a config or hook written there runs code at the next git command).
pub fn reserved_refusal(relative: &Path, state_dir: &str) -> Option<&'static str> {
    match relative.components().next().map(|first| first.as_os_str()) {
        Some(first) if first == state_dir => Some("inside sweep's own state directory"),
        Some(first) if first == ".git" => Some("inside the checkout's .git"),
        _ => None,
    }
}

/// Why a saved copy's name may not be read, if it may not: it must be one plain file name, a regular file
/// directly in `originals` (not a link to a file elsewhere).
pub(super) fn saved_refusal(originals: &Path, saved: &str) -> Option<String> {
    let plain = Path::new(saved).components().collect::<Vec<_>>();
    if !matches!(plain.as_slice(), [Component::Normal(name)] if *name == saved) {
        return Some(format!("saved copy `{saved}` is not a file name under originals/"));
    }
    match fs::symlink_metadata(originals.join(saved)) {
        Ok(meta) if meta.is_file() => None,
        Ok(_) => Some(format!("saved copy `{saved}` is not a regular file")),
        Err(error) => Some(format!("saved copy `{saved}`: {error}")),
    }
}

/// Why a directory of sweep's state may not be used, if it may not: it must be a real directory (a
/// symbolic link would move sweep's state, and what it restores from, outside the tree).
pub fn directory_refusal(dir: &Path) -> Option<String> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => Some(format!("{} is a symbolic link", dir.display())),
        Ok(meta) if !meta.is_dir() => Some(format!("{} is not a directory", dir.display())),
        _ => None,
    }
}

/// Whether `digest` reads as a sha256 in hex, as sweep writes it.
pub(super) fn is_sha256_hex(digest: &str) -> bool {
    digest.len() == 64 && digest.bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

/// Sweep's own directory inside an engine tree: its lock, and an in-place ablation's journal.
pub const STATE_DIR: &str = ".sweep-inplace";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_targets_in_the_real_tree_pass() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().canonicalize().unwrap();
        fs::create_dir_all(tree.join("kernels")).unwrap();
        fs::write(tree.join("kernels/gd.cpp"), "x").unwrap();
        assert_eq!(target_refusal(&tree, Path::new("kernels/gd.cpp"), ".sweep-inplace"), None);
        let bad = [
            "../gd.cpp",
            "/etc/passwd",
            "kernels/../gd.cpp",
            "./kernels/gd.cpp",
            "",
            ".sweep-inplace/lock",
            ".git/config",
        ];
        for bad in bad {
            assert!(target_refusal(&tree, Path::new(bad), ".sweep-inplace").is_some(), "{bad}");
        }
        std::os::unix::fs::symlink("/tmp", tree.join("out")).unwrap();
        assert!(target_refusal(&tree, Path::new("out/x"), ".sweep-inplace").unwrap().contains("symbolic link"));
    }

    #[test]
    fn saved_copies_are_plain_names_of_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("0.orig"), "x").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join("1.orig")).unwrap();
        assert_eq!(saved_refusal(dir.path(), "0.orig"), None);
        for bad in ["../0.orig", "/etc/hostname", "a/0.orig", "1.orig", "2.orig", ".", ".."] {
            assert!(saved_refusal(dir.path(), bad).is_some(), "{bad}");
        }
    }
}
