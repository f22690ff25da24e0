//! Test-only: a sidecar for a CSV of a given layout, with a fingerprint, so writers can be resumed in tests.

use std::path::Path;

use super::columns::Columns;
use super::result_paths::ResultPaths;
use super::sidecar::Sidecar;
use super::sweep_fingerprint::SweepFingerprint;
use crate::declare::Param;

/// The fingerprint of a test sweep `s` whose CSV has `columns`.
pub fn fingerprint(columns: &Columns) -> SweepFingerprint {
    SweepFingerprint {
        name: "s".to_string(),
        params: Vec::new(),
        param_columns: columns.params.clone(),
        metrics: columns.metrics.clone(),
        declaration: "d".to_string(),
    }
}

/// Writes the sidecar of `csv` (a test sweep of `columns`, any setting, up to 1000 reps) and returns its
/// fingerprint.
pub fn write_sidecar(csv: &Path, columns: &Columns) -> SweepFingerprint {
    let mut sidecar = declaring(&[]);
    sidecar.fingerprint = Some(fingerprint(columns));
    sidecar.write(&ResultPaths::for_csv(csv).sidecar).expect("the sidecar is written");
    fingerprint(columns)
}

/// The sidecar of a test sweep `s` (any setting, up to 1000 reps) declaring `params`, without a fingerprint.
pub fn declaring(params: &[Param]) -> Sidecar {
    let mut sidecar: Sidecar = serde_json::from_value(serde_json::json!({
        "sweep": { "name": "s", "analysis": { "primary": "tps" } }, "declaration_file": "s.toml", "engine": {},
        "command_line": [], "seed": 1, "reps": 1000, "settings": [], "base_environment": "inherited",
        "provenance": { "host": "", "engine_commit": "", "engine_dirty": false, "toolchain": {} },
        "sweep_version": "0"
    }))
    .expect("a valid sidecar");
    sidecar.params = params.to_vec();
    sidecar
}
