//! `RanksOverride`: a sweep's `[engine] ranks`, a count or a template over params (`"{{nodes}}"`).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum RanksOverride {
    Count(u32),
    /// Rendered per setting: the rank count is then a parameter of the topology, recorded as `ranks`.
    Template(String),
}
