//! Shards without Slurm: `sweep run --shard i/n` into one folder, `sweep merge` and `sweep report` on
//! it, a repeated run refused, a missing one reported, and `sweep submit --dry-run`'s script.

mod common;

use std::path::Path;

use common::{csv_rows, ensure_engine_built, stderr, stdout, sweep, Workspace};

/// 2 settings x 2 reps of the reference engine's tiny preset.
fn tiny_sweep(workspace: &Workspace) -> String {
    workspace.write_sweep(
        "tiny",
        r#"name = "tiny"
[engine]
profile = "reference"
[params]
slices = [1, 2]
[reps]
count = 2
seed = 3
[run]
args = ["--preset", "tiny", "--new", "2"]
[run.env]
TPE_OVERLAP_SLICES = "{{slices}}"
[metrics]
result = ["prefill_tokens_per_s"]
[analysis]
primary = "prefill_tokens_per_s"
direction = "higher"
"#,
    )
}

/// Runs shard `shard` of 2 into `folder/shard-<name>.csv`.
fn run_shard(workspace: &Workspace, spec: &str, shard: u32, name: &str) {
    let out = format!("results/tiny/s/shard-{name}.csv");
    let output = sweep(workspace.path(), &["run", spec, "--no-build", "--shard", &format!("{shard}/2"), "--out", &out]);
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn two_shards_merge_into_every_run_once_and_report() {
    ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(&workspace);
    run_shard(&workspace, &spec, 1, "1");
    let partial = sweep(workspace.path(), &["merge", "results/tiny/s"]);
    assert_eq!(partial.status.code(), Some(1), "{}", stderr(&partial));
    assert!(stderr(&partial).contains("missing: slices=2 rep 2"), "{}", stderr(&partial));
    run_shard(&workspace, &spec, 2, "2");
    let report = sweep(workspace.path(), &["report", "results/tiny/s"]);
    assert!(report.status.success(), "{}", stderr(&report));
    assert!(stdout(&report).contains("All 4 runs finished ok"), "{}", stdout(&report));
    let rows = csv_rows(&workspace.path().join("results/tiny/s/merged.csv"));
    let mut runs: Vec<(String, String)> = rows.iter().map(|r| (r["param.slices"].clone(), r["rep"].clone())).collect();
    runs.sort();
    assert_eq!(runs, [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")].map(|(s, r)| (s.to_string(), r.to_string())));
}

#[test]
fn a_run_recorded_by_two_shards_is_refused_naming_the_file_and_line() {
    ensure_engine_built();
    let workspace = Workspace::new();
    let spec = tiny_sweep(&workspace);
    run_shard(&workspace, &spec, 1, "1");
    run_shard(&workspace, &spec, 1, "3");
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
    let spec = tiny_sweep(&workspace);
    let output = sweep(
        workspace.path(),
        &["submit", &spec, "--shards", "2", "--dry-run", "--sbatch-arg=-p", "--sbatch-arg=gpu"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let script = stdout(&output);
    for expected in ["#SBATCH --array=1-2\n", "#SBATCH -p gpu\n", " run ", "--seed 3 --no-build", "/2\" --out "] {
        assert!(script.contains(expected), "no {expected:?} in\n{script}");
    }
    assert!(!workspace.path().join("results").exists(), "a dry run claimed a results folder");
    let too_many = sweep(workspace.path(), &["submit", &spec, "--shards", "3", "--dry-run"]);
    assert_eq!(too_many.status.code(), Some(2), "{}", stderr(&too_many));
}
