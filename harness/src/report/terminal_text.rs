//! The terminal renderer of a `Document`: what `run`, `report`, `ablate` and `compare` print. Headings are
//! underlined, tables are columns two spaces apart under a ruled header: no markup to read past.

use super::block::Block;
use super::document::Document;
use super::table::Table;

/// The title underlined with `=`, each section's heading with `-`, a blank line between blocks.
pub fn terminal_text(document: &Document) -> String {
    let mut out = underlined(&document.title, '=');
    for section in document.text_sections() {
        if let Some(heading) = &section.heading {
            out.push('\n');
            out.push_str(&underlined(heading, '-'));
        }
        for block in section.text_blocks() {
            out.push('\n');
            out.push_str(&block_text(block));
        }
    }
    out
}

fn underlined(text: &str, rule: char) -> String {
    format!("{text}\n{}\n", rule.to_string().repeat(text.chars().count()))
}

fn block_text(block: &Block) -> String {
    match block {
        Block::Paragraph(text) => format!("{}\n", text.with_backticks()),
        Block::Items(items) => items.iter().map(|item| format!("- {}\n", item.with_backticks())).collect(),
        Block::Notes(notes) => notes.iter().map(|note| format!("- {}\n", note.with_backticks())).collect(),
        Block::Table(table) => table_text(table),
        Block::Figure(_) => String::new(),
    }
}

/// Columns padded to their widest cell, two spaces apart, the header ruled with dashes; trailing spaces
/// trimmed.
fn table_text(table: &Table) -> String {
    let widths = table.widths(str::to_string, 1);
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let mut out = line(table.header());
    out.push_str(&line(&rule));
    table.rows().iter().for_each(|row| out.push_str(&line(row)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::note::Note;
    use crate::report::section::Section;
    use crate::report::text::Text;

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
}
