//! The reference engine under a real Slurm (scripts/slurm-local.sh start): a sweep through `srun`, a
//! timeout and a Ctrl-C that must cancel the job step, and a `sweep submit` array job merged back; and a
//! search whose rounds are array jobs, on the FIXTURE engine. Those five are ignored by default, with the reason (a plain `cargo test` reports them ignored, never
//! passed without running); scripts/test.sh runs them with `--ignored` once its local Slurm answers,
//! and then a missing controller fails them. Shards without Slurm (`--shard`
//! runs merged and reported, a repeated run refused, a missing one reported) and `sweep submit
//! --dry-run` run everywhere.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{csv_rows, engine_tree, ensure_engine_built, repo_root, stderr, stdout, sweep, sweep_bin, Workspace};

/// Longest an array job of the tiny sweep may take from submission to its end.
const JOB_TIMEOUT: Duration = Duration::from_secs(300);

/// Why these tests are ignored unless asked for.
const NEEDS_SLURM: &str = "needs a Slurm controller: scripts/slurm-local.sh start (scripts/test.sh runs them)";

/// Fails the test, naming the reason, when no Slurm controller answers.
fn require_slurm() {
    match Command::new("sinfo").args(["-h", "-o", "%t"]).output() {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!("sinfo fails ({}): {NEEDS_SLURM}", stderr(&output).trim()),
        Err(error) => panic!("no sinfo ({error}): {NEEDS_SLURM}"),
    }
}

/// A workspace with the `reference-slurm` profile pointing at this test binary's engine copy.
fn slurm_workspace() -> Workspace {
    require_slurm();
    ensure_engine_built();
    let workspace = Workspace::new();
    let profile = std::fs::read_to_string(repo_root().join("sweeps/engines/reference-slurm.toml")).unwrap();
    let profile = profile.replace("tree = \"../../engine\"", &format!("tree = \"{}\"", engine_tree().display()));
    workspace.write("sweeps/engines/reference-slurm.toml", &profile);
    workspace
}

/// 2 settings x 2 reps of the tiny preset on `profile`; `engine` adds `[engine]` keys, `new` is the
/// decode length.
fn tiny_sweep(workspace: &Workspace, profile: &str, engine: &str, new: u32) -> String {
    workspace.write_sweep(
        "tiny",
        &format!(
            r#"name = "tiny"
[engine]
profile = "{profile}"
{engine}
[params]
slices = [1, 2]
[reps]
count = 2
seed = 5
[run]
args = ["--preset", "tiny", "--new", "{new}"]
[run.env]
TPE_OVERLAP_SLICES = "{{{{slices}}}}"
[metrics]
result = ["prefill_tokens_per_s", "overlap_slices"]
[analysis]
primary = "prefill_tokens_per_s"
direction = "higher"
"#
        ),
    )
}

/// The rows of the tiny sweep hold each of its 2 settings x 2 reps exactly once.
fn assert_every_setting_and_rep_once(rows: &[std::collections::BTreeMap<String, String>]) {
    let mut runs: Vec<(String, String)> = rows.iter().map(|r| (r["param.slices"].clone(), r["rep"].clone())).collect();
    runs.sort();
    assert_eq!(runs, [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")].map(|(s, r)| (s.to_string(), r.to_string())));
}

#[test]
#[ignore = "needs a Slurm controller: scripts/slurm-local.sh start (scripts/test.sh runs them)"]
fn a_sweep_runs_every_rank_through_srun() {
    let workspace = slurm_workspace();
    let spec = tiny_sweep(&workspace, "reference-slurm", "", 2);
    let output = sweep(workspace.path(), &["run", &spec, "--no-build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = csv_rows(&workspace.result_csv("tiny"));
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert_eq!(row["metric.overlap_slices"], row["param.slices"], "{row:?}");
        let log = std::fs::read_to_string(Path::new(&row["log_dir"]).join("output.log")).unwrap();
        assert!(log.contains("tpe_result ranks=2 "), "not two MPI ranks under srun: {log}");
    }
}

/// Processes whose working directory is under `dir`: the engine's ranks (srun starts them in the run
/// directory, as children of slurmstepd, outside sweep's process groups).
fn ranks_under(dir: &Path) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
            comm.trim() == "tp-engine" && cwd.starts_with(dir)
        })
        .collect()
}

/// Starts a sweep whose runs decode for minutes, and returns it with its ranks once both are up.
fn start_long_sweep(workspace: &Workspace, engine: &str) -> (std::process::Child, Vec<i32>) {
    let spec = tiny_sweep(workspace, "reference-slurm", engine, 1_000_000);
    let mut child = Command::new(sweep_bin())
        .args(["run", &spec, "--no-build", "--filter", "slices=1", "--reps", "1"])
        .current_dir(workspace.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut ranks = ranks_under(workspace.path());
    while ranks.len() != 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        ranks = ranks_under(workspace.path());
    }
    if ranks.len() != 2 {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the two ranks never started: {ranks:?}");
    }
    (child, ranks)
}

fn assert_gone(ranks: &[i32]) {
    let alive: Vec<&i32> = ranks.iter().filter(|pid| Path::new(&format!("/proc/{pid}")).exists()).collect();
    assert!(alive.is_empty(), "ranks {alive:?} outlived the sweep: the job step was not cancelled");
}

#[test]
#[ignore = "needs a Slurm controller: scripts/slurm-local.sh start (scripts/test.sh runs them)"]
fn a_timeout_cancels_the_job_step_and_no_rank_is_left() {
    let workspace = slurm_workspace();
    let (child, ranks) = start_long_sweep(&workspace, "timeout = \"3s\"");
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_gone(&ranks);
    let rows = csv_rows(&workspace.result_csv("tiny"));
    assert_eq!(rows[0]["status"], "timeout", "{rows:?}");
}

#[test]
#[ignore = "needs a Slurm controller: scripts/slurm-local.sh start (scripts/test.sh runs them)"]
fn ctrl_c_cancels_the_job_step_and_no_rank_is_left() {
    let workspace = slurm_workspace();
    let (child, ranks) = start_long_sweep(&workspace, "");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    assert_gone(&ranks);
}

/// Polls squeue (once a second) until the job has left the queue.
fn wait_for_job(job: &str) {
    let deadline = Instant::now() + JOB_TIMEOUT;
    loop {
        let output = Command::new("squeue").args(["-h", "-j", job]).output().unwrap();
        if output.status.success() && stdout(&output).trim().is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "job {job} still queued after {JOB_TIMEOUT:?}: {}", stdout(&output));
        std::thread::sleep(Duration::from_secs(1));
    }
}

#[test]
#[ignore = "needs a Slurm controller: scripts/slurm-local.sh start (scripts/test.sh runs them)"]
fn a_submitted_array_job_of_two_shards_merges_into_every_run_once() {
    let workspace = slurm_workspace();
    let spec = tiny_sweep(&workspace, "reference-slurm", "", 2);
    let output = sweep(workspace.path(), &["submit", &spec, "--shards", "2", "--sbatch-arg=--time=00:10:00"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let job = stdout(&output).trim().to_string();
    assert!(job.chars().all(|c| c.is_ascii_digit()) && !job.is_empty(), "not a job id: {job:?}");
    wait_for_job(&job);
    let folders: Vec<PathBuf> =
        std::fs::read_dir(workspace.path().join("results/tiny")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    let folder = folders[0].to_str().unwrap();
    let merge = sweep(workspace.path(), &["merge", folder]);
    assert!(merge.status.success(), "{}", stderr(&merge));
    let rows = csv_rows(&Path::new(folder).join("merged.csv"));
    assert_every_setting_and_rep_once(&rows);
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert_eq!([&row["scheduler"], &row["job"]], ["slurm", &job], "{row:?}");
        // Shard i runs rep i, in array task i.
        assert_eq!(row["task"], row["rep"], "{row:?}");
        assert!(!row["host"].is_empty());
    }
    let report = sweep(workspace.path(), &["report", folder]);
    assert!(report.status.success(), "{}", stderr(&report));
    assert!(stdout(&report).contains("All 4 runs finished ok"), "{}", stdout(&report));
}

/// A search of the FIXTURE engine's 8 x 4 bowl (best at x = 6, y = 3) on a budget of 24 runs.
fn search_on_fixture(workspace: &Workspace) -> String {
    workspace.write_fixture_profile("1");
    workspace.write_sweep(
        "bowl",
        "name = \"bowl\"\n[engine]\nprofile = \"fixture\"\n[params]\nx = [1, 2, 3, 4, 5, 6, 7, 8]\ny = [1, 2, 3, 4]\n\
         [params.derived]\nv = \"100 - (x - 6) * (x - 6) - 2 * (y - 3) * (y - 3)\"\n[search]\nbudget = 24\n[reps]\nseed = 3\n\
         [run]\nargs = [\"0\", \"ok\", \"m\", \"{{v}}.{{rep}}\"]\n[metrics]\nresult = [\"value\"]\n\
         [analysis]\nprimary = \"value\"\ndirection = \"higher\"\n",
    )
}

/// `sweep submit` of a search stays in the foreground, each round an array job it waits for with
/// `sbatch --wait`; the rows it merges are the runs `sweep run` makes of the same search.
#[test]
#[ignore = "needs a Slurm controller: scripts/slurm-local.sh start (scripts/test.sh runs them)"]
fn a_search_submitted_to_slurm_runs_each_round_as_an_array_job_and_merges_its_rows() {
    require_slurm();
    let workspace = Workspace::new();
    let spec = search_on_fixture(&workspace);
    let output = sweep(workspace.path(), &["submit", &spec, "--shards", "2", "--sbatch-arg=--time=00:10:00"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = csv_rows(&workspace.result_csv("bowl"));
    assert!(!rows.is_empty() && rows.len() <= 24, "{} runs", rows.len());
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert!(row["scheduler"] == "slurm" && row["job"].parse::<u64>().is_ok(), "{row:?}");
    }
    let local = sweep(workspace.path(), &["run", &spec, "--out", "local.csv", "--no-history"]);
    assert_eq!(local.status.code(), Some(0), "{}", stderr(&local));
    let runs = |rows: &[std::collections::BTreeMap<String, String>]| -> Vec<String> {
        let mut runs: Vec<String> =
            rows.iter().map(|r| format!("{} {} {} {}", r["param.x"], r["param.y"], r["rep"], r["order"])).collect();
        runs.sort();
        runs
    };
    assert_eq!(runs(&rows), runs(&csv_rows(&workspace.path().join("local.csv"))));
}

/// Runs shard `shard` of 2 into `folder/shard-<name>.csv`.
fn run_local_shard(workspace: &Workspace, spec: &str, shard: u32, name: &str) {
    let out = format!("results/tiny/s/shard-{name}.csv");
    let output = sweep(workspace.path(), &["run", spec, "--no-build", "--shard", &format!("{shard}/2"), "--out", &out]);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn two_shards_merge_into_every_run_once_and_report() {
    ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(&workspace, "reference", "", 2);
    run_local_shard(&workspace, &spec, 1, "1");
    let partial = sweep(workspace.path(), &["merge", "results/tiny/s"]);
    assert_eq!(partial.status.code(), Some(1), "{}", stderr(&partial));
    assert!(stderr(&partial).contains("missing: slices=2 rep 2"), "{}", stderr(&partial));
    run_local_shard(&workspace, &spec, 2, "2");
    let report = sweep(workspace.path(), &["report", "results/tiny/s"]);
    assert!(report.status.success(), "{}", stderr(&report));
    assert!(stdout(&report).contains("All 4 runs finished ok"), "{}", stdout(&report));
    assert_every_setting_and_rep_once(&csv_rows(&workspace.path().join("results/tiny/s/merged.csv")));
}

#[test]
fn a_run_recorded_by_two_shards_is_refused_naming_the_file_and_line() {
    ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(&workspace, "reference", "", 2);
    run_local_shard(&workspace, &spec, 1, "1");
    run_local_shard(&workspace, &spec, 1, "3");
    let output = sweep(workspace.path(), &["merge", "results/tiny/s"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("shard-3.csv:2: slices="), "{}", stderr(&output));
    assert!(stderr(&output).contains("is also recorded in"), "{}", stderr(&output));
    assert!(!Path::new(&workspace.path().join("results/tiny/s/merged.csv")).exists());
}

#[test]
fn submit_dry_run_prints_the_array_script_and_claims_nothing() {
    ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(&workspace, "reference", "", 2);
    let output = sweep(
        workspace.path(),
        &["submit", &spec, "--shards", "2", "--dry-run", "--sbatch-arg=-p", "--sbatch-arg=gpu"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let script = stdout(&output);
    for expected in ["#SBATCH --array=1-2\n", "#SBATCH -p gpu\n", " run ", "--seed 5 --no-build", "/2\" --out "] {
        assert!(script.contains(expected), "no {expected:?} in\n{script}");
    }
    assert!(!workspace.path().join("results").exists(), "a dry run claimed a results folder");
    let too_many = sweep(workspace.path(), &["submit", &spec, "--shards", "3", "--dry-run"]);
    assert_eq!(too_many.status.code(), Some(2), "{}", stderr(&too_many));
}

/// Regression: the hint of an unbuilt engine was `sweep run <file> --reps 1`, which runs only
/// where `sweep` is on the PATH. It names this very binary, and builds the engine as printed; the
/// submission then goes ahead. The engine is a FIXTURE whose build writes its program.
#[test]
fn submit_of_an_unbuilt_engine_names_a_command_that_builds_it() {
    let workspace = Workspace::new();
    let build = "#!/bin/sh\nd=$(dirname \"$0\")\nprintf '#!/bin/sh\\necho fixture_result value=1\\n' > \"$d/run.sh\"\nchmod +x \"$d/run.sh\"\n";
    let script = workspace.write("engine/build.sh", build);
    Command::new("chmod").arg("+x").arg(&script).status().unwrap();
    workspace.write(
        "sweeps/engines/built.toml",
        "tree = \"../../engine\"\nbuild = [\"{{tree}}/build.sh\"]\nprogram = \"{{tree}}/run.sh\"\nlauncher = \"local\"\n\
         ranks = 1\ntimeout = \"10s\"\n[result]\nprefix = \"fixture_result\"\n",
    );
    let spec = workspace.write_sweep(
        "built",
        "name = \"built\"\n[engine]\nprofile = \"built\"\n[params]\nmode = [\"a\", \"b\"]\n[reps]\ncount = 2\n\
         [run]\nargs = [\"{{mode}}\"]\n[metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\n",
    );
    let refused = sweep(workspace.path(), &["submit", &spec, "--shards", "2", "--dry-run"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    let message = stderr(&refused);
    let hint = message.split("build it first (`").nth(1).and_then(|rest| rest.split('`').next()).expect("a command");
    assert!(hint.ends_with(&format!(" run {spec} --reps 1")), "{hint}");
    let built = Command::new("sh").args(["-c", hint]).current_dir(workspace.path()).output().unwrap();
    assert_eq!(built.status.code(), Some(0), "{hint}: {}", stderr(&built));
    let submitted = sweep(workspace.path(), &["submit", &spec, "--shards", "2", "--dry-run"]);
    assert!(submitted.status.success(), "{}", stderr(&submitted));
}
