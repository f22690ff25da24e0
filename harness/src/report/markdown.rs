//! The markdown renderer of a `Document`: the `<stamp>.summary.md` file (figures are left to the page).

use super::block::Block;
use super::document::Document;
use super::table::Table;

/// `# title`, then each section as `## heading` and its blocks, a blank line between blocks.
pub fn markdown(document: &Document) -> String {
    let mut out = format!("# {}\n", document.title);
    for section in document.text_sections() {
        if let Some(heading) = &section.heading {
            out.push_str(&format!("\n## {heading}\n"));
        }
        for block in section.text_blocks() {
            out.push('\n');
            out.push_str(&block_markdown(block));
        }
    }
    out
}

fn block_markdown(block: &Block) -> String {
    match block {
        Block::Paragraph(text) => format!("{}\n", text.with_backticks()),
        Block::Items(items) => items.iter().map(|item| format!("- {}\n", item.with_backticks())).collect(),
        Block::Notes(notes) => notes.iter().map(|note| format!("- {}\n", note.with_backticks())).collect(),
        Block::Table(table) => table_markdown(table),
        Block::Figure(_) => String::new(),
    }
}

/// A pipe table with columns padded to their widest cell (at least the three dashes of the rule), so the
/// source reads as a table too; a `|` inside a cell is escaped so it cannot split the cell.
fn table_markdown(table: &Table) -> String {
    let escaped = |cell: &str| cell.replace('|', "\\|");
    let widths = table.widths(escaped, 3);
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(cell, w)| format!("{:<w$}", escaped(cell))).collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let mut out = line(table.header());
    out.push_str(&format!("| {} |\n", rule.join(" | ")));
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
