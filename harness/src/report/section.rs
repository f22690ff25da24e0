//! A section of a report: an optional heading and its blocks in order.

use super::block::{Block, Figure, Note};
use super::table::Table;
use super::text::Text;

/// A headed part of a report (the lead, under the title, has no heading).
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub heading: Option<String>,
    pub blocks: Vec<Block>,
}

impl Section {
    pub fn new(heading: impl Into<String>) -> Section {
        Section { heading: Some(heading.into()), blocks: Vec::new() }
    }

    /// The unheaded part under the title.
    pub fn lead() -> Section {
        Section { heading: None, blocks: Vec::new() }
    }

    pub fn paragraph(mut self, text: impl Into<Text>) -> Section {
        self.blocks.push(Block::Paragraph(text.into()));
        self
    }

    /// A paragraph, when there is one.
    pub fn paragraph_if(mut self, text: Option<impl Into<Text>>) -> Section {
        self.blocks.extend(text.map(|text| Block::Paragraph(text.into())));
        self
    }

    /// A list; nothing when `items` is empty.
    pub fn items(mut self, items: Vec<Text>) -> Section {
        if !items.is_empty() {
            self.blocks.push(Block::Items(items));
        }
        self
    }

    /// Notes (warnings first, as the caller orders them); nothing when `notes` is empty.
    pub fn notes(mut self, notes: Vec<Note>) -> Section {
        if !notes.is_empty() {
            self.blocks.push(Block::Notes(notes));
        }
        self
    }

    /// A table, when there is one.
    pub fn table(mut self, table: impl Into<Option<Table>>) -> Section {
        self.blocks.extend(table.into().map(Block::Table));
        self
    }

    /// A figure, when one could be drawn.
    pub fn figure(mut self, svg: Option<String>, caption: impl Into<String>) -> Section {
        if let Some(svg) = svg {
            self.blocks.push(Block::Figure(Figure { svg, caption: caption.into() }));
        }
        self
    }

    /// `Best per group` -> `best-per-group`: the heading's words, lowercase, for the page's anchors.
    pub fn id(&self) -> Option<String> {
        let heading = self.heading.as_deref()?;
        let words: Vec<String> = heading
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect();
        Some(words.join("-"))
    }
}
