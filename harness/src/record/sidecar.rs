//! The JSON sidecar beside a result CSV: resolved declaration, command line, environment, versions.

use std::io::Write;
use std::path::Path;

use super::record_error::RecordError;

/// Writes `value` as pretty JSON, atomically (temp file + fsync + rename): never a half sidecar.
pub fn write_sidecar(path: &Path, value: &serde_json::Value) -> Result<(), RecordError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(RecordError::io(dir))?;
    let text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    file.write_all(text.as_bytes()).map_err(RecordError::io(path))?;
    file.as_file().sync_all().map_err(RecordError::io(path))?;
    file.persist(path).map_err(|error| RecordError::Io { path: path.to_path_buf(), error: error.error })?;
    Ok(())
}
