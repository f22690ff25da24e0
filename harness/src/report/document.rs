//! One document model for every report: a title and typed sections, built once by the report
//! code and rendered by `terminal_text`, `markdown` (both here: they share one text layout) and
//! `html_page` (`analysis.json` has its notes too), so the terminal, the summary file and the page say the
//! same things in the same order.

use super::table::Table;
use super::text::Text;

/// A report: its title and sections in reading order.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub title: String,
    pub sections: Vec<Section>,
}

/// The terminal renderer: what `run`, `report`, `ablate` and `compare` print. The title underlined with
/// `=`, each section's heading with `-`, a blank line between blocks; tables are columns padded to their
/// widest cell, two spaces apart, the header ruled with dashes, trailing spaces trimmed: no markup to read
/// past.
pub fn terminal_text(document: &Document) -> String {
    let underlined = |text: &str, level: usize| {
        let rule = if level == 1 { "=" } else { "-" };
        format!("{text}\n{}\n", rule.repeat(text.chars().count()))
    };
    let table = |table: &Table| table.laid_out(str::to_string, 1, |cells| format!("{}\n", cells.join("  ").trim_end()));
    document.text(underlined, table)
}

/// The markdown renderer: the `<stamp>.summary.md` file. `# title`, then each section as `## heading` and
/// its blocks, a blank line between blocks; tables are pipe tables with columns padded to their widest cell
/// (at least the three dashes of the rule), so the source reads as a table too, a `|` inside a cell escaped
/// so it cannot split the cell.
pub fn markdown(document: &Document) -> String {
    let table = |table: &Table| {
        table.laid_out(|cell| cell.replace('|', "\\|"), 3, |cells| format!("| {} |\n", cells.join(" | ")))
    };
    document.text(|text, level| format!("{} {text}\n", "#".repeat(level)), table)
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
        let is_text = |block: &&Block| !matches!(block, Block::Figure { .. });
        for section in self.sections.iter().filter(|section| section.blocks.iter().any(|block| is_text(&block))) {
            if let Some(text) = &section.heading {
                out.push('\n');
                out.push_str(&heading(text, 2));
            }
            for block in section.blocks.iter().filter(is_text) {
                out.push('\n');
                out.push_str(&match block {
                    Block::Paragraph(text) => format!("{}\n", text.with_backticks()),
                    Block::Items(items) => list(items.iter().map(|item| item.with_backticks()).collect()),
                    Block::Notes(notes) => list(notes.iter().map(Note::with_backticks).collect()),
                    Block::Table(shown) => table(shown),
                    Block::Figure { .. } => String::new(),
                });
            }
        }
        out
    }
}

/// A headed part of a report, its blocks in order (the lead, under the title, has no heading).
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
        self.blocks.extend((!items.is_empty()).then_some(Block::Items(items)));
        self
    }

    /// Notes (warnings first, as the caller orders them); nothing when `notes` is empty.
    pub fn notes(mut self, notes: Vec<Note>) -> Section {
        self.blocks.extend((!notes.is_empty()).then_some(Block::Notes(notes)));
        self
    }

    /// A table, when there is one.
    pub fn table(mut self, table: impl Into<Option<Table>>) -> Section {
        self.blocks.extend(table.into().map(Block::Table));
        self
    }

    /// A figure, when one could be drawn.
    pub fn figure(mut self, svg: Option<String>, caption: impl Into<String>) -> Section {
        self.blocks.extend(svg.map(|svg| Block::Figure { svg, caption: caption.into() }));
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

/// One block of a section, typed: each renderer (terminal, markdown, HTML) decides how it looks.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Paragraph(Text),
    /// A list, one sentence per item (the verdict lines).
    Items(Vec<Text>),
    /// The "what to trust" lines, warnings first.
    Notes(Vec<Note>),
    Table(Table),
    /// A drawn figure: an inline SVG element with the sentence that says what it shows. Only the page draws
    /// figures; text renderers skip them.
    Figure {
        svg: String,
        caption: String,
    },
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
        let mark = if self.warning { "WARNING: " } else { "" };
        format!("{mark}{}", self.text.with_backticks())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underlined_headings_and_ruled_columns() {
        let mut document = Document::new("slices");
        document.push(Section::new("What to trust").notes(vec![Note::warning(Text::plain("run ").code("sweep x"))]));
        let mut table = Table::new(vec!["rows".into(), "mean (tok/s)".into()]);
        table.push(vec!["512".into(), "876 ± 28".into()]);
        document.push(Section::new("Figures").figure(Some("<svg/>".into()), "a plot"));
        document.push(Section::new("prefill").table(table));
        assert_eq!(
            terminal_text(&document),
            "slices\n======\n\nWhat to trust\n-------------\n\n- WARNING: run `sweep x`\n\nprefill\n-------\n\n\
             rows  mean (tok/s)\n----  ------------\n512   876 ± 28\n"
        );
    }

    #[test]
    fn sections_blocks_and_padded_tables() {
        let mut document = Document::new("t");
        document.push(Section::lead().paragraph(Text::plain("Primary metric: ").code("x").and(".")));
        document.push(Section::new("What to trust").notes(vec![Note::warning("drift"), Note::info("ok")]));
        let mut table = Table::new(vec!["slices".into(), "mean".into()]);
        table.push(vec!["1".into(), "a|b".into()]);
        document.push(Section::new("Figures").figure(Some("<svg/>".into()), "a plot"));
        document.push(Section::new("Table").table(table));
        assert_eq!(
            markdown(&document),
            "# t\n\nPrimary metric: `x`.\n\n## What to trust\n\n- WARNING: drift\n- ok\n\n## Table\n\n\
             | slices | mean |\n| ------ | ---- |\n| 1      | a\\|b |\n"
        );
    }
}
