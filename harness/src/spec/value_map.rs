//! `ValueMap`: a param whose values stand for run arguments (`[params.tbo] off = { args = [] },
//! all = { args = ["--enable-tbo", "all"] }`): each value adds its own argv elements and env to the run,
//! so a flag absent for one value leaves no empty argv element.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What one value adds to the run: argv elements after `[run] args`, and env over `[run] env`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ValueArgs {
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueMap {
    pub param: String,
    /// Value (as written, a string) -> what it adds, in declaration order.
    pub values: Vec<(String, ValueArgs)>,
}

impl ValueMap {
    pub fn of(&self, value: &str) -> Option<&ValueArgs> {
        self.values.iter().find(|(name, _)| name == value).map(|(_, args)| args)
    }
}
