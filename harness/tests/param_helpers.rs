//! Param helpers end to end: derived params (in templates and the CSV), `where` constraints on the grid,
//! and value maps whose values add run arguments (none at all for one value).

mod common;

use common::{csv_rows, stderr, stdout, sweep, Workspace};

const HELPERS: &str = r#"name = "helpers"
where = ["rows % 256 == 0"]

[engine]
profile = "reference"

[params]
rows = [256, 300, 512]

[params.derived]
new_tokens = "rows / 256"

[params.size]
default = { args = [] }
tiny = { args = ["--preset", "tiny"], env = { TPE_OVERLAP_SLICES = "1" } }

[reps]
count = 1

[run]
args = ["--rows", "{{rows}}", "--new", "{{new_tokens}}"]

[metrics]
result = ["decode_token_count", "prefill_tokens_per_s"]

[[checks]]
metric = "decode_token_count"
equals = "{{new_tokens}}"

[analysis]
primary = "prefill_tokens_per_s"
"#;

#[test]
fn where_filters_the_grid_derived_params_render_and_a_value_map_adds_only_its_own_arguments() {
    let ws = Workspace::new();
    let file = ws.write_sweep("helpers", HELPERS);
    let dry = sweep(ws.path(), &["run", &file, "--dry-run"]);
    assert!(dry.status.success(), "{}", stderr(&dry));
    let text = stdout(&dry);
    assert!(text.contains("4 settings"), "rows=300 is not a multiple of 256: {text}");
    assert!(!text.contains("rows=300"), "{text}");
    assert!(
        text.contains("rows=512 new_tokens=2 size=tiny") || text.contains("rows=512 size=tiny new_tokens=2"),
        "{text}"
    );
    let default_run =
        text.lines().find(|l| l.contains("run:") && l.contains("--rows 256 --new 1") && !l.contains("tiny"));
    let default_run = default_run.unwrap_or_else(|| panic!("no run of size=default: {text}"));
    assert!(default_run.trim_end().ends_with("--rows 256 --new 1"), "an empty argv element was left: {default_run}");
    assert!(!default_run.contains("''"), "{default_run}");
    assert!(text.contains("TPE_OVERLAP_SLICES=1") && text.contains("--new 2 --preset tiny"), "{text}");
}

#[test]
fn derived_params_are_recorded_as_columns() {
    common::ensure_engine_built();
    let ws = Workspace::new();
    let file = ws.write_sweep("helpers", HELPERS);
    let output = sweep(ws.path(), &["run", &file, "--filter", "size=tiny", "--out", "h.csv"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = csv_rows(&ws.path().join("h.csv"));
    let recorded: Vec<(&str, &str)> =
        rows.iter().map(|r| (r["param.rows"].as_str(), r["param.new_tokens"].as_str())).collect();
    assert_eq!(recorded.len(), 2, "{rows:?}");
    assert!(recorded.contains(&("256", "1")) && recorded.contains(&("512", "2")), "{recorded:?}");
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
}
