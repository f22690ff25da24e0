//! Every file sweep reads back is untrusted input. Each test is one attack a red team made work
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

    /// `sweeps/s.toml` and its profile: a one-run sweep of `/bin/true` (no result line) in the tree.
    fn write_run_files(&self) {
        let profile = format!(
            "tree = \"{}\"\nprogram = \"/bin/true\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"5s\"\n[result]\nprefix = \"r\"\n",
            self.tree().display()
        );
        fs::create_dir_all(self.dir.path().join("sweeps/engines")).unwrap();
        fs::write(self.dir.path().join("sweeps/engines/e.toml"), profile).unwrap();
        let declaration = "name = \"s\"\n[engine]\nprofile = \"e\"\n[params]\nx = [1]\n[reps]\ncount = 1\n[metrics]\nresult = [\"v\"]\n[analysis]\nprimary = \"v\"\n";
        fs::write(self.dir.path().join("sweeps/s.toml"), declaration).unwrap();
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
    victim.write_run_files();
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

/// Regression: `check` of a tree an interrupted in-place ablation left rendered said `sweep
/// restore <tree>`, which runs only where `sweep` is on the PATH. It names this very binary, and the command
/// restores the tree as printed; `check` then passes.
#[test]
fn check_of_a_tree_left_rendered_names_a_restore_that_runs_as_printed() {
    let victim = Victim::new();
    fs::write(victim.tree().join("kernels/gd.cpp"), "ablated\n").unwrap();
    victim.plant_journal("kernels/gd.cpp", "0.orig", "shipped\n");
    victim.write_run_files();
    let checked = sweep(victim.dir.path(), &["check", "sweeps/s.toml"]);
    assert_eq!(checked.status.code(), Some(1), "{}", stderr(&checked));
    let message = stderr(&checked);
    let hint =
        message.split("if none is running, run `").nth(1).and_then(|rest| rest.split('`').next()).expect("a command");
    assert!(hint.ends_with(&format!(" restore {}", victim.tree().display())), "{hint}");
    let restored = std::process::Command::new("sh").args(["-c", hint]).current_dir(victim.dir.path()).output().unwrap();
    assert_eq!(restored.status.code(), Some(0), "{hint}: {}", stderr(&restored));
    assert_eq!(fs::read_to_string(victim.tree().join("kernels/gd.cpp")).unwrap(), "shipped\n");
    let again = sweep(victim.dir.path(), &["check", "sweeps/s.toml"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
}

#[test]
fn the_state_directory_is_kept_out_of_git_status_of_a_checkout_tree() {
    let victim = Victim::new();
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git").arg("-C").arg(victim.tree()).args(args).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    git(&["init", "-q"]);
    victim.write_run_files();
    let output = sweep(victim.dir.path(), &["run", "sweeps/s.toml", "--no-build"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    fs::create_dir_all(victim.tree().join(".sweep-inplace")).unwrap();
    fs::write(victim.tree().join(".sweep-inplace/stray"), "").unwrap();
    assert!(!git(&["status", "--porcelain", "--untracked-files=all"]).contains(".sweep-inplace"));
}

/// A workspace with a FIXTURE engine (`engine/flaky.sh`, not a measurement): a run of `mode = "ok"` prints a
/// result; a run of `mode = "flaky"` fails while `engine/broken` exists.
struct Flaky {
    dir: tempfile::TempDir,
}

impl Flaky {
    fn new() -> Flaky {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("engine")).unwrap();
        fs::create_dir_all(root.join("sweeps/engines")).unwrap();
        let script = "#!/bin/sh\n# FIXTURE engine: its numbers are not measurements.\n\
                      if [ \"$1\" = flaky ] && [ -e \"$(dirname \"$0\")/broken\" ]; then echo 'flaky: broken' >&2; exit 1; fi\n\
                      echo \"fixture_result value=$2\"\n";
        fs::write(root.join("engine/flaky.sh"), script).unwrap();
        std::process::Command::new("chmod").arg("+x").arg(root.join("engine/flaky.sh")).status().unwrap();
        let profile = "tree = \"../../engine\"\nprogram = \"{{tree}}/flaky.sh\"\nlauncher = \"local\"\nranks = 1\n\
                       timeout = \"10s\"\n[result]\nprefix = \"fixture_result\"\n";
        fs::write(root.join("sweeps/engines/flaky.toml"), profile).unwrap();
        let flaky = Flaky { dir };
        flaky.declare("flaky", r#"["ok", "flaky"]"#, "");
        flaky
    }

    fn path(&self) -> &std::path::Path {
        self.dir.path()
    }

    /// Writes `sweeps/<name>.toml`: `mode` over `modes`, 2 reps, `extra` appended.
    fn declare(&self, name: &str, modes: &str, extra: &str) {
        let text = format!(
            "name = \"{name}\"\n[engine]\nprofile = \"flaky\"\n[params]\nmode = {modes}\n[reps]\ncount = 2\nseed = 3\n\
             [run]\nargs = [\"{{{{mode}}}}\", \"{{{{rep}}}}\"]\n[metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\n{extra}"
        );
        fs::write(self.path().join(format!("sweeps/{name}.toml")), text).unwrap();
    }

    fn sweep(&self, args: &[&str]) -> std::process::Output {
        sweep(self.path(), args)
    }

    fn set_broken(&self, broken: bool) {
        let marker = self.path().join("engine/broken");
        if broken {
            fs::write(marker, "").unwrap();
        } else {
            let _ = fs::remove_file(marker);
        }
    }

    /// Runs `sweeps/<name>.toml` into `results/<out>.csv` and returns that path (relative).
    fn run_into(&self, name: &str, out: &str) -> String {
        let csv = format!("results/{out}.csv");
        let output = self.sweep(&["run", &format!("sweeps/{name}.toml"), "--out", &csv]);
        assert!(matches!(output.status.code(), Some(0 | 1)), "{}", stderr(&output));
        csv
    }

    /// The bytes of every file under `results/`, to show a refusal changed nothing.
    fn results(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(self.path().join("results"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.is_file())
            .map(|path| (path.clone(), fs::read(&path).unwrap()))
            .collect();
        files.sort();
        files
    }

    /// `sweep <args>` exits 2 with one line containing `says`, and no file under `results/` changed.
    fn assert_refused(&self, args: &[&str], says: &str) {
        let before = self.results();
        let output = self.sweep(args);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{message}");
        assert!(message.contains(says), "{message}");
        assert_eq!(message.lines().filter(|line| line.starts_with("sweep: error")).count(), 1, "{message}");
        assert_eq!(self.results(), before, "a refused command changed a file");
    }
}

#[test]
fn resuming_with_another_sweeps_csv_is_refused_and_neither_csv_nor_sidecar_changes() {
    let flaky = Flaky::new();
    flaky.declare("other", r#"["ok", "flaky"]"#, "");
    let other = flaky.run_into("other", "other");
    flaky.assert_refused(&["run", "sweeps/flaky.toml", "--resume", &other], "it records sweep `other`, not `flaky`");
}

#[test]
fn resuming_after_the_declaration_changed_is_refused() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    flaky.declare("flaky", r#"["ok", "flaky"]"#, "[[checks]]\nmetric = \"value\"\nequals = \"{{rep}}\"\n");
    flaky.assert_refused(&["run", "sweeps/flaky.toml", "--resume", &csv], "the declaration changed");
    flaky.declare("flaky", r#"["ok", "flaky", "more"]"#, "");
    flaky.assert_refused(&["run", "sweeps/flaky.toml", "--resume", &csv], "the values of `mode` differ");
}

#[test]
fn resuming_a_file_that_is_not_a_csv_is_refused_without_truncating_it() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    let random: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    for (name, bytes) in [("random.csv", random), ("text.csv", b"not,a\nsweep result\ntorn".to_vec())] {
        fs::write(flaky.path().join("results").join(name), bytes).unwrap();
        fs::copy(
            flaky.path().join(csv.replace(".csv", ".json")),
            flaky.path().join("results").join(name.replace(".csv", ".json")),
        )
        .unwrap();
        flaky.assert_refused(&["run", "sweeps/flaky.toml", "--resume", &format!("results/{name}")], "results/");
    }
    fs::remove_file(flaky.path().join("results/r.json")).unwrap();
    flaky.assert_refused(&["run", "sweeps/flaky.toml", "--resume", &csv], "says which sweep it records");
}

#[test]
fn failed_runs_are_run_again_on_resume_and_analysed_once_from_their_last_success() {
    let flaky = Flaky::new();
    flaky.set_broken(true);
    let csv = flaky.run_into("flaky", "r");
    flaky.set_broken(false);
    let kept = flaky.sweep(&["run", "sweeps/flaky.toml", "--resume", &csv, "--no-retry-failed"]);
    assert_eq!(kept.status.code(), Some(1), "{}", stderr(&kept));
    assert_eq!(common::csv_rows(&flaky.path().join(&csv)).len(), 4, "--no-retry-failed ran a failed run again");
    let resumed = flaky.sweep(&["run", "sweeps/flaky.toml", "--resume", &csv]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(stderr(&resumed).contains("2 failed runs to run again"), "{}", stderr(&resumed));
    let rows = common::csv_rows(&flaky.path().join(&csv));
    let attempts: Vec<(&str, &str, &str)> =
        rows.iter().map(|row| (row["param.mode"].as_str(), row["attempt"].as_str(), row["status"].as_str())).collect();
    assert_eq!(attempts.iter().filter(|run| *run == &("flaky", "1", "failed")).count(), 2, "{attempts:?}");
    assert_eq!(attempts.iter().filter(|run| *run == &("flaky", "2", "ok")).count(), 2, "{attempts:?}");
    let report = flaky.sweep(&["report", &csv]);
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    let summary = common::stdout(&report);
    assert!(summary.contains("2 runs were run again after failing"), "{summary}");
    assert!(!summary.contains("Failed runs"), "a superseded failure is still counted:\n{summary}");
}

#[test]
fn a_csv_with_every_row_twice_is_refused_not_analysed_with_n_doubled() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    let text = fs::read_to_string(flaky.path().join(&csv)).unwrap();
    let (header, rows) = text.split_once('\n').unwrap();
    fs::write(flaky.path().join(&csv), format!("{header}\n{rows}{rows}")).unwrap();
    flaky.assert_refused(&["report", &csv], "r.csv:6: `mode=");
    flaky.assert_refused(&["report", &csv], "is already recorded at line 2");
    flaky.assert_refused(&["compare", &csv, &csv], "is already recorded at line 2");
}

#[test]
fn values_outside_the_sidecars_grid_or_of_the_wrong_type_are_refused_by_line() {
    let flaky = Flaky::new();
    flaky.declare("flaky", "[1, 2]", "");
    let csv = flaky.run_into("flaky", "r");
    let original = fs::read_to_string(flaky.path().join(&csv)).unwrap();
    for (from, to, says) in [
        ("\n2,default,", "\n3,default,", "`mode` is `3`, not one of the values"),
        ("\n2,default,", "\n2.0,default,", "`mode` is `2`, not one of the values"),
        ("\n2,default,", "\nfast,default,", "`mode` is `fast`, not one of the values"),
        ("\n2,default,2,", "\n2,default,9,", "rep 9 is outside the 2 reps"),
        ("\n2,default,2,1,", "\n2,default,2,0,", "attempt `0` is not a whole number from 1"),
    ] {
        fs::write(flaky.path().join(&csv), original.replacen(from, to, 1)).unwrap();
        flaky.assert_refused(&["report", &csv], says);
    }
}

#[test]
fn a_sidecar_that_does_not_match_its_csv_is_refused() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    flaky.declare("wide", r#"["ok", "flaky"]"#, "[params.derived]\ntwice = \"2\"\n");
    let wide = flaky.run_into("wide", "wide");
    fs::copy(flaky.path().join(&wide).with_extension("json"), flaky.path().join(&csv).with_extension("json")).unwrap();
    flaky.assert_refused(
        &["report", &csv],
        "r.csv:1: its sidecar records param columns [mode, twice], the CSV has [mode]",
    );
}

/// Writes `results/<name>` holding `text` (a file sweep must not overwrite) and returns its relative path.
fn precious(flaky: &Flaky, name: &str) -> String {
    let path = format!("results/{name}");
    fs::create_dir_all(flaky.path().join("results")).unwrap();
    fs::write(flaky.path().join(&path), "precious\n").unwrap();
    path
}

#[test]
fn merge_out_never_overwrites_an_existing_file_without_force() {
    let flaky = Flaky::new();
    for shard in ["1", "2"] {
        let out = format!("results/s/shard-{shard}.csv");
        let output = flaky.sweep(&["run", "sweeps/flaky.toml", "--shard", &format!("{shard}/2"), "--out", &out]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    let target = precious(&flaky, "precious.csv");
    flaky.assert_refused(&["merge", "results/s", "--out", &target], "not an earlier merge of these shards");
    let sidecar_name = precious(&flaky, "other.json");
    flaky.assert_refused(&["merge", "results/s", "--out", "results/other.csv"], "other.json exists");
    fs::remove_file(flaky.path().join(sidecar_name)).unwrap();
    assert_eq!(flaky.sweep(&["merge", "results/s"]).status.code(), Some(0), "a first merge");
    assert_eq!(flaky.sweep(&["merge", "results/s"]).status.code(), Some(0), "merging again replaces its own merge");
    let forced = flaky.sweep(&["merge", "results/s", "--out", &target, "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
}

#[test]
fn template_out_never_overwrites_an_existing_file_without_force() {
    let flaky = Flaky::new();
    let target = precious(&flaky, "gd.cpp.hbs");
    let args = ["template", "engine/flaky.sh", "--group", "g=2-2", "-o", &target];
    flaky.assert_refused(&args, "it already exists");
    let forced = flaky.sweep(&[&args[..], &["--force"]].concat());
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert!(fs::read_to_string(flaky.path().join(&target)).unwrap().contains("ablate.g"));
}

#[test]
fn compare_html_never_overwrites_an_existing_file_without_force() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    let target = precious(&flaky, "compare.html");
    flaky.assert_refused(&["compare", &csv, &csv, "--html", &target], "it already exists");
}

#[test]
fn report_never_overwrites_a_page_that_is_not_this_sweeps() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    assert_eq!(flaky.sweep(&["report", "--html", &csv]).status.code(), Some(0), "the sweep's own page is rewritten");
    flaky.declare("other", r#"["ok", "flaky"]"#, "");
    let other = flaky.run_into("other", "other");
    fs::copy(flaky.path().join(&other).with_extension("html"), flaky.path().join(&csv).with_extension("html")).unwrap();
    flaky.assert_refused(&["report", "--html", &csv], "r.html exists and is another sweep's");
    precious(&flaky, "r.html");
    flaky.assert_refused(&["report", "--html", &csv], "r.html exists and is not one sweep wrote for this result");
    let forced = flaky.sweep(&["report", "--html", &csv, "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
}

#[test]
fn run_out_never_overwrites_a_page_or_other_file_beside_it_without_force() {
    let flaky = Flaky::new();
    let page = precious(&flaky, "new.html");
    flaky.assert_refused(&["run", "sweeps/flaky.toml", "--out", "results/new.csv"], "new.html already exists");
    let forced = flaky.sweep(&["run", "sweeps/flaky.toml", "--out", "results/new.csv", "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert_ne!(fs::read_to_string(flaky.path().join(page)).unwrap(), "precious\n");
    fs::create_dir_all(flaky.path().join("results/dir")).unwrap();
    flaky.assert_refused(&["run", "sweeps/flaky.toml", "--out", "results/dir.csv", "--force"], "as a folder");
}

/// Regression: every remaining run of a broken engine was recorded failed, one after the
/// other, to the end of the sweep. The third run in a row failing the same way stops it (exit 1) with
/// the command that completes it; `--keep-going` runs them all.
#[test]
fn runs_failing_the_same_way_in_a_row_stop_the_sweep_unless_keep_going() {
    let flaky = Flaky::new();
    flaky.declare("flaky", r#"["flaky"]"#, "");
    let text = fs::read_to_string(flaky.path().join("sweeps/flaky.toml")).unwrap().replace("count = 2", "count = 6");
    fs::write(flaky.path().join("sweeps/flaky.toml"), text).unwrap();
    flaky.set_broken(true);
    let output = flaky.sweep(&["run", "sweeps/flaky.toml", "--out", "results/r.csv"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("stopped: 3 runs in a row failed the same way (the launcher exited with code 1)"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("this completes the sweep: ")
            && stderr(&output).contains(" run sweeps/flaky.toml --resume results/r.csv"),
        "{}",
        stderr(&output)
    );
    assert_eq!(common::csv_rows(&flaky.path().join("results/r.csv")).len(), 3);
    let kept_going = flaky.sweep(&["run", "sweeps/flaky.toml", "--out", "results/all.csv", "--keep-going"]);
    assert_eq!(kept_going.status.code(), Some(1), "{}", stderr(&kept_going));
    assert_eq!(common::csv_rows(&flaky.path().join("results/all.csv")).len(), 6);
    // Once the engine is fixed, the command the message ends with completes the sweep as printed.
    let hint = stderr(&output).split("this completes the sweep: ").nth(1).unwrap().trim().to_string();
    flaky.set_broken(false);
    let resumed = std::process::Command::new("sh").args(["-c", &hint]).current_dir(flaky.path()).output().unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{hint}: {}", stderr(&resumed));
    assert_eq!(common::csv_rows(&flaky.path().join("results/r.csv")).len(), 9, "3 failed, then 6 ok");
}

/// Regression: an OS error exited 1 with Rust's raw message. It exits 2 and says what the
/// system said about which file, as the user named it.
#[test]
fn permission_denied_is_exit_2_naming_the_file() {
    let flaky = Flaky::new();
    if !std::process::Command::new("setpriv").arg("--version").output().is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no setpriv to run sweep as another user");
        return;
    }
    fs::create_dir_all(flaky.path().join("results")).unwrap();
    for dir in
        [flaky.path(), &flaky.path().join("sweeps"), &flaky.path().join("sweeps/engines"), &flaky.path().join("engine")]
    {
        std::process::Command::new("chmod").arg("755").arg(dir).status().unwrap();
    }
    let output = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(common::sweep_bin())
        .args(["run", "sweeps/flaky.toml", "--out", "results/x.csv"])
        .current_dir(flaky.path())
        .output()
        .unwrap();
    if stderr(&output).contains("Permission denied") && output.status.code() != Some(2) {
        panic!("{}", stderr(&output));
    }
    assert_eq!(stderr(&output), "sweep: error: permission denied: results/x.csv\n");
    assert_eq!(output.status.code(), Some(2));
}

/// A small tmpfs mounted at `dir` for the life of the value (unmounted on drop), if this process may mount.
struct SmallDisk {
    dir: PathBuf,
}

impl SmallDisk {
    fn mount(dir: &std::path::Path, size: &str) -> Option<SmallDisk> {
        fs::create_dir_all(dir).unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .is_ok_and(|output| output.status.success());
        mounted.then(|| SmallDisk { dir: dir.to_path_buf() })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

/// Regression: when the disk filled, every remaining run was recorded "failed: launcher exited
/// 1" and the sweep went on to the end. It stops after the run that found the disk full (exit 2), the rows
/// recorded are whole, and the hint is a command that completes the sweep once there is space.
#[test]
fn a_full_disk_stops_the_sweep_with_whole_rows_and_a_command_that_completes_it() {
    let flaky = Flaky::new();
    let Some(disk) = SmallDisk::mount(&flaky.path().join("results"), "3m") else {
        eprintln!("skipped: cannot mount a small tmpfs here (not root, or no mount permission)");
        return;
    };
    // FIXTURE: each run leaves 700 KiB in its run directory, so the third or fourth run finds the disk full.
    let script = "#!/bin/sh\nhead -c 716800 /dev/zero > blob || { echo 'blob: disk full' >&2; exit 1; }\necho \"fixture_result value=$2\"\n";
    fs::write(flaky.path().join("engine/flaky.sh"), script).unwrap();
    let text = fs::read_to_string(flaky.path().join("sweeps/flaky.toml")).unwrap().replace("count = 2", "count = 5");
    fs::write(flaky.path().join("sweeps/flaky.toml"), text).unwrap();
    let output = flaky.sweep(&["run", "sweeps/flaky.toml", "--out", "results/r.csv"]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains("sweep: error: no space left on device: "), "{message}");
    let hint = message.split("this completes the sweep: ").nth(1).expect("a resume command").trim().to_string();
    assert!(hint.ends_with(" run sweeps/flaky.toml --resume results/r.csv"), "{hint}");
    let rows = common::csv_rows(&flaky.path().join("results/r.csv"));
    assert!(rows.len() < 10, "the sweep went on after the disk filled: {} rows", rows.len());
    assert!(fs::read_to_string(flaky.path().join("results/r.csv")).unwrap().ends_with('\n'), "a torn last row");
    for blob in glob_blobs(&flaky.path().join("results/r/runs")) {
        fs::remove_file(blob).unwrap();
    }
    fs::write(flaky.path().join("engine/flaky.sh"), "#!/bin/sh\necho \"fixture_result value=$2\"\n").unwrap();
    let argv: Vec<&str> = hint.split(' ').skip(1).collect();
    let completed = flaky.sweep(&argv);
    assert_eq!(completed.status.code(), Some(0), "{}", stderr(&completed));
    let report = flaky.sweep(&["report", "results/r.csv"]);
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    drop(disk);
}

/// The `blob` files the full-disk fixture left in run directories.
fn glob_blobs(runs: &std::path::Path) -> Vec<PathBuf> {
    fs::read_dir(runs)
        .map(|entries| entries.map(|entry| entry.unwrap().path().join("blob")).filter(|blob| blob.exists()).collect())
        .unwrap_or_default()
}

#[test]
fn a_journal_restoring_into_the_checkouts_git_is_refused() {
    let victim = Victim::new();
    fs::create_dir_all(victim.tree().join(".git")).unwrap();
    fs::write(victim.tree().join(".git/config"), "[core]\n").unwrap();
    victim.plant_journal(".git/config", "0.orig", "[core]\n\tfsmonitor = touch /tmp/pwned\n");
    victim.assert_restore_refused("target `.git/config` is inside the checkout's .git");
}

#[test]
fn a_journal_with_one_corrupt_copy_restores_nothing() {
    let victim = Victim::new();
    fs::write(victim.tree().join("kernels/other.cpp"), "ablated\n").unwrap();
    victim.plant_journal("kernels/other.cpp", "0.orig", "original\n");
    let state = victim.tree().join(".sweep-inplace");
    fs::write(state.join("originals/1.orig"), "tampered\n").unwrap();
    let journal = serde_json::json!({ "pid": 1, "entries": [
        { "target": "kernels/other.cpp", "saved": "0.orig", "sha256": sha256(b"original\n") },
        { "target": "kernels/gd.cpp", "saved": "1.orig", "sha256": sha256(b"shipped\n") }] });
    fs::write(state.join("journal.json"), journal.to_string()).unwrap();
    victim.assert_restore_refused("is corrupt");
    assert_eq!(fs::read_to_string(victim.tree().join("kernels/other.cpp")).unwrap(), "ablated\n");
}

#[test]
fn a_journal_that_is_not_json_is_refused_with_exit_2() {
    let victim = Victim::new();
    victim.plant_journal("kernels/gd.cpp", "0.orig", "shipped\n");
    fs::write(victim.tree().join(".sweep-inplace/journal.json"), "{\"pid\": 1, \"entries\": [{\"target\": 5}]}")
        .unwrap();
    victim.assert_restore_refused("not a journal sweep wrote");
}

#[test]
fn resuming_with_its_run_folder_linked_elsewhere_is_refused() {
    let flaky = Flaky::new();
    flaky.set_broken(true);
    let csv = flaky.run_into("flaky", "r");
    let elsewhere = flaky.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::rename(flaky.path().join("results/r/runs"), flaky.path().join("results/runs-moved")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, flaky.path().join("results/r/runs")).unwrap();
    flaky.set_broken(false);
    flaky.assert_refused(&["run", "sweeps/flaky.toml", "--resume", &csv], "is a symbolic link");
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0, "a run directory was made through the link");
}

#[test]
fn the_torn_rows_keeper_file_is_never_written_through_a_link() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    let path = flaky.path().join(&csv);
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("ok,default,2,1,fal");
    fs::write(&path, text).unwrap();
    let victim = precious(&flaky, "victim.txt");
    std::os::unix::fs::symlink(flaky.path().join(&victim), flaky.path().join("results/r.torn")).unwrap();
    let output = flaky.sweep(&["run", "sweeps/flaky.toml", "--resume", &csv]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert_eq!(fs::read_to_string(flaky.path().join(&victim)).unwrap(), "precious\n");
    assert!(fs::read_to_string(&path).unwrap().ends_with("fal"), "the CSV was cut though the resume was refused");
}

/// `--resume csv`, which must succeed.
fn resume(flaky: &Flaky, csv: &str) {
    let resumed = flaky.sweep(&["run", "sweeps/flaky.toml", "--resume", csv]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
}

/// The folders of the failed runs `csv` records.
fn failed_run_folders(flaky: &Flaky, csv: &str) -> Vec<PathBuf> {
    let rows = common::csv_rows(&flaky.path().join(csv));
    rows.iter().filter(|row| row["status"] == "failed").map(|row| PathBuf::from(&row["log_dir"])).collect()
}

/// Drops the failed rows of `csv`, as if the sweep had been killed before recording them: `--resume` then
/// runs them again as their first attempt, in the folders they left.
fn forget_failed_rows(flaky: &Flaky, csv: &str) {
    let path = flaky.path().join(csv);
    let text = fs::read_to_string(&path).unwrap();
    let kept: String = text.lines().filter(|line| !line.contains(",failed,")).map(|line| format!("{line}\n")).collect();
    fs::write(&path, kept).unwrap();
}

#[test]
fn resume_does_not_write_through_a_linked_output_log() {
    let (flaky, csv) = Flaky::partly_failed();
    let victim = flaky.path().join(precious(&flaky, "victim.txt"));
    let folders = failed_run_folders(&flaky, &csv);
    assert_eq!(folders.len(), 2);
    for folder in &folders {
        fs::remove_file(folder.join("output.log")).unwrap();
        std::os::unix::fs::symlink(&victim, folder.join("output.log")).unwrap();
    }
    forget_failed_rows(&flaky, &csv);
    resume(&flaky, &csv);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n", "the run wrote through the link");
    for folder in &folders {
        let log = folder.join("output.log");
        assert!(fs::symlink_metadata(&log).unwrap().is_file(), "the link was not replaced: {}", log.display());
        assert!(fs::read_to_string(&log).unwrap().contains("fixture_result"), "{}", log.display());
    }
}

#[test]
fn resume_does_not_run_in_a_run_folder_that_is_a_link() {
    let (flaky, csv) = Flaky::partly_failed();
    let elsewhere = flaky.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::write(elsewhere.join("output.log"), "precious\n").unwrap();
    let folders = failed_run_folders(&flaky, &csv);
    for folder in &folders {
        fs::remove_dir_all(folder).unwrap();
        std::os::unix::fs::symlink(&elsewhere, folder).unwrap();
    }
    forget_failed_rows(&flaky, &csv);
    resume(&flaky, &csv);
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 1, "a run wrote into the linked folder");
    assert_eq!(fs::read_to_string(elsewhere.join("output.log")).unwrap(), "precious\n");
    for folder in &folders {
        assert!(fs::symlink_metadata(folder).unwrap().is_dir(), "the link was not replaced: {}", folder.display());
    }
}

#[test]
fn a_retry_keeps_the_failed_attempts_logs_in_a_folder_of_its_own() {
    let (flaky, csv) = Flaky::partly_failed();
    resume(&flaky, &csv);
    let rows = common::csv_rows(&flaky.path().join(&csv));
    for rep in ["1", "2"] {
        let attempts: Vec<&std::collections::BTreeMap<String, String>> =
            rows.iter().filter(|row| row["param.mode"] == "flaky" && row["rep"] == rep).collect();
        assert_eq!(attempts.len(), 2, "{rows:?}");
        let (first, second) = (PathBuf::from(&attempts[0]["log_dir"]), PathBuf::from(&attempts[1]["log_dir"]));
        assert_ne!(first, second, "both attempts' rows point to one folder");
        assert!(fs::read_to_string(first.join("output.log")).unwrap().contains("flaky: broken"), "{}", first.display());
        assert!(fs::read_to_string(second.join("output.log")).unwrap().contains("fixture_result"));
        assert!(second.to_string_lossy().ends_with("-attempt2"), "{}", second.display());
    }
}

/// `sweep <args>` in `flaky`, which must end within a few seconds (a read that blocks on a FIFO would not):
/// its output, or a panic naming the command once it is killed.
fn sweep_within_seconds(flaky: &Flaky, args: &[&str]) -> std::process::Output {
    let mut child = std::process::Command::new(common::sweep_bin())
        .args(args)
        .current_dir(flaky.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("sweep {args:?} blocked");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// `sweep <args>` ends at once, exit 2, with one line that says `says`.
fn assert_refused_at_once(flaky: &Flaky, args: &[&str], says: &str) {
    let output = sweep_within_seconds(flaky, args);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains(says), "{message}");
    assert_eq!(message.lines().filter(|line| line.starts_with("sweep: error")).count(), 1, "{message}");
}

fn make_fifo(path: &std::path::Path) {
    let _ = fs::remove_file(path);
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn report_refuses_a_sidecar_linked_to_dev_zero_at_once() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    let sidecar = flaky.path().join("results/r.json");
    fs::remove_file(&sidecar).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &sidecar).unwrap();
    assert_refused_at_once(&flaky, &["report", &csv], "a device, not a regular file: results/r.json");
    assert_refused_at_once(&flaky, &["run", "sweeps/flaky.toml", "--resume", &csv], "results/r.json");
}

#[test]
fn report_refuses_a_sidecar_that_is_a_fifo_without_blocking() {
    let flaky = Flaky::new();
    let csv = flaky.run_into("flaky", "r");
    make_fifo(&flaky.path().join("results/r.json"));
    assert_refused_at_once(&flaky, &["report", &csv], "a FIFO, not a regular file: results/r.json");
    assert_refused_at_once(&flaky, &["run", "sweeps/flaky.toml", "--resume", &csv], "results/r.json");
}

#[test]
fn check_refuses_a_declaration_that_is_a_fifo_without_blocking() {
    let flaky = Flaky::new();
    make_fifo(&flaky.path().join("sweeps/flaky.toml"));
    assert_refused_at_once(
        &flaky,
        &["check", "sweeps/flaky.toml"],
        "sweeps/flaky.toml: cannot read: a FIFO, not a regular file",
    );
    fs::remove_file(flaky.path().join("sweeps/flaky.toml")).unwrap();
    flaky.declare("flaky", r#"["ok"]"#, "");
    make_fifo(&flaky.path().join("sweeps/engines/flaky.toml"));
    assert_refused_at_once(&flaky, &["check", "sweeps/flaky.toml"], "sweeps/engines/flaky.toml: cannot read: a FIFO");
}

impl Victim {
    /// The tree as an interrupted in-place ablation left it: `kernels/gd.cpp` rendered as `rendered`
    /// (recorded in the journal) and then edited by the user to hold `on_disk`.
    fn left_rendered_then_edited(&self, rendered: &str, on_disk: &str) {
        self.plant_journal("kernels/gd.cpp", "0.orig", "shipped\n");
        let journal = serde_json::json!({ "pid": 999_999, "entries": [{
            "target": "kernels/gd.cpp", "saved": "0.orig", "sha256": sha256(b"shipped\n"),
            "rendered": [sha256(rendered.as_bytes())] }] });
        fs::write(self.tree().join(".sweep-inplace/journal.json"), journal.to_string()).unwrap();
        fs::write(self.tree().join("kernels/gd.cpp"), on_disk).unwrap();
    }

    /// What `sweep restore` on the tree says, once it succeeded.
    fn restored(&self) -> String {
        let output = sweep(self.dir.path(), &["restore", self.tree().to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        stderr(&output)
    }

    /// The original is back in `kernels/gd.cpp`, the user's `edit` in the copy beside it whose path
    /// `message` names, and nothing outside the tree changed.
    fn assert_edit_kept(&self, edit: &str, message: &str) {
        let copy = self.tree().canonicalize().unwrap().join("kernels/gd.cpp.sweep-user-edit");
        assert!(message.contains(&format!("your version is kept in {}", copy.display())), "{message}");
        assert_eq!(fs::read_to_string(&copy).unwrap(), edit);
        assert_eq!(fs::read_to_string(self.tree().join("kernels/gd.cpp")).unwrap(), "shipped\n");
        assert_eq!(fs::read_to_string(self.outside("precious.txt")).unwrap(), "precious\n");
        assert!(!self.tree().join(".sweep-inplace/journal.json").exists(), "the journal outlived the restore");
    }
}

/// Regression: after an interrupted in-place ablation, a line the user added to a
/// rendered file was replaced by the original with no warning and no copy.
#[test]
fn restore_keeps_a_user_edit_of_a_rendered_file() {
    let victim = Victim::new();
    victim.left_rendered_then_edited("ablated\n", "ablated\nmy line\n");
    victim.assert_edit_kept("ablated\nmy line\n", &victim.restored());
}

/// Regression: the automatic recovery every `run` (and `ablate`) does first on a tree
/// an interrupted in-place ablation left rendered lost the user's edit the same way.
#[test]
fn auto_recovery_keeps_a_user_edit_of_a_rendered_file() {
    let victim = Victim::new();
    victim.left_rendered_then_edited("ablated\n", "ablated\nmy line\n");
    victim.write_run_files();
    let output = sweep(victim.dir.path(), &["run", "sweeps/s.toml", "--no-build"]);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", stderr(&output));
    victim.assert_edit_kept("ablated\nmy line\n", &stderr(&output));
}

/// A file holding exactly what sweep rendered is sweep's own: restored with no copy kept.
#[test]
fn restore_of_a_file_holding_sweeps_own_rendering_keeps_no_copy() {
    let victim = Victim::new();
    victim.left_rendered_then_edited("ablated\n", "ablated\n");
    let message = victim.restored();
    assert!(!message.contains("kept"), "{message}");
    assert_eq!(fs::read_to_string(victim.tree().join("kernels/gd.cpp")).unwrap(), "shipped\n");
    assert!(!victim.tree().join("kernels/gd.cpp.sweep-user-edit").exists());
}

impl Flaky {
    /// `results/r.csv` of `flaky` with its `flaky` runs failed, the engine then mended: a CSV to resume.
    fn partly_failed() -> (Flaky, String) {
        let flaky = Flaky::new();
        flaky.set_broken(true);
        let csv = flaky.run_into("flaky", "r");
        flaky.set_broken(false);
        (flaky, csv)
    }

    /// Points the `flaky` profile at a copy of its script named `script`: another engine program.
    fn switch_program(&self, script: &str) {
        fs::copy(self.path().join("engine/flaky.sh"), self.path().join("engine").join(script)).unwrap();
        let profile = self.path().join("sweeps/engines/flaky.toml");
        let text =
            fs::read_to_string(&profile).unwrap().replace("{{tree}}/flaky.sh", &format!("{{{{tree}}}}/{script}"));
        fs::write(profile, text).unwrap();
    }

    /// The sidecar of `csv` (relative) as JSON.
    fn sidecar(&self, csv: &str) -> serde_json::Value {
        serde_json::from_slice(&fs::read(self.path().join(csv).with_extension("json")).unwrap()).unwrap()
    }
}

/// Regression: `--resume` after the engine profile named another `program` was accepted
/// silently: rows from two engines in one table, the sidecar rewritten to name only the new one.
#[test]
fn resume_refuses_rows_from_another_engine() {
    let (flaky, csv) = Flaky::partly_failed();
    flaky.switch_program("other.sh");
    flaky.assert_refused(
        &["run", "sweeps/flaky.toml", "--resume", &csv],
        "r.csv: cannot be resumed by this sweep: its rows come from another engine (`program` was \
         \"{{tree}}/flaky.sh\", now \"{{tree}}/other.sh\"); --accept-engine-change adds",
    );
}

/// Regression: with `--accept-engine-change` the resume goes on, and the change is in
/// the sidecar (with the engine the earlier rows come from) and in every summary of the CSV.
#[test]
fn an_accepted_engine_change_is_recorded_in_the_sidecar_and_shown_in_the_summary() {
    let (flaky, csv) = Flaky::partly_failed();
    flaky.switch_program("other.sh");
    let resumed = flaky.sweep(&["run", "sweeps/flaky.toml", "--resume", &csv, "--accept-engine-change"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let sidecar = flaky.sidecar(&csv);
    assert_eq!(sidecar["engine_fingerprint"]["program"], "{{tree}}/other.sh");
    assert_eq!(sidecar["engine_changes"][0]["previous"]["program"], "{{tree}}/flaky.sh");
    let change = sidecar["engine_changes"][0]["change"].as_str().unwrap();
    assert_eq!(change, "`program` was \"{{tree}}/flaky.sh\", now \"{{tree}}/other.sh\"");
    let warning = "Not every row comes from one engine: a resume with `--accept-engine-change`";
    assert!(common::stdout(&resumed).contains(warning), "{}", common::stdout(&resumed));
    let report = flaky.sweep(&["report", &csv]);
    assert!(common::stdout(&report).contains(warning), "{}", common::stdout(&report));
    let again = flaky.sweep(&["run", "sweeps/flaky.toml", "--resume", &csv]);
    assert_eq!(again.status.code(), Some(0), "the accepted engine is now the CSV's: {}", stderr(&again));
    assert_eq!(flaky.sidecar(&csv)["engine_changes"].as_array().unwrap().len(), 1, "the change was lost or doubled");
}

/// A sidecar written before engines were recorded stays resumable: a note says the engine cannot be checked.
#[test]
fn resuming_a_csv_whose_sidecar_records_no_engine_is_a_note_not_an_error() {
    let (flaky, csv) = Flaky::partly_failed();
    let mut sidecar = flaky.sidecar(&csv);
    sidecar.as_object_mut().unwrap().remove("engine_fingerprint");
    fs::write(flaky.path().join(&csv).with_extension("json"), sidecar.to_string()).unwrap();
    flaky.switch_program("other.sh");
    let resumed = flaky.sweep(&["run", "sweeps/flaky.toml", "--resume", &csv]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains("r.json: written by an older sweep, it does not record its engine"),
        "{}",
        stderr(&resumed)
    );
    assert_eq!(flaky.sidecar(&csv)["engine_fingerprint"]["program"], "{{tree}}/other.sh");
}
