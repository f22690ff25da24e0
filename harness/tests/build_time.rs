//! Build-time params end to end: `sweeps/build_tile.toml` compiles the reference engine once per
//! attention block size, each in its own cached copy, and runs them interleaved; a rerun builds nothing.

mod common;

use std::collections::BTreeSet;

use common::{csv_rows, stderr, sweep, Workspace};

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
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 2, "one cache entry per block size");

    let again = run(&ws, &file, "again.csv");
    assert!(again.status.success(), "{}", stderr(&again));
    let log = stderr(&again);
    assert!(!log.contains("built default"), "a rerun rebuilt: {log}");
    assert_eq!(log.matches("cached default").count(), 2, "{log}");
}
