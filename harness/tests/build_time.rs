//! Build-time params end to end: `sweeps/build_tile.toml` compiles the reference engine once per
//! attention block size, each in its own cached copy, and runs them interleaved; a rerun builds nothing.

mod common;

use std::collections::BTreeSet;

use common::{csv_rows, stderr, sweep, sweep_bin, Workspace};

/// The repository's build-time sweep, in a workspace whose `reference` profile builds the test's engine copy.
fn build_tile(ws: &Workspace) -> String {
    let toml = std::fs::read_to_string(common::repo_root().join("sweeps/build_tile.toml")).unwrap();
    ws.write_sweep("build_tile", &toml)
}

/// Runs the sweep for one prompt length (two block sizes x two reps) into `out`.
fn run(ws: &Workspace, file: &str, out: &str) -> std::process::Output {
    sweep(ws.path(), &["run", file, "--reps", "2", "--filter", "rows=512", "--out", out])
}

#[test]
fn each_block_size_is_built_once_in_its_own_copy_and_a_rerun_builds_nothing() {
    let ws = Workspace::new();
    let file = build_tile(&ws);
    let first = run(&ws, &file, "first.csv");
    assert!(first.status.success(), "{}", stderr(&first));
    let log = stderr(&first);
    assert_eq!(log.matches("built default").count(), 2, "one build per block size: {log}");

    let rows = csv_rows(&ws.path().join("first.csv"));
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        assert_eq!(row["metric.attention_block"], row["param.block"], "the run used another block's binary: {row:?}");
    }
    let hashes: BTreeSet<(&str, &str)> =
        rows.iter().map(|r| (r["param.block"].as_str(), r["variant_hash"].as_str())).collect();
    let distinct: BTreeSet<&str> = hashes.iter().map(|(_, hash)| *hash).collect();
    assert_eq!(hashes.len(), 2, "one variant_hash per block size: {hashes:?}");
    assert_eq!(distinct.len(), 2, "block sizes share a variant_hash: {hashes:?}");
    let cache = ws.path().join("results/build_tile/build-cache");
    let entries = std::fs::read_dir(&cache).unwrap().filter(|entry| entry.as_ref().unwrap().path().is_dir()).count();
    assert_eq!(entries, 2, "one cache entry per block size (beside each, the lock file of its claim)");

    let again = run(&ws, &file, "again.csv");
    assert!(again.status.success(), "{}", stderr(&again));
    let log = stderr(&again);
    assert!(!log.contains("built default"), "a rerun rebuilt: {log}");
    assert_eq!(log.matches("cached default").count(), 2, "{log}");
}

/// A FIXTURE engine tree: `kernel.txt` holds one line per instruction group, and the build (`sh build.sh`)
/// bakes the groups left in the kernel and the build-time `TILE` into a printing "binary".
const FIXTURE_BUILD: &str = r#"# FIXTURE build: no compiler; writes a script that prints what it was built from.
set -eu
build_dir=$1; tile=${2#TILE=}
groups=$(grep -c ' on$' kernel.txt || true)
mkdir -p "$build_dir"
printf '#!/bin/sh\necho "fixture_result groups=%s tile=%s t=1"\n' "$groups" "$tile" > "$build_dir/engine"
chmod +x "$build_dir/engine"
"#;

const FIXTURE_SWEEP: &str = r#"name = "ablate_tile"

[engine]
profile = "fixture"

[params]
tile = [1, 2]

[build]
args = ["TILE={{tile}}"]

[reps]
count = 2

[metrics]
result = ["groups", "tile", "t"]

[[checks]]
metric = "tile"
equals = "{{tile}}"

[analysis]
primary = "t"

[ablation]
groups = ["a"]
templates = [{ template = "kernel.txt.hbs", target = "kernel.txt" }]
"#;

#[test]
fn ablation_variants_cross_build_time_params_each_pair_built_once() {
    let ws = Workspace::new();
    ws.write("tree/kernel.txt", "a on\nb on\n");
    ws.write("tree/build.sh", FIXTURE_BUILD);
    ws.write("sweeps/kernel.txt.hbs", "{{#unless ablate.a}}a on\n{{/unless}}b on\n");
    ws.write(
        "sweeps/engines/fixture.toml",
        "tree = \"../../tree\"\nbuild = [\"sh\", \"build.sh\", \"{{build_dir}}\"]\nprogram = \"{{build_dir}}/engine\"\n\
         launcher = \"local\"\nranks = 1\ntimeout = \"10s\"\n[result]\nprefix = \"fixture_result\"\n",
    );
    let file = ws.write_sweep("ablate_tile", FIXTURE_SWEEP);
    let ablate = |out: &str| sweep(ws.path(), &["ablate", &file, "--out", out]);
    let first = ablate("first.csv");
    assert!(first.status.success(), "{}", stderr(&first));
    let rows = csv_rows(&ws.path().join("first.csv"));
    assert_eq!(rows.len(), 8, "2 variants x 2 tiles x 2 reps: {rows:?}");
    let builds: BTreeSet<(&str, &str, &str)> =
        rows.iter().map(|r| (r["variant"].as_str(), r["param.tile"].as_str(), r["variant_hash"].as_str())).collect();
    let hashes: BTreeSet<&str> = builds.iter().map(|(_, _, hash)| *hash).collect();
    assert_eq!((builds.len(), hashes.len()), (4, 4), "one build per variant x tile: {builds:?}");
    for row in &rows {
        let groups = if row["variant"] == "baseline" { "2" } else { "1" };
        assert_eq!(row["metric.groups"], groups, "{row:?}");
    }
    assert_eq!(stderr(&first).matches("built ").count(), 4, "{}", stderr(&first));
    let again = ablate("again.csv");
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(!stderr(&again).contains("built "), "a rerun rebuilt: {}", stderr(&again));
}

/// `--no-build` of a build-time sweep was ignored: every block size was built anyway.
#[test]
fn no_build_of_a_build_time_sweep_is_refused_before_anything_is_built_or_written() {
    let ws = Workspace::new();
    let file = build_tile(&ws);
    let out = sweep(ws.path(), &["run", &file, "--reps", "1", "--no-build", "--out", "never.csv"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--no-build cannot apply") && err.contains("`block`"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!ws.path().join("never.csv").exists());
    assert!(!err.contains("built default"), "nothing was built: {err}");
}

/// Two shards of a build-time sweep started together shared its build cache unguarded: each could copy,
/// build or discard the other's half-built entry. Now one builds each block size and the other waits.
#[test]
fn concurrent_shards_build_each_block_size_once_between_them() {
    let ws = Workspace::new();
    let file = build_tile(&ws);
    let shard = |i: &str| {
        std::process::Command::new(sweep_bin())
            .args([
                "run",
                &file,
                "--reps",
                "2",
                "--filter",
                "rows=512",
                "--shard",
                i,
                "--out",
                &format!("s{}.csv", &i[..1]),
            ])
            .current_dir(ws.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (shard("1/2"), shard("2/2"));
    let outputs = [first.wait_with_output().unwrap(), second.wait_with_output().unwrap()];
    let log: String = outputs.iter().map(stderr).collect();
    assert!(outputs.iter().all(|out| out.status.success()), "{log}");
    assert_eq!(log.matches("built default").count(), 2, "one build per block size between them: {log}");
    for csv in ["s1.csv", "s2.csv"] {
        let rows = csv_rows(&ws.path().join(csv));
        assert_eq!(rows.len(), 2, "{csv}: {rows:?}");
        assert!(rows.iter().all(|row| row["status"] == "ok" && row["metric.attention_block"] == row["param.block"]));
    }
}

/// `sweep submit` passed `--no-build` to every task, which a build-time sweep's run refuses: its tasks
/// build in the shared cache instead.
#[test]
fn submitted_shards_of_a_build_time_sweep_build_in_the_cache() {
    let ws = Workspace::new();
    let file = build_tile(&ws);
    let out = sweep(ws.path(), &["submit", &file, "--shards", "2", "--reps", "2", "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = String::from_utf8_lossy(&out.stdout);
    assert!(script.contains(" run ") && script.contains("--seed "), "{script}");
    assert!(!script.contains("--no-build"), "{script}");
}
