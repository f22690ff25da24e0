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
