//! What a section of a report holds, typed: each renderer (terminal, markdown, HTML) decides how it looks.

use super::figure::Figure;
use super::note::Note;
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
