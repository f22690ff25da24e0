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
    let fixture = common::repo_root().join("harness/tests/fixtures");
    workspace.write(
        "sweeps/engines/fixture.toml",
        &format!(
            "tree = \"{}\"\nprogram = \"{{{{tree}}}}/rank_fixture.sh\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"10s\"\n[result]\nprefix = \"fixture_result\"\n[toolchain]\nfixture = [\"echo\", \"fixture-toolkit {version}\"]\n",
            fixture.display()
        ),
    );
    let spec = workspace.write_sweep(
        name,
        &format!(
            "name = \"{name}\"\n[engine]\nprofile = \"fixture\"\n[params]\nmode = [\"ok\", \"slow\"]\n[reps]\ncount = 4\n[run]\nargs = [\"0\", \"{{{{mode}}}}\", \"m\", \"{value_template}\"]\n[metrics]\nresult = [\"value\", \"seconds\"]\n[analysis]\nprimary = \"value\"\ndirection = \"higher\"\n"
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
    assert!(stdout(&output).contains("| mode"), "{}", stdout(&output));
}

#[test]
fn compare_flags_a_significant_regression_with_exit_1_and_an_improvement_with_exit_0() {
    let workspace = Workspace::new();
    let base = fixture_result(&workspace, "base", "{{rep}}0");
    let worse = fixture_result(&workspace, "worse", "{{rep}}");
    let output = sweep(workspace.path(), &["compare", base.to_str().unwrap(), worse.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stdout(&output).contains("| REGRESSED |"), "{}", stdout(&output));
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
