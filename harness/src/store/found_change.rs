//! `FoundChange`: a change point of a stored history, named by its setting and version labels.

use serde_json::Value;

use crate::declare::Direction;
use crate::history::{ChangeKind, ChangePoint};

#[derive(Debug, Clone)]
pub struct FoundChange {
    /// The change as the search found it (kind, ratio with its interval, df, p and q).
    pub change: ChangePoint,
    /// The setting whose series changed (a JSON object), None for the machine.
    pub setting: Option<Value>,
    /// Its label as summaries print it; `machine` for the machine.
    pub setting_label: String,
    /// The first version after the change, and the one before it.
    pub label: String,
    pub before: String,
}

impl FoundChange {
    /// A software regression: a setting's change to the worse side of `direction`, significant at `level`.
    pub fn is_regression(&self, direction: Direction, level: f64) -> bool {
        let change = &self.change;
        // Worse: the level before the change is better than the level after it (ratio after/before).
        let worse = direction.is_better(1.0, change.ratio);
        change.kind == ChangeKind::Setting && worse && change.q <= level
    }
}
