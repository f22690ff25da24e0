//! Test-only FIXTURE result files (no measurement): a CSV of sweep `s` (param `k` = 1, 2, 3, metric
//! `tps`) with its sidecar, written as `sweep run` lays them out, its values chosen by the test.

use std::path::{Path, PathBuf};

/// The CSV's columns, as `sweep run` writes them for one param and one metric.
const HEADER: &str = "param.k,variant,rep,attempt,warmup,order,status,error,started_at,duration_s,metric.tps,host,\
                      engine_commit,engine_dirty,variant_hash,scheduler,job,task,log_dir";

/// Writes `<dir>/<name>.csv` with a row per `(k, rep, tps)` and its sidecar (grid `k` = `ks`, toolchain
/// `fixture: <toolchain>`); returns the CSV's path.
pub fn fixture_results(dir: &Path, name: &str, ks: &[i64], toolchain: &str, rows: &[(i64, u32, f64)]) -> PathBuf {
    let csv = dir.join(format!("{name}.csv"));
    let lines: Vec<String> = (rows.iter().enumerate())
        .map(|(order, (k, rep, tps))| {
            format!("{k},default,{rep},1,false,{order},ok,,,0.1,{tps},h,unknown,false,,,,,runs")
        })
        .collect();
    std::fs::write(&csv, format!("{HEADER}\n{}\n", lines.join("\n"))).unwrap();
    let params = serde_json::json!([{ "name": "k", "values": ks, "is_list": true }]);
    let sidecar = serde_json::json!({
        "schema_version": 1,
        "sweep": { "name": "s", "analysis": { "primary": "tps" } }, "declaration_file": "s.toml", "engine": {},
        "command_line": [], "seed": 1, "reps": 1000,
        "settings": ks.iter().map(|k| format!("k={k}")).collect::<Vec<_>>(),
        "params": params, "base_environment": "inherited",
        "provenance": { "host": "h", "engine_commit": "unknown", "engine_dirty": false,
                        "toolchain": { "fixture": toolchain } },
        "sweep_version": "0",
        "fingerprint": { "name": "s", "params": params, "param_columns": ["k"], "metrics": ["tps"], "declaration": "d" }
    });
    std::fs::write(csv.with_extension("json"), sidecar.to_string()).unwrap();
    csv
}

/// `reps` runs of each of `ks` at `tps(k, rep)`.
pub fn fixture_rows(ks: &[i64], reps: u32, tps: impl Fn(i64, u32) -> f64) -> Vec<(i64, u32, f64)> {
    (1..=reps).flat_map(|rep| ks.iter().map(move |&k| (k, rep, 0.0))).map(|(k, rep, _)| (k, rep, tps(k, rep))).collect()
}
