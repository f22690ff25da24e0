//! The terminal renderer of a `Document`: what `run`, `report`, `ablate` and `compare` print. Headings are
//! underlined, tables are columns two spaces apart under a ruled header: no markup to read past.

use super::document::Document;
use super::table::Table;

/// The title underlined with `=`, each section's heading with `-`, a blank line between blocks.
pub fn terminal_text(document: &Document) -> String {
    let underlined = |text: &str, level: usize| {
        let rule = if level == 1 { "=" } else { "-" };
        format!("{text}\n{}\n", rule.repeat(text.chars().count()))
    };
    document.text(underlined, table_text)
}

/// Columns padded to their widest cell, two spaces apart, the header ruled with dashes; trailing spaces
/// trimmed.
fn table_text(table: &Table) -> String {
    table.laid_out(str::to_string, 1, |cells| format!("{}\n", cells.join("  ").trim_end()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::document::{Note, Section};
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
