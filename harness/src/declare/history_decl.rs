//! `[history]` of a sweep declaration: whether `sweep run` adds its results to the history store.

use serde::{Deserialize, Serialize};

/// `[history]`: whether `sweep run` adds its results to the history store (`add = false` opts out).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct HistoryDecl {
    pub add: bool,
}

impl Default for HistoryDecl {
    fn default() -> Self {
        HistoryDecl { add: true }
    }
}

impl HistoryDecl {
    /// Nothing declared (then nothing is recorded either, so the declaration's digest stays as it was).
    pub fn is_default(&self) -> bool {
        *self == HistoryDecl::default()
    }
}
