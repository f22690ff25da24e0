//! Keeps sweep's state directory out of `git status` of an engine tree that is a git checkout, through the
//! checkout's own `.git/info/exclude` (never its tracked `.gitignore`).

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::journal_confinement::{directory_refusal, STATE_DIR};

/// Adds `/.sweep-inplace/` to `<tree>/.git/info/exclude` once. Only a real `.git` directory inside the
/// tree is written to (a worktree's `.git` file points outside the tree, where sweep writes nothing);
/// best effort: a checkout whose exclude file cannot be written still runs.
pub(super) fn exclude_state_dir(tree: &Path) {
    let git = tree.join(".git");
    let info = git.join("info");
    if !fs::symlink_metadata(&git).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    if fs::symlink_metadata(&info).is_err() && fs::create_dir(&info).is_err() {
        return;
    }
    if directory_refusal(&info).is_some() {
        return;
    }
    let exclude = info.join("exclude");
    let pattern = format!("/{STATE_DIR}/");
    let listed = fs::read_to_string(&exclude).unwrap_or_default();
    if listed.lines().any(|line| line.trim() == pattern || line.trim() == format!("{STATE_DIR}/")) {
        return;
    }
    let opened = OpenOptions::new().append(true).create(true).custom_flags(nix::libc::O_NOFOLLOW).open(&exclude);
    if let Ok(mut file) = opened {
        let separator = if listed.is_empty() || listed.ends_with('\n') { "" } else { "\n" };
        let _ = write!(file, "{separator}# sweep's in-place ablation state\n{pattern}\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_dir_is_excluded_once_in_a_checkout_and_nothing_is_written_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        exclude_state_dir(dir.path());
        assert!(!dir.path().join(".git").exists(), "a tree that is no checkout got a .git");
        fs::create_dir_all(dir.path().join(".git/info")).unwrap();
        fs::write(dir.path().join(".git/info/exclude"), "*.o").unwrap();
        exclude_state_dir(dir.path());
        exclude_state_dir(dir.path());
        let text = fs::read_to_string(dir.path().join(".git/info/exclude")).unwrap();
        assert_eq!(text, "*.o\n# sweep's in-place ablation state\n/.sweep-inplace/\n");
    }

    #[test]
    fn a_git_file_pointing_elsewhere_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".git"), "gitdir: /elsewhere\n").unwrap();
        exclude_state_dir(dir.path());
        assert_eq!(fs::read_to_string(dir.path().join(".git")).unwrap(), "gitdir: /elsewhere\n");
    }
}
