//! `SourceDecl`: an engine source whose ablation template is derived from group selectors at run time.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::selector::Selector;

/// `[ablation] sources = [{ target = "...", groups = { name = selector, ... } }]`: the template is the
/// target's current text with each group's blocks wrapped, so it can never be stale.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SourceDecl {
    /// Relative to the engine tree.
    pub target: String,
    /// Group name -> the selector of its blocks in `target` (a string, or `{ begin = '...', end = '...' }`).
    pub groups: BTreeMap<String, Selector>,
}

impl SourceDecl {
    /// The groups and their selectors, as the template derivation takes them.
    pub fn selectors(&self) -> Vec<(String, Selector)> {
        self.groups.iter().map(|(group, selector)| (group.clone(), selector.clone())).collect()
    }
}
