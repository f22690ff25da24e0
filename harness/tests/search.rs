//! Budgeted search (`[search]`, `--budget`) through the real `sweep` binary on a fixture engine whose
//! value is a known bowl of two parameters (best at x = 7, y = 4) plus the round, so the truth is known:
//! fixture numbers, not measurements.

mod common;

use common::{csv_rows, stderr, sweep, Workspace};
use serde_json::Value;

/// A 12 x 12 bowl (144 settings), `group` giving each setting's group, `search` the `[search]` table.
fn bowl(workspace: &Workspace, search: &str, extra_params: &str, analysis_extra: &str) -> String {
    workspace.write_fixture_profile("1");
    let levels = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]";
    workspace.write_sweep(
        "bowl",
        &format!(
            "name = \"bowl\"\n[engine]\nprofile = \"fixture\"\n[params]\nx = {levels}\ny = {levels}\n{extra_params}\n\
             [params.derived]\nv = \"1000 - 3 * (x - 7) * (x - 7) - 2 * (y - 4) * (y - 4) - (x - 7) * (y - 4)\"\n\
             {search}\n[reps]\nseed = 7\n[run]\nargs = [\"0\", \"ok\", \"m\", \"{{{{v}}}}.{{{{rep}}}}\"]\n\
             [metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\ndirection = \"higher\"\n{analysis_extra}"
        ),
    )
}

fn analysis(workspace: &Workspace) -> Value {
    let path = workspace.result_csv("bowl").with_extension("analysis.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_search_spends_at_most_its_budget_and_names_the_true_best_of_a_fixture_bowl() {
    let workspace = Workspace::new();
    let spec = bowl(&workspace, "[search]\nbudget = 120", "", "");
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = csv_rows(&workspace.result_csv("bowl"));
    assert!(rows.len() <= 120, "{} runs", rows.len());
    let search = &analysis(&workspace)["search"];
    assert_eq!(search["budget"], 120);
    assert_eq!(search["runs"], rows.len());
    assert_eq!(search["space"], 144);
    let evaluated = search["evaluated"].as_u64().unwrap();
    assert!((10..144).contains(&evaluated), "{search}");
    assert_eq!(search["best"]["x"], 7, "{search}");
    assert_eq!(search["best"]["y"], 4, "{search}");
    assert_eq!(search["among_evaluated"], "resolved", "{search}");
    // The bowl changes by up to 3% between neighbours: settings never run are not ruled out.
    assert!(search["unexplored_headroom"].as_f64().is_none_or(|headroom| headroom > 1.01), "{search}");
    assert_eq!(search["verdict"], "cannot tell", "{search}");
    let summary = std::fs::read_to_string(workspace.result_csv("bowl").with_extension("summary.md")).unwrap();
    assert!(summary.contains(&format!("Best of the {evaluated} settings evaluated out of 144")), "{summary}");
    assert!(!summary.contains("planned runs are recorded"), "{summary}");
}

#[test]
fn report_replays_the_search_its_run_wrote_and_a_resume_runs_what_an_uninterrupted_search_would() {
    let workspace = Workspace::new();
    let spec = bowl(&workspace, "[search]\nbudget = 60", "", "");
    assert_eq!(sweep(workspace.path(), &["run", &spec]).status.code(), Some(0));
    let csv = workspace.result_csv("bowl");
    let written = analysis(&workspace)["search"].clone();
    let report = sweep(workspace.path(), &["report", csv.to_str().unwrap(), "--json"]);
    let reported: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(reported["search"], written);
    // Cut after 20 runs, as a kill would leave it; the resume replays the seeded search and goes on.
    let text = std::fs::read_to_string(&csv).unwrap();
    let cut = workspace.path().join("cut.csv");
    std::fs::write(&cut, text.lines().take(21).map(|line| format!("{line}\n")).collect::<String>()).unwrap();
    std::fs::copy(csv.with_extension("json"), cut.with_extension("json")).unwrap();
    let resumed = sweep(workspace.path(), &["run", &spec, "--resume", cut.to_str().unwrap()]);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let runs = |rows: Vec<std::collections::BTreeMap<String, String>>| {
        let mut runs: Vec<(String, String, String)> =
            rows.into_iter().map(|row| (row["param.x"].clone(), row["param.y"].clone(), row["rep"].clone())).collect();
        runs.sort();
        runs
    };
    assert_eq!(runs(csv_rows(&cut)), runs(csv_rows(&csv)));
}

#[test]
fn each_group_is_searched_with_its_share_of_the_budget() {
    let workspace = Workspace::new();
    let spec = bowl(&workspace, "[search]\nbudget = 241", "g = [\"a\", \"b\"]", "group_by = [\"g\"]");
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let search = &analysis(&workspace)["search"];
    assert_eq!(search["space"], 288);
    assert!(search["runs"].as_u64().unwrap() <= 241, "{search}");
    let groups = search["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{search}");
    assert!(groups.iter().all(|group| group["best"]["x"] == 7 && group["best"]["y"] == 4), "{search}");
    assert_eq!(search["best"], Value::Null, "one best per group, none overall");
}

#[test]
fn a_budget_that_pays_for_the_whole_grid_runs_the_grid_and_says_so() {
    let workspace = Workspace::new();
    let spec = bowl(&workspace, "[search]\nbudget = 100", "", "");
    let output = sweep(workspace.path(), &["run", &spec, "--filter", "x=3", "--reps", "2"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("a budget of 100 runs pays for the whole grid (12 settings x 2 reps = 24 runs)"),
        "{}",
        stderr(&output)
    );
    assert_eq!(csv_rows(&workspace.result_csv("bowl")).len(), 24);
    assert!(analysis(&workspace).get("search").is_none());
}

#[test]
fn a_budget_of_zero_or_an_unknown_search_key_is_refused_naming_the_file_and_key() {
    for (table, expected) in [
        ("[search]\nbudget = 0", "`search.budget`: must be at least 1 run"),
        ("[search]\nbudget = 10\nbudjet = 5", "budjet"),
        ("[search]\nseed = 3", "budget"),
    ] {
        let workspace = Workspace::new();
        let spec = bowl(&workspace, table, "", "");
        let output = sweep(workspace.path(), &["run", &spec]);
        assert_eq!(output.status.code(), Some(2), "{table}: {}", stderr(&output));
        let error = stderr(&output);
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(error.contains("sweeps/bowl.toml") && error.contains(expected), "{table}: {error}");
        assert!(!workspace.path().join("results").exists(), "nothing written");
    }
    let workspace = Workspace::new();
    let spec = bowl(&workspace, "", "", "");
    let output = sweep(workspace.path(), &["run", &spec, "--budget", "0"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn the_seed_studys_gemm_allreduce_tile_search_spends_its_budget_and_verifies_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let spec = common::repo_root().join("sweeps/seeds/001_gemm_allreduce_search.toml");
    let csv = dir.path().join("search.csv");
    let output = sweep(dir.path(), &["run", spec.to_str().unwrap(), "--budget", "60", "--out", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = csv_rows(&csv);
    // The fixture draws its noise unseeded, so the rounds differ run to run: the budget bounds them.
    assert!(rows.len() <= 60 && rows.len() > 30, "{} runs", rows.len());
    assert!(rows.iter().all(|row| row["status"] == "ok" && row["metric.verify_failures"] == "0"));
    // Builds are made as the search first runs a tile tuple: only the tuples it visited are built.
    let visited: std::collections::BTreeSet<[&str; 4]> = (rows.iter())
        .map(|row| [&row["param.base_m"], &row["param.base_k"], &row["param.base_n"], &row["param.step_ka"]])
        .map(|tuple| tuple.map(String::as_str))
        .collect();
    let cache = dir.path().join("results/seed_001_gemm_allreduce_search/build-cache");
    let built =
        std::fs::read_dir(&cache).unwrap().filter(|entry| entry.as_ref().unwrap().path().join("complete").exists());
    assert_eq!(built.count(), visited.len(), "one build per tuple visited, none for the others");
    let analysis: Value =
        serde_json::from_str(&std::fs::read_to_string(csv.with_extension("analysis.json")).unwrap()).unwrap();
    assert_eq!(
        analysis["search"]["space"], 2160,
        "3 x 3 x 3 x 4 tiles x 5 x 6 blocks, within gemm_ar_config.h's limits"
    );
    let shares: Vec<&str> =
        analysis["search"]["importance"].as_array().unwrap().iter().map(|p| p["param"].as_str().unwrap()).collect();
    assert!(shares.contains(&"compute_blocks"), "{shares:?}");
}

#[test]
fn the_reference_engine_search_declares_over_500_settings_with_a_build_time_block() {
    let spec = common::repo_root().join("sweeps/search_tiles.toml");
    let output = sweep(&common::repo_root(), &["check", spec.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        common::stdout(&output).contains("504 settings searched under a budget of 150 runs"),
        "{}",
        common::stdout(&output)
    );
}

/// A search is never split into shards (its rounds come from the rounds before); `sweep submit` runs its
/// rounds as array jobs instead (`tests/slurm_search.rs`).
#[test]
fn a_search_is_not_split_into_shards() {
    let workspace = Workspace::new();
    let spec = bowl(&workspace, "[search]\nbudget = 60", "", "");
    let output = sweep(workspace.path(), &["run", &spec, "--shard", "1/2"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("a search cannot run as --shard: it races its own rounds"), "{}", stderr(&output));
}
