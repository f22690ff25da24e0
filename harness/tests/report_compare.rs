//! `sweep report` and `sweep compare` on result CSVs produced by real `sweep run` invocations of a
//! fixture engine (its values are fixture numbers, not measurements).

mod common;

use std::path::PathBuf;

use common::{stderr, stdout, sweep, Workspace};

/// Runs a 2-setting, 4-rep fixture sweep whose value is `value_template` (over `rep`) and returns its CSV;
/// the profile's `fixture` toolchain reports version `1`.
fn fixture_result(workspace: &Workspace, name: &str, value_template: &str) -> PathBuf {
    fixture_result_with(workspace, name, value_template, "1")
}

fn fixture_result_with(workspace: &Workspace, name: &str, value_template: &str, version: &str) -> PathBuf {
    fixture_result_toward(workspace, name, value_template, version, "higher")
}

/// `fixture_result_with` whose primary is better in `direction` (`higher` or `lower`).
fn fixture_result_toward(
    workspace: &Workspace,
    name: &str,
    value_template: &str,
    version: &str,
    direction: &str,
) -> PathBuf {
    workspace.write_fixture_profile(version);
    let spec = workspace.write_sweep(
        name,
        &format!(
            "name = \"{name}\"\n[engine]\nprofile = \"fixture\"\n[params]\nmode = [\"ok\", \"slow\"]\n[reps]\ncount = 4\n[run]\nargs = [\"0\", \"{{{{mode}}}}\", \"m\", \"{value_template}\"]\n[metrics]\nresult = [\"value\", \"seconds\"]\n[analysis]\nprimary = \"value\"\ndirection = \"{direction}\"\n"
        ),
    );
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    workspace.result_csv(name)
}

#[test]
fn report_rewrites_the_summary_from_the_csv_and_its_sidecar() {
    let workspace = Workspace::new();
    let csv = fixture_result(&workspace, "a", "{{rep}}");
    let summary = csv.with_extension("summary.md");
    let written = std::fs::read_to_string(&summary).unwrap();
    std::fs::remove_file(&summary).unwrap();
    let output = sweep(workspace.path(), &["report", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rewritten = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(rewritten.lines().skip(1).collect::<Vec<_>>(), written.lines().skip(1).collect::<Vec<_>>());
    assert!(stdout(&output).lines().any(|line| line.starts_with("mode ")), "a table of modes: {}", stdout(&output));
}

#[test]
fn compare_flags_a_significant_regression_with_exit_1_and_an_improvement_with_exit_0() {
    let workspace = Workspace::new();
    let base = fixture_result(&workspace, "base", "{{rep}}0");
    let worse = fixture_result(&workspace, "worse", "{{rep}}");
    let output = sweep(workspace.path(), &["compare", base.to_str().unwrap(), worse.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stdout(&output).contains("  REGRESSED\n"), "{}", stdout(&output));
    assert!(stderr(&output).contains("significant regression of `value`"), "{}", stderr(&output));
    let output = sweep(
        workspace.path(),
        &["compare", worse.to_str().unwrap(), base.to_str().unwrap(), "--labels", "CANN 8,CANN 9"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("A = CANN 8, B = CANN 9."), "{}", stdout(&output));
}

#[test]
fn compare_refuses_an_unknown_metric_and_a_file_that_is_not_a_result() {
    let workspace = Workspace::new();
    let a = fixture_result(&workspace, "a", "{{rep}}");
    let output = sweep(
        workspace.path(),
        &["compare", a.to_str().unwrap(), a.to_str().unwrap(), "--metric", "nope", "--direction", "lower"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no metric `nope` (it has: value, seconds)"), "{}", stderr(&output));
    // An unknown --control was silently dropped.
    let output = sweep(
        workspace.path(),
        &["compare", a.to_str().unwrap(), a.to_str().unwrap(), "--control", "decode", "--direction", "lower"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no metric `decode` (it has: value, seconds)"), "{}", stderr(&output));
    let bogus = workspace.write("bogus.csv", "x,y\n1,2\n");
    let output = sweep(workspace.path(), &["compare", a.to_str().unwrap(), bogus.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not a sweep result CSV: no `variant` column"), "{}", stderr(&output));
}

#[test]
fn compare_labels_its_columns_with_the_toolchain_version_that_differs() {
    let workspace = Workspace::new();
    let old = fixture_result_with(&workspace, "old", "{{rep}}", "8.0");
    let new = fixture_result_with(&workspace, "new", "{{rep}}", "9.0");
    let output = sweep(workspace.path(), &["compare", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("A = fixture: fixture-toolkit 8.0, B = fixture: fixture-toolkit 9.0."),
        "{}",
        stdout(&output)
    );
}

/// Two CSVs that share no setting passed with exit 0 ("no significant regression" over nothing).
#[test]
fn compare_of_sweeps_with_no_common_setting_is_bad_input() {
    let workspace = Workspace::new();
    let a = fixture_result(&workspace, "a", "{{rep}}");
    let other = workspace.write_sweep(
        "other",
        "name = \"other\"\n[engine]\nprofile = \"fixture\"\n[params]\nmode = [\"fast\"]\n[reps]\ncount = 2\n[run]\nargs = [\"0\", \"{{mode}}\", \"m\", \"{{rep}}\"]\n[metrics]\nresult = [\"value\", \"seconds\"]\n[analysis]\nprimary = \"value\"\n",
    );
    assert_eq!(sweep(workspace.path(), &["run", &other]).status.code(), Some(0));
    let b = workspace.result_csv("other");
    let output = sweep(workspace.path(), &["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("no setting is in both A and B: nothing to compare"), "{}", stderr(&output));
}

#[test]
fn compare_json_carries_holm_adjusted_verdicts_with_typed_settings() {
    let workspace = Workspace::new();
    let base = fixture_result(&workspace, "base", "{{rep}}0");
    let worse = fixture_result(&workspace, "worse", "{{rep}}");
    let output = sweep(workspace.path(), &["compare", base.to_str().unwrap(), worse.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let settings = json["settings"].as_array().unwrap();
    assert_eq!(settings.len(), 2);
    let ok = settings.iter().find(|s| s["setting"]["mode"] == "ok").expect("the setting mode=ok");
    assert_eq!(ok["verdict"], "regressed");
    assert!((ok["ratio"].as_f64().unwrap() - 0.1).abs() < 1e-9);
    assert!(ok["p_adjusted"].as_f64().unwrap() >= ok["p"].as_f64().unwrap());
    // The runs differ only by rep, which each side's rounds absorb: the settings' own variances are 0, so
    // the grid-wide meta-analysis has nothing to weigh them by, and Holm's family is the two settings.
    assert_eq!((json["tests"].as_u64(), json["method"].as_str()), (Some(2), Some("welch")), "{json:#}");
    assert!(json["overall"].is_null());
}

#[test]
fn compare_refuses_labels_that_are_not_two_and_an_ambiguous_threshold() {
    let workspace = Workspace::new();
    let a = fixture_result(&workspace, "a", "{{rep}}");
    let a = a.to_str().unwrap();
    for labels in ["one", "a,b,c", "a,", ",b"] {
        let output = sweep(workspace.path(), &["compare", a, a, "--labels", labels]);
        assert_eq!(output.status.code(), Some(2), "--labels {labels}: {}", stderr(&output));
        assert!(stderr(&output).contains("give exactly two non-empty labels"), "{}", stderr(&output));
    }
    let output = sweep(workspace.path(), &["compare", a, a, "--threshold", "5"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("ambiguous: write a fraction (0.05) or a percentage (5%)"), "{}", stderr(&output));
    let output = sweep(workspace.path(), &["compare", a, a, "--threshold", "5%"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("worse by more than the 5.0% --threshold"), "{}", stdout(&output));
}

/// Two versions interleaved in one sweep share rounds: `--within --by` pairs them.
#[test]
fn compare_within_one_sweep_pairs_the_two_values_of_a_parameter() {
    let workspace = Workspace::new();
    let csv = fixture_result(&workspace, "both", "{{rep}}");
    let output = sweep(workspace.path(), &["compare", "--within", csv.to_str().unwrap(), "--by", "mode", "--json"]);
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&output)).unwrap_or_else(|_| panic!("{}", stderr(&output)));
    assert_eq!((json["a"].as_str(), json["b"].as_str()), (Some("mode=ok"), Some("mode=slow")));
    assert_eq!(json["method"], "paired");
    assert_eq!(json["settings"].as_array().unwrap().len(), 1);
    let output = sweep(workspace.path(), &["compare", "--within", csv.to_str().unwrap(), "--by", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--by nope: no such parameter (it has: mode)"), "{}", stderr(&output));
}

#[test]
fn report_json_prints_the_verdicts_with_typed_settings() {
    let workspace = Workspace::new();
    let csv = fixture_result(&workspace, "a", "{{rep}}");
    let output = sweep(workspace.path(), &["report", "--json", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["runs"], 8);
    assert_eq!(json["groups"][0]["best"]["mode"].as_str().map(|m| m == "ok" || m == "slow"), Some(true));
    assert!(csv.with_extension("analysis.json").is_file());
}

/// A workspace whose `fixture` profile sources `kit-{{kit}}.sh` (setting `KIT_VERSION`) and records it as
/// the `kit` toolchain, with `profile_extra` (profile lines) and the sweep `kits` over `kit = [8, 9]` with
/// `sweep_extra` (sweep tables); returns the workspace, the sweep's path and `sweep run`'s output.
fn run_kits(profile_extra: &str, sweep_extra: &str) -> (Workspace, String, std::process::Output) {
    let workspace = Workspace::new();
    let fixture = common::repo_root().join("harness/tests/fixtures");
    for version in ["8", "9"] {
        workspace.write(&format!("sweeps/engines/kit-{version}.sh"), &format!("export KIT_VERSION=kit-{version}\n"));
    }
    workspace.write(
        "sweeps/engines/fixture.toml",
        &format!(
            "tree = \"{}\"\n{profile_extra}program = \"{{{{tree}}}}/rank_fixture.sh\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"10s\"\nsetup = \"kit-{{{{kit}}}}.sh\"\n[result]\nprefix = \"fixture_result\"\n[toolchain]\nkit = [\"sh\", \"-c\", \"echo $KIT_VERSION\"]\n",
            fixture.display()
        ),
    );
    let spec = workspace.write_sweep(
        "kits",
        &format!("name = \"kits\"\n[engine]\nprofile = \"fixture\"\n[params]\nkit = [8, 9]\n{sweep_extra}[reps]\ncount = 3\n[run]\nargs = [\"0\", \"ok\", \"m\", \"{{{{rep}}}}\"]\n[metrics]\nresult = [\"value\"]\n[analysis]\nprimary = \"value\"\n"),
    );
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    for row in common::csv_rows(&workspace.result_csv("kits")) {
        assert_eq!(row["toolchain.kit"], format!("kit-{}", row["param.kit"]), "{row:?}");
    }
    (workspace, spec, output)
}

/// Two toolchain versions interleaved in one sweep: the profile's setup script is chosen by a param,
/// each setting's runs start from its own environment and record its own toolchain version, and
/// `compare --within` pairs the versions by round.
#[test]
fn a_setup_script_chosen_by_a_param_gives_each_setting_its_environment_and_toolchain() {
    let (workspace, _, _) = run_kits("", "");
    let csv = workspace.result_csv("kits");
    let output = sweep(workspace.path(), &["compare", "--within", csv.to_str().unwrap(), "--by", "kit", "--json"]);
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&output)).unwrap_or_else(|_| panic!("{}", stderr(&output)));
    assert_eq!((json["a"].as_str(), json["method"].as_str()), (Some("kit=8"), Some("paired")));
}

/// The same with the version as a build-time param (a compiler chosen per setting, `sweeps/toolchains.toml`):
/// one build per version, and still each setting's runs record the toolchain of its own setup script.
#[test]
fn a_setup_script_chosen_by_a_build_time_param_gives_each_setting_its_toolchain() {
    let build = "build = [\"sh\", \"-c\", \"mkdir -p \\\"$0\\\"\", \"{{build_dir}}\"]\nbuild_dir = \"build\"\n";
    let (_, _, output) = run_kits(build, "[build]\nargs = [\"KIT={{kit}}\"]\n");
    assert_eq!(stderr(&output).matches("built default").count(), 2, "one build per kit: {}", stderr(&output));
}

/// The summary `sweep run` wrote for `csv`.
fn summary_of(csv: &std::path::Path) -> String {
    std::fs::read_to_string(csv.with_extension("summary.md")).unwrap()
}

/// Every run gave 2.675: a fit found rounding error (1e-16) and printed it as noise (`s0 = 398.7%`, an
/// interval 0.024..40.8, "would detect 12678%").
#[test]
fn constant_data_is_identical_to_measurement_resolution_not_invented_noise() {
    let workspace = Workspace::new();
    let summary = summary_of(&fixture_result(&workspace, "constant", "2.675"));
    assert!(summary.contains("identical to measurement resolution: mode=ok and mode=slow"), "{summary}");
    for invented in ["s0 =", "would detect", "CI 0.", "cannot tell"] {
        assert!(!summary.contains(invented), "`{invented}` in {summary}");
    }
}

/// One setting always -5, the other always 1: the "best" was the first in grid order for either direction.
#[test]
fn the_best_of_constant_values_of_mixed_sign_is_chosen_by_value() {
    let workspace = Workspace::new();
    let template = "{{#if (eq mode \\\"ok\\\")}}-5{{else}}1{{/if}}";
    let higher = summary_of(&fixture_result(&workspace, "higher", template));
    assert!(higher.contains("resolved by value: mode=slow is best"), "{higher}");
    let lower = summary_of(&fixture_result_toward(&workspace, "lower", template, "1", "lower"));
    assert!(lower.contains("resolved by value: mode=ok is best"), "{lower}");
}

/// A metric of 1e308: its mean summed to `inf`, and the verdict said "best mean (inf value)".
#[test]
fn a_metric_near_the_largest_double_has_a_finite_mean_and_verdict() {
    let workspace = Workspace::new();
    let summary = summary_of(&fixture_result(&workspace, "huge", "1.{{rep}}e308"));
    assert!(!summary.contains("inf"), "{summary}");
    assert!(summary.contains("1.250e308"), "the mean of 1.1..1.4e308: {summary}");
}

/// An `ok` row with an empty metric cell was dropped while the summary said every run was ok.
#[test]
fn an_ok_row_with_an_empty_metric_is_counted_and_named() {
    let workspace = Workspace::new();
    let csv = fixture_result(&workspace, "empty", "{{rep}}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let column = lines[0].split(',').position(|name| name == "metric.value").unwrap();
    let mut cells: Vec<&str> = lines[2].split(',').collect();
    let (setting, rep) = (cells[0].to_string(), cells[2].to_string());
    cells[column] = "";
    lines[2] = cells.join(",");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let output = sweep(workspace.path(), &["report", csv.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let expected = format!("1 run finished ok but recorded no `value` (an empty cell: mode={setting} rep {rep})");
    assert!(stdout(&output).contains(&expected), "{}", stdout(&output));
}

/// Runs the sweep `name` over `slices = ["rule", "1", "4"]` (fixture engine, its value `value_template`), and
/// rewrites its CSV with the data rows sorted as text, so its runs come in as slices=1, 4, then rule: an
/// order that is neither the declared grid's nor the runs'.
fn fixture_grid_recorded_out_of_order(workspace: &Workspace, name: &str, value_template: &str) -> PathBuf {
    workspace.write_fixture_profile("1");
    let spec = workspace.write_sweep(
        name,
        &format!(
            "name = \"{name}\"\n[engine]\nprofile = \"fixture\"\n[params]\nslices = [\"rule\", \"1\", \"4\"]\n[reps]\ncount = 3\n[run]\nargs = [\"0\", \"ok\", \"{{{{slices}}}}\", \"{value_template}\"]\n[metrics]\nresult = [\"value\", \"seconds\"]\n[analysis]\nprimary = \"value\"\n"
        ),
    );
    let output = sweep(workspace.path(), &["run", &spec]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = workspace.result_csv(name);
    let text = std::fs::read_to_string(&csv).unwrap();
    let (header, rows) = text.split_once('\n').unwrap();
    let mut rows: Vec<&str> = rows.lines().collect();
    rows.sort_unstable();
    std::fs::write(&csv, format!("{header}\n{}\n", rows.join("\n"))).unwrap();
    csv
}

/// `compare` listed settings, and drew its forest plot, in the order A's runs came in (first seen in the
/// CSV), not in the declared grid order `report` uses; a text value (`rule`) defeated the plot's own sort.
#[test]
fn compare_lists_settings_in_grid_order_not_run_order() {
    let workspace = Workspace::new();
    let a = fixture_grid_recorded_out_of_order(&workspace, "a", "{{rep}}0");
    let b = fixture_grid_recorded_out_of_order(&workspace, "b", "{{rep}}1");
    let page = workspace.path().join("compare.html");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let output = sweep(workspace.path(), &["compare", a, b, "--html", page.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let in_order = |text: &str, marks: [&str; 3]| {
        let at: Vec<usize> = marks.iter().map(|mark| text.find(mark).unwrap_or_else(|| panic!("no {mark}"))).collect();
        assert!(at.is_sorted(), "{marks:?} at {at:?} in {text}");
    };
    in_order(&stdout(&output), ["\nrule  ", "\n1  ", "\n4  "]);
    in_order(&std::fs::read_to_string(&page).unwrap(), [">slices=rule<", ">slices=1<", ">slices=4<"]);
    let output = sweep(workspace.path(), &["compare", a, b, "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let order: Vec<&str> =
        json["settings"].as_array().unwrap().iter().filter_map(|s| s["setting"]["slices"].as_str()).collect();
    assert_eq!(order, ["rule", "1", "4"]);
}
