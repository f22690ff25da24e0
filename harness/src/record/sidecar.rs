//! The JSON sidecar beside a result CSV: resolved declaration, command line, environment, versions.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::engine_change::EngineChange;
use super::engine_fingerprint::EngineFingerprint;
use super::provenance::Provenance;
use super::record_error::RecordError;
use super::recorded_environment::RecordedEnvironment;
use super::result_paths::ResultPaths;
use super::search_build::SearchBuild;
use super::sweep_fingerprint::{declaration_digest, SweepFingerprint};
use crate::declare::{Param, Race, RecordedDeclaration, SearchConfig};
use crate::read_limit::ReadLimit;

/// The schema this version writes. 0 is a sidecar written before the schema was versioned: the same
/// fields, without `params` (its CSV's param columns are then typed by inference).
pub const SIDECAR_SCHEMA_VERSION: u32 = 1;

/// What a result CSV needs to be reported, compared and resumed, and what a person needs to rerun it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sidecar {
    #[serde(default)]
    pub schema_version: u32,
    /// The declaration as written.
    pub sweep: RecordedDeclaration,
    pub declaration_file: PathBuf,
    /// The resolved engine, for people; nothing reads it back.
    pub engine: Value,
    pub command_line: Vec<String>,
    /// The seed the run order was drawn with; a resume carries on with it.
    pub seed: u64,
    pub reps: u32,
    /// Setting labels in plan order.
    pub settings: Vec<String>,
    /// The swept params and their typed values, which type the CSV's param columns (schema 1).
    #[serde(default)]
    pub params: Vec<Param>,
    pub base_environment: RecordedEnvironment,
    pub provenance: Provenance,
    /// The `sweep` version that wrote the file.
    pub sweep_version: String,
    /// The race's limits when the sweep raced (its verdicts split alpha over the race's looks).
    #[serde(default)]
    pub race: Option<Race>,
    /// The search's budget and seed when the sweep searched its space (`[search]`, `--budget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchConfig>,
    /// The builds the search caused, in the order it made them (`SearchBuild`): charged against its budget.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search_builds: Vec<SearchBuild>,
    /// Which sweep the CSV records; absent from sidecars written before it was (see `fingerprint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<SweepFingerprint>,
    /// The engine its latest rows come from; absent from sidecars written before it was recorded (a
    /// resume of one cannot tell whether its rows come from the same engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_fingerprint: Option<EngineFingerprint>,
    /// The engine changes resumes accepted (`--accept-engine-change`), oldest first: the rows come from
    /// more than one engine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engine_changes: Vec<EngineChange>,
}

impl Sidecar {
    /// Writes the sidecar as pretty JSON atomically: a crash leaves no half-written sidecar, and two
    /// writers never share a temporary file.
    pub fn write(&self, path: &Path) -> Result<(), RecordError> {
        let text = serde_json::to_string_pretty(self).expect("a sidecar serializes");
        crate::atomic_file::write_atomic(path, text.as_bytes(), None).map_err(RecordError::io(path))
    }

    /// Reads a sidecar of this schema version or an older one (for `report`, `compare` and `--resume`).
    pub fn read(path: &Path) -> Result<Sidecar, RecordError> {
        let bad = |reason: String| RecordError::BadSidecar { path: path.to_path_buf(), reason };
        let text = ReadLimit::SIDECAR.read_to_string(path).map_err(RecordError::io(path))?;
        let value: Value = serde_json::from_str(&text).map_err(|error| bad(format!("not JSON: {error}")))?;
        let version = match value.get("schema_version") {
            None => 0,
            Some(version) => {
                version.as_u64().ok_or_else(|| bad(format!("`schema_version` is {version}, not a number")))?
            }
        };
        if version > u64::from(SIDECAR_SCHEMA_VERSION) {
            return Err(bad(format!(
                "schema version {version} is newer than this sweep reads (up to {SIDECAR_SCHEMA_VERSION}); \
                 use the sweep version that wrote it"
            )));
        }
        let sidecar: Sidecar = serde_json::from_value(value)
            .map_err(|error| bad(format!("not a valid sidecar of schema version {version}: {error}")))?;
        match sidecar.inconsistency() {
            Some(reason) => Err(bad(reason)),
            None => Ok(sidecar),
        }
    }

    /// How the sidecar contradicts itself, if it does (`sweep` never writes one that does): a setting listed
    /// twice would be two settings of one label, and params other than its fingerprint's would type and
    /// check its CSV by another grid than the one `--resume` compares with the sweep's.
    fn inconsistency(&self) -> Option<String> {
        let mut listed = std::collections::HashSet::new();
        if let Some(label) = self.settings.iter().find(|label| !listed.insert(*label)) {
            Some(format!("it lists setting `{label}` twice"))
        } else if self.fingerprint.as_ref().is_some_and(|fingerprint| fingerprint.params != self.params) {
            Some("its `params` are not the ones its `fingerprint` records".to_string())
        } else {
            None
        }
    }

    /// Which sweep the CSV records: as written, or for an older sidecar what it still says of it (name,
    /// grid and declaration; its columns unknown).
    pub fn fingerprint(&self) -> SweepFingerprint {
        self.fingerprint.clone().unwrap_or_else(|| SweepFingerprint {
            name: self.sweep.rest.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
            params: self.params.clone(),
            param_columns: Vec::new(),
            metrics: Vec::new(),
            declaration: declaration_digest(&self.sweep),
        })
    }

    /// The sidecar beside a result CSV, if there is one.
    pub fn beside(csv: &Path) -> Result<Option<Sidecar>, RecordError> {
        let path = ResultPaths::for_csv(csv).sidecar;
        path.exists().then(|| Sidecar::read(&path)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::super::recorded_environment::Inherited;
    use super::*;
    use crate::declare::ParamValue;

    /// A sidecar as `sweep` wrote it before the schema was versioned.
    const VERSION_0: &str = r#"{
      "sweep": { "name": "slices", "engine": { "profile": "reference" }, "params": { "slices": [1, 2] },
                 "metrics": { "result": ["tps"] }, "analysis": { "primary": "tps" }, "ablation": null },
      "declaration_file": "/s/slices.toml",
      "engine": { "tree": "/e" },
      "command_line": ["sweep", "run", "slices.toml"],
      "seed": 42,
      "reps": 3,
      "settings": ["slices=1", "slices=2"],
      "base_environment": "inherited",
      "provenance": { "host": "h", "engine_commit": "abc", "engine_dirty": false, "toolchain": { "cc": "cc 1" } },
      "sweep_version": "0.1.0"
    }"#;

    fn sidecar() -> Sidecar {
        let mut sidecar: Sidecar = serde_json::from_str(VERSION_0).unwrap();
        sidecar.schema_version = SIDECAR_SCHEMA_VERSION;
        sidecar.params = vec![Param {
            name: "slices".into(),
            values: vec![ParamValue::Int(1), ParamValue::Float(2.0)],
            is_list: true,
        }];
        sidecar.base_environment = RecordedEnvironment::Exactly([("PATH".to_string(), "/bin".to_string())].into());
        sidecar
    }

    #[test]
    fn a_sidecar_round_trips_with_its_types() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        sidecar().write(&path).unwrap();
        let read = Sidecar::read(&path).unwrap();
        assert_eq!(read.schema_version, SIDECAR_SCHEMA_VERSION);
        assert_eq!(read.params, sidecar().params);
        assert_eq!(read.base_environment, sidecar().base_environment);
        assert_eq!(read.seed, 42);
        assert_eq!(read.sweep.analysis.primary, "tps");
        assert_eq!(read.sweep.rest["params"]["slices"], serde_json::json!([1, 2]));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "temporary file left behind");
    }

    #[test]
    fn a_sidecar_written_before_schema_versions_reads_as_version_0() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, VERSION_0).unwrap();
        let read = Sidecar::read(&path).unwrap();
        assert_eq!(read.schema_version, 0);
        assert!(read.params.is_empty());
        assert_eq!(read.base_environment, RecordedEnvironment::Inherited(Inherited::Inherited));
        assert_eq!(read.provenance.toolchain["cc"], "cc 1");
        assert!(read.sweep.ablation().is_none());
        assert!(read.engine_fingerprint.is_none() && read.engine_changes.is_empty(), "an engine it never recorded");
    }

    #[test]
    fn a_newer_schema_version_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let mut value: Value = serde_json::from_str(VERSION_0).unwrap();
        value["schema_version"] = Value::from(SIDECAR_SCHEMA_VERSION + 1);
        std::fs::write(&path, value.to_string()).unwrap();
        let error = Sidecar::read(&path).unwrap_err();
        assert!(error.is_bad_input());
        assert!(error.to_string().contains("schema version 2 is newer than this sweep reads (up to 1)"), "{error}");
    }

    #[test]
    fn a_sidecar_missing_a_field_names_its_schema_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let mut value: Value = serde_json::from_str(VERSION_0).unwrap();
        value.as_object_mut().unwrap().remove("seed");
        std::fs::write(&path, value.to_string()).unwrap();
        let error = Sidecar::read(&path).unwrap_err().to_string();
        assert!(error.contains("not a valid sidecar of schema version 0: missing field `seed`"), "{error}");
    }
}
