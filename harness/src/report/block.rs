//! What a section of a report holds, typed: each renderer (terminal, markdown, HTML) decides how it looks.

use super::table::Table;
use super::text::Text;

/// One block of a section.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Paragraph(Text),
    /// A list, one sentence per item (the verdict lines).
    Items(Vec<Text>),
    /// The "what to trust" lines, warnings first.
    Notes(Vec<Note>),
    Table(Table),
    /// Only the page draws figures.
    Figure(Figure),
}

impl Block {
    /// Whether text renderers show it (they leave figures out).
    pub fn is_text(&self) -> bool {
        !matches!(self, Block::Figure(_))
    }
}

/// A drawn figure: an inline SVG element with the sentence that says what it shows (shown on the page;
/// text renderers skip it).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub svg: String,
    pub caption: String,
}

/// One line of a report's "what to trust" block, a sentence about how far the verdicts can be trusted: a
/// warning that weakens them, or a plain note.
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
