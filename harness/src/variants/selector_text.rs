//! `SelectorText`: a selector as a declaration writes it, a string or a `{ begin, end }` table.

use serde::{Deserialize, Serialize};

use super::selector::Selector;
use super::selector_error::SelectorError;

/// The written form `Selector` is deserialized from (and serialized back to, e.g. in a sidecar).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(
    untagged,
    expecting = "expected a selector: FIRST-LAST, a regex, BEGIN..END, or { begin = '...', end = '...' }"
)]
pub enum SelectorText {
    /// `FIRST-LAST`, `BEGIN..END` or a regex, as on the command line.
    Written(String),
    /// Begin and end regexes, for markers whose text contains `..`.
    Markers { begin: String, end: String },
}

impl TryFrom<SelectorText> for Selector {
    type Error = SelectorError;

    fn try_from(text: SelectorText) -> Result<Selector, SelectorError> {
        match text {
            SelectorText::Written(text) => Selector::parse(&text),
            SelectorText::Markers { begin, end } => Selector::between(&begin, &end),
        }
    }
}

impl From<Selector> for SelectorText {
    fn from(selector: Selector) -> SelectorText {
        match selector {
            Selector::Between { begin, end } => {
                SelectorText::Markers { begin: begin.as_str().to_string(), end: end.as_str().to_string() }
            }
            other => SelectorText::Written(other.to_string()),
        }
    }
}
