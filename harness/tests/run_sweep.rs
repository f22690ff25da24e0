//! `sweep run` driven end to end: the reference engine through mpirun, and fixture ranks for
//! timeouts, failures, interrupts and resume.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{csv_rows, stderr, stdout, sweep, Workspace};

/// A per-rank profile whose ranks are `rank_fixture.sh` (a fixture, not an engine).
fn fixture_workspace(timeout: &str) -> Workspace {
    let workspace = Workspace::new();
    let fixture = common::repo_root().join("harness/tests/fixtures");
    workspace.write(
        "sweeps/engines/fixture.toml",
        &format!(
            r#"tree = "{}"
program = "{{{{tree}}}}/rank_fixture.sh"
launcher = "per-rank"
ranks = 2
timeout = "{timeout}"
grace = "500ms"
[result]
prefix = "fixture_result"
"#,
            fixture.display()
        ),
    );
    workspace
}

fn fixture_sweep(workspace: &Workspace, modes: &str, reps: u32, marker: &str) -> String {
    workspace.write_sweep(
        "fixture",
        &format!(
            r#"name = "fixture"
[engine]
profile = "fixture"
[params]
mode = {modes}
[reps]
count = {reps}
seed = 1
[run]
args = ["{{{{rank}}}}", "{{{{mode}}}}", "{marker}", "{{{{rep}}}}"]
[metrics]
result = ["value"]
[analysis]
primary = "value"
"#
        ),
    )
}

/// Processes whose command line holds `marker`, other than the pgrep itself.
fn leftover_processes(marker: &str) -> String {
    let output = Command::new("pgrep").args(["-af", marker]).output().expect("pgrep runs");
    String::from_utf8_lossy(&output.stdout).lines().filter(|l| !l.contains("pgrep")).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_tiny_sweep_on_the_reference_engine_records_every_run_and_summarises() {
    common::ensure_engine_built();
    let workspace = Workspace::new();
    let spec = workspace.write_sweep(
        "tiny",
        r#"name = "tiny"
[engine]
profile = "reference"
[params]
slices = [1, 2]
rows = 256
[reps]
count = 2
[run]
args = ["--preset", "tiny", "--rows", "{{rows}}", "--new", "2"]
[run.env]
TPE_OVERLAP_SLICES = "{{slices}}"
[metrics]
result = ["rows", "overlap_slices", "prefill_tokens_per_s", "decode_tokens_per_s"]
[[checks]]
metric = "rows"
equals = "{{rows}}"
[analysis]
primary = "prefill_tokens_per_s"
group_by = ["rows"]
control = "decode_tokens_per_s"
equivalence = "overlap_slices"
"#,
    );
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv("tiny");
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|row| row["status"] == "ok" && row["metric.rows"] == "256"), "{rows:?}");
    assert_eq!(rows.iter().filter(|row| row["param.slices"] == "2").count(), 2);
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    assert!(summary.contains("prefill_tokens_per_s") && summary.contains("Best per group"), "{summary}");
    assert!(stdout(&output).contains("Best per group"));
    // `run` names every file it wrote, the page included.
    for (what, file) in [
        ("sidecar", csv.with_extension("json")),
        ("summary", csv.with_extension("summary.md")),
        ("analysis", csv.with_extension("analysis.json")),
        ("page", csv.with_extension("html")),
        ("plot", csv.with_extension("svg")),
    ] {
        let line = format!("\n  {what} {}\n", file.display());
        assert!(file.is_file() && stderr(&output).contains(&line), "no `{line}` in {}", stderr(&output));
    }
    let sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(csv.with_extension("json")).unwrap()).unwrap();
    assert_eq!(sidecar["sweep"]["name"], "tiny");
    assert!(sidecar["seed"].is_u64());
}

#[test]
fn a_hanging_rank_is_killed_at_the_timeout_and_nothing_is_left_behind() {
    let workspace = fixture_workspace("1s");
    let marker = "marker-hang-7f3a";
    let spec = fixture_sweep(&workspace, r#"["hang1", "ok"]"#, 1, marker);
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let rows = csv_rows(&workspace.result_csv("fixture"));
    let hung = rows.iter().find(|row| row["param.mode"] == "hang1").unwrap();
    assert_eq!(hung["status"], "timeout");
    assert!(hung["error"].starts_with("timed out after 1."), "{}", hung["error"]);
    assert_eq!(rows.iter().find(|row| row["param.mode"] == "ok").unwrap()["status"], "ok");
    assert_eq!(leftover_processes(marker), "", "processes survived the timeout");
}

/// A failed run's reason was the exit code and a path; the engine's own first error line was in the
/// log only, so identical failures did not group. Also: a metric echoing a param (`rows`) is not
/// repeated under "Other metrics".
#[test]
fn an_engine_failure_is_reported_and_grouped_by_the_engines_first_error_line() {
    common::ensure_engine_built();
    let workspace = Workspace::new();
    let spec = workspace.write_sweep(
        "bad_rows",
        r#"name = "bad_rows"
[engine]
profile = "reference"
[params]
rows = [0, 8]
[reps]
count = 2
[run]
args = ["--preset", "tiny", "--rows", "{{rows}}", "--new", "2"]
[metrics]
result = ["rows", "prefill_tokens_per_s"]
[analysis]
primary = "prefill_tokens_per_s"
"#,
    );
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("tp-engine: invalid value '0' for --rows (the launcher exited with code 2)  2\n"), "{text}");
    assert!(!text.contains("Other metrics"), "the echoed `rows` is a param, not another metric: {text}");
}

#[test]
fn one_failing_rank_fails_its_run_and_the_sweep_goes_on() {
    let workspace = fixture_workspace("20s");
    let marker = "marker-fail-91c2";
    let spec = fixture_sweep(&workspace, r#"["fail1", "ok"]"#, 2, marker);
    let started = std::time::Instant::now();
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(15), "the surviving rank was not stopped");
    let rows = csv_rows(&workspace.result_csv("fixture"));
    assert_eq!(rows.len(), 4);
    for row in rows.iter().filter(|row| row["param.mode"] == "fail1") {
        assert_eq!(row["status"], "failed");
        // The rank's own first error line leads, so identical failures group in the summary.
        let reason = "rank 1: injected failure (rank 1 exited with code 3); logs in ";
        assert!(row["error"].starts_with(reason), "{}", row["error"]);
        assert!(workspace.path().join(&row["log_dir"]).join("rank1.log").is_file());
    }
    assert!(rows.iter().filter(|row| row["param.mode"] == "ok").all(|row| row["status"] == "ok"));
    assert!(stderr(&output).contains("2 of 4 runs failed"));
    assert!(
        stdout(&output).contains("rank 1: injected failure (rank 1 exited with code 3)  2\n"),
        "{}",
        stdout(&output)
    );
    assert_eq!(leftover_processes(marker), "");
}

#[test]
fn fail_fast_stops_at_the_first_failed_run() {
    let workspace = fixture_workspace("20s");
    let spec = fixture_sweep(&workspace, r#"["fail1"]"#, 3, "marker-ff-11aa");
    let output = sweep(workspace.path(), &["run", &spec, "--fail-fast"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(csv_rows(&workspace.result_csv("fixture")).len(), 1);
}

/// Starts `sweep run` in the background (its stderr piped) and returns once `rows` rows are in its CSV.
// The child is handed to the caller, who signals and waits for it; clippy cannot see that.
#[allow(clippy::zombie_processes)]
fn spawn_until_rows(workspace: &Workspace, spec: &str, rows: usize) -> std::process::Child {
    let mut child = Command::new(common::sweep_bin())
        .args(["run", spec])
        .current_dir(workspace.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let written = std::fs::read_dir(workspace.path().join("results/fixture"))
            .ok()
            .and_then(|mut entries| {
                entries.find_map(|e| e.ok().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "csv")))
            })
            .map_or(0, |csv| csv_rows(&csv).len());
        if written >= rows {
            return child;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("the sweep did not get going");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigkill_mid_sweep_then_resume_gives_exactly_settings_times_reps_rows() {
    let workspace = fixture_workspace("20s");
    let spec = fixture_sweep(&workspace, r#"["slow", "ok"]"#, 4, "marker-resume-5d0e");
    let mut child = spawn_until_rows(&workspace, &spec, 3);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    child.wait().unwrap();
    let csv = workspace.result_csv("fixture");
    let before = csv_rows(&csv).len();
    assert!(before < 8, "the sweep finished before it was killed");
    let output = sweep(workspace.path(), &["run", &spec, "--resume", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = csv_rows(&csv);
    let mut pairs: Vec<(String, String)> =
        rows.iter().map(|row| (row["param.mode"].clone(), row["rep"].clone())).collect();
    assert_eq!(pairs.len(), 8, "{pairs:?}");
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), 8, "duplicate (setting, rep) pairs");
    assert!(stderr(&output).contains(&format!("{before} runs already recorded")), "{}", stderr(&output));
}

#[test]
fn ctrl_c_keeps_finished_rows_kills_the_ranks_and_exits_130() {
    let workspace = fixture_workspace("20s");
    let marker = "marker-int-33b1";
    let spec = fixture_sweep(&workspace, r#"["ok", "fail1"]"#, 20, marker);
    let child = spawn_until_rows(&workspace, &spec, 2);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let rows = csv_rows(&workspace.result_csv("fixture"));
    assert!(rows.len() >= 2 && rows.len() < 40);
    assert!(rows.iter().all(|row| row["status"] != "interrupted"), "an interrupted run was recorded");
    assert_eq!(leftover_processes(marker), "");
}

/// Runs a hint the binary printed as a shell would run it when pasted, in the workspace.
fn run_hint(workspace: &Workspace, hint: &str) -> std::process::Output {
    Command::new("sh").args(["-c", hint]).current_dir(workspace.path()).output().expect("sh runs")
}

/// Regression: the hint after an interrupt was `sweep run --resume <csv>`, which fails (no
/// declaration). The hint on stderr and the one in the summary `report` writes of the partial CSV are
/// the same whole command, and it completes the sweep as printed.
#[test]
fn the_command_an_interrupt_prints_completes_the_sweep_as_printed() {
    let workspace = fixture_workspace("20s");
    let spec = fixture_sweep(&workspace, r#"["slow", "ok"]"#, 3, "marker-hint-8c4d");
    let child = spawn_until_rows(&workspace, &spec, 2);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    let hint = stderr(&output).split("this completes the sweep: ").nth(1).expect("a resume command").trim().to_string();
    let csv = workspace.result_csv("fixture");
    let relative = csv.strip_prefix(workspace.path()).unwrap().display().to_string();
    assert!(hint.ends_with(&format!(" run {spec} --resume {relative}")), "{hint}");

    let report = sweep(workspace.path(), &["report", &relative]);
    let summary = stdout(&report);
    let noted = summary.split("this completes it: `").nth(1).expect("the summary's command").split('`').next().unwrap();
    assert_eq!(noted, hint, "the summary and stderr give the same command:\n{summary}");
    assert!(summary.find("What to trust").unwrap() < summary.find("Verdicts").unwrap_or(usize::MAX), "{summary}");

    let completed = run_hint(&workspace, &hint);
    assert_eq!(completed.status.code(), Some(0), "{hint}: {}", stderr(&completed));
    assert_eq!(csv_rows(&csv).len(), 6, "every (setting, rep) once");
}

#[test]
fn dry_run_prints_every_rank_command_and_writes_nothing() {
    let workspace = fixture_workspace("20s");
    let spec = fixture_sweep(&workspace, r#"["ok"]"#, 2, "marker-dry");
    let output = sweep(workspace.path(), &["run", &spec, "--dry-run"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("1 setting x 2 reps = 2 runs"), "{text}");
    assert!(text.contains("rank 1: ") && text.contains("rank_fixture.sh 1 ok marker-dry 2"), "{text}");
    assert!(!workspace.path().join("results").exists());
}

/// `sweep ablate gated_delta` found `sweeps/gated_delta.toml` but `sweep run slices` did not.
#[test]
fn run_resolves_a_bare_name_under_sweeps() {
    let workspace = fixture_workspace("20s");
    fixture_sweep(&workspace, r#"["ok"]"#, 1, "marker-name");
    let output = sweep(workspace.path(), &["run", "fixture", "--dry-run"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("sweep `fixture` from sweeps/fixture.toml\n"), "{}", stdout(&output));
}

/// Every progress line repeated the params with one value (`new=2 prefill_reps=7 link_alpha_us=3800 ...`),
/// and every run folder spelt them out too (~120 characters): they are said once, at the start.
#[test]
fn fixed_params_are_said_once_and_progress_lines_and_run_folders_name_what_varies() {
    let workspace = fixture_workspace("20s");
    let spec = workspace.write_sweep(
        "fixture",
        r#"name = "fixture"
[engine]
profile = "fixture"
[params]
mode = "ok"
value = [1, 2]
new = 2
[reps]
count = 1
seed = 1
[run]
args = ["{{rank}}", "{{mode}}", "marker-fixed-{{new}}", "{{value}}"]
[metrics]
result = ["value"]
[analysis]
primary = "value"
"#,
    );
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stderr(&output);
    assert_eq!(text.matches("Fixed: mode=ok, new=2\n").count(), 1, "{text}");
    let progress: Vec<&str> = text.lines().filter(|line| line.starts_with('[')).collect();
    assert_eq!(progress.len(), 2, "{text}");
    assert!(progress.iter().all(|line| line.contains("] value=") && !line.contains("mode=")), "{progress:?}");
    let folders: Vec<String> = csv_rows(&workspace.result_csv("fixture"))
        .iter()
        .map(|row| std::path::Path::new(&row["log_dir"]).file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(folders.len(), 2);
    assert!(
        folders.iter().all(|name| name.ends_with("-value=1-rep1") || name.ends_with("-value=2-rep1")),
        "{folders:?}"
    );
}

/// `sweep run slices` from a subfolder of the repository failed with `cannot read`, and a path given there
/// wrote its results under the subfolder: both now find the root (the nearest folder holding `sweeps/`).
#[test]
fn sweep_run_from_a_subfolder_runs_the_roots_sweep_into_the_roots_results() {
    let workspace = fixture_workspace("20s");
    fixture_sweep(&workspace, r#"["ok"]"#, 1, "marker-subfolder");
    let below = workspace.path().join("harness/src");
    std::fs::create_dir_all(&below).unwrap();
    let by_name = sweep(&below, &["run", "fixture"]);
    assert_eq!(by_name.status.code(), Some(0), "{}", stderr(&by_name));
    let root = workspace.path().canonicalize().unwrap();
    let note = format!("sweep: note: in the repository at {}: sweep names are its sweeps/", root.display());
    assert!(stderr(&by_name).starts_with(&note), "{}", stderr(&by_name));
    assert_eq!(csv_rows(&workspace.result_csv("fixture")).len(), 1);
    let by_path = sweep(&below, &["run", "../../sweeps/fixture.toml"]);
    assert_eq!(by_path.status.code(), Some(0), "{}", stderr(&by_path));
    let csvs = std::fs::read_dir(root.join("results/fixture")).unwrap().flatten();
    assert_eq!(csvs.filter(|entry| entry.path().extension().is_some_and(|x| x == "csv")).count(), 2);
    assert!(!below.join("results").exists(), "nothing is written under the subfolder");
}

/// `sweep run --dry-run | head` panicked writing to the closed pipe.
#[test]
fn dry_run_into_a_closed_pipe_does_not_panic() {
    let workspace = fixture_workspace("20s");
    // Far more output than a pipe buffers, so writing fails however late the reader goes.
    let spec = fixture_sweep(&workspace, r#"["ok"]"#, 3000, "marker-pipe");
    let mut child = Command::new(common::sweep_bin())
        .args(["run", &spec, "--dry-run"])
        .current_dir(workspace.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
}

/// The dry run printed Rust spellings (`PerRank`, `Interleaved`), no build command, and a seed the
/// real run would not reuse.
#[test]
fn dry_run_spells_the_toml_shows_the_build_and_how_to_reuse_a_drawn_seed() {
    let workspace = fixture_workspace("20s");
    let profile = workspace.path().join("sweeps/engines/fixture.toml");
    let text = std::fs::read_to_string(&profile).unwrap();
    std::fs::write(&profile, text.replacen("launcher =", "build = [\"make\", \"-C\", \"{{tree}}\"]\nlauncher =", 1))
        .unwrap();
    let spec = fixture_sweep(&workspace, r#"["ok"]"#, 2, "marker-dry-seed");
    let spec_file = workspace.path().join(&spec);
    std::fs::write(&spec_file, std::fs::read_to_string(&spec_file).unwrap().replace("seed = 1\n", "")).unwrap();
    let output = sweep(workspace.path(), &["run", &spec, "--dry-run"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("(per-rank launcher, 2 ranks)") && text.contains("order interleaved"), "{text}");
    let fixtures = common::repo_root().join("harness/tests/fixtures");
    assert!(text.contains(&format!("build [default] in {0}: make -C {0}", fixtures.display())), "{text}");
    let seed = text.split("seed ").nth(1).and_then(|rest| rest.split(' ').next()).expect("a seed");
    assert!(text.contains(&format!("pass `--seed {seed}` to run this order")), "{text}");
    let again = stdout(&sweep(workspace.path(), &["run", &spec, "--dry-run", "--seed", seed]));
    assert!(again.contains(&format!("order interleaved, seed {seed}\n")), "{again}");
}

#[test]
fn ctrl_c_during_the_build_is_an_interruption_and_stops_the_build() {
    let workspace = fixture_workspace("20s");
    let profile = workspace.path().join("sweeps/engines/fixture.toml");
    let text = std::fs::read_to_string(&profile).unwrap();
    std::fs::write(&profile, text.replacen("launcher =", "build = [\"sleep\", \"31.5\"]\nlauncher =", 1)).unwrap();
    let spec = fixture_sweep(&workspace, r#"["ok"]"#, 1, "marker-build-int");
    let child = Command::new(common::sweep_bin())
        .args(["run", &spec])
        .current_dir(workspace.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while leftover_processes("sleep 31.5").is_empty() {
        assert!(started.elapsed() < Duration::from_secs(30), "the build never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(20), "sweep waited for the build to finish");
    assert_eq!(leftover_processes("sleep 31.5"), "", "the build outlived the sweep");
    assert!(csv_rows(&workspace.result_csv("fixture")).is_empty());
}

/// A sweep killed while writing a row leaves a last row without a line end: `report` refuses it, and
/// `--resume` cuts it off (keeping its bytes in `<stem>.torn`) and runs that run again.
#[test]
fn torn_last_row_is_dropped_on_resume_and_its_bytes_kept() {
    let workspace = fixture_workspace("20s");
    let spec = fixture_sweep(&workspace, r#"["ok"]"#, 2, "marker-torn-6b1f");
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv("fixture");
    let whole = std::fs::read_to_string(&csv).unwrap();
    let torn = &whole[..whole.len() - 10];
    std::fs::write(&csv, torn).unwrap();
    let csv_arg = csv.to_str().unwrap();
    let report = sweep(workspace.path(), &["report", csv_arg]);
    assert_eq!(report.status.code(), Some(2), "{}", stderr(&report));
    let message = stderr(&report);
    let refusal = format!(
        "sweep: error: {csv_arg}:3: the last row has no line end: a run was cut off while being recorded; \
         resuming the sweep (`--resume`) drops it and runs it again: "
    );
    let hint = message.strip_prefix(&refusal).unwrap_or_else(|| panic!("{message}")).trim();
    let relative = csv.strip_prefix(workspace.path()).unwrap().display().to_string();
    assert!(hint.ends_with(&format!(" run {spec} --resume {relative}")), "{hint}");
    // The command the refusal ends with runs as printed.
    let output = run_hint(&workspace, hint);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let kept = csv.with_extension("torn");
    assert!(
        stderr(&output).contains(&format!(
            "{csv_arg}:3: the last row was cut off (no line end): dropped, its run will run again; its bytes are in {}",
            kept.display()
        )),
        "{}",
        stderr(&output)
    );
    let cut_row = &torn[torn.rfind('\n').unwrap() + 1..];
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), format!("{cut_row}\n"));
    let reps: Vec<String> = csv_rows(&csv).iter().map(|row| row["rep"].clone()).collect();
    assert_eq!(reps.len(), 2, "{reps:?}");
    assert_ne!(reps[0], reps[1], "the cut run ran again, the whole one did not");
}

/// Regression: two `--resume` of one CSV wrote duplicate rows. The second is refused with
/// one line naming the writer while the first completes the sweep.
#[test]
fn a_second_resume_of_a_csv_being_resumed_is_refused_and_no_run_is_recorded_twice() {
    let workspace = fixture_workspace("20s");
    let spec = fixture_sweep(&workspace, r#"["slow"]"#, 12, "marker-resume-twice-81c2");
    let mut killed = spawn_until_rows(&workspace, &spec, 1);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(killed.id() as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    killed.wait().unwrap();
    let csv = workspace.result_csv("fixture");
    let before = csv_rows(&csv).len();
    let first = Command::new(common::sweep_bin())
        .args(["run", &spec, "--resume", csv.to_str().unwrap()])
        .current_dir(workspace.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while csv_rows(&csv).len() == before {
        assert!(std::time::Instant::now() < deadline, "the first resume never wrote a row");
        std::thread::sleep(Duration::from_millis(10));
    }
    let first_pid = first.id();
    let second = sweep(workspace.path(), &["run", &spec, "--resume", csv.to_str().unwrap()]);
    let first = first.wait_with_output().unwrap();
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("sweep pid {first_pid} is writing this CSV")), "{err}");
    // Another test's SIGKILLed sweep may have left processes this sweep reports killing first.
    let errors: Vec<&str> = err.lines().filter(|line| !line.starts_with("killed ")).collect();
    assert_eq!(errors.len(), 1, "not a one-line refusal: {err}");
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let mut reps: Vec<String> = csv_rows(&csv).iter().map(|row| row["rep"].clone()).collect();
    assert_eq!(reps.len(), 12, "{reps:?}");
    reps.sort();
    reps.dedup();
    assert_eq!(reps.len(), 12, "a run was recorded twice");
}

/// A reference-engine sweep whose one run lasts far longer than any test waits.
fn endless_mpi_sweep(workspace: &Workspace, timeout: &str) -> String {
    workspace.write_sweep(
        "endless",
        &format!(
            r#"name = "endless"
[engine]
profile = "reference"
timeout = "{timeout}"
grace = "2s"
[reps]
count = 1
[run]
args = ["--preset", "small", "--new", "1000000"]
[metrics]
result = ["rows"]
[analysis]
primary = "rows"
"#
        ),
    )
}

/// Regression: OpenMPI puts ranks in their own process groups, so after a timeout, Ctrl-C
/// or SIGTERM ranks were still alive when sweep exited. Sweep must not exit before they are gone.
#[test]
fn openmpi_ranks_are_gone_when_sweep_exits_after_a_timeout_or_a_signal() {
    common::ensure_engine_built();
    let workspace = Workspace::new();
    let spec = endless_mpi_sweep(&workspace, "4s");
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(csv_rows(&workspace.result_csv("endless"))[0]["status"], "timeout");
    assert_eq!(common::processes_under(workspace.path()), Vec::<String>::new(), "ranks outlived the timeout");

    for signal in [nix::sys::signal::Signal::SIGINT, nix::sys::signal::Signal::SIGTERM] {
        let workspace = Workspace::new();
        let spec = endless_mpi_sweep(&workspace, "120s");
        let child = Command::new(common::sweep_bin())
            .args(["run", &spec, "--no-build"])
            .current_dir(workspace.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while common::processes_under(workspace.path()).iter().filter(|p| p.ends_with(" tp-engine")).count() < 2 {
            assert!(std::time::Instant::now() < deadline, "the ranks never started");
            std::thread::sleep(Duration::from_millis(20));
        }
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(130), "{signal}: {}", stderr(&output));
        assert_eq!(common::processes_under(workspace.path()), Vec::<String>::new(), "ranks outlived {signal}");
    }
}

/// A run that succeeds leaving a daemon behind (its own session and group, re-parented to sweep when
/// its rank exits) counts as ended only once the daemon is killed: sweep finds it without a /proc scan
/// being due (the scan is skipped when no process of the run can be left).
#[test]
fn a_daemon_a_successful_run_left_is_killed_before_the_run_counts_as_ended() {
    let workspace = fixture_workspace("20s");
    let marker = "marker-orphan-7a3c";
    let spec = fixture_sweep(&workspace, r#"["orphan"]"#, 2, marker);
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = csv_rows(&workspace.result_csv("fixture"));
    assert!(rows.len() == 2 && rows.iter().all(|row| row["status"] == "ok"), "{rows:?}");
    assert_eq!(leftover_processes(marker), "", "a finished run's daemon outlived sweep");
}

/// Pids of the processes whose parent is `parent` and whose command line holds `marker`, with the
/// process group of each.
fn children_of(parent: u32, marker: &str) -> Vec<(i32, i32)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let dir = entry.ok()?.path();
            let command_line = std::fs::read(dir.join("cmdline")).ok()?;
            String::from_utf8_lossy(&command_line).contains(marker).then_some(())?;
            let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
            let (head, rest) = stat.rsplit_once(')')?;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let pid = head.split_whitespace().next()?.parse().ok()?;
            let (parent_of, group) = (fields.get(1)?.parse::<u32>().ok()?, fields.get(2)?.parse().ok()?);
            (parent_of == parent).then_some((pid, group))
        })
        .collect()
}

/// `sweep run <spec>` in the workspace, started in the background with its output discarded.
fn spawn_sweep_run(workspace: &Workspace, spec: &str) -> std::process::Child {
    Command::new(common::sweep_bin())
        .args(["run", spec])
        .current_dir(workspace.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn gone_or_zombie(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.is_empty() || stat.contains(") Z ")
}

/// A SIGKILLed sweep gets no chance to stop its runs: its ranks, each leading its own process group,
/// must die with it (their parent-death signal, set before they exec, without a fork).
#[test]
fn a_sigkilled_sweep_takes_its_running_ranks_down_with_it() {
    let workspace = fixture_workspace("60s");
    let marker = "marker-pdeathsig-c41e";
    let spec = fixture_sweep(&workspace, r#"["hang1"]"#, 1, marker);
    let mut child = spawn_sweep_run(&workspace, &spec);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let ranks = loop {
        let ranks = children_of(child.id(), marker);
        if ranks.len() == 2 {
            break ranks;
        }
        assert!(std::time::Instant::now() < deadline, "the ranks never started: {ranks:?}");
        std::thread::sleep(Duration::from_millis(10));
    };
    for (pid, group) in &ranks {
        assert_eq!(pid, group, "a rank does not lead a process group of its own: {ranks:?}");
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    child.wait().unwrap();
    // At once: within seconds, any other sweep starting on this machine kills a dead sweep's processes.
    let deadline = std::time::Instant::now() + Duration::from_millis(500);
    while !ranks.iter().all(|(pid, _)| gone_or_zombie(*pid)) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let alive: Vec<_> = ranks.iter().filter(|(pid, _)| !gone_or_zombie(*pid)).collect();
    // What the ranks started (their sleeps) lives on in their groups: not this test's point.
    for (_, group) in &ranks {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(*group), nix::sys::signal::Signal::SIGKILL);
    }
    assert!(alive.is_empty(), "ranks outlived the SIGKILLed sweep: {alive:?}");
}

/// Regression: a per-rank program's daemons (own session, not sweep's children) survived a
/// SIGKILL of sweep indefinitely. Nothing can stop them at the kill itself; the next sweep kills
/// everything a dead sweep left before it runs anything.
#[test]
fn daemons_a_sigkilled_sweep_left_are_killed_by_the_next_sweep() {
    let workspace = fixture_workspace("20s");
    let marker = "marker-daemon-4e1b";
    let spec = fixture_sweep(&workspace, r#"["daemon"]"#, 1, marker);
    let mut killed = spawn_sweep_run(&workspace, &spec);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while leftover_processes(&format!("{marker}-daemon")).lines().count() < 2 {
        assert!(std::time::Instant::now() < deadline, "the ranks never started their daemons");
        std::thread::sleep(Duration::from_millis(10));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(killed.id() as i32), nix::sys::signal::Signal::SIGKILL).unwrap();
    killed.wait().unwrap();
    // Not asserted that the daemons are still alive here, nor which sweep kills them: any other test's
    // sweep starting now does, and would make such asserts flaky. Unkilled, they would live 60 s.
    let next = fixture_sweep(&workspace, r#"["ok"]"#, 1, "marker-daemon-next");
    let output = sweep(workspace.path(), &["run", &next]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(leftover_processes(marker), "", "the dead sweep's daemons outlived the next sweep's start");
}

/// Regression (resume keyed by setting id): a resume whose `--filter` plans other settings than
/// the first run numbers them differently from the CSV's sidecar; its rows are matched to the plan by
/// setting, so the new settings run and the recorded ones are not run again.
#[test]
fn resuming_with_another_filter_runs_the_new_settings_and_keeps_the_recorded_ones() {
    let workspace = fixture_workspace("20s");
    let spec = fixture_sweep(&workspace, r#"["slow", "ok"]"#, 2, "marker-refilter-41c7");
    let first = sweep(workspace.path(), &["run", &spec, "--filter", "mode=ok"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let csv = workspace.result_csv("fixture");
    let csv_arg = csv.to_str().unwrap();
    let modes = |csv: &std::path::Path| {
        let mut pairs: Vec<(String, String)> =
            csv_rows(csv).iter().map(|row| (row["param.mode"].clone(), row["rep"].clone())).collect();
        pairs.sort();
        pairs
    };
    assert_eq!(modes(&csv), [("ok".into(), "1".into()), ("ok".into(), "2".into())]);
    let refiltered = sweep(workspace.path(), &["run", &spec, "--filter", "mode=slow", "--resume", csv_arg]);
    assert_eq!(refiltered.status.code(), Some(0), "{}", stderr(&refiltered));
    let whole = sweep(workspace.path(), &["run", &spec, "--resume", csv_arg]);
    assert_eq!(whole.status.code(), Some(0), "{}", stderr(&whole));
    assert!(stderr(&whole).contains("4 runs already recorded"), "{}", stderr(&whole));
    let expected: Vec<(String, String)> = [("ok", "1"), ("ok", "2"), ("slow", "1"), ("slow", "2")]
        .iter()
        .map(|(m, r)| (m.to_string(), r.to_string()))
        .collect();
    assert_eq!(modes(&csv), expected);
}
