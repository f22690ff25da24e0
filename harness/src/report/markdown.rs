//! The markdown renderer of a `Document`: the `<stamp>.summary.md` file (figures are left to the page).

use super::document::Document;
use super::table::Table;

/// `# title`, then each section as `## heading` and its blocks, a blank line between blocks.
pub fn markdown(document: &Document) -> String {
    document.text(|text, level| format!("{} {text}\n", "#".repeat(level)), table_markdown)
}

/// A pipe table with columns padded to their widest cell (at least the three dashes of the rule), so the
/// source reads as a table too; a `|` inside a cell is escaped so it cannot split the cell.
fn table_markdown(table: &Table) -> String {
    table.laid_out(|cell| cell.replace('|', "\\|"), 3, |cells| format!("| {} |\n", cells.join(" | ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::document::{Note, Section};
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
