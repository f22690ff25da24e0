//! Issue 20: every file sweep reads back is untrusted input. Each test is one attack a red team made work
//! (or a bad input it showed accepted), named after the bug it pins: nothing is written outside a tree,
//! nothing is overwritten, nothing half-true is analysed, and the exit code follows the README's table.

mod common;

use std::fs;
use std::path::PathBuf;

use common::{stderr, sweep};

/// An engine tree holding one source, and a directory beside it that sweep must never write to.
struct Victim {
    dir: tempfile::TempDir,
}

impl Victim {
    fn new() -> Victim {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("tree/kernels")).unwrap();
        fs::write(dir.path().join("tree/kernels/gd.cpp"), "shipped\n").unwrap();
        fs::create_dir_all(dir.path().join("outside")).unwrap();
        fs::write(dir.path().join("outside/precious.txt"), "precious\n").unwrap();
        fs::write(dir.path().join("outside/secret.txt"), "secret\n").unwrap();
        Victim { dir }
    }

    fn tree(&self) -> PathBuf {
        self.dir.path().join("tree")
    }

    fn outside(&self, name: &str) -> PathBuf {
        self.dir.path().join("outside").join(name)
    }

    /// Plants `.sweep-inplace/journal.json` with one entry and a saved copy `0.orig` holding `saved`.
    fn plant_journal(&self, target: &str, saved_name: &str, saved: &str) {
        let state = self.tree().join(".sweep-inplace");
        fs::create_dir_all(state.join("originals")).unwrap();
        fs::write(state.join("originals/0.orig"), saved).unwrap();
        let digest = sha256(saved.as_bytes());
        let journal = serde_json::json!({
            "pid": 999_999,
            "entries": [{ "target": target, "saved": saved_name, "sha256": digest }],
        });
        fs::write(state.join("journal.json"), journal.to_string()).unwrap();
    }

    /// Every file under the victim directory with its bytes, to show nothing changed.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files = Vec::new();
        let mut dirs = vec![self.dir.path().to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    dirs.push(path);
                } else if meta.is_file() {
                    files.push((path.clone(), fs::read(&path).unwrap()));
                } else {
                    files.push((path.clone(), fs::read_link(&path).unwrap().into_os_string().into_encoded_bytes()));
                }
            }
        }
        files.sort();
        files
    }

    /// `sweep restore` on the tree is refused with exit 2 in one line, and no file anywhere changed.
    fn assert_restore_refused(&self, says: &str) {
        let before = self.snapshot();
        let output = sweep(self.dir.path(), &["restore", self.tree().to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let message = stderr(&output);
        assert_eq!(message.lines().count(), 1, "{message}");
        assert!(message.contains(says), "{message}");
        assert_eq!(self.snapshot(), before, "a refused journal changed a file");
    }
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(bytes))
}

#[test]
fn a_journal_naming_a_relative_path_outside_the_tree_is_refused_not_restored() {
    let victim = Victim::new();
    victim.plant_journal("../outside/precious.txt", "0.orig", "overwritten\n");
    victim.assert_restore_refused("not a plain path relative to the tree");
    assert_eq!(fs::read_to_string(victim.outside("precious.txt")).unwrap(), "precious\n");
}

#[test]
fn a_journal_naming_an_absolute_path_is_refused_not_restored() {
    let victim = Victim::new();
    let target = victim.outside("precious.txt");
    victim.plant_journal(target.to_str().unwrap(), "0.orig", "overwritten\n");
    victim.assert_restore_refused("not a plain path relative to the tree");
}

#[test]
fn a_journal_whose_saved_copy_lies_outside_originals_is_refused_and_nothing_is_copied_in() {
    let victim = Victim::new();
    let secret = victim.outside("secret.txt");
    for saved in ["../../../outside/secret.txt".to_string(), secret.display().to_string()] {
        victim.plant_journal("kernels/gd.cpp", &saved, "secret\n");
        victim.assert_restore_refused("is not a file name under originals/");
        assert_eq!(fs::read_to_string(victim.tree().join("kernels/gd.cpp")).unwrap(), "shipped\n");
    }
}

#[test]
fn a_journal_target_reached_through_a_symlink_out_of_the_tree_is_refused() {
    let victim = Victim::new();
    std::os::unix::fs::symlink(victim.dir.path().join("outside"), victim.tree().join("link")).unwrap();
    victim.plant_journal("link/precious.txt", "0.orig", "overwritten\n");
    victim.assert_restore_refused("reached through a symbolic link");
}

#[test]
fn a_saved_copy_that_is_a_symlink_to_a_file_elsewhere_is_refused() {
    let victim = Victim::new();
    victim.plant_journal("kernels/gd.cpp", "0.orig", "secret\n");
    let originals = victim.tree().join(".sweep-inplace/originals");
    fs::remove_file(originals.join("0.orig")).unwrap();
    std::os::unix::fs::symlink(victim.outside("secret.txt"), originals.join("0.orig")).unwrap();
    victim.assert_restore_refused("saved copy `0.orig` is not a regular file");
}

#[test]
fn a_state_directory_that_is_a_symlink_out_of_the_tree_is_refused() {
    let victim = Victim::new();
    let elsewhere = victim.dir.path().join("outside/state");
    fs::create_dir_all(elsewhere.join("originals")).unwrap();
    fs::write(elsewhere.join("originals/0.orig"), "secret\n").unwrap();
    let journal = serde_json::json!({ "pid": 1, "entries": [
        { "target": "kernels/gd.cpp", "saved": "0.orig", "sha256": sha256(b"secret\n") }] });
    fs::write(elsewhere.join("journal.json"), journal.to_string()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, victim.tree().join(".sweep-inplace")).unwrap();
    victim.assert_restore_refused("is a symbolic link");
}

#[test]
fn a_lock_file_that_is_a_symlink_is_never_written_through() {
    let victim = Victim::new();
    victim.plant_journal("kernels/gd.cpp", "0.orig", "shipped\n");
    std::os::unix::fs::symlink(victim.outside("precious.txt"), victim.tree().join(".sweep-inplace/lock")).unwrap();
    victim.assert_restore_refused("the lock file is a symbolic link");
}

/// The automatic recovery every `sweep run` does first follows the same rules as `sweep restore`.
#[test]
fn a_run_on_a_tree_with_a_forged_journal_is_refused_before_anything_runs() {
    let victim = Victim::new();
    victim.plant_journal("../outside/precious.txt", "0.orig", "overwritten\n");
    let profile = format!(
        "tree = \"{}\"\nprogram = \"/bin/true\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"5s\"\n[result]\nprefix = \"r\"\n",
        victim.tree().display()
    );
    fs::create_dir_all(victim.dir.path().join("sweeps/engines")).unwrap();
    fs::write(victim.dir.path().join("sweeps/engines/e.toml"), profile).unwrap();
    let declaration = "name = \"s\"\n[engine]\nprofile = \"e\"\n[params]\nx = [1]\n[metrics]\nresult = [\"v\"]\n[analysis]\nprimary = \"v\"\n";
    fs::write(victim.dir.path().join("sweeps/s.toml"), declaration).unwrap();
    let before = victim.snapshot();
    let output = sweep(victim.dir.path(), &["run", "sweeps/s.toml", "--no-build"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("not a plain path relative to the tree"), "{}", stderr(&output));
    let after: Vec<_> = victim
        .snapshot()
        .into_iter()
        .filter(|(path, _)| !path.starts_with(victim.dir.path().join("results")))
        .collect();
    assert_eq!(after, before);
}

#[test]
fn the_state_directory_is_kept_out_of_git_status_of_a_checkout_tree() {
    let victim = Victim::new();
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git").arg("-C").arg(victim.tree()).args(args).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    git(&["init", "-q"]);
    victim.plant_journal("kernels/gd.cpp", "0.orig", "shipped\n");
    let output = sweep(victim.dir.path(), &["restore", victim.tree().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    fs::create_dir_all(victim.tree().join(".sweep-inplace")).unwrap();
    fs::write(victim.tree().join(".sweep-inplace/stray"), "").unwrap();
    assert!(!git(&["status", "--porcelain", "--untracked-files=all"]).contains(".sweep-inplace"));
}
