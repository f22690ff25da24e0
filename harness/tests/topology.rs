//! Topology as a parameter: `[engine] ranks = "{{nodes}}"` starts each setting with its own rank count,
//! recorded as the `ranks` column.

mod common;

use common::{csv_rows, stderr, sweep, Workspace};

const TOPOLOGY: &str = r#"name = "topology"

[engine]
profile = "reference"
ranks = "{{nodes}}"

[params]
nodes = [1, 2]
rows = 64

[reps]
count = 2

[run]
args = ["--preset", "tiny", "--rows", "{{rows}}", "--new", "1"]

[metrics]
result = ["ranks", "prefill_tokens_per_s"]

[analysis]
primary = "prefill_tokens_per_s"
"#;

#[test]
fn a_rank_count_templated_from_a_param_starts_that_many_ranks_and_is_recorded() {
    common::ensure_engine_built();
    let ws = Workspace::new();
    let file = ws.write_sweep("topology", TOPOLOGY);
    let output = sweep(ws.path(), &["run", &file, "--out", "t.csv"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = csv_rows(&ws.path().join("t.csv"));
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in &rows {
        assert_eq!(row["param.ranks"], row["param.nodes"], "{row:?}");
        assert_eq!(row["metric.ranks"], row["param.nodes"], "the engine ran another rank count: {row:?}");
    }
}

#[test]
fn a_hostfile_templated_from_a_param_is_passed_per_setting_and_must_exist() {
    let ws = Workspace::new();
    let text = TOPOLOGY.replace("ranks = \"{{nodes}}\"", "ranks = \"{{nodes}}\"\nhostfile = \"hosts/{{nodes}}.txt\"");
    let file = ws.write_sweep("topology", &text);
    for nodes in ["1", "2"] {
        ws.write(&format!("sweeps/hosts/{nodes}.txt"), "localhost slots=2\n");
    }
    let output = sweep(ws.path(), &["run", &file, "--dry-run"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let plan = common::stdout(&output);
    let hosts = ws.path().canonicalize().unwrap().join("sweeps/hosts");
    for nodes in ["1", "2"] {
        let expected = format!("-n {nodes} --hostfile {}/{nodes}.txt", hosts.display());
        assert!(plan.contains(&expected), "no `{expected}` in:\n{plan}");
    }
    std::fs::remove_file(ws.path().join("sweeps/hosts/2.txt")).unwrap();
    let missing = sweep(ws.path(), &["check", &file]);
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(stderr(&missing).contains("`engine.hostfile`: hostfile "), "{}", stderr(&missing));
    assert!(
        stderr(&missing).contains("hosts/2.txt does not exist: mpirun would fail every run"),
        "{}",
        stderr(&missing)
    );
}
