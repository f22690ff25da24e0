//! One line of a report's "what to trust" block: a warning that weakens the verdicts, or a plain note.

use super::text::Text;

/// A sentence about how far the verdicts can be trusted.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// Weakens or voids verdicts (failed runs, large drift, a control the settings move): shown first
    /// and marked `WARNING:`.
    pub warning: bool,
    pub text: Text,
}

impl Note {
    pub fn warning(text: impl Into<Text>) -> Note {
        Note { warning: true, text: text.into() }
    }

    pub fn info(text: impl Into<Text>) -> Note {
        Note { warning: false, text: text.into() }
    }

    /// `WARNING: ...` or the text alone, with code in backticks.
    pub fn with_backticks(&self) -> String {
        let text = self.text.with_backticks();
        if self.warning {
            format!("WARNING: {text}")
        } else {
            text
        }
    }
}
