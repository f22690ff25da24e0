//! A search submitted to Slurm (`sweep submit` of a `[search]`): each round an array job, its rows merged
//! into the search's one CSV. Slurm is the FIXTURE `tests/fixtures/slurm/test_fixture_sbatch.sh`, put on
//! the PATH as `sbatch`, which runs an array's tasks here; the engine is the FIXTURE bowl of
//! `tests/search.rs` (best at x = 7, y = 4), so a search on Slurm can be held against the same search run
//! by `sweep run`: fixture numbers, not measurements.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{csv_rows, repo_root, stderr, sweep, sweep_bin, Workspace};
use serde_json::Value;

type Row = BTreeMap<String, String>;

/// A 12 x 12 bowl (144 settings) searched on a budget of `budget` runs.
fn bowl(workspace: &Workspace, budget: u32) -> String {
    workspace.write_fixture_profile("1");
    let levels = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]";
    workspace.write_sweep(
        "bowl",
        &format!(
            "name = \"bowl\"\n[engine]\nprofile = \"fixture\"\n[params]\nx = {levels}\ny = {levels}\n\
             [params.derived]\nv = \"1000 - 3 * (x - 7) * (x - 7) - 2 * (y - 4) * (y - 4) - (x - 7) * (y - 4)\"\n\
             [search]\nbudget = {budget}\n[reps]\nseed = 7\n[run]\nargs = [\"0\", \"ok\", \"m\", \"{{{{v}}}}.{{{{rep}}}}\"]\n\
             [metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\ndirection = \"higher\"\n"
        ),
    )
}

/// `sweep ARGS` with the FIXTURE sbatch first on the PATH; `fake` sets its `FAKE_SBATCH_*` knobs.
fn with_fake_sbatch(workspace: &Workspace, args: &[&str], fake: &[(&str, &str)]) -> Output {
    let bin = workspace.path().join("bin");
    if !bin.join("sbatch").exists() {
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::copy(repo_root().join("harness/tests/fixtures/slurm/test_fixture_sbatch.sh"), bin.join("sbatch"))
            .unwrap();
    }
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut command = Command::new(sweep_bin());
    command.args(args).current_dir(workspace.path()).env("PATH", path).env("FAKE_SBATCH_STATE", &bin);
    for (name, value) in fake {
        command.env(format!("FAKE_SBATCH_{name}"), value);
    }
    command.output().expect("sweep runs")
}

/// A workspace whose bowl on a budget of `budget` runs was submitted (`sweep submit SPEC ARGS`) and exited
/// with `code`, with the declaration's path and the output.
fn submitted(budget: u32, args: &[&str], fake: &[(&str, &str)], code: i32) -> (Workspace, String, Output) {
    let workspace = Workspace::new();
    let spec = bowl(&workspace, budget);
    let argv: Vec<&str> = ["submit", spec.as_str()].into_iter().chain(args.iter().copied()).collect();
    let output = with_fake_sbatch(&workspace, &argv, fake);
    assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
    (workspace, spec, output)
}

/// Each run a CSV records: (x, y, rep), and its order unless `resumed` (a resumed search numbers its
/// runs from 1 again, on Slurm or not).
fn runs(rows: &[Row], resumed: bool) -> BTreeSet<(String, String, String, String)> {
    let order = |row: &Row| if resumed { String::new() } else { row["order"].clone() };
    rows.iter().map(|r| (r["param.x"].clone(), r["param.y"].clone(), r["rep"].clone(), order(r))).collect()
}

/// The runs the same search makes when `sweep run` runs it here.
fn local_search(workspace: &Workspace, spec: &str) -> Vec<Row> {
    let output = sweep(workspace.path(), &["run", spec, "--out", "local.csv", "--no-history"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    csv_rows(&workspace.path().join("local.csv"))
}

/// The CSV the search on Slurm wrote under `results/bowl/` (the local one is elsewhere).
fn slurm_csv(workspace: &Workspace) -> PathBuf {
    workspace.result_csv("bowl")
}

fn analysis(csv: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(csv.with_extension("analysis.json")).unwrap()).unwrap()
}

#[test]
fn a_search_on_slurm_runs_each_round_as_an_array_job_and_makes_the_runs_a_local_search_makes() {
    let (workspace, spec, output) = submitted(120, &["--shards", "3", "--sbatch-arg=--time=10"], &[], 0);
    let csv = slurm_csv(&workspace);
    let rows = csv_rows(&csv);
    assert!(rows.len() <= 120, "{} runs", rows.len());
    let local = local_search(&workspace, &spec);
    assert_eq!(runs(&rows, false), runs(&local, false), "not the runs of the same search run here");
    let jobs: BTreeSet<&str> = rows.iter().map(|row| row["job"].as_str()).collect();
    assert!(jobs.len() >= 5 && jobs.contains("41"), "one array job a round: {jobs:?}");
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert_eq!(row["scheduler"], "slurm", "{row:?}");
        assert!(["1", "2", "3"].contains(&row["task"].as_str()), "{row:?}");
        assert!(row["log_dir"].contains("/slurm/round-"), "a task's run keeps its logs in its round: {row:?}");
    }
    let search = &analysis(&csv)["search"];
    assert_eq!(search["runs"], rows.len());
    assert_eq!([&search["best"]["x"], &search["best"]["y"]], [7, 4], "{search}");
    let round = csv.with_extension("").join("slurm/round-1");
    let script = std::fs::read_to_string(round.join("round.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --time=10\n") && script.contains("--runs-file "), "{script}");
    assert!(stderr(&output).contains("round 1: "), "{}", stderr(&output));
}

#[test]
fn a_task_that_ends_without_its_rows_fails_their_runs_naming_it_and_the_search_goes_on() {
    // A failed run fails the sweep: exit code 1.
    let (workspace, _, _) = submitted(60, &["--shards", "2"], &[("LOSE", "42_2"), ("CUT", "43_1")], 1);
    let rows = csv_rows(&slurm_csv(&workspace));
    // Task 1 of job 43 hit its time limit after its first run: that run's row landed, its others failed.
    let timed_out: Vec<&Row> =
        rows.iter().filter(|row| row["error"].contains("array task 1 of Slurm job 43 ")).collect();
    assert!(!timed_out.is_empty(), "{rows:?}");
    assert!(timed_out.iter().all(|row| row["error"].contains("CANCELLED AT 2026-12-05T00:00:00 DUE TO TIME LIMIT")));
    assert_eq!(rows.iter().filter(|row| row["job"] == "43" && row["task"] == "1").count(), 1, "{rows:?}");
    let lost: Vec<&Row> = rows.iter().filter(|row| row["error"].contains(" job 42 ")).collect();
    assert!(!lost.is_empty(), "{rows:?}");
    for row in lost.iter().chain(&timed_out) {
        assert_eq!(row["status"], "failed", "{row:?}");
    }
    for row in &lost {
        assert!(
            row["error"].starts_with(
                "not run: array task 2 of Slurm job 42 ended without recording this run (slurmstepd: error: *** JOB 4202 \
                 ON node2 CANCELLED DUE TO NODE FAILURE ***)"
            ),
            "{row:?}"
        );
        assert!(row["log_dir"].ends_with("/slurm/round-2/slurm-42_2.out"), "{row:?}");
    }
    // Task 1 of job 42 landed, and rounds after both losses ran: the candidates lost those rounds, no more.
    assert!(rows.iter().any(|row| row["job"] == "42" && row["task"] == "1" && row["status"] == "ok"));
    assert!(rows.iter().any(|row| row["job"].parse::<u32>().is_ok_and(|job| job > 43)), "the search stopped");
    assert_eq!(analysis(&slurm_csv(&workspace))["search"]["runs"], rows.len());
}

#[test]
fn a_refused_submission_stops_the_search_and_a_resume_on_slurm_carries_on_to_the_same_runs() {
    let (workspace, spec, output) = submitted(60, &["--shards", "2"], &[("REFUSE", "44")], 1);
    let csv = slurm_csv(&workspace);
    let message = stderr(&output);
    assert!(
        message.contains(&format!(
            "sweep: error: {} keeps the runs recorded so far (`--resume` it to carry on); the next round was not \
             submitted: sbatch exited with code 1: sbatch: error: Batch job submission failed",
            csv.display()
        )),
        "{message}"
    );
    let kept = csv_rows(&csv);
    let jobs: BTreeSet<&str> = kept.iter().map(|row| row["job"].as_str()).collect();
    assert_eq!(jobs, BTreeSet::from(["41", "42", "43"]), "three rounds ran before the fourth was refused");
    let resumed =
        with_fake_sbatch(&workspace, &["submit", &spec, "--shards", "2", "--resume", csv.to_str().unwrap()], &[]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let rows = csv_rows(&csv);
    assert_eq!(rows[..kept.len()], kept[..], "the rows already recorded stay as they were");
    assert_eq!(runs(&rows, true), runs(&local_search(&workspace, &spec), true));
    assert!(csv.with_extension("").join("slurm/round-4/round.sbatch").exists(), "rounds are numbered on");
}

#[test]
fn submit_resume_of_a_sweep_that_is_not_a_search_is_refused() {
    let workspace = Workspace::new();
    workspace.write_fixture_profile("1");
    let spec = workspace.write_sweep(
        "grid",
        "name = \"grid\"\n[engine]\nprofile = \"fixture\"\n[params]\nx = [1, 2]\n[reps]\ncount = 2\n\
         [run]\nargs = [\"0\", \"ok\", \"m\", \"{{x}}\"]\n[metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\n",
    );
    let output = with_fake_sbatch(&workspace, &["submit", &spec, "--shards", "2", "--resume", "x.csv"], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("only a search (`[search]`) is resumed by `sweep submit`"), "{}", stderr(&output));
}

#[test]
fn submit_dry_run_of_a_search_says_its_rounds_go_to_slurm_and_submits_nothing() {
    let (workspace, _, output) = submitted(60, &["--shards", "4", "--dry-run"], &[], 0);
    let plan = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(plan.contains("144 settings searched under a budget of 60 runs"), "{plan}");
    assert!(plan.contains("rounds: each a Slurm array job of at most 4 tasks (`sbatch --wait`)"), "{plan}");
    assert!(!workspace.path().join("results").exists(), "a dry run claimed a results folder");
    assert!(!workspace.path().join("bin/last_job").exists(), "a dry run submitted a job");
}
