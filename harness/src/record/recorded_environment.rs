//! `RecordedEnvironment`: the base environment of a sweep's runs as the sidecar records it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ground::BaseEnv;

/// The environment ranks started from: `"inherited"`, or the variables a setup script left.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RecordedEnvironment {
    Inherited(Inherited),
    Exactly(BTreeMap<String, String>),
}

/// Spelled `"inherited"` in the sidecar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inherited {
    Inherited,
}

impl RecordedEnvironment {
    pub fn of(base_env: &BaseEnv) -> RecordedEnvironment {
        match base_env {
            BaseEnv::Inherit => RecordedEnvironment::Inherited(Inherited::Inherited),
            BaseEnv::Exactly(vars) => RecordedEnvironment::Exactly(vars.iter().cloned().collect()),
        }
    }
}
