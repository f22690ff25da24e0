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
    analysis_of(&workspace.result_csv("bowl"))
}

/// The `analysis.json` beside `csv`.
fn analysis_of(csv: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(csv.with_extension("analysis.json")).unwrap()).unwrap()
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
        ("[search]\nbudget = \"0s\"", "`search.budget`: invalid duration `0s`: must be more than zero"),
        ("[search]\nbudget = \"six hours\"", "`search.budget`: invalid duration `six hours`"),
        ("[search]\nbudget = 2.5", "`search.budget`: invalid type: floating point `2.5`, expected a number of runs"),
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
    for zero in ["0", "0s"] {
        let output = sweep(workspace.path(), &["run", &spec, "--budget", zero]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    }
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
    // Nor is a tuple never visited copied: its copy of the tree is made with its build.
    let copies = std::fs::read_dir(&cache).unwrap().filter(|entry| entry.as_ref().unwrap().path().is_dir());
    assert_eq!(copies.count(), visited.len(), "one copy of the tree per tuple visited");
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

/// A FIXTURE build: no compiler; takes a measurable while, then writes an "engine" that prints the value
/// it is given after a short sleep, so runs and builds both take time a budget can be spent on.
const FIXTURE_TILE_BUILD: &str = r#"# FIXTURE build: no compiler; its numbers are not measurements.
set -eu
build_dir=$1
sleep 0.3
mkdir -p "$build_dir"
printf '#!/bin/sh\nsleep 0.05\necho "fixture_result value=$1"\n' > "$build_dir/engine"
chmod +x "$build_dir/engine"
"#;

/// A 4 x 12 bowl (48 settings, best at tile = 2, x = 7) whose `tile` is a build-time param of a fixture
/// tree that takes 0.3 s to build, searched under `budget` (as `[search] budget` spells it).
fn tiled(workspace: &Workspace, budget: &str) -> String {
    workspace.write("tree/build.sh", FIXTURE_TILE_BUILD);
    workspace.write(
        "sweeps/engines/tiles.toml",
        "tree = \"../../tree\"\nbuild = [\"sh\", \"build.sh\", \"{{build_dir}}\"]\nprogram = \"{{build_dir}}/engine\"\n\
         launcher = \"local\"\nranks = 1\ntimeout = \"10s\"\n[result]\nprefix = \"fixture_result\"\n",
    );
    workspace.write_sweep(
        "tiled",
        &format!(
            "name = \"tiled\"\n[engine]\nprofile = \"tiles\"\n[params]\ntile = [1, 2, 3, 4]\n\
             x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n[params.derived]\n\
             v = \"1000 - 3 * (x - 7) * (x - 7) - 40 * (tile - 2) * (tile - 2)\"\n[build]\nargs = [\"TILE={{{{tile}}}}\"]\n\
             [search]\nbudget = {budget}\n[reps]\nseed = 11\n[run]\nargs = [\"{{{{v}}}}.{{{{rep}}}}\"]\n\
             [metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\ndirection = \"higher\"\n"
        ),
    )
}

type Row = std::collections::BTreeMap<String, String>;

/// The (tile, x, rep) of `rows`, sorted.
fn tiled_runs<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Vec<(String, String, u32)> {
    let mut runs: Vec<(String, String, u32)> = (rows.into_iter())
        .map(|row| (row["param.tile"].clone(), row["param.x"].clone(), row["rep"].parse().unwrap()))
        .collect();
    runs.sort();
    runs
}

/// The builds a search's sidecar records: (setting label, seconds).
fn search_builds(csv: &std::path::Path) -> Vec<(String, f64)> {
    let sidecar: Value = serde_json::from_str(&std::fs::read_to_string(csv.with_extension("json")).unwrap()).unwrap();
    let builds = sidecar["search_builds"].as_array().cloned().unwrap_or_default();
    builds
        .iter()
        .map(|build| (build["setting"].as_str().unwrap().to_string(), build["seconds"].as_f64().unwrap()))
        .collect()
}

/// `csv` cut after its round `round` (its rows with a lower or equal rep come first: rounds run in
/// order), beside a copy of its sidecar, as a kill between two rounds leaves it.
fn cut_after_round(workspace: &Workspace, csv: &std::path::Path, round: u32) -> std::path::PathBuf {
    let rounds = csv_rows(csv).iter().take_while(|row| row["rep"].parse::<u32>().unwrap() <= round).count();
    let text = std::fs::read_to_string(csv).unwrap();
    let cut = workspace.path().join("cut.csv");
    std::fs::write(&cut, text.lines().take(1 + rounds).map(|line| format!("{line}\n")).collect::<String>()).unwrap();
    std::fs::copy(csv.with_extension("json"), cut.with_extension("json")).unwrap();
    cut
}

#[test]
fn a_budget_of_time_ends_within_a_round_of_it_and_charges_each_build_it_caused_once() {
    let workspace = Workspace::new();
    // Declared in runs, overridden by a duration on the command line.
    let spec = tiled(&workspace, "100");
    let output = sweep(workspace.path(), &["run", &spec, "--budget", "3s"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv("tiled");
    let rows = csv_rows(&csv);
    let builds = search_builds(&csv);
    // Each tuple the search visited was built once, by it (a fresh cache), and recorded once.
    let visited: std::collections::BTreeSet<&str> = rows.iter().map(|row| row["param.tile"].as_str()).collect();
    assert_eq!(builds.len(), visited.len(), "{builds:?}");
    assert!(builds.iter().all(|(_, seconds)| *seconds >= 0.3), "{builds:?}");
    let seconds = |row: &Row| row["duration_s"].parse::<f64>().unwrap();
    let built: f64 = builds.iter().map(|(_, seconds)| seconds).sum();
    let spent = rows.iter().map(seconds).sum::<f64>() + built;
    // The last round, and the builds its settings caused: the search may overrun the budget by it alone.
    let last = rows.iter().map(|row| row["rep"].parse::<u32>().unwrap()).max().unwrap();
    let in_last: Vec<&Row> = rows.iter().filter(|row| row["rep"] == last.to_string()).collect();
    // A label is `tile=2 x=4 v=973` (the derived `v` last).
    let label = |row: &Row| format!("tile={} x={} ", row["param.tile"], row["param.x"]);
    let caused = |setting: &str| in_last.iter().any(|row| setting.starts_with(&label(row)));
    let last_builds: f64 = builds.iter().filter(|(setting, _)| caused(setting)).map(|(_, seconds)| seconds).sum();
    let last_round = in_last.iter().map(|row| seconds(row)).sum::<f64>() + last_builds;
    assert!(spent - last_round <= 3.0, "{spent:.2} s spent, {last_round:.2} s of it in the last round");
    assert!(spent > 1.5, "the search stopped at {spent:.2} s of a 3 s budget");
    let search = &analysis_of(&csv)["search"];
    assert_eq!(search["budget"], "3s", "{search}");
    assert_eq!(search["runs"], rows.len(), "the run's rounds are the ones its records replay: {search}");
    assert_eq!(search["complete"], true, "{search}");
    assert!((search["build_seconds"].as_f64().unwrap() - built).abs() < 1e-9, "every build charged once: {search}");
    assert_eq!(search["build_runs"], 0, "a budget of time is charged seconds: {search}");
}

#[test]
fn a_resumed_search_replays_the_rounds_of_an_uninterrupted_one_under_a_budget_of_time_or_of_charged_runs() {
    for budget in ["\"5s\"", "60"] {
        let workspace = Workspace::new();
        let spec = tiled(&workspace, budget);
        let output = sweep(workspace.path(), &["run", &spec]);
        assert_eq!(output.status.code(), Some(0), "{budget}: {}", stderr(&output));
        let csv = workspace.result_csv("tiled");
        let rows = csv_rows(&csv);
        let search = analysis_of(&csv)["search"].clone();
        assert_eq!(search["runs"], rows.len(), "{budget}: {search}");
        if budget == "60" {
            let charged = search["build_runs"].as_u64().unwrap() as usize;
            assert!(charged >= search_builds(&csv).len(), "each build costs a run at least: {search}");
            assert!(rows.len() + charged <= 60, "{budget}: {} runs and {charged} charged", rows.len());
        }
        // Cut after round 3: the resume replays the records (durations and builds) and runs round 4 as
        // the uninterrupted search did, whatever its own runs then take.
        let cut = cut_after_round(&workspace, &csv, 3);
        let resumed = sweep(workspace.path(), &["run", &spec, "--resume", cut.to_str().unwrap()]);
        assert_eq!(resumed.status.code(), Some(0), "{budget}: {}", stderr(&resumed));
        let round = |rows: &[Row]| tiled_runs(rows.iter().filter(|row| row["rep"] == "4"));
        assert!(!round(&rows).is_empty(), "{budget}: the search ran a round 4");
        assert_eq!(round(&csv_rows(&cut)), round(&rows), "{budget}");
        // Regression: a resumed search numbered its runs from 1 again, so orders repeated in the CSV.
        let ordered = |rows: &[Row]| -> std::collections::BTreeSet<(String, String, String)> {
            let round_4 = rows.iter().filter(|row| row["rep"] == "4");
            round_4.map(|row| (row["order"].clone(), row["param.tile"].clone(), row["param.x"].clone())).collect()
        };
        assert_eq!(ordered(&csv_rows(&cut)), ordered(&rows), "{budget}: round 4 numbered as it was");
        assert!(!stderr(&resumed).contains("built default"), "{budget}: nothing rebuilt: {}", stderr(&resumed));
        let builds = search_builds(&cut);
        let tuples: std::collections::BTreeSet<&str> = builds.iter().map(|(setting, _)| &setting[..6]).collect();
        assert_eq!(tuples.len(), builds.len(), "{budget}: a tuple built and recorded once: {builds:?}");
        let replayed = &analysis_of(&cut)["search"];
        assert_eq!(replayed["runs"], csv_rows(&cut).len(), "{budget}: {replayed}");
        assert_eq!(replayed["complete"], true, "{budget}: {replayed}");
    }
}

/// A budget the builds alone spend (a build here takes 1,000 runs' time) leaves no final race: the
/// summary says so rather than show an empty verdict as if the search had found nothing.
#[test]
fn a_search_whose_builds_spend_its_budget_says_there_was_no_final_race() {
    let workspace = Workspace::new();
    let spec = tiled(&workspace, "20");
    let output = sweep(workspace.path(), &["run", &spec]);
    let csv = workspace.result_csv("tiled");
    assert!(!search_builds(&csv).is_empty(), "{}", stderr(&output));
    let search = &analysis_of(&csv)["search"];
    assert_eq!(search["final_race_runs"], 0, "{search}");
    assert_eq!(search["among_evaluated"], "cannot tell", "{search}");
    let summary = std::fs::read_to_string(csv.with_extension("summary.md")).unwrap();
    assert!(
        summary.contains("WARNING: no final race was run: the budget was spent before it (builds took"),
        "{summary}"
    );
}
