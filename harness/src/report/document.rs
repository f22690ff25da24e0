//! One document model for every report (issue 21): a title and typed sections, built once by the report
//! code and rendered by `terminal_text`, `markdown` and `html_page` (and its notes into `analysis.json`),
//! so the terminal, the summary file and the page say the same things in the same order.

use super::block::Block;
use super::note::Note;
use super::section::Section;

/// A report: its title and sections in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub title: String,
    pub sections: Vec<Section>,
}

impl Document {
    pub fn new(title: impl Into<String>) -> Document {
        Document { title: title.into(), sections: Vec::new() }
    }

    /// Appends `section` unless it has nothing in it.
    pub fn push(&mut self, section: Section) {
        if !section.blocks.is_empty() {
            self.sections.push(section);
        }
    }

    /// Appends every section of `sections` that has something in it.
    pub fn extend(&mut self, sections: impl IntoIterator<Item = Section>) {
        sections.into_iter().for_each(|section| self.push(section));
    }

    /// Every note of the document, in order (the "what to trust" block).
    pub fn notes(&self) -> impl Iterator<Item = &Note> {
        self.sections.iter().flat_map(|section| &section.blocks).flat_map(|block| match block {
            Block::Notes(notes) => notes.as_slice(),
            _ => &[],
        })
    }

    /// The sections text renderers show: those with a block that is not a figure.
    pub fn text_sections(&self) -> impl Iterator<Item = &Section> {
        self.sections.iter().filter(|section| section.text_blocks().next().is_some())
    }
}
