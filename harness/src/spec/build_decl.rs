//! `[build]` of a sweep: argv elements and environment appended to the profile's build command.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Templates over params (and `{{tree}}`, `{{build_dir}}`); a param they name is build-time: one build
/// per distinct value, e.g. `args = ["CXXFLAGS_EXTRA=-DTILE={{tile}}"]`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BuildDecl {
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl BuildDecl {
    pub fn is_empty(&self) -> bool {
        self.args.is_empty() && self.env.is_empty()
    }
}
