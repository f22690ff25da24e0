//! One document model for every report (issue 21): a title and typed sections, built once by the report
//! code and rendered by `terminal_text`, `markdown` and `html_page` (`analysis.json` has its notes too),
//! so the terminal, the summary file and the page say the same things in the same order.

use super::block::{Block, Note};
use super::section::Section;
use super::table::Table;

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

    /// The document as text, the layout the terminal and markdown share: `heading(text, level)` writes the
    /// title (level 1) and each section's heading (level 2), `table` each table; paragraphs as they are,
    /// verdict items and notes as `- ` lists with code in backticks, a blank line between blocks; figures
    /// and sections of figures alone are left to the page.
    pub fn text(&self, heading: impl Fn(&str, usize) -> String, table: impl Fn(&Table) -> String) -> String {
        let mut out = heading(&self.title, 1);
        let list = |items: Vec<String>| items.iter().map(|item| format!("- {item}\n")).collect::<String>();
        for section in self.sections.iter().filter(|section| section.blocks.iter().any(Block::is_text)) {
            if let Some(text) = &section.heading {
                out.push('\n');
                out.push_str(&heading(text, 2));
            }
            for block in section.blocks.iter().filter(|block| block.is_text()) {
                out.push('\n');
                out.push_str(&match block {
                    Block::Paragraph(text) => format!("{}\n", text.with_backticks()),
                    Block::Items(items) => list(items.iter().map(|item| item.with_backticks()).collect()),
                    Block::Notes(notes) => list(notes.iter().map(Note::with_backticks).collect()),
                    Block::Table(shown) => table(shown),
                    Block::Figure(_) => String::new(),
                });
            }
        }
        out
    }
}
