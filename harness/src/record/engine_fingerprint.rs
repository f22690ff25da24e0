//! `EngineFingerprint`: which engine a result CSV's rows come from (its profile's program, arguments and
//! environment, its tree and the tree's commit), kept in the sidecar so that `--resume` cannot add rows of
//! another engine to them unnoticed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::declare::Engine;

/// The engine as its profile (with the sweep's overrides) writes it, and the tree it runs from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineFingerprint {
    /// `program`, as written (a template over `tree` and `build_dir`).
    pub program: String,
    /// The build argv, as written.
    pub build: Vec<String>,
    /// The launcher (`local`, `per-rank`, `mpirun`, `srun`), its command, and the profile's rank count and
    /// hostfile it is given.
    pub launcher: String,
    pub launcher_command: Vec<String>,
    pub ranks: u32,
    pub hostfile: Option<PathBuf>,
    /// The commands run before each run.
    pub pre_run: Vec<Vec<String>>,
    /// The environment every rank is given, as written.
    pub env: BTreeMap<String, String>,
    /// The setup script sourced once per sweep.
    pub setup: Option<String>,
    pub tree: PathBuf,
    /// `git rev-parse HEAD` of the tree; `None` outside git (then not compared).
    pub commit: Option<String>,
}

impl EngineFingerprint {
    /// The fingerprint of `engine` as it is now, its tree at `commit` (as the runner read it from git).
    pub fn of(engine: &Engine, commit: Option<String>) -> EngineFingerprint {
        let texts = |templates: &[crate::template::Template]| templates.iter().map(|t| t.text().to_string()).collect();
        EngineFingerprint {
            program: engine.program.text().to_string(),
            build: texts(&engine.build),
            launcher: crate::declare::toml_spelling(&engine.launcher),
            launcher_command: texts(&engine.launcher_command),
            ranks: engine.ranks,
            hostfile: engine.hostfile.clone(),
            pre_run: engine.pre_run.iter().map(|argv| texts(argv)).collect(),
            env: engine.env.iter().map(|(name, value)| (name.clone(), value.text().to_string())).collect(),
            setup: engine.setup.as_ref().map(|setup| setup.text().to_string()),
            tree: engine.tree.clone(),
            commit,
        }
    }

    /// How the engine `now` differs from this recorded one (`` `program` was "a", now "b" ``, every field
    /// that differs), if it does. A field either side does not know (a commit outside git) is not compared.
    pub fn difference(&self, now: &EngineFingerprint) -> Option<String> {
        let (was, is) = (fields(self), fields(now));
        let changes: Vec<String> = was
            .iter()
            .filter_map(|(name, old)| {
                let new = is.get(name).unwrap_or(&Value::Null);
                (!old.is_null() && !new.is_null() && old != new).then(|| format!("`{name}` was {old}, now {new}"))
            })
            .collect();
        (!changes.is_empty()).then(|| changes.join("; "))
    }
}

/// The fingerprint's fields by name.
fn fields(fingerprint: &EngineFingerprint) -> Map<String, Value> {
    match serde_json::to_value(fingerprint) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint() -> EngineFingerprint {
        EngineFingerprint {
            program: "{{tree}}/flaky.sh".into(),
            build: Vec::new(),
            launcher: "local".into(),
            launcher_command: Vec::new(),
            ranks: 1,
            hostfile: None,
            pre_run: Vec::new(),
            env: BTreeMap::from([("MODE".to_string(), "fast".to_string())]),
            setup: None,
            tree: PathBuf::from("/e"),
            commit: Some("abc".into()),
        }
    }

    #[test]
    fn resume_refuses_rows_from_another_engine_naming_every_field_that_differs() {
        let now = EngineFingerprint {
            program: "{{tree}}/other.sh".into(),
            env: BTreeMap::from([("MODE".to_string(), "slow".to_string())]),
            ..fingerprint()
        };
        assert_eq!(
            fingerprint().difference(&now).unwrap(),
            r#"`env` was {"MODE":"fast"}, now {"MODE":"slow"}; `program` was "{{tree}}/flaky.sh", now "{{tree}}/other.sh""#
        );
        assert_eq!(fingerprint().difference(&fingerprint()), None);
    }

    #[test]
    fn a_commit_either_side_does_not_know_is_not_compared() {
        let outside_git = EngineFingerprint { commit: None, ..fingerprint() };
        assert_eq!(fingerprint().difference(&outside_git), None);
        let moved = EngineFingerprint { commit: Some("def".into()), ..fingerprint() };
        assert_eq!(fingerprint().difference(&moved).unwrap(), r#"`commit` was "abc", now "def""#);
    }
}
