//! `[search]`: search the declared space under a budget of runs or time instead of running its whole grid.

use serde::{Deserialize, Serialize};

use super::search_budget::SearchBudget;

/// A budgeted search of the settings `[params]` and `where` allow (`docs/search.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SearchConfig {
    /// Engine runs the search may spend, or its wall time, its final race included (`--budget` overrides).
    pub budget: SearchBudget,
    /// Seeds the search's draws; default: the sweep's run-order seed (`[reps] seed`, else drawn and
    /// recorded), so a resumed search replays the same draws.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}
