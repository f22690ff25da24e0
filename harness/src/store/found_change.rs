//! `FoundChange`: a change point of a stored history, named by its setting and version labels.

use serde_json::Value;

use crate::declare::Direction;
use crate::history::ChangeKind;

#[derive(Debug, Clone, PartialEq)]
pub struct FoundChange {
    pub kind: ChangeKind,
    /// The setting whose series changed (a JSON object), None for the machine.
    pub setting: Option<Value>,
    /// Its label as summaries print it; `machine` for the machine.
    pub setting_label: String,
    /// The first version after the change, and the one before it.
    pub label: String,
    pub before: String,
    /// After over before (geometric means), with its 95% interval on `df` degrees of freedom.
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    pub df: f64,
    /// The permutation p and the Benjamini-Hochberg q across the settings' series (the machine's: its p).
    pub p: f64,
    pub q: f64,
}

impl FoundChange {
    /// A software regression: a setting's change to the worse side of `direction`, significant at `level`.
    pub fn is_regression(&self, direction: Direction, level: f64) -> bool {
        let worse = match direction {
            Direction::Higher => self.ratio < 1.0,
            Direction::Lower => self.ratio > 1.0,
        };
        self.kind == ChangeKind::Setting && worse && self.q <= level
    }
}
