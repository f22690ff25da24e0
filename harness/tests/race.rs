//! Racing (`--until-decided`) through the real `sweep` binary on a fixture engine whose numbers are
//! exactly additive (level + round), so every verdict is known: fixture numbers, not measurements.

mod common;

use common::{csv_rows, stderr, sweep, Workspace};

/// A sweep of one group whose settings print `value = <level>.<rep>`.
fn race_sweep(workspace: &Workspace, params: &str, analysis_extra: &str) -> String {
    let fixture = common::repo_root().join("harness/tests/fixtures");
    workspace.write(
        "sweeps/engines/fixture.toml",
        &format!(
            "tree = \"{}\"\nprogram = \"{{{{tree}}}}/rank_fixture.sh\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"10s\"\n[result]\nprefix = \"fixture_result\"\n",
            fixture.display()
        ),
    );
    let zip = if params.starts_with("name") { "zip = [[\"name\", \"level\"]]\n" } else { "" };
    workspace.write_sweep(
        "race",
        &format!(
            "name = \"race\"\n{zip}[engine]\nprofile = \"fixture\"\n[params]\n{params}\n[reps]\ncount = 3\n[run]\nargs = [\"0\", \"ok\", \"m\", \"{{{{level}}}}.{{{{rep}}}}\"]\n[metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\ndirection = \"higher\"\n{analysis_extra}"
        ),
    )
}

#[test]
fn a_race_stops_once_every_group_is_decided() {
    let workspace = Workspace::new();
    let spec = race_sweep(&workspace, "level = [100, 50, 10]", "");
    let output = sweep(workspace.path(), &["run", &spec, "--until-decided", "--max-reps", "6"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("every group is decided: the race ends here"), "{}", stderr(&output));
    assert!(stderr(&output).ends_with("decided after 3 of max 6 rounds: 9 runs, 9 saved\n"), "{}", stderr(&output));
    let rows = csv_rows(&workspace.result_csv("race"));
    assert_eq!(rows.len(), 9, "3 settings x the 3 rounds every race runs, then nothing");
    let summary = std::fs::read_to_string(workspace.result_csv("race").with_extension("summary.md")).unwrap();
    assert!(summary.contains("The race recorded 9 of at most 18 runs"), "{summary}");
    assert!(
        summary.contains("spent over the race's 4 looks by a Lan-DeMets O'Brien-Fleming-type function"),
        "{summary}"
    );
}

/// Settings a and b print the same numbers (a true tie); c is far behind.
const TIE: &str = "name = [\"a\", \"b\", \"c\"]\nlevel = [100, 100, 10]";

#[test]
fn a_true_tie_races_to_the_maximum_unless_a_negligible_margin_decides_it() {
    let workspace = Workspace::new();
    let spec = race_sweep(&workspace, TIE, "");
    let output = sweep(workspace.path(), &["run", &spec, "--until-decided", "--max-reps", "5"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows = csv_rows(&workspace.result_csv("race"));
    // level=10 is beaten after round 3; the two tied settings run all 5 rounds.
    assert_eq!(rows.len(), 3 * 3 + 2 * 2, "{}", stderr(&output));
    assert!(stderr(&output).contains("race after round 3: 2 of 3 settings still racing"), "{}", stderr(&output));
    assert!(
        stderr(&output).ends_with(
            "stopped at max (5 rounds, 13 runs, 2 saved) without deciding all settings: declare `negligible` to call \
             practical ties\n"
        ),
        "{}",
        stderr(&output)
    );

    let workspace = Workspace::new();
    let spec = race_sweep(&workspace, TIE, "negligible = 0.01\n");
    let output = sweep(workspace.path(), &["run", &spec, "--until-decided", "--max-reps", "5"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let runs = csv_rows(&workspace.result_csv("race")).len();
    assert!(runs < 13, "the margin decides the tie before the maximum: {runs} runs\n{}", stderr(&output));
    assert!(stderr(&output).contains("every group is decided"), "{}", stderr(&output));
    assert!(stderr(&output).contains(&format!(" rounds: {runs} runs, {} saved\n", 15 - runs)), "{}", stderr(&output));
}

#[test]
fn a_race_is_declared_in_the_sweep_and_checked_at_load() {
    let workspace = Workspace::new();
    let spec = race_sweep(&workspace, "level = [100, 50]", "");
    let text = std::fs::read_to_string(workspace.path().join(&spec)).unwrap();
    let raced = text.replace("count = 3\n", "count = 3\nuntil = \"decided\"\nmax = 4\n");
    workspace.write("sweeps/race.toml", &raced);
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(csv_rows(&workspace.result_csv("race")).len(), 6);
    let shuffled = raced.replace("count = 3\n", "count = 3\norder = \"shuffled\"\n");
    workspace.write("sweeps/race.toml", &shuffled);
    let output = sweep(workspace.path(), &["check", &spec]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("`reps.until`: a race needs `order = \"interleaved\"`"), "{}", stderr(&output));
}

/// A race started with `--until-decided` and interrupted carries on as a race when resumed.
#[test]
fn a_resumed_race_continues_the_race() {
    let workspace = Workspace::new();
    let spec = race_sweep(&workspace, "level = [100, 50, 10]", "");
    let output = sweep(workspace.path(), &["run", &spec, "--until-decided", "--max-reps", "6"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv("race");
    // Cut the CSV back to its first round, as if the sweep had been killed then.
    let text = std::fs::read_to_string(&csv).unwrap();
    let kept: Vec<&str> = text.lines().take(4).collect();
    std::fs::write(&csv, format!("{}\n", kept.join("\n"))).unwrap();
    let output = sweep(workspace.path(), &["run", &spec, "--resume", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("every group is decided"), "{}", stderr(&output));
    assert_eq!(csv_rows(&csv).len(), 9, "the race, not a plain 3-rep sweep, and no round twice");
}
