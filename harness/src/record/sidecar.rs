//! The JSON sidecar beside a result CSV: resolved declaration, command line, environment, versions.

use std::path::Path;

use super::record_error::RecordError;

/// Writes `value` as pretty JSON atomically: a crash leaves no half-written sidecar.
pub fn write_sidecar(path: &Path, value: &serde_json::Value) -> Result<(), RecordError> {
    let text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    crate::atomic_file::write_atomic(path, text.as_bytes(), None).map_err(RecordError::io(path))
}

/// Reads a sidecar back (for `report`, `compare` and `--resume`).
pub fn read_sidecar(path: &Path) -> Result<serde_json::Value, RecordError> {
    let text = std::fs::read_to_string(path).map_err(RecordError::io(path))?;
    serde_json::from_str(&text).map_err(|error| RecordError::NotAResultCsv {
        path: path.to_path_buf(),
        reason: format!("its sidecar is not JSON: {error}"),
    })
}
